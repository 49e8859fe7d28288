"""Switches for the backends' algorithm choices, like torch.backends."""

from ember.backends import cpu, cudnn

__all__ = ["cpu", "cudnn"]
