"""optim: adagrad; the update is one fused multi-tensor C++ call per step."""

__all__: list[str] = []
