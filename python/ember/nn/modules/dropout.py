"""nn layers: dropout."""

__all__: list[str] = []
