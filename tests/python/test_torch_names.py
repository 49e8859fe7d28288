"""The smaller torch-level names programs use: the *_copy view functions, the ATen-named nn
forms, in-place shape ops, forward-mode AD, nn.grad, SyncBatchNorm, futures, the symbolic-shape
helpers, torch_function helpers and other modules, against NumPy or the ops they stand for."""

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn


def test_view_copies_own_their_memory():
    x = ember.arange(12.0).view(3, 4)
    for y, want in [
        (ember.transpose_copy(x, 0, 1), x.numpy().T),
        (ember.diagonal_copy(x), np.diagonal(x.numpy())),
        (ember.select_copy(x, 1, 2), x.numpy()[:, 2]),
        (ember.slice_copy(x, 1, 1, 3), x.numpy()[:, 1:3]),
        (ember.unsqueeze_copy(x, 0), x.numpy()[None]),
        (ember.view_copy(x, (4, 3)), x.numpy().reshape(4, 3)),
        (ember.expand_copy(x[:1], (2, 4)), np.broadcast_to(x.numpy()[:1], (2, 4))),
    ]:
        np.testing.assert_array_equal(y.numpy(), want)
        assert y.is_contiguous()
        y.add_(100)  # no aliasing: x is unchanged
    np.testing.assert_array_equal(x.numpy(), np.arange(12.0).reshape(3, 4))
    parts = ember.split_copy(x, 2, 1)
    assert [tuple(p.shape) for p in parts] == [(3, 2), (3, 2)]
    out = ember.as_strided_scatter(ember.zeros(3, 3), ember.ones(3), (3,), (4,))
    np.testing.assert_array_equal(out.numpy(), np.eye(3))
    z = ember.view_as_complex(ember.arange(4.0).view(2, 2))
    pairs = ember.view_as_real_copy(z)
    pairs.add_(1)  # a copy: z is unchanged
    np.testing.assert_array_equal(z.numpy(), [1j, 2 + 3j])
    np.testing.assert_array_equal(ember.view_as_complex_copy(pairs).numpy(), [1 + 2j, 3 + 4j])


def test_aten_forms_match_nn_functional():
    rng = np.random.default_rng(0)
    x, t = ember.tensor(rng.standard_normal((4, 5))), ember.tensor(rng.random((4, 5)))
    logp = x.log_softmax(1)
    for r, name in [(0, "none"), (1, "mean"), (2, "sum")]:
        np.testing.assert_allclose(
            ember.kl_div(logp, t, r).numpy(), F.kl_div(logp, t, reduction=name).numpy()
        )
    np.testing.assert_allclose(
        ember.binary_cross_entropy_with_logits(x, t).numpy(),
        F.binary_cross_entropy_with_logits(x, t).numpy(),
    )
    pts = rng.standard_normal((5, 3))
    i, j = np.triu_indices(5, 1)
    np.testing.assert_allclose(
        ember.pdist(ember.tensor(pts)).numpy(), np.linalg.norm(pts[i] - pts[j], axis=1)
    )
    # conv_tbc: time-batch-channel in, [K, Cin, Cout] weight.
    inp, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((2, 3, 4)), np.zeros(4)
    out = ember.conv_tbc(ember.tensor(inp), ember.tensor(w), ember.tensor(b)).numpy()
    want = np.stack([sum(inp[s + k] @ w[k] for k in range(2)) for s in range(5)])
    np.testing.assert_allclose(out, want, atol=1e-12)
    xi, wi = ember.randn(1, 2, 5), ember.randn(2, 3, 3)
    np.testing.assert_allclose(
        ember.convolution(xi, wi, None, [1], [1], [1], True, [0], 1).numpy(),
        F.conv_transpose1d(xi, wi, padding=1).numpy(),
    )


