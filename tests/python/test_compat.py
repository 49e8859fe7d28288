"""The names PyTorch programs touch before and around their model: legacy tensor types,
autograd.Variable, the device and backend questions, compile, onnx, DataParallel and
amp.GradScaler (docs/compat.md)."""

import warnings

import numpy as np
import pytest

import ember


def test_legacy_constructors_make_tensors_of_their_dtype():
    assert (
        ember.FloatTensor(2, 3).shape == (2, 3) and ember.FloatTensor(2, 3).dtype == ember.float32
    )
    assert ember.LongTensor([1, 2]).tolist() == [1, 2]
    assert ember.LongTensor([1, 2]).dtype == ember.int64
    assert ember.ByteTensor(ember.Size([4])).dtype == ember.uint8
    assert ember.DoubleTensor(np.array([0.5])).tolist() == [0.5]
    assert ember.BoolTensor([True]).dtype == ember.bool
    assert ember.HalfTensor().shape == (0,)
    x = ember.ones(3)
    same = ember.FloatTensor(x)
    same[0] = 5  # an alias, as in PyTorch
    assert x[0].item() == 5
    with pytest.raises(TypeError, match="expected a tensor of dtype ember.float32"):
        ember.FloatTensor(ember.ones(2, dtype=ember.int64))
    with pytest.raises(TypeError, match="expected sizes"):
        ember.FloatTensor("a", 2)


def test_isinstance_with_a_legacy_type_checks_dtype_and_device():
    x = ember.randn(3)
    assert isinstance(x, ember.FloatTensor) and not isinstance(x, ember.DoubleTensor)
    assert isinstance(x.long(), ember.LongTensor)
    assert not isinstance(x, ember.cuda.FloatTensor)
    assert not isinstance(3.0, ember.FloatTensor)


def test_tensor_type_converts_by_dtype_type_or_name():
    x = ember.tensor([1.5, -2.5])
    assert x.type() == "ember.FloatTensor"
    assert x.type(ember.DoubleTensor).dtype == ember.float64
    assert x.type("torch.LongTensor").tolist() == [1, -2]
    assert x.type(ember.int32).dtype == ember.int32
    assert x.type(ember.FloatTensor) is x
    with pytest.raises(ValueError, match="invalid type: 'torch.NoSuchTensor'"):
        x.type("torch.NoSuchTensor")


def test_variable_is_a_tensor_sharing_its_data():
    from ember.autograd import Variable

    x = ember.ones(2)
    v = Variable(x, requires_grad=True)
    assert type(v) is ember.Tensor and v.requires_grad and v.is_leaf
    assert isinstance(x, Variable)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        Variable(x, volatile=True)
    assert "volatile was removed" in str(w[0].message)
    with pytest.raises(TypeError, match="Variable data has to be a tensor"):
        Variable([1, 2])


def test_device_questions_have_the_answers_of_a_machine_without_them():
    assert ember.accelerator.is_available() is False
    assert ember.accelerator.current_accelerator() is None
    assert ember.accelerator.device_count() == 0
    assert ember.backends.mps.is_available() is False and ember.backends.mps.is_built() is False
    ember.backends.cuda.matmul.allow_tf32 = True  # a switch programs set: kept, no effect
    ember.backends.cuda.enable_flash_sdp(False)
    assert ember.backends.cuda.flash_sdp_enabled() is False
    ember.backends.cuda.enable_flash_sdp(True)
    x = ember.ones(1)
    assert not (x.is_xpu or x.is_mps or x.is_meta or x.is_quantized or x.is_nested)


def test_compile_returns_its_argument_and_onnx_export_says_why_not():
    model = ember.nn.Linear(2, 2)
    assert ember.compile(model) is model
    assert ember.compile(mode="max-autotune")(len) is len
    with pytest.raises(RuntimeError, match="expected a module or a callable"):
        ember.compile(3)
    with pytest.raises(NotImplementedError, match="no ONNX exporter"):
        ember.onnx.export(model, (ember.ones(1, 2),), "m.onnx")


