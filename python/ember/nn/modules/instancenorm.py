"""nn layers: instancenorm."""

__all__: list[str] = []
