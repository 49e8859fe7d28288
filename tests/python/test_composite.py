"""The Python composites' declaration (ember/_composite.py): registry, dtype check, errors."""

import pytest

import ember
from ember._composite import RECORDS


def test_composites_are_in_the_registry_with_their_topics():
    registry = {name: (kind, topic) for name, kind, _, _, topic in ember._op_registry()}
    assert registry["diff"] == ("composite", "scan")
    assert registry["cov"] == ("composite", "statistics")
    assert {r[0] for r in RECORDS} <= set(registry)
    # No composite hides a C++ op of the same name.
    cpp = {r[0] for r in ember._C._op_registry()}
    assert not cpp & {r[0] for r in RECORDS}


def test_methods_and_functions_are_the_same_op():
    x = ember.tensor([1.0, 4.0, 9.0])
    assert x.diff().tolist() == ember.diff(x).tolist() == [3.0, 5.0]
    assert not hasattr(ember.Tensor, "cartesian_prod")  # a function only, as in PyTorch


def test_an_undeclared_dtype_is_refused_with_the_op_name():
    with pytest.raises(TypeError, match=r"\[cov\] does not support dtype int64"):
        ember.cov(ember.tensor([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match=r"\[hann_window\] does not support dtype int32"):
        ember.hann_window(4, dtype=ember.int32)


def test_an_error_of_a_part_names_the_composite():
    with pytest.raises(RuntimeError, match=r"^\[inner\] inner\(\) the last dimension must match"):
        ember.inner(ember.ones(2, 3), ember.ones(4))
    with pytest.raises(RuntimeError, match=r"^\[xlogy\] \[mul\] shapes \[2, 3\] and \[4\]"):
        ember.xlogy(ember.ones(2, 3), ember.ones(4))