def test_data_parallel_runs_the_module_and_prefixes_its_state_dict():
    inner = ember.nn.Linear(3, 2)
    model = ember.nn.DataParallel(inner)
    x = ember.randn(4, 3)
    assert model(x).tolist() == inner(x).tolist()
    assert list(model.state_dict()) == ["module.weight", "module.bias"]
    assert model.module is inner
    assert ember.nn.parallel.data_parallel(inner, x).tolist() == inner(x).tolist()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        ember.nn.DataParallel(inner, device_ids=[0])


def _scaler_step(scaler, grad_value):
    p = ember.zeros(2, requires_grad=True)
    opt = ember.optim.SGD([p], lr=1.0)
    loss = scaler.scale((p * grad_value).sum())
    loss.backward()
    scaler.step(opt)
    scaler.update()
    return p


def test_grad_scaler_scales_unscales_skips_on_inf_and_adapts_the_scale():
    scaler = ember.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    p = _scaler_step(scaler, 3.0)
    assert p.tolist() == [-3.0, -3.0]  # the step saw the unscaled gradient
    assert scaler.get_scale() == 8.0
    _scaler_step(scaler, 1.0)
    assert scaler.get_scale() == 16.0  # two good steps: growth
    p = _scaler_step(scaler, float("inf"))
    assert p.tolist() == [0.0, 0.0]  # skipped
    assert scaler.get_scale() == 8.0  # backoff
    state = scaler.state_dict()
    other = ember.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == 8.0


def test_a_disabled_grad_scaler_passes_through():
    scaler = ember.cuda.amp.GradScaler(enabled=False)
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    assert _scaler_step(scaler, 2.0).tolist() == [-2.0, -2.0]
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling"):
        assert not ember.GradScaler("cuda").is_enabled()


def test_tensor_predicates_and_real_dtype_answers():
    x = ember.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]])
    assert ember.is_floating_point(x) and not ember.is_complex(x) and not x.is_complex()
    assert ember.is_signed(x) and not ember.tensor([1], dtype=ember.uint8).is_signed()
    assert ember.is_nonzero(ember.tensor([2])) and not ember.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        x.is_nonzero()
    assert ember.is_same_size(x, x * 2) and not x.is_same_size(x.t())
    assert x.conj() is x and x.real is x and ember.resolve_conj(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        _ = x.imag
    assert x.H.tolist() == x.t().tolist() and x.mH.shape == (3, 2)
    assert ember.adjoint(x).shape == (3, 2)
    assert x.get_device() == -1 and x.layout is ember.strided
    assert not x.is_pinned() and x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
    with pytest.raises(RuntimeError, match="pin_memory needs a CUDA device"):
        x.pin_memory()


def test_unfold_gives_the_windows_as_a_last_dimension():
    x = ember.arange(7.0)
    assert x.unfold(0, 3, 2).tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    y = ember.arange(24.0).reshape(2, 3, 4)
    got = y.unfold(2, 2, 1)
    want = np.lib.stride_tricks.sliding_window_view(y.numpy(), 2, axis=2)
    assert got.shape == (2, 3, 3, 2)
    np.testing.assert_array_equal(got.numpy(), want)
    z = ember.arange(10.0, dtype=ember.float64).requires_grad_()
    z.unfold(0, 4, 3).sum().backward()  # elements 0..9 in windows [0:4], [3:7], [6:10]
    assert z.grad.tolist() == [1, 1, 1, 2, 1, 1, 2, 1, 1, 1]
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 7"):
        x.unfold(0, 8, 1)


def test_legacy_conveniences_new_apply_and_map():
    x = ember.tensor([1, 2, 3])
    assert x.new(2).dtype == ember.int64 and x.new([4, 5]).tolist() == [4, 5]
    assert x.clone().apply_(lambda v: v * 10).tolist() == [10, 20, 30]
    assert x.clone().map_(ember.tensor([1, 1, 1]), lambda a, b: a - b).tolist() == [0, 1, 2]


def test_process_wide_switches_are_kept():
    ember.use_deterministic_algorithms(True, warn_only=True)
    try:
        assert ember.are_deterministic_algorithms_enabled()
        assert ember.is_deterministic_algorithms_warn_only_enabled()
        assert ember.get_deterministic_debug_mode() == 1
    finally:
        ember.use_deterministic_algorithms(False)
    ember.set_float32_matmul_precision("high")
    assert ember.get_float32_matmul_precision() == "high"
    ember.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="Invalid float32 matmul precision"):
        ember.set_float32_matmul_precision("low")
    assert ember.get_default_device() == ember.device("cpu")
    with pytest.raises(RuntimeError, match="not supported as the default device"):
        ember.set_default_device("cuda")


