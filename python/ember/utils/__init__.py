"""ember.utils: data loading (ember.utils.data), activation checkpointing (checkpoint)."""

from ember.utils import checkpoint, data, tensorboard  # noqa: F401
