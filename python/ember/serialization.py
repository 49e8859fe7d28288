"""ember.save / ember.load: checkpoints in the safetensors format (no pickle)."""

__all__: list[str] = []
