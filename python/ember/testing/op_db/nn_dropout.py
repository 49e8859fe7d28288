"""Op-table records of the neural-network ops: dropout, feature dropout, alpha dropout and
feature alpha dropout, each with its in-place form.

The records seed ember's generator before every call, so that gradcheck sees one mask; their
forward is a `check` (every element kept and scaled, or dropped), the mask's statistics are in
tests/python/test_nn_norm.py."""

from __future__ import annotations

import numpy as np

import ember
from ember.testing.op_db.spec import (
    FLOATING,
    ErrorSample,
    OpSpec,
    Sample,
    make_array,
    rounded,
    to_numpy,
)

# SELU's alpha times its scale: alpha dropout sets a dropped element to minus this, before its
# affine correction.
_ALPHA = 1.7580993408473766


def _dropout_op(name, inplace):
    fn = getattr(ember, name)

    def op(x, p, train):
        ember.manual_seed(0)  # one mask for every call (gradcheck calls many times)
        if inplace:
            y = x.clone()
            r = fn(y, p, train)
            assert r is y, f"{name} must return its input"
            return y
        return fn(x, p, train)

    return op


def _dropout_samples(feature):
    def make(dtype, rng):
        def arr(*s):
            return make_array(s, dtype, rng)

        out = [
            Sample((arr(60, 5) if feature else arr(300), 0.3, True), desc="p=0.3"),
            Sample((arr(4, 5), 0.5, True), desc="2-d"),
            Sample((arr(2, 3, 2, 2), 0.2, True), desc="4-d"),
            Sample((arr(2, 3, 4), 0.0, True), desc="p=0", grad=False),
            Sample((arr(2, 3, 4), 1.0, True), desc="p=1"),
            Sample((arr(2, 3, 4), 0.5, False), desc="eval", grad=False),
            Sample((arr(0, 3), 0.5, True), desc="zero-size", grad=False),
        ]
        if not feature:
            out.append(Sample((arr(), 0.5, True), desc="0-d"))
        return out

    return make


def _dropout_check(alpha, feature):
    def check(out, sample, dtype):
        x = rounded(sample.args[0], dtype)
        p, train = sample.args[1], sample.args[2]
        assert out.dtype == dtype and tuple(out.shape) == x.shape, (out.dtype, out.shape)
        y = to_numpy(out)
        if p == 0 or not train or x.size == 0:
            np.testing.assert_array_equal(y, x)
            return
        if p == 1:
            np.testing.assert_array_equal(y, np.zeros_like(x))
            return
        if alpha:
            a = 1 / np.sqrt((_ALPHA**2 * p + 1) * (1 - p))
            kept, dropped = a * x + _ALPHA * a * p, np.full_like(x, _ALPHA * a * (p - 1))
        else:
            kept, dropped = x / (1 - p), np.zeros_like(x)
        rtol = 1e-5 if dtype in (ember.float32, ember.float64) else 2e-2
        is_kept = np.isclose(y, kept, rtol=rtol, atol=rtol)
        is_dropped = np.isclose(y, dropped, rtol=rtol, atol=rtol)
        assert np.all(is_kept | is_dropped), (y, x)
        if feature and x.ndim >= 2:
            # A (sample, channel) plane is kept or dropped as a whole.
            plane_kept = (is_kept & ~is_dropped).reshape(x.shape[0], x.shape[1], -1)
            plane_dropped = (is_dropped & ~is_kept).reshape(plane_kept.shape)
            assert np.all(~plane_kept.any(-1) | ~plane_dropped.any(-1)), y

    return check


def _dropout_errors(name, feature, inplace):
    fn = getattr(ember, name)
    errors = [
        ErrorSample(
            lambda: fn(ember.ones(3, 4), 1.5, True),
            RuntimeError,
            "dropout probability has to be between 0 and 1, but got 1.5",
            "p > 1",
        )
    ]
    if feature:
        errors.append(
            ErrorSample(
                lambda: fn(ember.ones(3), 0.5, True),
                RuntimeError,
                "Feature dropout requires at least 2 dimensions in the input",
                "1-d input",
            )
        )
    if inplace:
        errors.append(
            ErrorSample(
                lambda: fn(ember.ones(3, 4, requires_grad=True), 0.5, True),
                RuntimeError,
                "leaf",
                "in-place on a leaf that requires grad",
            )
        )
    return errors


def _dropout_record(name):
    inplace = name.endswith("_")
    feature = "feature" in name
    alpha = "alpha" in name
    return OpSpec(
        name,
        _dropout_op(name, inplace),
        None,
        FLOATING,
        _dropout_samples(feature),
        gradgrad=not inplace,
        errors=lambda: _dropout_errors(name, feature, inplace),
        check=_dropout_check(alpha, feature),
    )


def records():
    return [
        _dropout_record(base + suffix)
        for base in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout")
        for suffix in ("", "_")
    ]
