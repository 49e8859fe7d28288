"""Op-table records of the shape ops: cat / stack and friends, split / chunk / unbind, unflatten,
movedim, repeat / tile / repeat_interleave, roll, flip, tril / triu, diagonals, broadcasting,
meshgrid and nn.functional.pad."""

from __future__ import annotations

import itertools

import numpy as np

import ember
import ember.nn.functional as F
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    Fixed,
    OpSpec,
    Sample,
    array_cases,
    error,
    make_array,
)

# ---- references --------------------------------------------------------------------------------


def np_cat(*xs, dim=0):
    # PyTorch skips 1-d empty tensors whatever the other shapes are.
    kept = [x for x in xs if not (x.ndim == 1 and x.size == 0)] or list(xs[:1])
    return np.concatenate(kept, axis=dim)


def _split_sizes(n, size):
    if isinstance(size, int):
        if size == 0:
            return [0]
        return [min(size, n - i) for i in range(0, n, size)] or [0]
    return list(size)


def np_split(a, size, dim=0):
    sizes = _split_sizes(a.shape[dim], size)
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis=dim))


def np_chunk(a, chunks, dim=0):
    n = a.shape[dim]
    if n == 0:
        return tuple(np.split(a, [0] * (chunks - 1), axis=dim))
    return np_split(a, -(-n // chunks), dim)


def np_unbind(a, dim=0):
    return tuple(np.moveaxis(a, dim, 0))


def np_unflatten(a, dim, sizes):
    d = dim % a.ndim
    return a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1 :])


def np_movedim(a, source, destination):
    return a.copy() if a.ndim == 0 else np.moveaxis(a, source, destination)


def np_repeat_interleave(a, repeats, dim=None, output_size=None):
    return np.repeat(a, repeats, axis=dim)


def np_roll(a, shifts, dims=None):
    return np.roll(a, shifts, axis=dims)


