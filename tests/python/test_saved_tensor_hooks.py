"""ember.autograd.graph.saved_tensors_hooks: every saved tensor goes through pack and unpack."""

import pytest

import ember
from ember.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def test_pack_and_unpack_see_every_saved_tensor():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ("box", t.clone())

    def unpack(box):
        unpacked.append(box[0])
        return box[1]

    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sin()  # mul saves x twice, sin saves its input
    assert len(packed) == 3
    y.sum().backward()
    assert unpacked == ["box"] * 3
    expected = (2 * x * (x * x).cos()).detach()
    assert ember.allclose(x.grad, expected)


def test_hooks_may_change_the_saved_value_and_skip_version_checks():
    x = ember.tensor([3.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 10.0):
        y = x * x
    y.backward()
    assert x.grad.tolist() == [20.0]  # d(x*x) = x_saved + x_saved, with x_saved = 10
    a = ember.tensor([2.0], requires_grad=True)
    b = a * 1
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        c = b * b
    b.add_(1)  # would trip the version check without the hooks
    c.backward()
    assert a.grad.tolist() == [4.0]


def test_save_on_cpu_and_disable():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with save_on_cpu():
        y = (x.exp() * x).sum()
    y.backward()
    assert ember.allclose(x.grad, (x.exp() * (x + 1)).detach())
    with (
        disable_saved_tensors_hooks("no saving here"),
        pytest.raises(RuntimeError, match="no saving here"),
    ):
        x * x
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor"):
        with saved_tensors_hooks(lambda t: t, lambda t: "oops"):
            z = x * x
        z.sum().backward()
