"""nn.Module: the base class of every layer (registration, traversal, state dicts, hooks).

Behaviour follows torch.nn.Module: the same attribute rules, traversal orders, state-dict keys
and error messages, hook signatures and `__repr__` layout. See docs/design/nn_module.md.
"""

import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ember import _C
from ember._frontend import typename as _typename
from ember.autograd.grad_mode import no_grad
from ember.nn.parameter import Buffer, Parameter
from ember.utils.hooks import BackwardHook, RemovableHandle

Tensor = _C.Tensor

# Only Module is star-exported into ember.nn (as torch.nn); the register_module_*_hook
# functions are reached as ember.nn.modules.module.<name>, as in PyTorch.
__all__ = ["Module"]

# Hooks that apply to every module (torch.nn.modules.module.register_module_*_hook).
_global_forward_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_forward_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_forward_hooks_always_called: "OrderedDict[int, bool]" = OrderedDict()
_global_forward_hooks_with_kwargs: "OrderedDict[int, bool]" = OrderedDict()
_global_backward_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_backward_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_buffer_registration_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_module_registration_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_parameter_registration_hooks: "OrderedDict[int, Callable]" = OrderedDict()

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _addindent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: (missing_keys, unexpected_keys)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _add_hook(hooks: dict, hook: Callable, prepend: bool, extra: Any = None) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """A forward pre-hook run before every module's own (torch's global hook)."""
    return _add_hook(_global_forward_pre_hooks, hook, False)


