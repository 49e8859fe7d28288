"""nn layers: transformer."""

__all__: list[str] = []