def np_diag_embed(a, offset=0, dim1=-2, dim2=-1):
    nd = a.ndim + 1
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    i = np.arange(a.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = a
    return np.moveaxis(out, (-2, -1), (dim1 % nd, dim2 % nd))


def np_broadcast_to(a, shape):
    lead = len(shape) - a.ndim
    shape = tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    return np.broadcast_to(a, shape)


def np_meshgrid(*xs, indexing="ij"):
    return tuple(np.meshgrid(*xs, indexing=indexing))


_NP_PAD_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def np_pad(a, pad, mode="constant", value=None):
    """F.pad in NumPy: negative pads crop first, then np.pad adds the positive ones."""
    if a.ndim == 0:
        return a.copy()
    crop = [slice(None)] * a.ndim
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        crop[d] = slice(max(-lo, 0), a.shape[d] - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    a = a[tuple(crop)]
    if mode == "constant":
        return np.pad(a, widths, mode="constant", constant_values=0 if value is None else value)
    return np.pad(a, widths, mode=_NP_PAD_MODE[mode])


# ---- samples -----------------------------------------------------------------------------------


def _repeat_interleave_samples(dtype, rng):
    def a(s):
        return make_array(s, dtype, rng)

    def reps(v):
        return Fixed(np.array(v, dtype=np.int64), ember.int64)

    return [
        Sample((a((3,)), 2), desc="(3,) 2"),
        Sample((a((2, 3)), 2), {"dim": 1}, "(2, 3) 2 dim 1"),
        Sample((a((2, 3)), 2), {"dim": -2}, "(2, 3) 2 dim -2"),
        Sample((a((2, 3)), reps([1, 0, 2])), {"dim": 1}, "tensor repeats dim 1"),
        Sample((a((2, 3)), reps([3, 1])), {"dim": 0, "output_size": 4}, "output_size"),
        Sample((a((2, 2)), reps([1, 2, 0, 1])), {}, "tensor repeats, flattened"),
        Sample((a((2, 3)), reps([2])), {"dim": 0}, "one repeat broadcast"),
        Sample((a((2, 3)), reps(2)), {"dim": 1}, "0-d repeats"),
        Sample((a(()), 3), desc="0-d input"),
        Sample((a((0, 3)), 2), {"dim": 0}, "zero-size"),
        Sample((a((2, 3)), 0), {"dim": 1}, "zero repeats"),
        Sample((a((2, 3)), reps([0, 0, 0])), {"dim": 1}, "all zero tensor repeats"),
    ]


# ---- errors ------------------------------------------------------------------------------------


def _cat_errors():
    return [
        error(lambda: ember.cat([]), RuntimeError, "[cat] expected a non-empty list"),
        error(lambda: ember.cat([ember.ones(2), ember.tensor(1.0)]), RuntimeError, "zero-dim"),
        error(
            lambda: ember.cat([ember.ones(2, 3), ember.ones(2, 4)]),
            RuntimeError,
            "Sizes of tensors must match except in dimension 0",
        ),
        error(
            lambda: ember.cat([ember.ones(2, 3), ember.ones(3)]),
            RuntimeError,
            "same number of dimensions",
        ),
        error(lambda: ember.cat([ember.ones(2, 3)], 2), IndexError, "cat"),
        error(lambda: ember.cat(ember.ones(2, 3)), TypeError, "tuple of Tensors"),
        error(lambda: ember.cat([ember.ones(2), 1]), TypeError, "tuple of Tensors"),
    ]


def _pad_errors():
    x = ember.ones(1, 2, 3)
    return [
        error(lambda: F.pad(x, (1,)), RuntimeError, "divisible by 2"),
        error(lambda: F.pad(ember.ones(3), (1, 1, 1, 1)), RuntimeError, "two times the input"),
        error(lambda: F.pad(x, (3, 0), mode="reflect"), RuntimeError, "should be less than"),
        error(lambda: F.pad(x, (4, 0), mode="circular"), RuntimeError, "more than once"),
        error(lambda: F.pad(ember.ones(3), (1, 1), mode="reflect"), NotImplementedError, "5D"),
        error(lambda: F.pad(x, (1, 1), mode="wrap"), NotImplementedError, "Unrecognised"),
        error(lambda: F.pad(x, (1, 1), mode="reflect", value=2.0), RuntimeError, "value"),
        error(lambda: F.pad(x, (-2, -2)), RuntimeError, "negative output size"),
        error(lambda: F.pad(ember.ones(1, 0), (1, 1), mode="replicate"), RuntimeError, "empty"),
    ]


# ---- the records -------------------------------------------------------------------------------


def _spec(name, op, ref, samples, errors=None, **kw):
    kw.setdefault("gradgrad", True)
    return OpSpec(name, op, ref, ALL + COMPLEX, samples, errors=errors or (lambda: []), **kw)


RECORDS = [
    _spec(
        "cat",
        lambda *xs, dim=0: ember.cat(xs, dim),
        np_cat,
        array_cases(
            (((2, 3), (4, 3)), (), {}),
            (((2, 3), (2, 1), (2, 2)), (), {"dim": 1}),
            (((2, 3), (2, 3)), (), {"dim": -1}),
            (((1, 2, 3), (1, 2, 2)), (), {"dim": 2}),
            (((5,), (4,)), (), {}),
            (((2, 2, 2),), (), {"dim": 1}),
            (((0, 3), (2, 3)), (), {}),
            (((2, 3), (0,)), (), {"dim": 1}),  # a 1-d empty tensor is skipped
            (((0,), (0,)), (), {}),
            (((40, 300), (10, 300)), (), {}),
            (((30, 40), (30, 50)), (), {"dim": 1}),
        ),
        _cat_errors,
    ),
    _spec(
        "stack",
        lambda *xs, dim=0: ember.stack(xs, dim),
        lambda *xs, dim=0: np.stack(xs, axis=dim),
        array_cases(
            (((3,), (3,)), (), {}),
            (((2, 3), (2, 3), (2, 3)), (), {"dim": 1}),
            (((2, 3), (2, 3)), (), {"dim": -1}),
            (((), ()), (), {}),
            (((0, 3), (0, 3)), (), {"dim": 2}),
        ),
        lambda: [
            error(lambda: ember.stack([ember.ones(2), ember.ones(3)]), RuntimeError, "equal size"),
            error(lambda: ember.stack([]), RuntimeError, "non-empty"),
            error(lambda: ember.stack([ember.ones(2)], 2), IndexError, "stack"),
        ],
    ),
    _spec(
        "hstack",
        lambda *xs: ember.hstack(xs),
        lambda *xs: np.hstack(xs),
        array_cases(
            (((3,), (2,)), (), {}),
            (((2, 3), (2, 1)), (), {}),
            (((), ()), (), {}),
            (((2, 0), (2, 3)), (), {}),
        ),
        lambda: [
            error(lambda: ember.hstack([ember.ones(2, 3), ember.ones(3, 3)]), RuntimeError, "cat")
        ],
    ),
    _spec(
        "vstack",
        lambda *xs: ember.vstack(xs),
        lambda *xs: np.vstack(xs),
        array_cases(
            (((3,), (3,)), (), {}),
            (((2, 3), (1, 3)), (), {}),
            (((), (1,)), (), {}),
            (((0, 3), (2, 3)), (), {}),
        ),
        lambda: [error(lambda: ember.vstack([ember.ones(2), ember.ones(3)]), RuntimeError, "cat")],
    ),
    _spec(
        "dstack",
        lambda *xs: ember.dstack(xs),
        lambda *xs: np.dstack(xs),
        array_cases(
            (((3,), (3,)), (), {}),
            (((2, 3), (2, 3)), (), {}),
            (((2, 3, 1), (2, 3, 2)), (), {}),
            (((), ()), (), {}),
        ),
    ),
    _spec(
        "split",
        lambda x, s, dim=0: ember.split(x, s, dim),
        np_split,
        array_cases(
            (((5,),), (2,), {}),
            (((6, 4),), (3,), {}),
            (((3, 7),), (3,), {"dim": -1}),
            (((5,),), ([1, 0, 4],), {}),
            (((2, 5),), ((2, 3),), {"dim": 1}),
            (((4,),), (4,), {}),
            (((3,),), (5,), {}),
            (((0, 3),), (2,), {}, False),
        ),
        lambda: [
            error(lambda: ember.split(ember.ones(5), [2, 2]), RuntimeError, "sum exactly to 5"),
            error(lambda: ember.split(ember.tensor(1.0), 1), RuntimeError, "1-dimensional"),
            error(lambda: ember.ones(3).split(1, 2), IndexError, "split"),
            error(lambda: ember.ones(3).split(0), RuntimeError, "split_size can only be 0"),
        ],
    ),
    _spec(
        "chunk",
        lambda x, c, dim=0: ember.chunk(x, c, dim),
        np_chunk,
        array_cases(
            (((5,),), (2,), {}),
            (((6,),), (3,), {}),
            (((5,),), (4,), {}),  # three pieces of 2, 2, 1
            (((3, 4),), (2,), {"dim": 1}),
            (((2,),), (5,), {}),
            (((0, 3),), (3,), {}, False),
        ),
        lambda: [
            error(lambda: ember.ones(3).chunk(0), RuntimeError, "greater than 0"),
            error(lambda: ember.tensor(1.0).chunk(2), RuntimeError, "1-dimensional"),
        ],
    ),
    _spec(
        "unbind",
        lambda x, dim=0: ember.unbind(x, dim),
        np_unbind,
        array_cases(
            (((3,),), (), {}),
            (((2, 3),), (), {"dim": 1}),
            (((2, 3, 2),), (), {"dim": -1}),
            (((0, 3),), (), {"dim": 1}, False),
            (((0, 3),), (), {}, False),
        ),
        lambda: [
            error(lambda: ember.tensor(1.0).unbind(), IndexError, "no dimensions"),
            error(lambda: ember.ones(2).unbind(1), IndexError, "unbind"),
        ],
    ),
    _spec(
        "unflatten",
        lambda x, dim, sizes: ember.unflatten(x, dim, sizes),
        np_unflatten,
        array_cases(
            (((6,),), (0, (2, 3)), {}),
            (((2, 6),), (1, (3, -1)), {}),
            (((2, 6),), (-1, (2, 1, 3)), {}),
            (((4, 0),), (1, (0, 5)), {}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 5).unflatten(1, (2, 2)), RuntimeError, "don't multiply up"),
            error(lambda: ember.tensor(1.0).unflatten(0, (1,)), IndexError, "no dimensions"),
            error(lambda: ember.ones(4).unflatten(0, ()), RuntimeError, "non-empty"),
        ],
    ),
    _spec(
        "movedim",
        lambda x, s, d: ember.movedim(x, s, d),
        np_movedim,
        array_cases(
            (((2, 3, 4),), (0, 2), {}),
            (((2, 3, 4),), ((0, 1), (2, 0)), {}),
            (((2, 3),), (-1, 0), {}),
            (((),), (0, 0), {}),
            (((0, 3, 2),), (0, -1), {}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 3).movedim((0, 1), 0), RuntimeError, "same number of dims"),
            error(lambda: ember.ones(2, 3).movedim((0, 0), (0, 1)), RuntimeError, "repeated dim"),
            error(lambda: ember.ones(2, 3).movedim(2, 0), IndexError, "movedim"),
        ],
    ),
    _spec(
        "repeat",
        lambda x, *r: x.repeat(*r),
        lambda a, *r: np.tile(a, r),
        array_cases(
            (((3,),), (2,), {}),
            (((2, 3),), (2, 1, 2), {}),
            (((),), (3,), {}),
            (((2, 0),), (2, 2), {}),
            (((2, 3),), (1, 1), {}),
            (((3,),), (0, 2), {}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 3).repeat(2), RuntimeError, "Number of dimensions"),
            error(lambda: ember.ones(3).repeat(-1), RuntimeError, "negative"),
        ],
    ),
    _spec(
        "tile",
        lambda x, dims: ember.tile(x, dims),
        np.tile,
        array_cases(
            (((2, 3),), ((2,),), {}),
            (((3,),), ((2, 2),), {}),
            (((),), ((2,),), {}),
            (((2, 3),), ((),), {}),
            (((0, 2),), ((2, 3),), {}),
        ),
        lambda: [error(lambda: ember.tile(ember.ones(3), (-1,)), RuntimeError, "negative")],
    ),
    _spec(
        "repeat_interleave",
        lambda x, r, **kw: ember.repeat_interleave(x, r, **kw),
        np_repeat_interleave,
        _repeat_interleave_samples,
        lambda: [
            error(lambda: ember.ones(3).repeat_interleave(-1), RuntimeError, "negative"),
            error(
                lambda: ember.ones(3).repeat_interleave(ember.ones(3), dim=0),
                RuntimeError,
                "Long or Int",
            ),
            error(
                lambda: ember.ones(3).repeat_interleave(ember.tensor([1, 2]), dim=0),
                RuntimeError,
                "same size as input",
            ),
            error(
                lambda: ember.ones(3).repeat_interleave(ember.tensor([1, -1, 2]), dim=0),
                RuntimeError,
                "negative",
            ),
        ],
    ),
    _spec(
        "roll",
        lambda x, s, dims=None: ember.roll(x, s, dims),
        np_roll,
        array_cases(
            (((5,),), (2,), {}),
            (((3, 4),), (1,), {"dims": 0}),
            (((3, 4),), ((1, -2),), {"dims": (0, 1)}),
            (((3, 4),), (-5,), {"dims": 1}),
            (((2, 3),), (7,), {}),
            (((),), (1,), {}),
            (((0, 3),), (1,), {"dims": 0}),
            (((3, 4),), (0,), {"dims": 1}),
            (((4,),), (4,), {"dims": 0}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 3).roll((1, 2), 0), RuntimeError, "must align"),
            error(lambda: ember.ones(2, 3).roll((1, 2)), RuntimeError, "must align"),
            error(lambda: ember.ones(2, 3).roll(1, 2), IndexError, "roll"),
        ],
    ),
    _spec(
        "flip",
        lambda x, dims: ember.flip(x, dims),
        lambda a, dims: np.flip(a, axis=dims),
        array_cases(
            (((5,),), ((0,),), {}),
            (((3, 4),), ((0, 1),), {}),
            (((3, 4),), ((-1,),), {}),
            (((2, 3, 4),), ((0, 2),), {}),
            (((),), ((),), {}),
            (((0, 3),), ((1,),), {}),
            (((2, 3),), ((),), {}),
            (((64, 300),), ((1,),), {}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 3).flip(0, 0), RuntimeError, "multiple times"),
            error(lambda: ember.ones(2, 3).flip(2), IndexError, "flip"),
        ],
    ),
    _spec(
        "fliplr",
        ember.fliplr,
        np.fliplr,
        array_cases((((3, 4),), (), {}), (((2, 3, 2),), (), {}), (((0, 2),), (), {})),
        lambda: [error(lambda: ember.fliplr(ember.ones(3)), RuntimeError, ">= 2-d")],
    ),
    _spec(
        "flipud",
        ember.flipud,
        np.flipud,
        array_cases((((5,),), (), {}), (((3, 4),), (), {}), (((0, 2),), (), {})),
        lambda: [error(lambda: ember.flipud(ember.tensor(1.0)), RuntimeError, ">= 1-d")],
    ),
]

