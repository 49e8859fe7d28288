"""optim: the Optimizer base class (parameter groups, state, state_dict) as torch.optim.Optimizer.

Subclasses gather each group's parameters that have gradients and make one fused C++ call per
group (ember._C._optim); this class holds everything that is not arithmetic.
"""

import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any

import ember

__all__ = ["Optimizer"]

_global_step_pre_hooks: OrderedDict[int, Any] = OrderedDict()
_global_step_post_hooks: OrderedDict[int, Any] = OrderedDict()
_hook_ids = itertools.count()


class _RemovableHandle:
    """What register_*_hook returns: remove() unregisters the hook (a context manager too)."""

    def __init__(self, hooks: OrderedDict[int, Any]) -> None:
        self._hooks = hooks
        self.id = next(_hook_ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> "_RemovableHandle":
        return self

    def __exit__(self, *args: Any) -> None:
        self.remove()


def _add_hook(hooks: OrderedDict[int, Any], hook: Any, prepend: bool = False) -> _RemovableHandle:
    handle = _RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Any) -> _RemovableHandle:
    """A hook(optimizer, args, kwargs) run before every optimizer's step()."""
    return _add_hook(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Any) -> _RemovableHandle:
    """A hook(optimizer, args, kwargs) run after every optimizer's step()."""
    return _add_hook(_global_step_post_hooks, hook)


def _with_step_hooks(func: Any) -> Any:
    """Wraps a class's step so that it runs the global and per-optimizer hooks around it."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        self = args[0]
        for pre in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                        f"{result}."
                    )
        out = func(*args, **kwargs)
        for post in chain(
            self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()
        ):
            post(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    if isinstance(obj, ember.Tensor):
        return f"ember.Tensor ({obj.dtype})"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _to_float(value: Any) -> float:
    """A hyper-parameter as a Python float: lr may also be a one-element tensor."""
    if isinstance(value, ember.Tensor):
        return float(value.item())
    return float(value)


class Optimizer:
    """Base class for all optimizers (torch.optim.Optimizer).

    params: an iterable of tensors, or of dicts that define parameter groups (each with "params"
    and any options that differ from ``defaults``).
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Any] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Any] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Any] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Any] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Any] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Any] = OrderedDict()
        # As PyTorch: the class's step is wrapped once, the first time an instance is made.
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)
        if isinstance(params, ember.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + _typename(params)
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a "
                "list instead. This will be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state: defaultdict[Any, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for kind in ("step", "state_dict", "load_state_dict"):  # absent after unpickling
            for when in ("pre", "post"):
                self.__dict__.setdefault(f"_optimizer_{kind}_{when}_hooks", OrderedDict())

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        s += ")"
        return s

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own options (the rest from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, ember.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            param_group["params"] = list(params)

        # (name, tensor) pairs, as model.named_parameters() gives them.
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, ember.Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        # PyTorch only warns here; ember refuses, because the fused update would write the same
        # memory twice in one parallel pass (a data race, not just a double step).
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            raise ValueError(
                f"{type(self).__name__}: a parameter group contains the same parameter more "
                "than once"
            )
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {kind} to the optimizer"
                )
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def register_step_pre_hook(self, hook: Any) -> _RemovableHandle:
        """hook(optimizer, args, kwargs) before step(); it may return new (args, kwargs)."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Any) -> _RemovableHandle:
        """hook(optimizer, args, kwargs) after step()."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Any, prepend: bool = False) -> _RemovableHandle:
        """hook(optimizer) before state_dict()."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Any, prepend: bool = False) -> _RemovableHandle:
        """hook(optimizer, state_dict) after state_dict(); it may return a new state dict."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Any, prepend: bool = False
    ) -> _RemovableHandle:
        """hook(optimizer, state_dict) before load_state_dict(); it may return a new dict."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Any, prepend: bool = False
    ) -> _RemovableHandle:
        """hook(optimizer) after load_state_dict()."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all parameters: to None (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure: Any = None) -> Any:
        """Performs one optimization step (subclasses implement it)."""
        raise NotImplementedError

    def _closure_loss(self, closure: Any) -> Any:
        if closure is None:
            return None
        with ember.enable_grad():
            return closure()

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's format: {"state": {id: {...}}, "param_groups": [{..., "params": [ids]}]}.

        Parameters are numbered across the groups in order; the state's tensors are the
        optimizer's own (not copies), as in PyTorch.
        """
        for pre in self._optimizer_state_dict_pre_hooks.values():
            pre(self)
        mapping: dict[int, int] = {}
        index = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal index
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], index):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            index += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        state = {
            (mapping[id(k)] if isinstance(k, ember.Tensor) else k): v for k, v in self.state.items()
        }
        sd = {"state": state, "param_groups": param_groups}
        for post in self._optimizer_state_dict_post_hooks.values():
            result = post(self, sd)
            if result is not None:
                sd = result
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state_dict() of an optimizer with the same group and parameter counts.

        State tensors are copied (cast to their parameter's dtype, except "step"), so the
        optimizer never shares memory with the dict it was loaded from.
        """
        state_dict = state_dict.copy()
        for pre in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group "
                "that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def cast(param: Any, value: Any, key: Any = None) -> Any:
            if isinstance(value, ember.Tensor):
                if key != "step" and param.is_floating_point():
                    value = value.to(dtype=param.dtype)
                return value.detach().clone()
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post in self._optimizer_load_state_dict_post_hooks.values():
            post(self)

    # ---- helpers for the subclasses ----------------------------------------------------------

    def _params_with_grad(self, group: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        """The group's parameters that have a gradient, and those gradients."""
        params, grads = [], []
        for p in group["params"]:
            g = p.grad
            if g is not None:
                params.append(p)
                grads.append(g)
        return params, grads


def _new_step() -> Any:
    """A fresh state['step']: a scalar tensor, float32 unless the default dtype is float64 (as
    PyTorch's non-fused optimizers keep it)."""
    dtype = ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32
    return ember.zeros((), dtype=dtype)


def _check_lr(lr: Any) -> None:
    if isinstance(lr, ember.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not _to_float(lr) >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_not_differentiable(cls: str, differentiable: bool) -> None:
    if differentiable:
        raise NotImplementedError(
            f"{cls}: differentiable=True is not supported (ember's optimizer steps are fused "
            "C++ updates outside autograd)"
        )


class _RealViews:
    """ember._C._optim with complex tensors seen as their (re, im) pairs: as PyTorch's optimizers
    do, a complex parameter is two independent real parameters (view_as_real of the parameter,
    its gradient and its state, which stays complex). A tensor a kernel returns for a complex
    parameter's slot (SGD's new momentum buffers) comes back complex."""

    def __getattr__(self, name: str) -> Any:
        fn = getattr(ember._C._optim, name)

        def call(params: list, *args: Any, **kwargs: Any) -> Any:
            if not any(p.is_complex() for p in params):
                return fn(params, *args, **kwargs)

            def real(a: Any) -> Any:
                if not isinstance(a, list):
                    return a
                return [
                    ember.view_as_real(t) if isinstance(t, ember.Tensor) and t.is_complex() else t
                    for t in a
                ]

            out = fn(real(params), *(real(a) for a in args), **kwargs)
            if isinstance(out, list):
                out = [
                    ember.view_as_complex(b)
                    if b is not None and p.is_complex() and not b.is_complex()
                    else b
                    for p, b in zip(params, out)
                ]
            return out

        setattr(self, name, call)  # found directly from now on, without __getattr__
        return call


_optim = _RealViews()
