"""ember.func: torch.func's function transforms, on ember's reverse-mode autograd.

grad, grad_and_value, vjp, jacrev and hessian differentiate by running the function once more
with autograd (create_graph=True, so transforms compose: grad(grad(f)) works); jvp and jacfwd use
the double-backward trick (ember has no forward-mode AD), so they give the same numbers at
reverse-mode cost. vmap maps a function over a dimension by calling it once per slice and
stacking the results: PyTorch's semantics without its batching rules, so it is as fast as the
loop it replaces, no faster.
"""

from __future__ import annotations

from typing import Any, Callable

from ember import _C
from ember.autograd import functional as _F
from ember.autograd import grad as _autograd_grad
from ember.autograd.grad_mode import enable_grad
from ember.nn.utils.stateless import functional_call

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "vjp",
    "vmap",
]

Tensor = _C.Tensor


def _select(args, argnums):
    return (args[argnums],) if isinstance(argnums, int) else tuple(args[i] for i in argnums)


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """A function returning (the gradient of func's scalar output with respect to the argnums
    arguments, func's output)."""

    def wrapper(*args, **kwargs):
        with enable_grad():
            args = list(args)
            nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
            # Inside another transform (grad of grad) the inputs already require grad: keep the
            # graph of the gradient then, and only then.
            nested = any(isinstance(args[i], Tensor) and args[i].requires_grad for i in nums)
            for i in nums:
                x = args[i]
                if not isinstance(x, Tensor):
                    raise RuntimeError(f"grad: argument {i} is a {type(x).__name__}, not a tensor")
                if not x.requires_grad:
                    args[i] = x.detach().requires_grad_(True)
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = out
            if not isinstance(out, Tensor) or out.numel() != 1:
                got = f"shape {list(out.shape)}" if isinstance(out, Tensor) else type(out).__name__
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"{got}"
                )
            inputs = [args[i] for i in nums]
            gs = _autograd_grad(out, inputs, create_graph=nested, allow_unused=True)
            gs = tuple(_C.zeros_like(x) if g is None else g for g, x in zip(gs, inputs))
            if not nested:
                out = out.detach()
        g = gs[0] if isinstance(argnums, int) else gs
        return (g, (out, aux)) if has_aux else (g, out)

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """The gradient function of a scalar func (torch.func.grad)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False):
    """(func(*primals), a function from cotangents to the vector-Jacobian products)."""
    with enable_grad():
        xs = tuple(p.detach().requires_grad_(True) if isinstance(p, Tensor) else p for p in primals)
        out = func(*xs)
        aux = None
        if has_aux:
            out, aux = out

    def vjp_fn(*cotangents):
        outs = out if isinstance(out, tuple) else (out,)
        cts = cotangents if isinstance(out, tuple) else cotangents[:1]
        with enable_grad():
            gs = _autograd_grad(
                list(outs),
                [x for x in xs if isinstance(x, Tensor)],
                list(cts),
                retain_graph=True,
                create_graph=True,
                allow_unused=True,
            )
        it = iter(gs)
        return tuple(
            (lambda g, x: _C.zeros_like(x) if g is None else g)(next(it), x)
            if isinstance(x, Tensor)
            else None
            for x in xs
        )

    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(func: Callable, primals: tuple, tangents: tuple, *, has_aux: bool = False):
    """(func(*primals), the Jacobian-vector product with tangents)."""
    if has_aux:
        raise NotImplementedError("ember.func.jvp: has_aux is not supported")
    out, jv = _F.jvp(func, tuple(primals), tuple(tangents), create_graph=True)
    return out, jv


def jacrev(func: Callable, argnums: int | tuple = 0, *, has_aux: bool = False) -> Callable:
    """The Jacobian function of func with respect to the argnums arguments."""
    if has_aux:
        raise NotImplementedError("ember.func.jacrev: has_aux is not supported")

    def wrapper(*args):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

        def partial(*chosen):
            full = list(args)
            for i, c in zip(nums, chosen):
                full[i] = c
            return func(*full)

        chosen = tuple(args[i] for i in nums)
        jac = _F.jacobian(partial, chosen if len(chosen) > 1 else chosen[0], create_graph=True)
        if isinstance(argnums, int):
            return jac[0] if isinstance(jac, tuple) and len(nums) > 1 else jac
        return jac

    return wrapper


jacfwd = jacrev


def hessian(func: Callable, argnums: int | tuple = 0) -> Callable:
    return jacrev(jacrev(func, argnums), argnums)


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """func mapped over dimension in_dims of its tensor arguments (None: not mapped), the
    results stacked along out_dims."""

    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"vmap: in_dims has {len(dims)} entries, but the function got {len(args)} arguments"
            )
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, Tensor)}
        if not sizes:
            raise ValueError("vmap: at least one argument must be mapped over (in_dims)")
        if len(sizes) > 1:
            raise ValueError(
                f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"sizes {sorted(sizes)} for the mapped dimension"
            )
        (n,) = sizes
        results = []
        for i in range(n):
            sliced = [
                a.select(d, i) if d is not None and isinstance(a, Tensor) else a
                for a, d in zip(args, dims)
            ]
            results.append(func(*sliced, **kwargs))
        first = results[0]
        if isinstance(first, tuple):
            od = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
            return tuple(_C.stack([r[k] for r in results], od[k]) for k in range(len(first)))
        return _C.stack(results, out_dims)

    return wrapper
