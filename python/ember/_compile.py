"""ember.compile: torch.compile's signature, run eagerly.

ember has no graph compiler. `compile` returns what it is given (a module or a function),
unchanged, which is what torch.compile(backend="eager") amounts to: the program runs exactly as it
would without the call. It exists so that `model = torch.compile(model)` in a training script
costs nothing instead of stopping it.
"""

__all__ = ["compile"]


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
):
    if model is None:  # used as @ember.compile(...)
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError(
            f"ember.compile: expected a module or a callable, got {type(model).__name__}"
        )
    return model
