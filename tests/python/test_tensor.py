"""Tensors from Python: creation, properties, views, indexing, conversions and errors."""

import numpy as np
import pytest

import ember


def test_tensor_from_nested_lists_infers_dtype_and_shape():
    assert ember.tensor([[1, 2], [3, 4]]).dtype == ember.int64
    assert ember.tensor([[1, 2.5]]).dtype == ember.float32
    assert ember.tensor([True, False]).dtype == ember.bool
    assert ember.tensor([True, 2]).dtype == ember.int64
    assert ember.tensor([]).dtype == ember.float32
    t = ember.tensor(((1, 2, 3), [4, 5, 6]), dtype=ember.float64)
    assert t.shape == (2, 3) and t.dtype == ember.float64
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert ember.tensor(3.5).dim() == 0 and ember.tensor(3.5).item() == 3.5
    assert ember.tensor([ember.tensor(1.5), 2]).tolist() == [1.5, 2.0]


def test_tensor_errors():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        ember.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        ember.tensor(["a"])


def test_default_dtype_switch():
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1.5]).dtype == ember.float64
        assert ember.zeros(2).dtype == ember.float64
        assert (ember.arange(3) * 0.5).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    with pytest.raises(TypeError):
        ember.set_default_dtype(ember.int64)


def test_factories_accept_varargs_and_sequences():
    assert ember.zeros(2, 3).shape == (2, 3)
    assert ember.zeros((2, 3)).shape == (2, 3)
    assert ember.ones([4]).shape == (4,)
    assert ember.empty(ember.Size([1, 2])).shape == (1, 2)
    assert ember.full((2,), 7).dtype == ember.int64
    assert ember.full((2,), 7.0).dtype == ember.float32
    assert ember.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert ember.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert ember.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = ember.ones(2, 3, dtype=ember.float64)
    assert x.new_zeros(4).dtype == ember.float64
    assert x.new_tensor([1, 2]).dtype == ember.float64


def test_properties():
    x = ember.zeros(2, 3, 4)
    assert x.shape == ember.Size([2, 3, 4]) and x.size() == (2, 3, 4) and x.size(-1) == 4
    assert x.ndim == 3 and x.dim() == 3 and len(x) == 2 and x.numel() == 24
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12
    assert x.dtype == ember.float32 and x.element_size() == 4 and x.nbytes == 96
    assert x.device == ember.device("cpu") and x.is_cpu and not x.is_cuda
    assert x.is_contiguous() and not x.transpose(0, 2).is_contiguous()
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))
    with pytest.raises(IndexError, match="out of range"):
        x.size(3)


def test_views_share_memory_and_version():
    base = ember.arange(12.0)
    v = base.view(3, 4)
    v[1, 2] = 100.0
    assert base[6].item() == 100.0
    assert v._base is base or v._is_view()
    assert base._version == v._version == 1
    t = v.t()
    assert t.shape == (4, 3) and t.stride() == (1, 4) and not t.is_contiguous()
    assert t.contiguous().is_contiguous()
    assert ember.arange(6).reshape(2, 3).t().reshape(6).tolist() == [0, 3, 1, 4, 2, 5]
    e = ember.tensor([1.0, 2.0]).expand(3, 2)
    assert e.stride() == (0, 1) and e.tolist() == [[1.0, 2.0]] * 3


def test_basic_indexing_matches_numpy():
    a = np.arange(60).reshape(3, 4, 5)
    t = ember.tensor(a.tolist())
    for idx in [
        1,
        -1,
        (1, 2),
        (slice(None), 2),
        (Ellipsis, 1),
        (None, 1),
        (slice(1, None), slice(None, None, 2), 3),
        (1, Ellipsis, None),
        slice(-2, None),
        (slice(0, 3, 2), None, slice(None), -1),
        (),
    ]:
        assert t[idx].tolist() == a[idx].tolist(), idx
        assert t[idx].shape == a[idx].shape, idx


def test_setitem():
    t = ember.zeros(3, 4)
    t[1] = 5
    t[:, 0] = ember.tensor([1.0, 2.0, 3.0])
    t[2, 1:3] = ember.tensor(7.0)
    assert t.tolist() == [[1, 0, 0, 0], [2, 5, 5, 5], [3, 7, 7, 0]]


