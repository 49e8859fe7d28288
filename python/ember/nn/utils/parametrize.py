"""nn.utils.parametrize: a tensor of a module computed from other parameters on every access
(`module.weight` becomes `f(module.parametrizations.weight.original)`), as PyTorch's.

register_parametrization swaps the module's class for a subclass with a property per
parametrized name, and keeps the originals in `module.parametrizations[name]`, a
ParametrizationList; state_dict keys are PyTorch's (`parametrizations.weight.original`, or
`original0`, `original1`, ... when `right_inverse` returns several tensors).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import ember
from ember.nn.modules.container import ModuleDict, ModuleList
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Within this block each parametrized tensor is computed once per module and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _as_parameter_like(new, like):
    if isinstance(like, Parameter):
        return Parameter(new.detach().clone(), requires_grad=like.requires_grad)
    return new.detach().clone()


def _assign(original, new):
    """original's values become new's (a new tensor when the shape changes)."""
    if tuple(original.shape) == tuple(new.shape) and original.dtype == new.dtype:
        with ember.no_grad():
            original.copy_(new)
        return original
    return _as_parameter_like(new, original)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with ember.no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
        if isinstance(new, ember.Tensor):
            self.is_tensor = True
            self.ntensors = 1
            original = _assign(original, new)
            if isinstance(original, Parameter):
                self.register_parameter("original", original)
            else:
                self.register_buffer("original", original)
        elif isinstance(new, (tuple, list)):
            self.is_tensor = False
            self.ntensors = len(new)
            for i, t in enumerate(new):
                if not isinstance(t, ember.Tensor):
                    raise ValueError(
                        f"'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type {type(t)}."
                    )
                value = _as_parameter_like(t, original)
                if isinstance(value, Parameter):
                    self.register_parameter(f"original{i}", value)
                else:
                    self.register_buffer(f"original{i}", value)
        else:
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        if not unsafe:
            out = self()
            if not isinstance(out, ember.Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor. Got {type(out).__name__}."
                )

    def right_inverse(self, value) -> None:
        """Sets the originals so that the parametrized tensor becomes `value`."""
        with ember.no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
            if self.is_tensor:
                if tuple(value.shape) != tuple(self.original.shape):
                    raise ValueError(
                        f"When `right_inverse` outputs one tensor, it may not change the shape.\n"
                        f"original.shape: {tuple(self.original.shape)}\n"
                        f"right_inverse(value).shape: {tuple(value.shape)}"
                    )
                self.original.copy_(value)
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

    def forward(self) -> Any:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    cls = module.__class__

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict()."
        )

    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    return tensor_name is None or tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Makes module.<tensor_name> the output of `parametrization` applied to the original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            before = getattr(module, tensor_name)
            after = parametrization(before)
            if not isinstance(after, ember.Tensor) or tuple(after.shape) != tuple(before.shape):
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled."
                )
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undoes register_parametrization: the tensor becomes a parameter (or buffer) again, with
    its current parametrized value (leave_parametrized) or its original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with ember.no_grad():
                t = getattr(module, tensor_name)
            original = _assign(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        with ember.no_grad():
            t = getattr(module, tensor_name)
        original = (
            Parameter(t.detach().clone(), requires_grad=plist.original0.requires_grad)
            if (isinstance(plist.original0, Parameter))
            else t.detach().clone()
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module) or len(module.parametrizations) == 0:
        del module._modules["parametrizations"]
        module.__class__ = module.__class__.__bases__[0]
    return module


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Copies the parametrizations (and their originals) of from_module onto to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if tensor_name else list(from_module.parametrizations)
    for name in names:
        src = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            if not hasattr(to_module, name):
                to_module.register_parameter(
                    name, Parameter(getattr(from_module, name).detach().clone())
                )
            for p in src:
                register_parametrization(to_module, name, p, unsafe=True)
        dst = to_module.parametrizations[name]
        with ember.no_grad():
            if src.is_tensor:
                dst.original = _assign(dst.original, src.original)
            else:
                for i in range(src.ntensors):
                    getattr(dst, f"original{i}").copy_(getattr(src, f"original{i}"))
    return to_module
