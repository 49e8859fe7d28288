"""Op-table records of the complex ops: view_as_real, view_as_complex, real, imag, conj,
conj_physical, angle, complex, polar.

A record's samples are real arrays; in a complex dtype the harness makes them complex
(spec.complex_partner), so the references receive the same complex values the op sees."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOAT32_64,
    OpSpec,
    Sample,
    error,
    error_list,
    make_array,
    unary_samples,
)


def _pair_samples(dtype, rng):
    """(..., 2) float arrays: the real pairs view_as_complex reads."""
    return [
        Sample((make_array(s, dtype, rng),), desc=f"shape{s}")
        for s in [(2,), (3, 2), (2, 3, 2), (0, 2)]
    ]


def _two_samples(low=-3.0, high=3.0):
    def make(dtype, rng):
        out = []
        for sa, sb in [((4,), (4,)), ((2, 3), (3,)), ((), ()), ((2, 1), (1, 3)), ((0,), (0,))]:
            a = make_array(sa, dtype, rng, low, high)
            b = make_array(sb, dtype, rng)
            out.append(Sample((a, b), desc=f"{sa} {sb}"))
        return out

    return make


def _angle(x):
    if np.iscomplexobj(x):
        return np.angle(x)
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0.0))


def _errors():
    z = ember.zeros(3, dtype=ember.complex64)
    vac, R = ember.view_as_complex, RuntimeError
    return error_list(
        error(lambda: ember.view_as_real(ember.zeros(3)), R, "only supported for complex"),
        error(lambda: vac(ember.zeros(3, 3)), R, "last dimension of size 2"),
        error(lambda: vac(ember.zeros(2, 4).t()), R, "stride 1"),
        error(lambda: vac(ember.zeros(5)[1:].reshape(2, 2)), R, "storage_offset"),
        error(lambda: ember.imag(ember.zeros(2)), R, "non-complex"),
        error(
            lambda: ember.complex(ember.zeros(2), ember.zeros(2, dtype=ember.float64)),
            TypeError,
            "Float or Double",
        ),
        error(lambda: ember.zeros(3).add_(z), R, "can't be cast"),
        error(lambda: ember.zeros(2).fill_(1j), R, "cannot be converted"),
        error(lambda: ember.cumsum(z, 0), TypeError, "not implemented for dtype complex64"),
        error(lambda: z.abs_(), R, "In-place abs is not supported"),
        error(lambda: z < z, TypeError, "not implemented for dtype complex64"),
    )


def records():
    return [
        OpSpec("view_as_real", ember.view_as_real, lambda z: np.stack([z.real, z.imag], -1),
               COMPLEX, unary_samples(), errors=_errors()),
        OpSpec("view_as_complex", ember.view_as_complex, lambda a: a[..., 0] + 1j * a[..., 1],
               FLOAT32_64, _pair_samples, noncontiguous=False),
        OpSpec("real", ember.real, np.real, ALL + COMPLEX, unary_samples()),
        OpSpec("imag", ember.imag, np.imag, COMPLEX, unary_samples()),
        OpSpec("conj", ember.conj, np.conj, ALL + COMPLEX, unary_samples()),
        OpSpec("conj_physical", ember.conj_physical, np.conj, ALL + COMPLEX, unary_samples()),
        OpSpec("angle", ember.angle, _angle, ALL + COMPLEX, unary_samples(away_from_zero=True)),
        OpSpec("complex", ember.complex, lambda a, b: a + 1j * b, FLOAT32_64, _two_samples()),
        OpSpec("polar", ember.polar, lambda a, t: a * np.exp(1j * t), FLOAT32_64,
               _two_samples(0.1, 3.0)),
    ]  # fmt: skip
