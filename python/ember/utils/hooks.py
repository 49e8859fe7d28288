"""Hook handles, as torch.utils.hooks: what every register_*_hook returns."""

import weakref
from collections.abc import Callable
from typing import Any

from ember import _C
from ember.autograd.function import Function

Tensor = _C.Tensor

__all__ = ["BackwardHook", "RemovableHandle"]


class RemovableHandle:
    """A handle to a hook stored in one or more dicts under one id; `remove()` takes it out.

    The dicts are held weakly (as in PyTorch), so a handle does not keep its module alive. It is
    also a context manager that removes the hook on exit.
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *args: Any) -> None:
        self.remove()


class _BackwardHookFunction(Function):
    """Identity on tensors whose backward calls `on_grads(grads)` and passes on what it
    returns: the point where a module's full backward hooks see (and may replace) gradients."""

    @staticmethod
    def forward(ctx: Any, on_grads: Callable, *tensors: Any) -> tuple:
        ctx.on_grads = on_grads
        # Aliases, not the inputs themselves: each output needs its own autograd identity.
        outs = tuple(Tensor(t) for t in tensors)
        ctx.mark_non_differentiable(*(o for o, t in zip(outs, tensors) if not t.requires_grad))
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return (None, *ctx.on_grads(grads))


class BackwardHook:
    """Runs a module's full backward pre-hooks and hooks, as torch.utils.hooks.BackwardHook.

    The module's tensor inputs and outputs are passed through _BackwardHookFunction. In
    backward the output node runs first: it records grad_output and runs the pre-hooks (which
    may replace it). The input node then runs the hooks with (grad_input, grad_output); a
    hook's result replaces grad_input. When no input requires grad, the output node runs the
    hooks with grad_input all None.
    """

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_outputs = -1
        self.output_tensors_index: list[int] | None = None
        self.n_inputs = -1
        self.input_tensors_index: list[int] | None = None

    @staticmethod
    def _pack_with_none(indices: list[int], values: tuple, size: int) -> tuple:
        res: list = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices: list[int], values: tuple) -> tuple:
        return tuple(values[idx] for idx in indices)

    def _wrap(self, args: tuple, on_grads: Callable) -> tuple[tuple, list[int] | None]:
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (_C.is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = _BackwardHookFunction.apply(on_grads, *tensors)
        out = list(args)
        for i, t in zip(tensors_idx, new_tensors):
            out[i] = t
        return tuple(out), tensors_idx

    def setup_input_hook(self, args: tuple) -> tuple:
        def on_grads(grad_inputs: tuple) -> tuple:
            if self.grad_outputs is None:
                # The gradient reached the inputs without passing through the outputs.
                return grad_inputs
            assert self.input_tensors_index is not None
            res = self._pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if not isinstance(out, tuple):
                    out = tuple(out) if isinstance(out, list) else (out,)
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got "
                        f"{len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        self.n_inputs = len(args)
        res, self.input_tensors_index = self._wrap(args, on_grads)
        return res

    def setup_output_hook(self, result: Any) -> Any:
        def on_grads(grad_outputs: tuple) -> tuple:
            assert self.output_tensors_index is not None
            self.grad_outputs = self._pack_with_none(
                self.output_tensors_index, grad_outputs, self.n_outputs
            )
            for pre_hook in self.user_pre_hooks:
                new = pre_hook(self.module, self.grad_outputs)
                if new is None:
                    continue
                if not isinstance(new, tuple):
                    new = tuple(new) if isinstance(new, list) else (new,)
                if len(new) != len(self.grad_outputs):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(new)}, but expected {len(self.grad_outputs)}"
                    )
                self.grad_outputs = new
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                # No input requires grad, so no input node will run: call the hooks here.
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (
                        isinstance(res, tuple) and all(el is None for el in res)
                    ):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient "
                            "should always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return self._unpack_none(self.output_tensors_index, local_grad_outputs)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        self.n_outputs = len(args)
        res, self.output_tensors_index = self._wrap(args, on_grads)
        return res if is_tuple else res[0]