def test_small_functions():
    assert ember.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    with pytest.raises(RuntimeError, match="Shape mismatch"):
        ember.broadcast_shapes((2,), (3,))
    assert ember.can_cast(ember.int32, ember.float32) and not ember.can_cast(
        ember.float32, ember.int64
    )
    assert ember.typename(ember.ones(1)) == "ember.FloatTensor" and ember.typename(3) == "int"
    buf = bytearray(b"\x01\x00\x02\x00\x03\x00")
    assert ember.frombuffer(buf, dtype=ember.int16, count=2, offset=2).tolist() == [2, 3]
    x = ember.ones(2)
    assert ember.fill(x, 3).tolist() == [3, 3] and ember.zero_(x) is x and x.tolist() == [0, 0]


def test_composite_inplace_forms_write_into_self():
    x = ember.tensor([0.0, 90.0, 180.0])
    assert x.deg2rad_() is x
    np.testing.assert_allclose(x.numpy(), [0, np.pi / 2, np.pi], rtol=1e-6)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        ember.tensor([1, 2]).deg2rad_()
    a = ember.tensor([12, 18])
    a.gcd_(ember.tensor([8, 27]))
    assert a.tolist() == [4, 9]


def test_fill_diagonal_and_the_random_fills():
    x = ember.zeros(5, 2)
    x.fill_diagonal_(1.0, wrap=True)  # PyTorch's wrap: the diagonal restarts after cols + 1 rows
    assert x.tolist() == [[1, 0], [0, 1], [0, 0], [1, 0], [0, 1]]
    cube = ember.zeros(2, 2, 2).fill_diagonal_(3.0)
    assert cube[0, 0, 0].item() == 3.0 and cube[1, 1, 1].item() == 3.0 and cube.sum().item() == 6
    ember.manual_seed(0)
    y = ember.empty(20000, dtype=ember.float64).log_normal_(0.5, 0.25)
    assert abs(y.log().mean().item() - 0.5) < 0.01 and abs(y.log().std().item() - 0.25) < 0.01
    g = ember.empty(20000, dtype=ember.float64).geometric_(0.25)
    assert g.min().item() == 1 and abs(g.mean().item() - 4.0) < 0.1  # mean 1 / p
    c = ember.empty(20001, dtype=ember.float64).cauchy_(2.0, 0.5)
    assert abs(c.median().item() - 2.0) < 0.05
    with pytest.raises(RuntimeError, match="expects p to be in"):
        ember.empty(2).geometric_(1.5)


def test_aliases_and_geometry_helpers():
    x = ember.arange(6.0)
    assert [t.tolist() for t in ember.unsafe_chunk(x, 2)] == [[0, 1, 2], [3, 4, 5]]
    assert [t.tolist() for t in x.unsafe_split(4)] == [[0, 1, 2, 3], [4, 5]]
    assert ember.hardshrink(ember.tensor([-1.0, 0.2]), 0.5).tolist() == [-1.0, 0.0]
    assert x.is_set_to(x) and not x.is_set_to(x.clone())
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == x.dtype
