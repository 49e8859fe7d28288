"""nn layers: sparse."""

__all__: list[str] = []
