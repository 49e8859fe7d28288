"""nn layers: distance."""

__all__: list[str] = []
