"""Test helpers (ember.testing.assert_close, as torch.testing)."""

from ember.testing._compare import assert_close

__all__ = ["assert_close"]
