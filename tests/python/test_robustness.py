"""Bad input raises a clear error (never a crash), and corner cases give PyTorch's results.
Each test pins a defect found in review."""

import gc

import numpy as np
import pytest

import ember


def test_detach_after_retain_grad_leaves_no_dangling_slot():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = y * 3
    y.detach_()
    del y
    junk = [ember.ones(3) * 2 for _ in range(100)]  # reuse the freed memory
    z.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0, 6.0]
    del junk


@pytest.mark.parametrize(
    "make",
    [
        lambda: ember.arange(2**62),
        lambda: ember.zeros(2**40, 2**22),
        lambda: ember.zeros(0).view(2**32, 2**32),
        lambda: ember.empty(2**62 - 2**57),
        lambda: ember.as_strided(ember.zeros(10), (2**32, 2**32), (2**32, 1)),
    ],
)
def test_sizes_that_overflow_raise(make):
    with pytest.raises(RuntimeError, match="overflow"):
        make()


def test_invalid_geometry_raises():
    x = ember.zeros(10)
    with pytest.raises(RuntimeError, match="invalid storage offset -5"):
        ember.as_strided(x, (10,), (1,), -5)
    with pytest.raises(RuntimeError, match="out of bounds"):
        ember.as_strided(x, (10,), (1,), 1)
    with pytest.raises(RuntimeError, match="non-negative"):
        ember.empty_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match="invalid size -2"):
        ember.zeros(1).expand(-2)


def test_randint_over_the_whole_int64_range():
    assert ember.randint(2**62, 2**62 + 1, (3,)).tolist() == [2**62] * 3
    r = ember.randint(-(2**63), 2**63 - 1, (1000,))
    assert (r < 0).sum().item() > 0 and r.max().item() > 0
    with pytest.raises(RuntimeError, match="out of bounds for dtype uint8"):
        ember.randint(0, 300, (3,), dtype=ember.uint8)


def test_partially_overlapping_inplace_ops_are_refused():
    a = ember.arange(8.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        a[1:] += a[:-1]
    b = ember.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match="single memory location"):
        b.copy_(b.t())
    assert a.tolist() == list(range(8)) and b.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    c = ember.arange(4.0)
    c += c  # the same elements are fine
    c.copy_(c)
    assert c.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_printing_with_no_edge_items():
    ember.set_printoptions(edgeitems=0, threshold=5)
    try:
        assert repr(ember.arange(10)) == "tensor([...], size=(10,))"
    finally:
        ember.set_printoptions(profile="default")


def test_dimension_limits():
    nested = [1.0]
    for _ in range(100):
        nested = [nested]
    with pytest.raises(ValueError, match="too many dimensions"):
        ember.tensor(nested)
    t = ember.zeros([1] * 70)
    with pytest.raises(RuntimeError, match="at most 64 dims"):
        t.max(69)


def test_float_to_int_conversions():
    with pytest.raises(ValueError):
        int(ember.tensor(float("nan")))
    assert int(ember.tensor(1e30)) == int(np.float32(1e30))  # exact, as Python's int(float)
    with pytest.raises(RuntimeError, match="cannot be converted to type int32 without overflow"):
        ember.zeros(3, dtype=ember.int32).fill_(1e30)
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.full((2,), 1e30, dtype=ember.int32)
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.tensor([1e30], dtype=ember.int32)
    assert (ember.tensor([1], dtype=ember.int8) + 1000).tolist() == [-23]  # arithmetic wraps


def test_float16_mean_and_scalar_precision():
    assert ember.ones(100_000, dtype=ember.float16).mean().item() == 1.0
    assert ember.full((70_000,), 1e-3, dtype=ember.float16).mean().item() == pytest.approx(
        1e-3, rel=1e-3
    )
    x = ember.ones(70_000, dtype=ember.float16, requires_grad=True)
    x.mean().backward()
    assert x.grad[0].item() == pytest.approx(1 / 70_000, rel=2e-3)  # float16 rounding
    h = ember.full((2,), 1e-3, dtype=ember.float16)
    assert (h * 1e5).tolist() == [pytest.approx(100.0625)] * 2
    assert (ember.full((2,), 3.0, dtype=ember.float16) * 0.1).tolist()[0] == pytest.approx(
        0.3, abs=1e-4
    )


def test_pow_gradients_at_zero_base():
    x = ember.tensor(0.0, requires_grad=True)
    (x**0).backward()
    assert x.grad.item() == 0.0
    b = ember.tensor([2.0, 2.0], requires_grad=True)
    ember.pow(ember.tensor([0.0, 2.0]), b).sum().backward()
    assert b.grad.tolist()[0] == 0.0 and b.grad.tolist()[1] == pytest.approx(4 * np.log(2))
    with pytest.raises(RuntimeError, match="negative integer powers"):
        ember.tensor([2, 3]) ** -1


