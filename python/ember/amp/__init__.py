"""ember.amp: mixed-precision training helpers, as torch.amp.

GradScaler is here; autocast (running chosen ops in bfloat16 or float16) is issue 20 and not
built yet.
"""

from ember.amp.grad_scaler import GradScaler

__all__ = ["GradScaler"]
