"""Generic tests over the op table (ember.testing.op_db): every op, every dtype it declares."""

import ast
import collections
import pathlib
import pkgutil
import warnings

import numpy as np
import pytest
from conftest import rng_for

import ember
from ember.testing import op_db
from ember.testing.op_db import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMPY_DTYPE,
    OP_DB,
    OPS,
    rounded,
    to_numpy,
    to_tensor,
)
from ember.testing.op_db.spec import Fixed

# |actual - expected| <= atol + rtol * |expected|, per output dtype.
TOL = {
    ember.float16: (2e-3, 1e-3),
    ember.bfloat16: (1.6e-2, 1e-2),
    ember.float32: (1e-5, 1e-6),
    ember.float64: (1e-10, 1e-12),
}
# A complex number's parts are floats of its real dtype's precision.
TOL.update({ember.complex64: TOL[ember.float32], ember.complex128: TOL[ember.float64]})


def inexact(t) -> bool:
    """Compared with a tolerance: floating and complex results."""
    return t.is_floating_point() or t.is_complex()


def tensor_kwargs(sample, dtype):
    """The sample's keyword arguments, a Fixed one (fweights=...) as its tensor."""
    return {k: to_tensor(v, dtype) if isinstance(v, Fixed) else v for k, v in sample.kwargs.items()}


def call(spec, sample, dtype, noncontiguous=False):
    args = tuple(to_tensor(a, dtype, noncontiguous) for a in sample.args)
    if spec.creation:
        return spec.op(*args, dtype=dtype, **tensor_kwargs(sample, dtype))
    return spec.op(*args, **tensor_kwargs(sample, dtype))


