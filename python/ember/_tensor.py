"""Tensor methods written in Python: protocol methods that need no speed."""

from ember import _C

Tensor = _C.Tensor


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def _format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def _deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    out = self.detach().clone()
    out.requires_grad_(self.requires_grad)
    if self.grad is not None:
        out.grad = self.grad.detach().clone()
    memo[id(self)] = out
    return out


def _reversed(self):
    if self.dim() == 0:
        return self
    return (self[i] for i in range(self.shape[0] - 1, -1, -1))


Tensor.__iter__ = _iter
Tensor.__format__ = _format
Tensor.__deepcopy__ = _deepcopy
Tensor.__reversed__ = _reversed
Tensor.__array_priority__ = 1000  # NumPy defers to Tensor's reflected operators