_TRI_CASES = (
    (((4, 4),), (), {}),
    (((3, 5),), (1,), {}),
    (((5, 3),), (-1,), {}),
    (((2, 3, 4),), (), {}),
    (((3, 3),), (10,), {}),
    (((3, 3),), (-10,), {}),
    (((0, 3),), (), {}),
)

for _name, _np in (("tril", np.tril), ("triu", np.triu)):
    RECORDS.append(
        _spec(
            _name,
            getattr(ember, _name),
            _np,
            array_cases(*_TRI_CASES),
            (
                lambda n=_name: [
                    error(lambda: getattr(ember, n)(ember.ones(3)), RuntimeError, "at least 2 dim")
                ]
            ),
        )
    )

RECORDS += [
    _spec(
        "diagonal",
        lambda x, *a, **kw: ember.diagonal(x, *a, **kw),
        np.diagonal,
        array_cases(
            (((3, 4),), (), {}),
            (((3, 4),), (1,), {}),
            (((3, 4),), (-2,), {}),
            (((2, 3, 4),), (0, 1, 2), {}),
            (((2, 3, 4),), (1, -1, 0), {}),
            (((3, 3),), (5,), {}),
            (((0, 3),), (), {}),
        ),
        lambda: [
            error(lambda: ember.ones(2, 3).diagonal(0, 1, 1), RuntimeError, "cannot be identical"),
            error(lambda: ember.ones(3).diagonal(), IndexError, "diagonal"),
        ],
    ),
    _spec(
        "diag_embed",
        lambda x, *a, **kw: ember.diag_embed(x, *a, **kw),
        np_diag_embed,
        array_cases(
            (((3,),), (), {}),
            (((2, 3),), (), {}),
            (((2, 3),), (1,), {}),
            (((2, 3),), (-1, 0, 2), {}),
            (((2, 3),), (0, -1, 0), {}),
            (((0,),), (), {}),
            (((2, 0),), (), {}),
        ),
        lambda: [
            error(
                lambda: ember.ones(2, 3).diag_embed(0, 1, 1), RuntimeError, "cannot be identical"
            ),
            error(lambda: ember.tensor(1.0).diag_embed(), IndexError, "diag_embed"),
        ],
    ),
    _spec(
        "diag",
        lambda x, *a: ember.diag(x, *a),
        np.diag,
        array_cases(
            (((3,),), (), {}),
            (((3,),), (1,), {}),
            (((3,),), (-2,), {}),
            (((3, 4),), (), {}),
            (((3, 4),), (1,), {}),
            (((3, 4),), (-1,), {}),
            (((2, 3),), (5,), {}),
            (((0,),), (), {}),
        ),
        lambda: [
            error(lambda: ember.diag(ember.ones(2, 2, 2)), RuntimeError, "1D or 2D"),
            error(lambda: ember.diag(ember.tensor(1.0)), RuntimeError, "1D or 2D"),
        ],
    ),
    _spec(
        "broadcast_to",
        lambda x, shape: ember.broadcast_to(x, shape),
        np_broadcast_to,
        array_cases(
            (((3,),), ((2, 3),), {}),
            (((3, 1),), ((3, 4),), {}),
            (((),), ((2, 2),), {}),
            (((1,),), ((0,),), {}),
            (((2, 3),), ((-1, 3),), {}),
        ),
        lambda: [
            error(lambda: ember.broadcast_to(ember.ones(3), (2, 4)), RuntimeError, "expanded size"),
            error(lambda: ember.broadcast_to(ember.ones(2, 3), (3,)), RuntimeError, "broadcast_to"),
        ],
    ),
    _spec(
        "broadcast_tensors",
        lambda *xs: ember.broadcast_tensors(*xs),
        lambda *xs: tuple(np.broadcast_arrays(*xs)),
        array_cases(
            (((3,), (2, 3)), (), {}),
            (((2, 1), (1, 3), ()), (), {}),
            (((0, 3), (1, 3)), (), {}),
        ),
        lambda: [
            error(
                lambda: ember.broadcast_tensors(ember.ones(2), ember.ones(3)),
                RuntimeError,
                "broadcast_tensors",
            ),
        ],
    ),
    _spec(
        "meshgrid",
        lambda *xs, indexing="ij": ember.meshgrid(*xs, indexing=indexing),
        np_meshgrid,
        array_cases(
            (((3,), (2,)), (), {}),
            (((3,), (2,)), (), {"indexing": "xy"}),
            (((3,), (2,), (4,)), (), {"indexing": "xy"}),
            (((2,), (3,), (2,)), (), {"indexing": "ij"}),
            (((), (3,)), (), {}),
            (((3,),), (), {}),
            (((0,), (2,)), (), {}),
        ),
        lambda: [
            error(lambda: ember.meshgrid(ember.ones(2, 2)), RuntimeError, "0D or 1D"),
            error(
                lambda: ember.meshgrid(ember.ones(2), indexing="yx"),
                RuntimeError,
                "indexing must be",
            ),
            error(
                lambda: ember.meshgrid(ember.ones(2), ember.ones(2, dtype=ember.int64)),
                RuntimeError,
                "same dtype",
            ),
            error(lambda: ember.meshgrid(), RuntimeError, "non-empty"),
        ],
    ),
    _spec(
        "nn.functional.pad",
        lambda x, p, **kw: F.pad(x, p, **kw),
        np_pad,
        array_cases(
            (((3,),), ((1, 2),), {}),
            (((2, 3),), ((1, 1, 2, 0),), {"value": 2.0}),
            (((2, 3),), ((-1, 1),), {}),
            (((2, 3),), ((0, 0, -1, -1),), {}),
            (((2, 3, 4),), ((1, 0, 0, 1, 1, 1),), {}),
            (((),), ((),), {}),
            (((0, 3),), ((1, 1),), {}),
            (((2, 4),), ((2, 1),), {"mode": "reflect"}),
            (((2, 5),), ((-1, 2),), {"mode": "reflect"}),
            (((1, 3, 4),), ((1, 2, 2, 1),), {"mode": "reflect"}),
            (((1, 2, 3, 3),), ((1, 1, 1, 0, 0, 1),), {"mode": "reflect"}),
            (((2, 3),), ((2, 1),), {"mode": "replicate"}),
            (((1, 2, 3),), ((1, 0, 2, 2),), {"mode": "replicate"}),
            (((2, 4),), ((1, 3),), {"mode": "circular"}),
            (((1, 3, 4),), ((2, -1, 1, 1),), {"mode": "circular"}),
            (((2, 3),), ((0, 3),), {"mode": "circular"}),
            (((8, 64, 64),), ((1, 1, 1, 1),), {}),
        ),
        _pad_errors,
    ),
]


