"""optim.lr_scheduler: PyTorch's learning-rate schedulers."""

__all__: list[str] = []
