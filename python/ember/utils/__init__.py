"""ember.utils: data loading (ember.utils.data)."""

from ember.utils import data  # noqa: F401