def outputs(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


def expected_values(spec, sample, dtype):
    args = tuple(rounded(a, dtype) for a in sample.args)
    # NumPy warns where the math gives inf or nan (log 0, mean of nothing); so does the op.
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kwargs = {
            k: rounded(v, dtype) if isinstance(v, Fixed) else v for k, v in sample.kwargs.items()
        }
        return outputs(spec.ref(*args, **kwargs))


def assert_matches(actual, expected, desc, tol=None):
    assert tuple(actual.shape) == np.shape(expected), (
        f"{desc}: shape {tuple(actual.shape)} vs {np.shape(expected)}"
    )
    got = to_numpy(actual)
    # The reference in float64, brought to the output's dtype (integer results wrap as in C).
    np_dtype = NUMPY_DTYPE.get(actual.dtype, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.asarray(expected).astype(np_dtype)
    if actual.dtype == ember.bfloat16:
        want = to_numpy(
            ember.from_numpy(np.ascontiguousarray(want.astype(np.float32))).to(ember.bfloat16)
        )
    want = want.astype(got.dtype)
    if inexact(actual):
        rtol, atol = (tol or {}).get(actual.dtype, TOL[actual.dtype])
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=desc)
    else:
        np.testing.assert_array_equal(got, want, err_msg=desc)


def declared():
    return [
        pytest.param(spec, d, id=f"{spec.name}-{d}".replace("ember.", ""))
        for spec in OPS
        for d in spec.dtypes
    ]


@pytest.mark.parametrize("spec,dtype", declared())
def test_forward_matches_numpy(spec, dtype):
    rng = rng_for(spec.name + str(dtype))
    for sample in spec.samples(dtype, rng):
        desc = f"{spec.name}({sample.desc}) {dtype}"
        out = call(spec, sample, dtype)
        if spec.check is not None:
            spec.check(out, sample, dtype)
            continue
        got = outputs(out)
        want = expected_values(spec, sample, dtype)
        assert len(got) == len(want), desc
        for g, w in zip(got, want):
            assert_matches(g, w, desc, spec.tol)


@pytest.mark.parametrize("spec,dtype", declared())
def test_noncontiguous_inputs_agree(spec, dtype):
    if spec.check is not None:
        pytest.skip("random or uninitialised outputs: the record has a check, not a reference")
    if not spec.noncontiguous:
        pytest.skip("the op takes contiguous input only (OpSpec.noncontiguous=False)")
    rng = rng_for(spec.name + "nc" + str(dtype))
    for sample in spec.samples(dtype, rng):
        if not any(isinstance(a, np.ndarray) and a.size > 1 for a in sample.args):
            continue
        desc = f"{spec.name}({sample.desc}) {dtype} non-contiguous"
        want = outputs(call(spec, sample, dtype))
        got = outputs(call(spec, sample, dtype, noncontiguous=True))
        for g, w in zip(got, want):
            assert tuple(g.shape) == tuple(w.shape), desc
            if inexact(g):
                rtol, atol = (spec.tol or {}).get(g.dtype, TOL[g.dtype])
                np.testing.assert_allclose(
                    to_numpy(g), to_numpy(w), rtol=rtol, atol=atol, equal_nan=True, err_msg=desc
                )
            else:
                np.testing.assert_array_equal(to_numpy(g), to_numpy(w), err_msg=desc)


@pytest.mark.parametrize("spec", OPS, ids=lambda s: s.name)
def test_undeclared_dtypes_raise(spec):
    for dtype in ALL + COMPLEX:
        if dtype in spec.dtypes:
            continue
        rng = rng_for(spec.name)
        sample = spec.samples(dtype, rng)[0]
        with pytest.raises((TypeError, RuntimeError)) as info:
            call(spec, sample, dtype)
        text = str(info.value)
        assert spec.name.rstrip("_") in text or "dtype" in text or "type" in text, text


def gradient_cases(spec, dtype, seed, max_size):
    """(desc, fn, args) for each sample of spec usable for a gradient check in `dtype`: at most
    max_size elements, the inexact tensor arguments requiring grad."""
    rng = rng_for(spec.name + seed)
    for sample in spec.samples(dtype, rng):
        arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
        if not sample.grad or not arrays or sum(a.size for a in arrays) > max_size:
            continue
        args = [to_tensor(a, dtype) for a in sample.args]
        for a in args:
            if isinstance(a, ember.Tensor) and inexact(a):
                a.requires_grad_(True)

        def fn(*xs, sample=sample):
            return spec.op(*xs, **tensor_kwargs(sample, dtype))

        yield sample.desc, fn, args


@pytest.mark.parametrize(
    "spec", [s for s in OPS if s.grad and ember.float64 in s.dtypes], ids=lambda s: s.name
)
def test_gradients_match_finite_differences(spec):
    for desc, fn, args in gradient_cases(spec, ember.float64, "grad", 200):
        assert ember.autograd.gradcheck(fn, tuple(args)), f"{spec.name}({desc})"


def complex_gradcheck(fn, args, eps=1e-6, rtol=1e-5, atol=1e-7):
    """PyTorch's convention checked by central differences: for L = sum Re(conj(v) * out) over
    the outputs with random v, the gradient of an input z = x + iy is dL/dx + i dL/dy (dL/dx
    for a real input). Outputs without a graph (integer pivots and statuses, a constant) are left
    out of L on both sides."""
    rng = np.random.default_rng(0)
    inputs = [a for a in args if isinstance(a, ember.Tensor) and a.requires_grad]
    keep = [i for i, o in enumerate(outputs(fn(*args))) if o.requires_grad]
    if not keep:
        return True

    def differentiable(res):
        res = outputs(res)
        return [res[i] for i in keep]

    outs = differentiable(fn(*args))
    vs = []
    for o in outs:
        v = rng.standard_normal(tuple(o.shape))
        if o.is_complex():
            v = v + 1j * rng.standard_normal(tuple(o.shape))
        vs.append(ember.from_numpy(np.asarray(v, dtype=np.complex128 if o.is_complex() else None)))
    vs = [v.to(o.dtype) for v, o in zip(vs, outs)]
    analytic = ember.autograd.grad(list(outs), inputs, grad_outputs=vs, allow_unused=True)

    def loss(values):
        with ember.no_grad():
            call_args = [values.get(id(a), a) for a in args]
            res = differentiable(fn(*call_args))
            return sum(
                float(np.real(np.sum(np.conj(to_numpy(v)) * to_numpy(r)))) for v, r in zip(vs, res)
            )

    for t, g in zip(inputs, analytic):
        base = to_numpy(t)
        want = np.zeros(base.shape, dtype=np.complex128 if t.is_complex() else np.float64)
        for idx in np.ndindex(base.shape):
            for step in (1.0, 1j) if t.is_complex() else (1.0,):
                hi, lo = base.copy(), base.copy()
                hi[idx] += eps * step
                lo[idx] -= eps * step
                d = (loss({id(t): ember.from_numpy(hi).to(t.dtype)})
                     - loss({id(t): ember.from_numpy(lo).to(t.dtype)})) / (2 * eps)  # fmt: skip
                want[idx] += d * (1j if step == 1j else 1.0)
        got = np.zeros_like(want) if g is None else to_numpy(g)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return True


@pytest.mark.parametrize(
    "spec", [s for s in OPS if s.grad and ember.complex128 in s.dtypes], ids=lambda s: s.name
)
def test_complex_gradients_match_finite_differences(spec):
    """The gradients of the ops that take complex tensors, in complex128."""
    checked = 0
    for desc, fn, args in gradient_cases(spec, ember.complex128, "cgrad", 60):
        assert complex_gradcheck(fn, args), f"{spec.name}({desc})"
        checked += 1
    assert checked > 0, f"{spec.name}: no sample small enough for the complex gradient check"


@pytest.mark.parametrize("spec", [s for s in OPS if s.gradgrad], ids=lambda s: s.name)
def test_second_derivatives_match_finite_differences(spec):
    rng = rng_for(spec.name + "gradgrad")
    checked = 0
    for sample in spec.samples(ember.float64, rng):
        arrays = [a for a in sample.args if isinstance(a, np.ndarray)]
        if (
            not sample.grad
            or not sample.gradgrad
            or not arrays
            or sum(a.size for a in arrays) > 30
            or any(a.size == 0 for a in arrays)
        ):
            continue
        args = [to_tensor(a, ember.float64) for a in sample.args]
        args = [
            a.requires_grad_(True) if isinstance(a, ember.Tensor) and a.is_floating_point() else a
            for a in args
        ]

        def fn(*xs, sample=sample):
            return spec.op(*xs, **tensor_kwargs(sample, ember.float64))

        assert ember.autograd.gradgradcheck(fn, tuple(args)), f"{spec.name}({sample.desc})"
        checked += 1
    assert checked > 0, f"{spec.name}: no sample small enough for gradgradcheck"


@pytest.mark.parametrize("spec", [s for s in OPS if s.errors()], ids=lambda s: s.name)
def test_bad_input_raises(spec):
    for err in spec.errors():
        with pytest.raises(err.exc) as info:
            err.make()
        assert err.match in str(info.value), f"{err.desc}: {info.value}"


def test_every_registered_op_has_a_record():
    registry = {name: dtypes for name, kind, dtypes, *_ in ember._op_registry()}
    missing = sorted(set(registry) - set(OP_DB))
    unknown = sorted(set(OP_DB) - set(registry))
    assert not missing, f"ops without an op_db record: {missing}"
    assert not unknown, f"op_db records without a registered op: {unknown}"


@pytest.mark.parametrize("spec", OPS, ids=lambda s: s.name)
def test_declared_dtypes_match_registry(spec):
    registry = {name: dtypes for name, kind, dtypes, *_ in ember._op_registry()}
    assert set(registry[spec.name]) == set(spec.dtypes), spec.name


def test_floating_list_is_complete():
    assert {d for d in ALL if d.is_floating_point} == set(FLOATING)


def test_every_record_comes_from_one_topic_module():
    """OPS is the records of the topic modules (TOPICS), which are the package's modules but
    spec.py, and no record name appears twice (OP_DB, a dict, would hide the second)."""
    package = {m.name for m in pkgutil.iter_modules(op_db.__path__)} - {"spec"}
    topics = [topic.__name__.rsplit(".", 1)[1] for topic in op_db.TOPICS]
    assert sorted(topics) == sorted(package)
    names = [spec.name for topic in op_db.TOPICS for spec in topic.records()]
    assert [spec.name for spec in OPS] == names
    twice = sorted(name for name, n in collections.Counter(names).items() if n > 1)
    assert not twice, f"records named twice: {twice}"
    assert len(OP_DB) == len(OPS)


def test_every_registered_inplace_op_is_a_tensor_method():
    """The registry's in-place forms are Tensor methods (those C++ does not bind, like addmm_ and
    cumsum_, are made from the registry in ember/_tensor.py); the fused optimizer updates in
    ember._C._optim are functions, not methods."""
    inplace = [n for n, kind, *_ in ember._op_registry() if kind == "inplace"]
    assert {"addmm_", "cumsum_", "logical_not_", "celu_", "clamp_"} <= set(inplace)
    missing = [n for n in inplace if not n.startswith("_optim.") and not hasattr(ember.Tensor, n)]
    assert not missing, missing


def test_every_record_is_in_its_ops_topic():
    """A record lives in op_db/<topic>.py for the topic of its op in the registry (the C++ file
    ops/<topic>.cpp that registers it): one topic, one name in every layer."""
    topic_of = {name: topic for name, *_, topic in ember._op_registry()}
    misplaced = [
        f"{spec.name} in {topic}.py, registered in {topic_of[spec.name]}"
        for module in op_db.TOPICS
        for topic in [module.__name__.rsplit(".", 1)[1]]
        for spec in module.records()
        if spec.name in topic_of and topic_of[spec.name] != topic
    ]
    assert not misplaced, misplaced


def _imported(path):
    """The modules (and module.name for `from module import name`) a file imports."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # A relative import is relative to ember.testing.op_db (or above it).
            package = ["ember", "testing", "op_db"][: 4 - node.level] if node.level else []
            module = ".".join(package + ([node.module] if node.module else []))
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def test_topic_modules_import_only_spec():
    """A topic module imports spec.py and no other module of the package (nor the package itself,
    which imports the topics), and spec.py imports none: so there is no import loop."""
    for path in sorted(pathlib.Path(op_db.__file__).parent.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for name in _imported(path):
            if name.startswith("ember.testing"):
                ok = path.name != "spec.py" and name.startswith("ember.testing.op_db.spec")
                assert ok, f"{path.name} imports {name}"
