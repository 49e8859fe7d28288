"""Reduction rules the op table does not reach."""

import ember


def test_sum_and_prod_honour_an_integer_dtype():
    # Integers accumulate in int64 and the result takes the dtype asked for (wrapping), as
    # PyTorch's: 100 + 100 in int8 is -56.
    x = ember.tensor([100, 100], dtype=ember.int8)
    assert ember.sum(x, dtype=ember.int8).item() == -56
    assert ember.sum(x, dtype=ember.int8).dtype == ember.int8
    assert ember.sum(x, 0, dtype=ember.int16).item() == 200
    assert ember.sum(x).dtype == ember.int64
    assert ember.prod(ember.tensor([3, 5]), dtype=ember.int8).dtype == ember.int8
