"""utils.data: dataset."""

__all__: list[str] = []