def test_index_errors():
    t = ember.zeros(3, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        t[3]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(TypeError):
        t["a"]
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        t[ember.tensor([0.5])]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dim 1 with size 4"):
        t[:, [0, 5]]


def test_item_and_python_conversions():
    assert ember.tensor([2.5]).item() == 2.5
    assert isinstance(ember.tensor(3).item(), int)
    assert ember.tensor(True).item() is True
    assert float(ember.tensor(1.5)) == 1.5 and int(ember.tensor(7)) == 7
    assert [0, 1, 2][ember.tensor(1)] == 1
    assert bool(ember.tensor([1]))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(ember.ones(2))
    with pytest.raises(RuntimeError, match="2 elements"):
        ember.ones(2).item()
    assert [x.item() for x in ember.tensor([1, 2, 3])] == [1, 2, 3]
    with pytest.raises(TypeError, match="0-d"):
        iter(ember.tensor(1.0))
    assert f"{ember.tensor(2.5):.2f}" == "2.50"


def test_dtype_conversions():
    x = ember.tensor([1.7, -2.2])
    assert x.long().tolist() == [1, -2]
    assert x.to(ember.int32).dtype == ember.int32
    assert x.double().dtype == ember.float64
    assert x.half().dtype == ember.float16 and x.bfloat16().dtype == ember.bfloat16
    assert x.bool().tolist() == [True, True]
    assert x.to("cpu") is x and x.to(ember.float32) is x
    assert x.to(ember.float32, copy=True) is not x
    assert x.type_as(ember.zeros(1, dtype=ember.int8)).dtype == ember.int8
    with pytest.raises(RuntimeError, match="CUDA"):
        x.to("cuda")


def test_type_promotion_follows_pytorch():
    i = ember.tensor([1, 2])
    f16 = ember.tensor([1.0], dtype=ember.float16)
    assert (i * 2.5).dtype == ember.float32  # Python scalars are weak
    assert (i + 1).dtype == ember.int64
    assert (f16 + 1.0).dtype == ember.float16
    assert (f16 + ember.tensor(1.0, dtype=ember.float64)).dtype == ember.float16  # 0-d is weak
    assert (i + ember.tensor(1.0, dtype=ember.float64)).dtype == ember.float64
    assert (
        ember.tensor([1], dtype=ember.uint8) + ember.tensor([1], dtype=ember.int8)
    ).dtype == ember.int16
    assert (ember.tensor([True]) + ember.tensor([True])).dtype == ember.bool
    assert (i / 2).dtype == ember.float32  # true division
    assert (i == 1).dtype == ember.bool
    assert ember.result_type(i, 1.0) == ember.float32
    assert ember.promote_types(ember.float16, ember.bfloat16) == ember.float32


def test_broadcast_error_names_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"\[add\] shapes \[2, 3\] and \[4\]"):
        ember.ones(2, 3) + ember.ones(4)
    with pytest.raises(
        RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"
    ):
        ember.mm(ember.ones(2, 3), ember.ones(4, 5))
    with pytest.raises(IndexError, match=r"\[sum\] dim 2 is out of range"):
        ember.ones(2, 3).sum(2)
    with pytest.raises(TypeError, match=r"\[sub\] not implemented for dtype bool"):
        ember.tensor([True]) - ember.tensor([False])


def test_inplace_returns_self_and_bumps_version():
    x = ember.zeros(3)
    assert x.add_(1) is x and x._version == 1
    x += 2
    assert x.tolist() == [3.0, 3.0, 3.0] and x._version == 2
    y = x.mul_(ember.tensor([1.0, 2.0, 3.0])).sub_(1, alpha=2).div_(2)
    assert y is x and x.tolist() == [0.5, 2.0, 3.5]
    assert x.zero_().tolist() == [0, 0, 0] and x.fill_(4).tolist() == [4, 4, 4]
    x.copy_(ember.tensor([1, 2, 3]))
    assert x.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.zeros(2, dtype=ember.int64).add_(1.5)


def test_reductions():
    x = ember.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert x.sum().item() == 21 and x.sum(0).tolist() == [5, 7, 9]
    assert x.sum((0, 1), keepdim=True).shape == (1, 1)
    assert x.mean(1).tolist() == [3.0, 4.0]
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 6.0] and indices.tolist() == [1, 2]
    assert x.max(dim=0, keepdim=True).indices.shape == (1, 3)
    assert x.max().item() == 6.0
    assert ember.tensor([1, 2], dtype=ember.int32).sum().dtype == ember.int64
    assert ember.tensor([1.0, float("nan")]).max().item() != ember.tensor(1.0).item()


def test_hash_and_weakref():
    import weakref

    x = ember.zeros(1)
    d = {x: 1}
    assert d[x] == 1
    r = weakref.ref(x)
    assert r() is x
    x.some_attribute = 3  # tensors take attributes, as PyTorch's do
    assert x.some_attribute == 3


def test_tensor_constructor_forms():
    assert ember.Tensor().shape == (0,) and ember.Tensor().dtype == ember.float32
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor(ember.Size([2, 3])).shape == (2, 3)
    assert ember.Tensor(np.arange(3)).tolist() == [0.0, 1.0, 2.0]
    assert ember.Tensor([1, 2]).tolist() == [1.0, 2.0]
    x = ember.ones(2, requires_grad=True)
    alias = ember.Tensor(x)
    assert alias.data_ptr() == x.data_ptr() and not alias.requires_grad