def register_module_forward_hook(
    hook: Callable, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """A forward hook run before every module's own forward hooks (torch's global hook)."""
    handle = _add_hook(
        _global_forward_hooks,
        hook,
        False,
        [_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs],
    )
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    return _add_hook(_global_backward_pre_hooks, hook, False)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    return _add_hook(_global_backward_hooks, hook, False)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    raise NotImplementedError(
        "register_module_backward_hook: ember supports only full backward hooks; "
        "use register_module_full_backward_hook"
    )


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, buffer) -> None or a new buffer, run by every register_buffer."""
    return _add_hook(_global_buffer_registration_hooks, hook, False)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, submodule) -> None or a new submodule, run by every add_module."""
    return _add_hook(_global_module_registration_hooks, hook, False)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """hook(module, name, param) -> None or a new parameter, run by every register_parameter."""
    return _add_hook(_global_parameter_registration_hooks, hook, False)


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class of all neural-network modules, as torch.nn.Module.

    Subclasses call `super().__init__()` first, then assign parameters (nn.Parameter), buffers
    (register_buffer or nn.Buffer) and submodules as attributes, and define `forward`. Calling
    the module runs its hooks (if any) around `forward`.
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    forward: Callable[..., Any] = _forward_unimplemented

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__ skips Module.__setattr__'s checks (and its cost) for the bookkeeping.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ---------------------------------------------------------------- registration

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer: module state that is not a parameter (such as BatchNorm's running
        mean). Persistent buffers are part of the state dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(ember Tensor or None required)"
            )
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or None, a declared but absent parameter such as a missing bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(ember.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Adds a child module, reachable as an attribute under `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: "Module | None") -> None:
        """Alias of add_module."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path such as 'net.0.conv'; '' is the module itself."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replaces (or, unless strict, adds) the submodule at a dotted path."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path such as 'net.0.weight'."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path such as 'bn.running_mean'."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Extra state for the state dict; subclasses that override it also override
        set_extra_state, and the state dict then has a '<prefix>_extra_state' entry."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    # ---------------------------------------------------------------- attributes

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters, buffers and modules live in dicts.
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts_or_sets: Any) -> None:
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(
                self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set
            )
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(ember.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(
                    self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set
                )
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_typename(value)}' as child module '{name}' "
                        "(ember.nn.Module or None expected)"
                    )
                for hook in _global_module_registration_hooks.values():
                    output = hook(self, name, value)
                    if output is not None:
                        value = output
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(ember.nn.Buffer, ember.Tensor or None expected)"
                        )
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() call")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    # register_buffer refuses names that exist as plain attributes: drop them.
                    remove_from(self.__dict__)
                    self.register_buffer(name, value, persistent)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        keys = (
            dir(self.__class__)
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        # Numbered children (Sequential's '0', '1', ...) are not valid attribute names.
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        # Modules pickled by older versions may lack the newer bookkeeping dicts.
        for name in (
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
            "_backward_pre_hooks",
            "_backward_hooks",
        ):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self.__dict__["_non_persistent_buffers_set"] = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self.__dict__["_is_full_backward_hook"] = None

    # ---------------------------------------------------------------- traversal

    def _named_members(
        self,
        get_members_fn: Callable,
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        # The memo holds ids: a Tensor's == is elementwise, so tensors cannot go in a set.
        memo: set[int] = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and, with recurse, of its submodules), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, in registration order, depth first."""
        return self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        memo: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, "Module"]]:
        """This module and all below it, depth first, each once (unless remove_duplicate is
        False)."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---------------------------------------------------------------- modes and grads

    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the parameters' gradients: sets them to None (default) or zeroes them."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Calls fn on every submodule (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---------------------------------------------------------------- conversions

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """Applies fn to every parameter, gradient and buffer. Parameters keep their identity
        (their data is replaced, `param.data = fn(param)`), so optimizers and other holders of
        the Parameter objects stay valid; buffers are replaced by fn's results."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param.data = param_applied
            grad = param.grad
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                grad_applied.requires_grad_(grad.requires_grad)
                param.grad = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Moves and/or casts parameters and buffers: to(device), to(dtype), to(device, dtype),
        to(tensor), and memory_format= (applied to 4-D and 5-D tensors). Only floating-point
        tensors change dtype, as in PyTorch."""
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            kwargs: dict[str, Any] = {"device": device, "non_blocking": non_blocking}
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kwargs["dtype"] = dtype
            if memory_format is not None and t.dim() in (4, 5):
                kwargs["memory_format"] = memory_format
            return t.to(**kwargs)

        return self._apply(convert)

    def to_empty(self, *, device: Any = None, recurse: bool = True) -> "Module":
        """Replaces every parameter's and buffer's data by uninitialised memory of the same
        shape and dtype on device (the parameters keep their identity)."""
        if device is None:
            device = "cpu"
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse=recurse)

    def _cast_floating(self, dtype: Any) -> "Module":
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> "Module":
        return self._cast_floating(_C.float32)

    def double(self) -> "Module":
        return self._cast_floating(_C.float64)

    def half(self) -> "Module":
        return self._cast_floating(_C.float16)

    def bfloat16(self) -> "Module":
        return self._cast_floating(_C.bfloat16)

    def type(self, dst_type: Any) -> "Module":
        """Casts every parameter and buffer (integer ones included) to dst_type."""
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.to("cpu"))

    def share_memory(self) -> "Module":
        """Moves every parameter and buffer into shared memory, in place (Tensor.share_memory_),
        so that processes given this module (ember.multiprocessing) update the same values."""
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device: Any = None) -> "Module":
        target = "cuda" if device is None else device
        if isinstance(target, int):
            target = f"cuda:{target}"
        return self._apply(lambda t: t.to(target))

    # ---------------------------------------------------------------- calling

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        # The common case, no hooks at all, costs eight dict truth tests per call.
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    __call__: Callable[..., Any] = _call_impl

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        called_always_called_hooks: set[int] = set()
        try:
            for hook_id, hook in (
                *_global_forward_pre_hooks.items(),
                *self._forward_pre_hooks.items(),
            ):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    args_kwargs_result = hook(self, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {args_kwargs_result}."
                            )
                else:
                    args_result = hook(self, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result

            full_backward_hooks = [*_global_backward_hooks.values(), *self._backward_hooks.values()]
            backward_pre_hooks = [
                *_global_backward_pre_hooks.values(),
                *self._backward_pre_hooks.values(),
            ]
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = self.forward(*args, **kwargs)

            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if (
                    hook_id in self._forward_hooks_always_called
                    or hook_id in _global_forward_hooks_always_called
                ):
                    called_always_called_hooks.add(hook_id)
                if (
                    hook_id in self._forward_hooks_with_kwargs
                    or hook_id in _global_forward_hooks_with_kwargs
                ):
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result

            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or "
                        f"a tuple of Tensors but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            # Hooks registered with always_call=True run even when forward raised.
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in called_always_called_hooks:
                    continue
                if (
                    hook_id in self._forward_hooks_always_called
                    or hook_id in _global_forward_hooks_always_called
                ):
                    try:
                        if (
                            hook_id in self._forward_hooks_with_kwargs
                            or hook_id in _global_forward_hooks_with_kwargs
                        ):
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception as e:
                        warnings.warn(
                            "global module forward hook with ``always_call=True`` raised an "
                            f"exception that was silenced as another error was raised in "
                            f"forward: {e}",
                            stacklevel=2,
                        )
            raise

    # ---------------------------------------------------------------- hooks

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """hook(module, args) -> None or new args (a non-tuple is wrapped in a 1-tuple); with
        with_kwargs, hook(module, args, kwargs) -> None or (new_args, new_kwargs)."""
        handle = _add_hook(
            self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs
        )
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """hook(module, args, output) -> None or a replacement output; with with_kwargs,
        hook(module, args, kwargs, output)."""
        handle = _add_hook(
            self._forward_hooks,
            hook,
            prepend,
            [self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """hook(module, grad_output) -> None or a replacement grad_output, run when the
        gradients with respect to the module's outputs are computed."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or a replacement grad_input, run when
        the gradients with respect to the module's inputs are computed. grad_input has one
        entry per positional input (None for non-tensors and inputs without gradient)."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        raise NotImplementedError(
            f"{self._get_name()}.register_backward_hook: the deprecated non-full backward hook "
            "is not supported in ember; use register_full_backward_hook"
        )

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, prefix, keep_vars), run before state_dict saves this module."""
        return _add_hook(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata), run after this module's entries
        are saved; it may change state_dict in place."""
        return _add_hook(self._state_dict_hooks, hook, False)

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs), run before this module loads its entries."""
        return _add_hook(self._load_state_dict_pre_hooks, functools.partial(hook, self), False)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable, with_module: bool = False
    ) -> RemovableHandle:
        if with_module:
            hook = functools.partial(hook, self)
        return _add_hook(self._load_state_dict_pre_hooks, hook, False)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, incompatible_keys), run after load_state_dict loaded this module and
        its children; it may edit incompatible_keys' lists in place."""
        return _add_hook(self._load_state_dict_post_hooks, hook, False)

    # ---------------------------------------------------------------- state dicts

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Saves this module's own parameters and persistent buffers (not its children's).
        Subclasses override it to save more (their entries keep torch's names)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> "OrderedDict[str, Any]":
        """An OrderedDict of every parameter and persistent buffer, keyed by dotted name, the
        tensors detached (unless keep_vars) but sharing storage with the module's."""
        if args:
            # torch's deprecated positional form state_dict(destination, prefix, keep_vars).
            if len(args) > 3:
                raise TypeError(
                    f"Module.state_dict() takes at most 3 positional arguments, got {len(args)}"
                )
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _load_from_state_dict(
        self,
        state_dict: Mapping,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """Loads this module's own parameters and persistent buffers from the entries of
        state_dict under prefix, recording problems in the three lists. Subclasses override it
        to accept older layouts (BatchNorm's num_batches_tracked)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent_buffers = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected ember.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}"
                )
                continue
            # Checkpoints of PyTorch 0.3 stored scalars as 1-element 1-d tensors.
            if len(param.shape) == 0 and len(input_param.shape) == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                    f"from checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(
                                    input_param, requires_grad=param.requires_grad
                                )
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{input_param.size()}, an exception occurred : {ex.args}."
                )

        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)

        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix) :].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def _load_recursive(
        self,
        local_state_dict: Mapping,
        prefix: str,
        metadata: Any,
        assign: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        self._load_from_state_dict(
            local_state_dict,
            prefix,
            local_metadata,
            True,
            missing_keys,
            unexpected_keys,
            error_msgs,
        )
        for name, child in self._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {
                    k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                }
                child._load_recursive(
                    child_state_dict,
                    child_prefix,
                    metadata,
                    assign,
                    missing_keys,
                    unexpected_keys,
                    error_msgs,
                )
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in self._load_state_dict_post_hooks.values():
            out = hook(self, incompatible_keys)
            if out is not None:
                raise RuntimeError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be "
                    "modified, it should be done inplace."
                )

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copies state_dict's tensors into this module's parameters and buffers (in place,
        without autograd history), or with assign=True makes them the module's tensors.

        Returns (missing_keys, unexpected_keys). With strict (the default), any missing or
        unexpected key raises RuntimeError; shape mismatches always do.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]

        self._load_recursive(
            state_dict, "", metadata, assign, missing_keys, unexpected_keys, error_msgs
        )

        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)
                    ),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    self.__class__.__name__, "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---------------------------------------------------------------- printing

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The module's own settings, printed inside its parentheses; subclasses override it
        (one line, or several)."""
        return ""

    def __repr__(self) -> str:
        extra_lines: list[str] = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, Any, bool, Any]:
    """(device, dtype, non_blocking, memory_format) from Module.to's forms: to(device=None,
    dtype=None, non_blocking=False), to(dtype, non_blocking=False), to(tensor,
    non_blocking=False), each with an optional memory_format= keyword."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"Module.to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], _C.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, _C.device))):
        device = rest.pop(0)
        if rest and isinstance(rest[0], _C.dtype):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(
            "Module.to() expects to(device=None, dtype=None, non_blocking=False), "
            f"to(dtype, non_blocking=False) or to(tensor, non_blocking=False); got arguments "
            f"{args}"
        )
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device)
    return device, dtype, non_blocking, memory_format
