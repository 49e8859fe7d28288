"""Switches for the backends' algorithm choices, like torch.backends."""

from ember.backends import cpu, cuda, cudnn, mps

__all__ = ["cpu", "cuda", "cudnn", "mps"]
