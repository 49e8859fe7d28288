"""torch.autograd.Variable, the legacy wrapper that old tutorials still use.

Since PyTorch 0.4 a Variable is a Tensor: `Variable(t)` gives a tensor that shares `t`'s data,
a new leaf with `requires_grad` as asked, and `isinstance(x, Variable)` holds for every tensor.
`volatile` was removed then; it is accepted with PyTorch's warning and does nothing.
"""

import warnings

from ember import _C


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = _C.empty([0])
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


class Variable(metaclass=_VariableMeta):
    """Calling it returns a Tensor (see the module docstring); no Variable is ever made."""


class _ExecutionEngine:
    """Variable._execution_engine: the one method programs call on it."""

    @staticmethod
    def queue_callback(callback):
        """Runs `callback` when the backward running now has finished (an error outside
        backward); an exception it raises comes out of backward()."""
        _C._queue_callback(callback)


Variable._execution_engine = _ExecutionEngine()