def test_native_norm_forms_return_their_statistics():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 3, 2))
    out, mean, rstd = ember.native_layer_norm(ember.tensor(a), [2], None, None, 1e-5)
    np.testing.assert_allclose(mean.numpy(), a.mean(-1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(rstd.numpy(), 1 / np.sqrt(a.var(-1, keepdims=True) + 1e-5))
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    out, mean, invstd = ember.native_batch_norm(
        ember.tensor(a), None, None, rm, rv, True, 0.1, 1e-5
    )
    np.testing.assert_allclose(mean.numpy(), a.mean((0, 2)), atol=1e-12)
    np.testing.assert_allclose(rm.numpy(), 0.1 * a.mean((0, 2)), atol=1e-12)  # updated in place
    np.testing.assert_allclose(invstd.numpy(), 1 / np.sqrt(a.var((0, 2)) + 1e-5))
    _, m, _ = ember.native_batch_norm(ember.tensor(a), None, None, rm, rv, False, 0.1, 1e-5)
    assert m.numel() == 0
    out, mask = ember.native_dropout(ember.ones(1000), 0.25, True)
    kept = mask.numpy()
    np.testing.assert_allclose(out.numpy()[kept], 1 / 0.75)
    assert not out.numpy()[~kept].any()


def test_in_place_shape_ops():
    x = ember.arange(6.0).view(2, 3)
    view = x[0]
    assert x.t_() is x and tuple(x.shape) == (3, 2)
    np.testing.assert_array_equal(view.numpy(), [0, 1, 2])  # earlier views keep their shape
    x.unsqueeze_(1).squeeze_(1).transpose_(0, 1)
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    y = ember.arange(4.0)
    y.resize_(2, 3)
    assert tuple(y.shape) == (2, 3)
    np.testing.assert_array_equal(y.numpy().reshape(-1)[:4], [0, 1, 2, 3])
    z = ember.empty(0).set_(y)
    assert z.data_ptr() == y.data_ptr()
    w = ember.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="t_.*requires grad"):
        w.t_()


def test_forward_ad_tangents_are_jvps():
    import ember.autograd.forward_ad as fwAD

    rng = np.random.default_rng(2)
    x = ember.tensor(rng.standard_normal(3))
    v = ember.tensor(rng.standard_normal(3))

    def f(a):
        return (a.sin() * a).sum() * a.exp()

    with fwAD.dual_level():
        dual = fwAD.make_dual(x, v)
        primal, tangent = fwAD.unpack_dual(f(dual))
        assert fwAD.unpack_dual(dual).tangent is not None
    _, jvp = ember.autograd.functional.jvp(f, x, v)
    np.testing.assert_allclose(primal.numpy(), f(x).numpy())
    np.testing.assert_allclose(tangent.numpy(), jvp.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="dual_level"):
        fwAD.make_dual(x, v)


def test_nn_grad_is_the_convolution_backward():
    x, w = (
        ember.randn(2, 3, 6, 6, dtype=ember.float64),
        ember.randn(4, 3, 3, 3, dtype=ember.float64),
    )
    go = ember.randn(2, 4, 2, 2, dtype=ember.float64)
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    F.conv2d(xr, wr, stride=2).backward(go)
    np.testing.assert_allclose(
        nn.grad.conv2d_input(x.shape, w, go, stride=2).numpy(), xr.grad.numpy(), atol=1e-12
    )
    np.testing.assert_allclose(
        nn.grad.conv2d_weight(x, w.shape, go, stride=2).numpy(), wr.grad.numpy(), atol=1e-12
    )
    assert F.grad is nn.grad


def test_sync_batch_norm_is_batch_norm_outside_distributed_training():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
    x = ember.randn(2, 3, 5, 5)
    want = model(x)
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(synced[1], nn.SyncBatchNorm)
    assert synced[1].weight is model[1].weight
    np.testing.assert_allclose(synced(x).detach().numpy(), want.detach().numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="at least 2D"):
        nn.SyncBatchNorm(4)(ember.ones(4))
    lrn = nn.CrossMapLRN2d(3)
    np.testing.assert_allclose(lrn(x).numpy(), F.local_response_norm(x, 3).numpy(), rtol=1e-6)
    with pytest.warns(FutureWarning, match="Container"):
        c = nn.Container(a=nn.Linear(2, 2))
    assert isinstance(c.a, nn.Linear)
    assert nn.factory_kwargs({"dtype": ember.float64}) == {"dtype": ember.float64}
    with pytest.raises(TypeError):
        nn.factory_kwargs({"bias": True})


def test_futures_and_fork():
    fut = ember.futures.Future()
    chained = fut.then(lambda f: f.value() * 2)
    assert not fut.done()
    fut.set_result(21)
    assert chained.wait() == 42
    both = ember.futures.collect_all([ember.fork(lambda: 1), ember.fork(lambda: 2)])
    assert [f.wait() for f in both.wait()] == [1, 2]
    failed = ember.fork(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        ember.wait(failed)


def test_small_functions():
    assert (ember.sym_int(-3.7), ember.sym_max(2, 3.0), ember.sym_ite(False, 1, 2)) == (-3, 3.0, 2)
    assert not isinstance(3, ember.SymInt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(ember.range(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_array_equal(
        ember.vander(ember.tensor([1, 2, 3])).numpy(), np.vander([1, 2, 3])
    )
    assert ember.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)
    assert ember.get_device_module("cpu") is ember.cpu
    from ember.torch_version import TorchVersion

    assert TorchVersion("2.1.0+cpu") >= (2, 0) and TorchVersion("1.13") < "2.0"
    assert ember.return_types.svd is type(ember.svd(ember.eye(2)))
    x = ember.ones(3)
    x.map2_(ember.arange(3.0), ember.full((3,), 2.0), lambda a, b, c: a + b * c)
    np.testing.assert_array_equal(x.numpy(), [1, 3, 5])


def test_torch_function_helpers():
    class Wrapped:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__)

    def public(a):
        if F.has_torch_function((a,)):
            return F.handle_torch_function(public, (a,), a)
        return "plain"

    assert public(ember.ones(1)) == "plain"
    assert public(Wrapped()) == ("handled", "public")
    assert ember.overrides.is_tensor_like(Wrapped()) and not ember.overrides.is_tensor_like(3)
    pick = F.boolean_dispatch(
        "flag", 1, False, lambda a, flag=False: "yes", lambda a, flag=False: "no", "m", "pick"
    )
    assert (pick(1), pick(1, True), pick(1, flag=True)) == ("no", "yes", "yes")


def test_layout_questions_of_strided_tensors():
    """ember's tensors are strided: PyTorch's answers for a strided CPU tensor."""
    x = ember.arange(6.0).reshape(2, 3)
    assert x.is_sparse is False and x.is_sparse_csr is False
    assert x.to_dense() is x
    d = x.to_dense(ember.float64)
    assert d.dtype == ember.float64 and d.tolist() == x.tolist()
    assert ember.is_vulkan_available() is False and ember.cudnn_is_acceptable(x) is False


def test_tensor_new_takes_a_size_as_sizes():
    x = ember.ones(2, dtype=ember.float64)
    y = x.new(ember.Size([3, 2]))
    assert y.shape == (3, 2) and y.dtype == ember.float64
    assert x.new([3.0, 2.0]).tolist() == [3.0, 2.0]  # a list is data


def test_constants():
    assert ember.pi == math.pi and ember.e == math.e and ember.inf == math.inf
    assert math.isnan(ember.nan) and ember.newaxis is None
    assert ember.ones(2, 3)[ember.newaxis].shape == (1, 2, 3)
