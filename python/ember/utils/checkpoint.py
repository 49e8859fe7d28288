"""torch.utils.checkpoint: activation checkpointing. The checkpointed function runs without
recording its graph (its intermediate activations are freed), and runs again in backward to
rebuild that graph: memory for compute.

How: a custom Function runs `function` under no_grad in forward, keeping only its inputs and the
random-number state; its backward restores that state, runs `function` again with grad on and
back-propagates the incoming gradients through the rebuilt graph. Parameters used inside get
their gradients accumulated into .grad during that inner backward. A hidden input that requires
grad is always passed to the Function, so the outputs require grad, and the parameters get
gradients, even when no input does: the behaviour of PyTorch's `use_reentrant=False`, which its
documentation recommends. What ember does not do (it has no saved-tensor hooks yet):
`ember.autograd.grad` with parameters of the checkpointed function as `inputs` (their gradients
go to .grad, as with PyTorch's reentrant variant), and recomputing only up to the tensors
backward needs (the whole function runs again).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import ember
from ember import _C
from ember.autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential"]

Tensor = _C.Tensor


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, run, preserve_rng_state, kwargs, _anchor, *args):
        ctx.run, ctx.kwargs = run, kwargs
        ctx.rng_state = ember.get_rng_state() if preserve_rng_state else None
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        out = run(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(o.detach() if isinstance(o, Tensor) else o for o in out)
        return out.detach()

    @staticmethod
    def backward(ctx, *grads):
        tensors = iter(ctx.saved_tensors)
        args, inputs = [], []
        for a in ctx.args:
            if a is None:
                t = next(tensors)
                x = t.detach()
                x.requires_grad_(t.requires_grad)
                args.append(x)
                inputs.append(x)
            else:
                args.append(a)
        current = ember.get_rng_state() if ctx.rng_state is not None else None
        if ctx.rng_state is not None:
            ember.set_rng_state(ctx.rng_state)
        try:
            with ember.enable_grad():
                out = ctx.run(*args, **ctx.kwargs)
        finally:
            if current is not None:
                ember.set_rng_state(current)
        outs = out if isinstance(out, tuple) else (out,)
        pairs = [
            (o, g)
            for o, g in zip(outs, grads)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        if pairs:
            ember.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads_in = iter(x.grad if x.requires_grad else None for x in inputs)
        arg_grads = tuple(next(grads_in) if a is None else None for a in ctx.args)
        return (None, None, None, None, *arg_grads)


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable | None = None,
    determinism_check: str = "default",
    debug: bool = False,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """function(*args, **kwargs), recomputed in backward instead of keeping its activations."""
    if use_reentrant is None:
        warnings.warn(
            "ember.utils.checkpoint: the use_reentrant parameter should be passed explicitly; "
            "ember runs the same mechanism either way (see the module's documentation).",
            UserWarning,
            stacklevel=2,
        )
    if context_fn is not None:
        raise NotImplementedError("ember.utils.checkpoint: context_fn is not supported")
    if not _C.is_grad_enabled():
        return function(*args, **kwargs)
    anchor = _C.zeros((), requires_grad=True)
    return _Checkpoint.apply(function, preserve_rng_state, kwargs, anchor, *args)


def checkpoint_sequential(
    functions: Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Runs a Sequential (or a list of modules) in `segments` chunks, each checkpointed but the
    last, which runs normally, as in PyTorch."""
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if segments <= 0:
        raise ValueError(f"checkpoint_sequential: segments must be positive, got {segments}")
    size = max(len(fns) // segments, 1)

    def run(start: int, end: int) -> Callable:
        def forward(x):
            for f in fns[start:end]:
                x = f(x)
            return x

        return forward

    start = 0
    for _ in range(segments - 1):
        if start + size >= len(fns):
            break
        reentrant = False if use_reentrant is None else use_reentrant
        input = checkpoint(run(start, start + size), input, use_reentrant=reentrant, **kwargs)
        start += size
    return run(start, len(fns))(input)
