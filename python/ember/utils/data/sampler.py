"""utils.data: sampler."""

__all__: list[str] = []
