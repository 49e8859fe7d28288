"""nn layers: normalization."""

__all__: list[str] = []
