"""Zero-copy exchange with NumPy and DLPack (and PyTorch, when it is installed)."""

import sys

import numpy as np
import pytest

import ember


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.from_numpy(a)
    assert t.dtype == ember.float32 and t.shape == (2, 3)
    a[0, 1] = 100
    assert t[0, 1].item() == 100
    t[1, 2] = -5
    assert a[1, 2] == -5
    assert t.data_ptr() == a.ctypes.data


def test_from_numpy_keeps_strides_and_owner_alive():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    t = ember.from_numpy(a)
    assert t.stride() == (4, 2) and t.tolist() == a.tolist()
    del a
    assert t.sum().item() == sum([0, 2, 4, 6, 8, 10])


@pytest.mark.parametrize(
    "np_dtype,dtype",
    [
        (np.bool_, ember.bool),
        (np.uint8, ember.uint8),
        (np.int8, ember.int8),
        (np.int16, ember.int16),
        (np.int32, ember.int32),
        (np.int64, ember.int64),
        (np.float16, ember.float16),
        (np.float32, ember.float32),
        (np.float64, ember.float64),
    ],
)
def test_dtype_mapping_round_trip(np_dtype, dtype):
    a = np.array([0, 1, 1], dtype=np_dtype)
    t = ember.from_numpy(a)
    assert t.dtype == dtype
    back = t.numpy()
    assert back.dtype == np_dtype and np.shares_memory(back, a)


def test_numpy_view_of_tensor_shares_memory():
    t = ember.arange(6.0).view(2, 3).t()
    a = t.numpy()
    assert a.shape == (3, 2) and a.strides == (4, 12)
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    assert np.asarray(t).tolist() == t.tolist()
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_numpy_errors():
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, requires_grad=True).numpy()
    assert ember.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="BFloat16"):
        ember.ones(2, dtype=ember.bfloat16).numpy()
    with pytest.raises(TypeError, match="expected np.ndarray"):
        ember.from_numpy([1, 2])
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(np.arange(4)[::-1])


def test_dlpack_with_numpy():
    a = np.arange(5, dtype=np.float64)
    t = ember.from_dlpack(a)
    a[0] = 9
    assert t[0].item() == 9
    b = np.from_dlpack(t)
    b[1] = 7
    assert t[1].item() == 7
    assert t.__dlpack_device__() == (1, 0)
    bf = ember.ones(3, dtype=ember.bfloat16)
    assert ember.from_dlpack(bf) is bf


def test_ember_tensor_copies_numpy_input():
    a = np.ones(3, dtype=np.float32)
    t = ember.tensor(a)
    a[0] = 5
    assert t[0].item() == 1.0


def test_dlpack_with_pytorch():
    torch = pytest.importorskip("torch")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = ember.from_dlpack(x)
    x[0, 0] = 11
    assert t[0, 0].item() == 11 and t.shape == (2, 3)
    back = torch.from_dlpack(t)
    back[1, 1] = -1
    assert t[1, 1].item() == -1
    bf = ember.arange(4.0).to(ember.bfloat16)
    assert torch.from_dlpack(bf).dtype == torch.bfloat16


def test_import_does_not_load_numpy():
    import subprocess

    code = "import sys, ember; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_from_numpy_accepts_subclasses(tmp_path):
    m = np.memmap(tmp_path / "data.bin", dtype=np.float32, mode="w+", shape=(4,))
    m[:] = [1, 2, 3, 4]
    t = ember.from_numpy(m)
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    t[0] = 9
    assert m[0] == 9


def test_as_tensor_shares_where_it_can():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.as_tensor(a)
    a[0, 0] = 7  # shared, as torch.as_tensor
    assert t.dtype == ember.float32 and t[0, 0].item() == 7
    d = ember.as_tensor(a, dtype=ember.float64)  # converted: a copy
    a[0, 0] = 8
    assert d.dtype == ember.float64 and d[0, 0].item() == 7
    x = ember.ones(2, requires_grad=True)
    assert ember.as_tensor(x) is x
    y = ember.as_tensor(x, dtype=ember.float64)
    assert y.dtype == ember.float64 and y.requires_grad  # .to keeps the graph
    assert ember.as_tensor([1, 2]).dtype == ember.int64
    assert ember.as_tensor([[1.5], [2.0]], dtype=ember.float64, device="cpu").tolist() == [
        [1.5],
        [2.0],
    ]


def test_asarray_shares_copies_or_refuses_as_pytorch():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    shared = ember.asarray(a)
    a[0, 0] = 7  # shared memory (copy=None)
    assert shared.dtype == ember.float32 and shared[0, 0].item() == 7
    copied = ember.asarray(a, copy=True)
    a[0, 0] = 8
    assert copied[0, 0].item() == 7
    np.testing.assert_array_equal(
        ember.asarray(a, dtype=ember.float64).numpy(), a.astype(np.float64)
    )
    with pytest.raises(ValueError, match="copy=False"):
        ember.asarray(a, dtype=ember.float64, copy=False)  # a cast must copy
    assert ember.asarray(a, copy=False).data_ptr() == shared.data_ptr()
    x = ember.arange(4.0)
    assert ember.asarray(x) is x  # as torch.asarray
    alias = ember.asarray(x)
    alias[0] = 5.0
    assert x[0].item() == 5.0
    assert ember.asarray(x, copy=True).data_ptr() != x.data_ptr()
    seq = ember.asarray([[1, 2], [3, 4]])
    assert seq.dtype == ember.int64 and seq.tolist() == [[1, 2], [3, 4]]
    assert ember.asarray(2.5, dtype=ember.float64).item() == 2.5
    with pytest.raises(ValueError, match="can't share"):
        ember.asarray([1.0, 2.0], copy=False)
    leaf = ember.asarray([1.0, 2.0], requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf
    (leaf * leaf).sum().backward()
    assert leaf.grad.tolist() == [2.0, 4.0]
