"""ember.signal: torch.signal's window functions (ember.signal.windows)."""

from ember.signal import windows

__all__ = ["windows"]
