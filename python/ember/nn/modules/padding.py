"""nn layers: padding."""

__all__: list[str] = []
