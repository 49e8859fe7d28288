"""nn.init: in-place initialisers with PyTorch's names, fan rules and gains."""

__all__: list[str] = []
