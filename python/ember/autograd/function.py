"""Custom differentiable functions: subclass Function, write forward and backward."""

from typing import Any

from ember import _C
from ember.autograd.grad_mode import no_grad

Tensor = _C.Tensor


class FunctionCtx:
    """The `ctx` passed to forward and backward: what forward leaves for backward."""

    def __init__(self):
        self.to_save: tuple = ()
        self.needs_input_grad: tuple = ()
        self._saved = None
        self._non_differentiable: list = []

    def save_for_backward(self, *tensors) -> None:
        """Keeps tensors for backward, checked against later in-place changes."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save tensors or None")
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(
                "saved_tensors can only be read in backward (after save_for_backward in forward)"
            )
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        """Outputs that get no gradient (such as indices)."""
        self._non_differentiable.extend(tensors)

    def mark_dirty(self, *tensors) -> None:
        raise NotImplementedError(
            "ember.autograd.Function does not support in-place forward (mark_dirty) yet"
        )

    def set_materialize_grads(self, value: bool) -> None:
        # ember always gives backward zero tensors for outputs that received no gradient.
        pass


class Function:
    """Base class of custom autograd functions, as torch.autograd.Function:

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

    forward may instead take only the inputs, with a separate
    `setup_context(ctx, inputs, output)` staticmethod, as in PyTorch 2.
    """

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement forward")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass must implement backward")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx._backward_fn = cls.backward
        grad_on = _C.is_grad_enabled()
        ctx.needs_input_grad = tuple(
            grad_on and isinstance(a, Tensor) and a.requires_grad for a in args
        )
        separate_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if separate_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        if any(ctx.needs_input_grad):
            outs = _C._attach_function(
                ctx,
                cls.__name__ + "Backward",
                args,
                outs,
                ctx._non_differentiable,
                tuple(ctx.to_save),
            )
        ctx.to_save = ()
        return tuple(outs) if is_tuple else outs[0]