def test_rand_in_reduced_precision_stays_below_one():
    for dtype in (ember.float16, ember.bfloat16):
        r = ember.rand(200_000, dtype=dtype)
        assert r.max().item() < 1.0


def test_hooks_may_not_change_shape_or_dtype():
    w = ember.ones(2, requires_grad=True)
    w.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="changed the size"):
        (w * 2).sum().backward()
    v = ember.ones(2, requires_grad=True)
    h = v * 1
    h.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="changed the dtype"):
        h.sum().backward()


def test_fill_with_a_differentiable_value():
    w = ember.ones(3, requires_grad=True)
    v = ember.tensor(2.0, requires_grad=True)
    x = w * 1
    x.fill_(v)
    x.sum().backward()
    assert v.grad.item() == 3.0 and w.grad.tolist() == [0.0, 0.0, 0.0]


def test_retained_grad_does_not_alias_the_given_gradient():
    x = ember.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    g = ember.ones(3)
    y.backward(g)
    y.grad.zero_()
    assert g.tolist() == [1.0, 1.0, 1.0]


def test_numpy_array_copy_protocol():
    x = ember.zeros(3)
    a = np.array(x, copy=True)
    a[0] = 5
    assert x.tolist() == [0.0, 0.0, 0.0]
    b = np.asarray(x)
    b[1] = 7
    assert x[1].item() == 7


def test_data_assignment_to_a_view_of_itself_does_not_leak():
    gc.collect()
    before = ember.memory_allocated()
    for _ in range(20):
        x = ember.zeros(1 << 18)
        x.data = x[0:10]
        assert x._base is None
        del x
    assert ember.memory_allocated() - before < 1 << 20


def test_copy_from_a_stale_view_is_refused_before_writing():
    w = ember.ones(3, requires_grad=True)
    a = w * 1
    v = a[0:2]
    a.mul_(2)
    buf = ember.zeros(2)
    with pytest.raises(NotImplementedError, match="stale"):
        buf.copy_(v)
    assert buf.tolist() == [0.0, 0.0] and buf._version == 0


def test_squeeze_with_repeated_dims_raises():
    with pytest.raises(RuntimeError, match="appears multiple times"):
        ember.zeros(1, 1, 3).squeeze((0, 0))


def test_matmul_with_an_empty_inner_dim():
    out = ember.matmul(ember.zeros(2, 3, 0), ember.zeros(0, 4))
    assert out.shape == (2, 3, 4) and out.sum().item() == 0


def test_any_int_seed_round_trips():
    ember.manual_seed(2**64 - 1)
    assert ember.initial_seed() == 2**64 - 1
    for _ in range(5):
        ember.seed()
        ember.manual_seed(ember.initial_seed())
    ember.manual_seed(-1)
    assert ember.initial_seed() == 2**64 - 1


def test_wrong_argument_types_are_type_errors():
    x = ember.zeros(2)
    with pytest.raises(RuntimeError, match="device type at start of device string: gpu"):
        x.to("gpu")
    with pytest.raises(TypeError, match="copy must be a bool"):
        x.to(ember.float64, copy="yes")
    with pytest.raises(TypeError, match="dtype must be an ember.dtype"):
        x.to(dtype="float")
    with pytest.raises(TypeError, match="size must be a tuple of ints"):
        ember.randint(10, "abc")
    with pytest.raises(TypeError, match="can't convert np.ndarray of type object"):
        ember.from_numpy(np.zeros(2, dtype=object))
    with pytest.raises(TypeError, match="expected a uint8 tensor"):
        ember.set_rng_state(ember.zeros(16))
    with pytest.raises(RuntimeError, match="no values"):
        bool(ember.zeros(0))


def test_sum_of_a_transposed_tensor_reads_in_memory_order():
    a = ember.rand(300, 200, dtype=ember.float64)
    assert a.t().sum().item() == pytest.approx(a.sum().item(), rel=1e-12)
    assert a.permute(1, 0).sum(dim=(0, 1)).item() == pytest.approx(a.sum().item(), rel=1e-12)


def test_overlap_rules_follow_pytorch():
    a = ember.arange(8.0)
    a[0::2] += a[1::2]  # interleaved views share no element: allowed, as in PyTorch
    assert a.tolist() == [1.0, 1.0, 5.0, 3.0, 9.0, 5.0, 13.0, 7.0]


def test_fill_values_must_fit_floating_dtypes_too():
    with pytest.raises(RuntimeError, match="float16 without overflow"):
        ember.full((1,), 1e30, dtype=ember.float16)
    assert ember.full((1,), float("inf"), dtype=ember.float16).tolist() == [float("inf")]


def test_boolean_alpha_needs_boolean_results():
    with pytest.raises(RuntimeError, match="boolean alpha"):
        ember.add(ember.ones(2), ember.ones(2), alpha=True)
