"""nn layers: batchnorm."""

__all__: list[str] = []
