"""Anomaly detection and post-accumulate-grad hooks."""

import warnings

import pytest

import ember


def test_detect_anomaly_names_the_function_and_the_forward_line():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = ember.autograd.detect_anomaly()
    with mode:
        assert ember.is_anomaly_enabled()
        y = (x / x).sum()  # the line the error must point at
        with pytest.raises(RuntimeError) as info:
            y.backward()
    assert not ember.is_anomaly_enabled()
    text = str(info.value)
    assert "Function 'DivBackward0' returned nan values in its 1th output." in text
    assert "y = (x / x).sum()  # the line the error must point at" in text


def test_without_anomaly_mode_nans_pass_silently():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    (x / x).sum().backward()
    assert x.grad[1].item() == 0.0  # and x.grad[0] is nan, as in PyTorch


def test_set_detect_anomaly_and_check_nan_off():
    x = ember.tensor([0.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.autograd.set_detect_anomaly(True, check_nan=False):
            assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
            (x / x).sum().backward()  # no check
        assert not ember.is_anomaly_enabled()
        ember.autograd.set_detect_anomaly(True)
        try:
            with pytest.raises(RuntimeError, match="returned nan values"):
                (x / x).sum().backward()
        finally:
            ember.autograd.set_detect_anomaly(False)


def test_post_accumulate_grad_hooks_see_the_accumulated_grad_and_the_same_object():
    p = ember.nn.Parameter(ember.ones(2))
    seen = []
    handle = p.register_post_accumulate_grad_hook(lambda t: seen.append((t, t.grad.tolist())))
    (p * 3).sum().backward()
    (p * 2).sum().backward()
    handle.remove()
    (p * 2).sum().backward()
    assert [g for _, g in seen] == [[3.0, 3.0], [5.0, 5.0]]
    assert all(t is p for t, _ in seen)


def test_an_optimizer_step_per_parameter_inside_backward():
    # PyTorch's documented use: each parameter steps as soon as its gradient is ready.
    model = ember.nn.Linear(3, 2)
    opts = {p: ember.optim.SGD([p], lr=0.1) for p in model.parameters()}
    before = [p.detach().clone() for p in model.parameters()]
    handles = [
        p.register_post_accumulate_grad_hook(lambda t: (opts[t].step(), opts[t].zero_grad()))
        for p in model.parameters()
    ]
    model(ember.ones(1, 3)).sum().backward()
    for b, p in zip(before, model.parameters()):
        assert not ember.equal(b, p.detach()) and p.grad is None
    # The hooks (held by the C++ side) refer to the parameters through opts: remove them, or the
    # cycle outlives the test.
    for h in handles:
        h.remove()


def test_post_accumulate_hooks_need_a_leaf_that_requires_grad():
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (ember.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ember.ones(1).register_post_accumulate_grad_hook(print)
