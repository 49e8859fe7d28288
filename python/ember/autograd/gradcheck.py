"""Checks backward against central finite differences (torch.autograd.gradcheck)."""

import itertools
from collections.abc import Sequence
from typing import Callable, Optional

from ember import _C
from ember.autograd.grad_mode import enable_grad, no_grad

Tensor = _C.Tensor


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _as_real(func: Callable, inputs: tuple) -> tuple:
    """func and inputs seen as real: a complex input that requires grad becomes its (re, im)
    pairs (view_as_real) and a complex output is returned as its pairs. Under PyTorch's
    convention the gradient of a complex z = x + iy is dL/dx + i dL/dy, which is exactly the
    gradient of its pairs, so checking the real function checks the complex one."""
    complex_inputs = [
        k
        for k, x in enumerate(inputs)
        if isinstance(x, Tensor) and x.requires_grad and x.is_complex()
    ]
    real_inputs = list(inputs)
    for k in complex_inputs:
        real_inputs[k] = _C.view_as_real(inputs[k].detach()).clone().requires_grad_(True)

    def real_func(*args):
        args = list(args)
        for k in complex_inputs:
            args[k] = _C.view_as_complex(args[k])
        outs = _as_tuple(func(*args))
        return tuple(_C.view_as_real(o) if o.is_complex() else o for o in outs)

    return real_func, tuple(real_inputs)


def _indices(shape) -> Sequence[tuple]:
    return list(itertools.product(*(range(s) for s in shape)))


def _numerical_columns(func, inputs, k: int, eps: float) -> list:
    """d(outputs)/d(inputs[k]) by central differences: one list per input element, holding the
    flattened derivative of every output."""
    x = inputs[k].detach()  # shares memory: perturbing it perturbs the input
    columns = []
    with no_grad():
        for idx in _indices(x.shape):
            orig = x[idx].item()
            x[idx] = orig + eps
            plus = [o.detach().clone() for o in _as_tuple(func(*inputs))]
            x[idx] = orig - eps
            minus = [o.detach().clone() for o in _as_tuple(func(*inputs))]
            x[idx] = orig
            columns.append(
                [
                    ((p - m) / (2 * eps)).reshape(-1).tolist() if p.is_floating_point() else None
                    for p, m in zip(plus, minus)
                ]
            )
    return columns


def _analytical_rows(outputs, diff_inputs) -> list:
    """rows[o][j][k]: gradient of element j of output o with respect to diff input k (flat)."""
    rows = []
    for o in outputs:
        if not o.is_floating_point():
            rows.append(None)
            continue
        per_output = []
        for idx in _indices(o.shape):
            if not o.requires_grad:
                per_output.append([[0.0] * x.numel() for x in diff_inputs])
                continue
            seed = _C.zeros_like(o)
            seed[idx] = 1
            grads = _C._grad(o, diff_inputs, seed, True, False, True)
            per_output.append(
                [
                    [0.0] * x.numel() if g is None else g.reshape(-1).tolist()
                    for g, x in zip(grads, diff_inputs)
                ]
            )
        rows.append(per_output)
    return rows


def gradcheck(
    func: Callable,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_ignored,
) -> bool:
    """True if backward agrees with central finite differences for every input that requires
    grad; raises GradcheckError (or returns False) otherwise. Use float64 (or complex128)
    inputs; complex inputs and outputs are checked as their real and imaginary parts."""
    inputs = _as_tuple(inputs) if isinstance(inputs, (tuple, Tensor)) else tuple(inputs)
    func, inputs = _as_real(func, inputs)
    diff = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for k in diff:
        if inputs[k].dtype != _C.float64:
            import warnings

            warnings.warn(
                f"input {k} is {inputs[k].dtype}, not float64: gradcheck may fail from rounding",
                stacklevel=2,
            )
    outputs = _as_tuple(func(*inputs))
    analytical = _analytical_rows(outputs, [inputs[k] for k in diff])
    for pos, k in enumerate(diff):
        numerical = _numerical_columns(func, inputs, k, eps)
        for o, out in enumerate(outputs):
            if analytical[o] is None:
                continue
            for j in range(out.numel()):
                for i in range(inputs[k].numel()):
                    a = analytical[o][j][pos][i]
                    n = numerical[i][o][j]
                    if not abs(a - n) <= atol + rtol * abs(n):
                        if not raise_exception:
                            return False
                        num = _C.tensor(
                            [
                                [numerical[ii][o][jj] for jj in range(out.numel())]
                                for ii in range(inputs[k].numel())
                            ],
                            dtype=_C.float64,
                        )
                        ana = _C.tensor(
                            [
                                [analytical[o][jj][pos][ii] for jj in range(out.numel())]
                                for ii in range(inputs[k].numel())
                            ],
                            dtype=_C.float64,
                        )
                        raise GradcheckError(
                            f"Jacobian mismatch for output {o} with respect to input {k} at "
                            f"input element {i}, output element {j}: analytical {a!r}, "
                            f"numerical {n!r}\nnumerical:{num}\nanalytical:{ana}"
                        )
    return True


def gradgradcheck(
    func: Callable,
    inputs,
    grad_outputs: Optional[Sequence[Tensor]] = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **_ignored,
) -> bool:
    """gradcheck of the gradient itself: checks second derivatives (double backward)."""
    inputs = _as_tuple(inputs) if isinstance(inputs, (tuple, Tensor)) else tuple(inputs)
    func, inputs = _as_real(func, inputs)
    outputs = _as_tuple(func(*inputs))
    if grad_outputs is not None:
        grad_outputs = tuple(_C.view_as_real(g) if g.is_complex() else g for g in grad_outputs)
    if grad_outputs is None:
        gen = _C.Generator().manual_seed(0)
        grad_outputs = tuple(
            _C.randn(*o.shape, generator=gen, dtype=o.dtype, requires_grad=True)
            for o in outputs
            if o.is_floating_point() and o.requires_grad
        )
    n = len(inputs)

    def first_derivative(*args):
        # Differentiates even when gradcheck evaluates it under no_grad (finite differences).
        with enable_grad():
            ins, gouts = args[:n], args[n:]
            outs = [o for o in _as_tuple(func(*ins)) if o.is_floating_point() and o.requires_grad]
            diff = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
            grads = _C._grad(outs, diff, list(gouts), True, True, True)
            return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
