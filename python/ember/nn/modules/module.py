"""nn.Module: the base class of every layer (registration, traversal, state dicts, hooks)."""

__all__: list[str] = []
