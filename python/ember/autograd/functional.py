"""torch.autograd.functional: derivatives of a whole function at a point (jacobian, hessian,
vjp, jvp, hvp, vhp), with PyTorch's signatures and output structure.

Each is built on ember.autograd.grad. jvp and hvp use the double-backward trick (the gradient
of a vector-Jacobian product with respect to its vector is the Jacobian-vector product), as
PyTorch's own functional API does, so they need the function's ops to have second derivatives.
`vectorize`, `strategy="forward-mode"` and `outer_jacobian_strategy` are accepted; the Jacobian
is always computed row by row in reverse mode.
"""

from __future__ import annotations

from typing import Any, Callable

from ember import _C
from ember.autograd import grad as _grad
from ember.autograd.grad_mode import enable_grad as _GradOn

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

Tensor = _C.Tensor


def _as_tuple(x, name, fn_name):
    if isinstance(x, Tensor):
        return (x,), False
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return tuple(x), True
    raise TypeError(
        f"The {name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
        f"given {name} has type {type(x).__name__}."
    )


def _prepare_inputs(inputs, create_graph):
    # Fresh leaves that require grad (views of the caller's tensors), so that the caller's own
    # graph is not touched unless create_graph asks for it.
    out = []
    for t in inputs:
        leaf = t if create_graph and t.requires_grad else t.detach()
        out.append(leaf.requires_grad_(True) if not leaf.requires_grad else leaf)
    return tuple(out)


def _grads(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """Gradients of outputs w.r.t. inputs, zeros where an input is unused."""
    needs = [o for o in outputs if o.requires_grad]
    outs = [o for o in outputs if o.requires_grad]
    vs = [v for o, v in zip(outputs, grad_outputs) if o.requires_grad]
    if not needs:
        return tuple(_C.zeros_like(i) for i in inputs)
    gs = _grad(
        outs,
        inputs,
        vs,
        retain_graph=True if retain_graph is None else retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )
    return tuple(_C.zeros_like(i) if g is None else g for g, i in zip(gs, inputs))


def _fill(structure, values, is_tuple):
    return tuple(values) if is_tuple else values[0]


def _detach(ts, create_graph):
    return tuple(t if create_graph else t.detach() for t in ts)


def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    with _GradOn():
        ins, ins_tuple = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare_inputs(ins, create_graph)
        outs_raw = func(*ins)
        outs, outs_tuple = _as_tuple(outs_raw, "outputs of the user-provided function", "vjp")
        vs = _vector(outs, v, "vjp", "outputs")
        gs = _grads(outs, ins, vs, create_graph)
    return (
        _fill(outs_raw, _detach(outs, create_graph), outs_tuple),
        _fill(inputs, _detach(gs, create_graph), ins_tuple),
    )


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """(func(inputs), J v): the Jacobian-vector product at inputs."""
    with _GradOn():
        ins, ins_tuple = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare_inputs(ins, create_graph)
        vs = _vector(ins, v, "jvp", "inputs")
        outs_raw = func(*ins)
        outs, outs_tuple = _as_tuple(outs_raw, "outputs of the user-provided function", "jvp")
        # u -> J^T u is linear in u; its gradient with respect to u, applied to v, is J v.
        us = tuple(_C.zeros_like(o).requires_grad_(True) for o in outs)
        gs = _grads(outs, ins, us, create_graph=True)
        jv = _grads(gs, us, vs, create_graph)
    return (
        _fill(outs_raw, _detach(outs, create_graph), outs_tuple),
        _fill(outs_raw, _detach(jv, create_graph), outs_tuple),
    )


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of func at inputs: for one input and one output, a tensor of shape
    output.shape + input.shape; for tuples, tuples of those (outputs outer, inputs inner)."""
    with _GradOn():
        ins, ins_tuple = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare_inputs(ins, create_graph)
        outs_raw = func(*ins)
        outs, outs_tuple = _as_tuple(outs_raw, "outputs of the user-provided function", "jacobian")
        result = []
        for o in outs:
            flat = o.reshape(-1)
            rows = [[] for _ in ins]
            for k in range(flat.numel()):
                g = _grads((flat[k],), ins, (_C.ones_like(flat[k]),), create_graph)
                for j, gj in enumerate(g):
                    rows[j].append(gj)
            per_input = []
            for j, i in enumerate(ins):
                if rows[j]:
                    jac = _C.stack(rows[j]).reshape(tuple(o.shape) + tuple(i.shape))
                else:
                    jac = _C.zeros(tuple(o.shape) + tuple(i.shape), dtype=i.dtype)
                per_input.append(jac if create_graph else jac.detach())
            result.append(tuple(per_input) if ins_tuple else per_input[0])
    return tuple(result) if outs_tuple else result[0]


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of a scalar func at inputs: shape input.shape + input.shape (tuples of
    tuples for several inputs)."""
    ins, ins_tuple = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError(
                "The function given to hessian should return a single Tensor with a single element"
            )
        gs = _grads((out.reshape(()),), xs, (_C.ones_like(out.reshape(())),), True)
        return gs if ins_tuple else gs[0]

    return jacobian(gradient, ins if ins_tuple else ins[0], create_graph=create_graph)


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """(func(inputs), v^T H): the vector-Hessian product of a scalar func."""
    with _GradOn():
        ins, ins_tuple = _as_tuple(inputs, "inputs", "vhp")
        ins = _prepare_inputs(ins, create_graph)
        vs = _vector(ins, v, "vhp", "inputs")
        out = _scalar_output(func(*ins), "vhp")
        gs = _grads((out,), ins, (_C.ones_like(out),), create_graph=True)
        hv = _grads(gs, ins, vs, create_graph)
    return (
        out if create_graph else out.detach(),
        _fill(inputs, _detach(hv, create_graph), ins_tuple),
    )


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
):
    """(func(inputs), H v); the Hessian is symmetric, so this equals vhp."""
    return vhp(func, inputs, v, create_graph, strict)


def _vector(ts, v, name, what):
    """The vector(s) v, checked against ts (the function's inputs or outputs); None stands for
    ones when ts is a single one-element tensor, with PyTorch's messages."""
    if v is None:
        if any(t.numel() != 1 for t in ts):
            whose = (
                "the user-provided function returns"
                if what == "outputs"
                else "the input to the user-provided function is"
            )
            raise RuntimeError(
                f"The vector v can only be None if {whose} a single Tensor with a single element."
            )
        return tuple(_C.ones_like(t) for t in ts)
    vs, _ = _as_tuple(v, "v", name)
    _check_shapes(vs, ts, "v", what)
    return vs


def _scalar_output(out, name):
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError(
            f"The function given to {name} should return a single Tensor with a single element"
        )
    return out.reshape(())


def _check_shapes(vs, ts, v_name, t_name):
    if len(vs) != len(ts):
        raise RuntimeError(
            f"The given {v_name} should contain as many Tensors as the {t_name}: "
            f"{len(vs)} vs {len(ts)}"
        )
    for i, (a, b) in enumerate(zip(vs, ts)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(
                f"Entry {i} in {v_name} has shape {list(a.shape)} but the {t_name} entry has "
                f"shape {list(b.shape)}"
            )
