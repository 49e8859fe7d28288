"""nn layers: loss."""

__all__: list[str] = []
