"""nn.Parameter and nn.Buffer: tensors that a Module registers when assigned as attributes."""

__all__: list[str] = []
