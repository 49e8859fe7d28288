"""Op-table records of the linear algebra ops: the products mm, bmm and matmul, and the
composites addmm, addbmm, baddbmm, addmv, dot, vdot, mv, outer, einsum, tensordot, kron."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    INTEGRAL,
    NUMERIC,
    REGISTRY_DTYPES,
    ErrorSample,
    OpSpec,
    Sample,
    array_cases,
    inplace_of,
    make_array,
)


def _arrays(dtype, rng, *shapes):
    return tuple(make_array(s, dtype, rng, -2, 2) for s in shapes)


def _scales(dtype):
    """beta and alpha: floats for floating dtypes, ints otherwise (a float one is refused)."""
    return {"beta": 0.5, "alpha": -1.5} if dtype in FLOATING else {"beta": 2, "alpha": 3}


def np_add_product(product):
    def ref(inp, a, b, beta=1, alpha=1):
        p = product(a, b)
        return p * alpha if beta == 0 else inp * beta + p * alpha

    return ref


def _add_product_samples(cases):
    def make(dtype, rng):
        out = []
        for shapes in cases:
            arrays = _arrays(dtype, rng, *shapes)
            out.append(Sample(arrays, desc=f"{shapes}"))
            out.append(Sample(arrays, _scales(dtype), desc=f"{shapes} beta alpha"))
        inp, a, b = _arrays(dtype, rng, *cases[0])
        if dtype in FLOATING:
            inp = np.full(inp.shape, np.nan)  # beta=0 ignores input, nan included
        out.append(Sample((inp, a, b), {"beta": 0}, desc="beta=0", grad=False))
        return out

    return make


def _add_product_errors(fn, name, good, bad_inner):
    def errors():
        ones = [ember.ones(*s) for s in good]
        return [
            ErrorSample(
                lambda: fn(*[ember.ones(*s) for s in bad_inner]), RuntimeError, name, "inner"
            ),
            ErrorSample(
                lambda: fn(ones[0].double(), ones[1], ones[2]), RuntimeError, "same dtype", "dtype"
            ),
            ErrorSample(
                lambda: fn(*[o.long() for o in ones], alpha=0.5),
                RuntimeError,
                "must not be a floating point",
                "float alpha with integers",
            ),
            ErrorSample(
                lambda: fn(ember.ones(7, *good[0]), ones[1], ones[2]),
                RuntimeError,
                "broadcasts",
                "input too big",
            ),
        ]

    return errors


def _pairs(cases):
    def make(dtype, rng):
        return [Sample(_arrays(dtype, rng, a, b), desc=f"{a},{b}") for a, b in cases]

    return make


def _einsum(*operands, equation):
    return ember.einsum(equation, *operands)


def _np_einsum(*operands, equation):
    return np.einsum(equation, *operands)


EINSUM_CASES = [
    ("ij,jk->ik", (3, 4), (4, 2)),
    ("i,i->", (5,), (5,)),
    ("ij->ji", (2, 3)),
    ("ij->", (2, 3)),
    ("ba", (2, 3)),  # implicit output: "ab", a transpose
    ("ij,jk", (2, 3), (3, 2)),  # implicit output: "ik"
    ("ii->i", (3, 3)),
    ("ii", (3, 3)),
    ("iij->j", (2, 2, 3)),
    ("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
    ("...ij,...jk->...ik", (2, 1, 2, 3), (3, 3, 2)),  # broadcast under the ellipsis
    ("...i,i", (2, 3, 4), (4,)),  # implicit output: "..."
    ("i...->...", (3, 2)),
    ("i,j->ij", (3,), (2,)),
    ("ij,ij->ij", (2, 3), (2, 3)),
    ("ijk,jil->kl", (2, 3, 2), (3, 2, 2)),
    ("i,j,k->ijk", (2,), (3,), (2,)),
    ("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
    ("ij,j->i", (3, 1), (4,)),  # size 1 broadcasts
    (",i->i", (), (3,)),
    ("ij,jk->ik", (0, 3), (3, 2)),
    ("ij,jk->ik", (2, 0), (0, 3)),
]


def _einsum_samples(dtype, rng):
    return [
        Sample(_arrays(dtype, rng, *shapes), {"equation": eq}, desc=f"{eq} {shapes}")
        for eq, *shapes in EINSUM_CASES
    ]


def _einsum_errors():
    a, b = ember.ones(2, 3), ember.ones(3, 4)
    return [
        ErrorSample(lambda: ember.einsum("ij,jk->ik", a), RuntimeError, "einsum", "operand count"),
        ErrorSample(lambda: ember.einsum("ijk,jk->ik", a, b), RuntimeError, "einsum", "ndim"),
        ErrorSample(lambda: ember.einsum("ij,jk->iz", a, b), RuntimeError, "einsum", "out label"),
        ErrorSample(lambda: ember.einsum("ij,jk->ii", a, b), RuntimeError, "more than once", "rep"),
        ErrorSample(lambda: ember.einsum("i1,jk->ik", a, b), RuntimeError, "subscript", "char"),
        ErrorSample(lambda: ember.einsum("ij,ik->jk", a, b), RuntimeError, "broadcast", "sizes"),
        ErrorSample(lambda: ember.einsum("ii->i", a), RuntimeError, "repeated", "diagonal sizes"),
        ErrorSample(
            lambda: ember.einsum("ij,jk", a, b.double()), RuntimeError, "same dtype", "dtype"
        ),
    ]


def _tensordot(a, b, dims):
    return ember.tensordot(a, b, dims=dims)


def _np_tensordot(a, b, dims):
    return np.tensordot(a, b, axes=dims)


def _tensordot_samples(dtype, rng):
    cases = [
        ((3, 4, 2), (4, 2, 3), 2),
        ((3, 4), (4, 2), 1),
        ((2, 3), (3,), 0),
        ((3, 4, 2), (4, 3, 2), ([1, 0], [0, 1])),
        ((2, 3), (3, 2), ([-1], [0])),
        ((0, 3), (3, 2), 1),
    ]
    return [Sample(_arrays(dtype, rng, a, b) + (d,), desc=f"{a},{b} dims={d}") for a, b, d in cases]


def _tensordot_errors():
    a, b = ember.ones(2, 3), ember.ones(4, 2)
    return [
        ErrorSample(lambda: ember.tensordot(a, b, 1), RuntimeError, "need to match", "sizes"),
        ErrorSample(lambda: ember.tensordot(a, b, -1), RuntimeError, "dims >= 0", "negative"),
        ErrorSample(lambda: ember.tensordot(a, b, 3), RuntimeError, "tensordot", "too many dims"),
        ErrorSample(
            lambda: ember.tensordot(a, b, ([0, 1], [0])), RuntimeError, "same length", "lengths"
        ),
        ErrorSample(lambda: ember.tensordot(a, b, ([5], [0])), IndexError, "tensordot", "range"),
    ]


def _vector_errors(fn, name):
    def errors():
        return [
            ErrorSample(
                lambda: fn(ember.ones(2, 3), ember.ones(3)), RuntimeError, "1-D", "2-D operand"
            ),
            ErrorSample(
                lambda: fn(ember.ones(3), ember.ones(3, dtype=ember.float64)),
                RuntimeError,
                "expected both vectors to have same dtype",
                "dtype mismatch",
            ),
            ErrorSample(lambda: fn(ember.ones(3), ember.ones(4)), RuntimeError, name, "sizes"),
        ]

    return errors


LINALG = [
    OpSpec(
        "addmm",
        ember.addmm,
        np_add_product(np.matmul),
        NUMERIC + COMPLEX,
        _add_product_samples(
            [
                ((3, 2), (3, 4), (4, 2)),
                ((2,), (3, 4), (4, 2)),
                ((), (2, 2), (2, 1)),
                ((0, 2), (0, 3), (3, 2)),
                ((3, 2), (3, 0), (0, 2)),
            ]
        ),
        gradgrad=True,
        errors=_add_product_errors(
            ember.addmm, "addmm", [(3, 2), (3, 4), (4, 2)], [(2, 2), (2, 3), (4, 2)]
        ),
    ),
    OpSpec(
        "addbmm",
        ember.addbmm,
        np_add_product(lambda a, b: np.sum(a @ b, axis=0)),
        NUMERIC + COMPLEX,
        _add_product_samples(
            [
                ((3, 2), (2, 3, 4), (2, 4, 2)),
                ((2,), (1, 3, 2), (1, 2, 2)),
                ((3, 2), (0, 3, 4), (0, 4, 2)),
            ]
        ),
        gradgrad=True,
        errors=_add_product_errors(
            ember.addbmm, "addbmm", [(3, 2), (2, 3, 4), (2, 4, 2)], [(3, 2), (2, 3, 4), (2, 3, 2)]
        ),
    ),
    OpSpec(
        "baddbmm",
        ember.baddbmm,
        np_add_product(np.matmul),
        NUMERIC + COMPLEX,
        _add_product_samples(
            [
                ((2, 3, 2), (2, 3, 4), (2, 4, 2)),
                ((3, 1), (2, 3, 2), (2, 2, 2)),
                ((0, 3, 2), (0, 3, 4), (0, 4, 2)),
            ]
        ),
        gradgrad=True,
        errors=_add_product_errors(
            ember.baddbmm,
            "baddbmm",
            [(2, 3, 2), (2, 3, 4), (2, 4, 2)],
            [(2, 3, 2), (2, 3, 4), (3, 4, 2)],
        ),
    ),
    OpSpec(
        "addmv",
        ember.addmv,
        np_add_product(np.matmul),
        NUMERIC + COMPLEX,
        _add_product_samples(
            [((3,), (3, 4), (4,)), ((), (2, 3), (3,)), ((0,), (0, 3), (3,)), ((2,), (2, 0), (0,))]
        ),
        gradgrad=True,
        errors=_add_product_errors(
            ember.addmv, "addmv", [(3,), (3, 4), (4,)], [(3,), (3, 4), (3,)]
        ),
    ),
    OpSpec(
        "dot",
        ember.dot,
        np.dot,
        NUMERIC + COMPLEX,
        _pairs([((5,), (5,)), ((1,), (1,)), ((0,), (0,))]),
        gradgrad=True,
        errors=_vector_errors(ember.dot, "dot"),
    ),
    OpSpec(
        "vdot",
        ember.vdot,
        np.vdot,
        NUMERIC + COMPLEX,
        _pairs([((5,), (5,)), ((0,), (0,))]),
        gradgrad=True,
        errors=_vector_errors(ember.vdot, "vdot"),
    ),
    OpSpec(
        "mv",
        ember.mv,
        np.matmul,
        NUMERIC + COMPLEX,
        _pairs([((3, 4), (4,)), ((0, 4), (4,)), ((3, 0), (0,))]),
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.mv(ember.ones(3, 4), ember.ones(3)), RuntimeError, "mv", "size"
            ),
            ErrorSample(lambda: ember.mv(ember.ones(4), ember.ones(4)), RuntimeError, "2-D", "1-d"),
        ],
    ),
    OpSpec(
        "outer",
        ember.outer,
        np.outer,
        ALL + COMPLEX,
        _pairs([((3,), (4,)), ((1,), (2,)), ((0,), (3,))]),
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.outer(ember.ones(2, 2), ember.ones(2)), RuntimeError, "1-D", "2-d"
            )
        ],
    ),
    OpSpec(
        "einsum",
        _einsum,
        _np_einsum,
        NUMERIC + COMPLEX,
        _einsum_samples,
        gradgrad=True,
        errors=_einsum_errors,
    ),
    OpSpec(
        "tensordot",
        _tensordot,
        _np_tensordot,
        NUMERIC + COMPLEX,
        _tensordot_samples,
        gradgrad=True,
        errors=_tensordot_errors,
    ),
    OpSpec(
        "kron",
        ember.kron,
        np.kron,
        ALL + COMPLEX,
        _pairs([((2, 3), (3, 2)), ((2,), (2, 3)), ((), (3,)), ((2, 2), ()), ((0, 2), (2, 2))]),
        gradgrad=True,
    ),
]


def _matmul_samples(dtype, rng):
    cases = [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 2)),
        ((3, 4), (4, 2)),
        ((2, 3, 4), (4, 2)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 4, 3)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((0, 4), (4, 2)),
        ((3, 0), (0, 2)),
    ]
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in cases
    ]


def _mm_samples(dtype, rng):
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in [((3, 4), (4, 2)), ((1, 5), (5, 1)), ((0, 3), (3, 2)), ((3, 0), (0, 2))]
    ]


def _bmm_samples(dtype, rng):
    return [
        Sample(
            (make_array(a, dtype, rng, -2, 2), make_array(b, dtype, rng, -2, 2)), desc=f"{a}@{b}"
        )
        for a, b in [((2, 3, 4), (2, 4, 5)), ((1, 2, 2), (1, 2, 2)), ((0, 3, 4), (0, 4, 2))]
    ]


PRODUCTS = [
    OpSpec(
        "mm",
        ember.mm,
        np.matmul,
        NUMERIC + COMPLEX,
        _mm_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.mm(ember.ones(2, 3), ember.ones(4, 5)),
                RuntimeError,
                "(2x3 and 4x5)",
                "inner mismatch",
            ),
            ErrorSample(
                lambda: ember.mm(ember.ones(3), ember.ones(3, 2)), RuntimeError, "mm", "1-d"
            ),
        ],
    ),
    OpSpec(
        "bmm",
        ember.bmm,
        np.matmul,
        NUMERIC + COMPLEX,
        _bmm_samples,
        errors=lambda: [
            ErrorSample(
                lambda: ember.bmm(ember.ones(2, 2, 3), ember.ones(3, 3, 2)),
                RuntimeError,
                "bmm",
                "batch mismatch",
            )
        ],
    ),
    OpSpec(
        "matmul",
        ember.matmul,
        np.matmul,
        NUMERIC + COMPLEX,
        _matmul_samples,
        gradgrad=True,
        errors=lambda: [
            ErrorSample(
                lambda: ember.matmul(ember.ones(2, 3), ember.ones(4)),
                RuntimeError,
                "matmul",
                "inner mismatch",
            ),
            ErrorSample(
                lambda: ember.matmul(ember.ones(2, 3, dtype=ember.float64), ember.ones(3, 2)),
                RuntimeError,
                "same dtype",
                "dtype mismatch",
            ),
            ErrorSample(
                lambda: ember.matmul(ember.ones(()), ember.ones(3)),
                RuntimeError,
                "at least 1-D",
                "0-d operand",
            ),
        ],
    ),
]


def _np_cdist(a, b, p=2.0):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(np.float64)
    if np.isinf(p):
        return d.max(-1)
    return (d**p).sum(-1) ** (1.0 / p)


def _halves(shape, dtype, rng):
    """Multiples of 0.5 in [-1, 1] (whole numbers for integers), exact in every dtype: a chain
    of float16 products rounds after each."""
    return rng.integers(-2, 3, size=shape) / (1.0 if dtype in INTEGRAL else 2.0)


# The Python composites of this topic (python/ember/_composites/linalg.py).
COMPOSITES = [
    OpSpec(
        "cross",
        ember.cross,
        lambda a, b, dim=-1: np.cross(a, b, axis=dim),
        NUMERIC + COMPLEX,
        array_cases(
            (((3,), (3,)), (0,), {}),
            (((4, 3), (4, 3)), (), {"dim": 1}),
            (((3, 2), (3, 1)), (), {"dim": 0}),
        ),
    ),
    OpSpec(
        "inner",
        ember.inner,
        np.inner,
        NUMERIC,
        array_cases(
            (((4,), (4,)), (), {}),
            (((2, 3), (4, 3)), (), {}),
            (((), (2, 3)), (), {}),
            (((2, 1, 3), (3,)), (), {}),
        ),
    ),
    OpSpec(
        "trace",
        ember.trace,
        np.trace,
        NUMERIC,
        array_cases((((3, 3),), (), {}), (((2, 4),), (), {}), (((0, 0),), (), {})),
    ),
    OpSpec(
        "addr",
        ember.addr,
        lambda m, a, b, beta=1, alpha=1: beta * m + alpha * np.outer(a, b),
        NUMERIC,
        array_cases(
            (((3, 4), (3,), (4,)), (), {}),
            (((3, 4), (3,), (4,)), (), {"alpha": 2}),
            (((4,), (3,), (4,)), (), {"beta": 2}),
        ),
    ),
    OpSpec(
        "cdist",
        ember.cdist,
        _np_cdist,
        [ember.float32, ember.float64],
        array_cases(
            (((3, 2), (4, 2)), (), {}),
            (((3, 2), (4, 2)), (1.0,), {}),
            (((2, 3, 2), (2, 1, 2)), (3.0,), {}),
            (((3, 2), (2, 2)), (float("inf"),), {}),
        ),
    ),
    OpSpec(
        "dist",
        ember.dist,
        lambda a, b, p=2: np.linalg.norm((a - b).reshape(-1), ord=p),
        FLOATING,
        array_cases(
            (((3, 4), (3, 4)), (), {}), (((3, 4), (4,)), (1,), {}), (((5,), (5,)), (3,), {})
        ),
    ),
    OpSpec(
        "chain_matmul",
        ember.chain_matmul,
        lambda *ms: np.linalg.multi_dot(ms),
        NUMERIC,
        array_cases((((2, 3), (3, 4), (4, 2)), (), {}), (((2, 3), (3, 2)), (), {}), make=_halves),
    ),
]


def records():
    """The records, with the in-place forms the registry lists (addmm_, ...; self must already
    have the result's shape)."""
    inplace = [inplace_of(s) for s in LINALG if s.name + "_" in REGISTRY_DTYPES]
    return PRODUCTS + LINALG + inplace + COMPOSITES