def _np_block_diag(*ms):
    ms = [np.asarray(m).reshape(1, -1) if np.ndim(m) < 2 else np.asarray(m) for m in ms]
    out = np.zeros(
        (sum(m.shape[0] for m in ms), sum(m.shape[1] for m in ms)), dtype=np.result_type(*ms)
    )
    r = c = 0
    for m in ms:
        out[r : r + m.shape[0], c : c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _np_combinations(a, r=2, with_replacement=False):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [[a[i] for i in idx] for idx in pick(range(len(a)), r)]
    return np.array(rows, dtype=a.dtype).reshape(-1, r)


def _tuple_of(split):
    return lambda *a, **k: tuple(split(*a, **k))


# The Python composites of this topic (python/ember/_composites/shape.py).
COMPOSITES = [
    OpSpec(
        "atleast_1d",
        ember.atleast_1d,
        np.atleast_1d,
        ALL + COMPLEX,
        array_cases((((),), (), {}), (((3,),), (), {}), (((2, 3),), (), {})),
    ),
    OpSpec(
        "atleast_2d",
        ember.atleast_2d,
        np.atleast_2d,
        ALL + COMPLEX,
        array_cases((((),), (), {}), (((3,),), (), {}), (((2, 3, 1),), (), {})),
    ),
    OpSpec(
        "atleast_3d",
        ember.atleast_3d,
        np.atleast_3d,
        ALL + COMPLEX,
        array_cases(
            (((),), (), {}), (((3,),), (), {}), (((2, 3),), (), {}), (((2, 1, 3, 2),), (), {})
        ),
    ),
    OpSpec(
        "column_stack",
        lambda a, b: ember.column_stack([a, b]),
        lambda a, b: np.column_stack([a, b]),
        ALL + COMPLEX,
        array_cases((((3,), (3,)), (), {}), (((3, 2), (3,)), (), {}), (((), ()), (), {})),
    ),
    OpSpec(
        "tensor_split",
        ember.tensor_split,
        _tuple_of(lambda x, sections, dim=0: np.array_split(x, sections, axis=dim)),
        ALL + COMPLEX,
        array_cases(
            (((7,),), (3,), {}),
            (((4, 5),), ([1, 3],), {}),
            (((4, 5),), (2,), {"dim": 1}),
            (((0, 3),), (2,), {}),
        ),
    ),
    OpSpec(
        "hsplit",
        ember.hsplit,
        _tuple_of(np.hsplit),
        ALL + COMPLEX,
        array_cases((((4, 6),), (3,), {}), (((6,),), ([1, 4],), {})),
    ),
    OpSpec(
        "vsplit",
        ember.vsplit,
        _tuple_of(np.vsplit),
        ALL + COMPLEX,
        array_cases((((4, 3),), (2,), {})),
    ),
    OpSpec(
        "dsplit",
        ember.dsplit,
        _tuple_of(np.dsplit),
        ALL + COMPLEX,
        array_cases((((2, 3, 4),), ([1],), {})),
    ),
    OpSpec(
        "ravel",
        ember.ravel,
        np.ravel,
        ALL + COMPLEX,
        array_cases((((2, 3),), (), {}), (((),), (), {}), (((0, 2),), (), {})),
    ),
    OpSpec(
        "rot90",
        ember.rot90,
        lambda x, k=1, dims=(0, 1): np.rot90(x, k, axes=dims),
        ALL + COMPLEX,
        array_cases(
            (((2, 3),), (), {}),
            (((2, 3),), (2,), {}),
            (((2, 3),), (-1,), {}),
            (((2, 3, 4),), (1, (2, 0)), {}),
            (((2, 3),), (4,), {}),
        ),
    ),
    OpSpec(
        "block_diag",
        ember.block_diag,
        _np_block_diag,
        ALL + COMPLEX,
        array_cases((((2, 2), (1, 3)), (), {}), (((), (2,)), (), {})),
    ),
    OpSpec(
        "cartesian_prod",
        ember.cartesian_prod,
        lambda *xs: (
            np.array(list(itertools.product(*xs))).reshape(-1, len(xs)) if len(xs) > 1 else xs[0]
        ),
        ALL + COMPLEX,
        array_cases((((2,), (3,)), (), {}), (((3,),), (), {}), (((2,), (1,), (2,)), (), {})),
    ),
    OpSpec(
        "combinations",
        ember.combinations,
        _np_combinations,
        ALL + COMPLEX,
        array_cases(
            (((4,),), (), {}), (((4,),), (3,), {}), (((3,),), (2,), {"with_replacement": True})
        ),
    ),
    OpSpec(
        "diagflat",
        ember.diagflat,
        np.diagflat,
        ALL + COMPLEX,
        array_cases((((3,),), (), {}), (((2, 2),), (1,), {}), (((2,),), (-1,), {})),
    ),
    OpSpec(
        "swapdims",
        ember.swapdims,
        np.swapaxes,
        ALL + COMPLEX,
        array_cases((((2, 3, 4),), (0, 2), {})),
    ),
]


def records():
    return RECORDS + COMPOSITES
