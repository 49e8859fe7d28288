"""utils.data: dataloader."""

__all__: list[str] = []
