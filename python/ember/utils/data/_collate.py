"""utils.data: _collate."""

__all__: list[str] = []