def test_inplace_on_expanded_tensor_is_refused():
    base = ember.zeros(1)
    e = base.expand(3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.add_(ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="single memory location"):
        e.fill_(1)
    assert base.tolist() == [0.0] and base._version == 0  # refused before writing


def test_alpha_keeps_integer_arithmetic_integer():
    i = ember.tensor([1, 2])
    assert ember.add(i, 3, alpha=2).tolist() == [7, 8]
    assert ember.add(i, 3, alpha=2).dtype == ember.int64
    assert i.sub_(1, alpha=2).tolist() == [-1, 0]
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        ember.add(i, 3, alpha=0.5)
    assert ember.add(i.float(), 3, alpha=0.5).tolist() == [0.5, 1.5]


def test_signed_integer_arithmetic_wraps_around():
    big = ember.tensor([2**62], dtype=ember.int64)
    assert (big * 4).tolist() == [0]
    assert (big + big + big).tolist() == [-(2**62)]
    i32 = ember.tensor([2**31 - 1], dtype=ember.int32)
    assert (i32 + 1).tolist() == [-(2**31)]
    lowest = ember.tensor([-(2**63)], dtype=ember.int64)
    assert lowest.abs().tolist() == [-(2**63)] and (-lowest).tolist() == [-(2**63)]
    # 3**40 = 12157665459056928801 does not fit in int64; it wraps to itself minus 2**64.
    assert ember.tensor([3], dtype=ember.int64).pow(40).tolist() == [3**40 - 2**64]


def test_set_num_threads_is_process_wide():
    import threading

    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        seen = []
        t = threading.Thread(target=lambda: seen.append(ember.get_num_threads()))
        t.start()
        t.join()
        assert seen == [1]
    finally:
        ember.set_num_threads(before)


def test_zero_d_size_raises():
    with pytest.raises(IndexError, match="no dimensions"):
        ember.tensor(1.0).size(0)


def test_cuda_method_moves_with_to(monkeypatch):
    # Tensor.cuda is Tensor.to with PyTorch's device defaults; the calls are recorded, so the test
    # holds on a build with or without CUDA.
    calls = []
    monkeypatch.setattr(ember.Tensor, "to", lambda self, *a, **k: calls.append((a, k)) or self)
    x = ember.ones(2)
    assert x.cuda() is x
    x.cuda(1, non_blocking=True)
    x.cuda("cuda:0", memory_format=ember.contiguous_format)
    assert calls == [
        (("cuda",), {"non_blocking": False}),
        (("cuda:1",), {"non_blocking": True}),
        (("cuda:0",), {"non_blocking": False, "memory_format": ember.contiguous_format}),
    ]


def test_type_names_and_converts_as_pytorch():
    x = ember.ones(2)
    assert x.type() == "ember.FloatTensor"
    assert ember.zeros(1, dtype=ember.int64).type() == "ember.LongTensor"
    assert ember.zeros(1, dtype=ember.bool).type() == "ember.BoolTensor"
    assert x.type(ember.float32) is x  # unchanged dtype: the tensor itself, as .to
    hits = (ember.tensor([1, 2]) == ember.tensor([1, 3])).type(
        ember.float
    )  # the quickstart's idiom
    assert hits.dtype == ember.float32 and hits.sum().item() == 1.0
    assert x.type("torch.DoubleTensor").dtype == ember.float64
    assert x.type("ember.IntTensor").dtype == ember.int32
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        x.type("torch.Foo")
    with pytest.raises(ValueError, match="invalid type: 'float'"):
        x.type("float")
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(3)


@pytest.mark.parametrize(
    "dtype, np_dtype", [("float32", np.float32), ("float64", np.float64), ("float16", np.float16)]
)
def test_finfo_matches_numpy(dtype, np_dtype):
    f, ref = ember.finfo(getattr(ember, dtype)), np.finfo(np_dtype)
    assert (f.bits, f.eps, f.max, f.min) == (
        ref.bits,
        float(ref.eps),
        float(ref.max),
        float(ref.min),
    )
    assert f.tiny == f.smallest_normal == float(ref.smallest_normal)
    assert f.resolution == 10.0**-ref.precision and f.dtype == dtype  # a Python float, as torch


def test_finfo_bfloat16_default_iinfo_and_errors():
    b = ember.finfo(ember.bfloat16)
    assert (b.bits, b.eps, b.max, b.tiny) == (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126)
    assert ember.finfo() == ember.finfo(ember.float32)
    assert repr(ember.finfo(ember.float16)) == (
        "finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
        "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)"
    )
    for name in ("int8", "uint8", "int16", "int32", "int64"):
        i, ref = ember.iinfo(getattr(ember, name)), np.iinfo(name)
        assert (i.bits, i.min, i.max, i.dtype) == (ref.bits, ref.min, ref.max, name)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        ember.finfo(ember.int64)
    with pytest.raises(TypeError, match="requires an integer input type"):
        ember.iinfo(ember.float32)
    with pytest.raises(TypeError, match="not supported by ember.iinfo"):
        ember.iinfo(ember.bool)


def test_cuda_reports_unavailable_so_programs_pick_the_cpu():
    # ember's CUDA backend has no op kernels yet: the idiomatic device choice must land on the CPU.
    device = ember.device("cuda" if ember.cuda.is_available() else "cpu")
    assert device.type == "cpu" and ember.cuda.device_count() == 0
    ember.cuda.manual_seed_all(0)  # a no-op, as in PyTorch without a GPU
    with pytest.raises(RuntimeError, match="no CUDA device"):
        ember.cuda.synchronize()
    ember.backends.cudnn.benchmark = True  # recorded; changes nothing on the CPU
    assert ember.backends.cudnn.is_available() is False
