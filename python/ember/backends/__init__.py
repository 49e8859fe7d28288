"""Switches for the backends' algorithm choices, like torch.backends."""

from ember.backends import cpu

__all__ = ["cpu"]
