"""nn.Parameter and nn.Buffer: tensors that a Module registers when assigned as attributes."""

from ember import _C

Tensor = _C.Tensor

__all__ = ["Buffer", "Parameter"]


class Parameter(Tensor):
    """A tensor that is a module parameter, as torch.nn.Parameter.

    `Parameter(data)` aliases `data`'s storage without its history (ember.Tensor(t) is
    `t.detach()`), so the parameter is a leaf; `requires_grad` defaults to True. Assigning a
    Parameter as a Module attribute registers it in `module.parameters()`.
    """

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter: expected a Tensor or None as data, got {type(data).__name__}"
            )
        super().__init__(data)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


class Buffer(Tensor):
    """A tensor that a Module registers as a buffer when assigned as an attribute, as
    torch.nn.Buffer (PyTorch 2.5): `persistent=False` keeps it out of the state dict."""

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Buffer: expected a Tensor or None as data, got {type(data).__name__}")
        super().__init__(data)
        if data.requires_grad:
            self.requires_grad_(True)
        self.persistent = persistent
