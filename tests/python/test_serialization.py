"""ember.save / ember.load: safetensors round trips, nested structures, corrupt files, interop."""

import collections
import contextlib
import io
import json
import os
import pickle
import struct

import numpy as np
import pytest

import ember

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "small_model.safetensors")

ALL_DTYPES = [
    ember.float64,
    ember.float32,
    ember.float16,
    ember.bfloat16,
    ember.int64,
    ember.int32,
    ember.int16,
    ember.int8,
    ember.uint8,
    ember.bool,
]


def _sample(dtype, shape=(2, 3)):
    n = int(np.prod(shape))
    if dtype == ember.bool:
        return ember.arange(n).remainder(3).eq(0).reshape(shape)
    return (ember.arange(n, dtype=ember.float64) * 3 - 5).to(dtype).reshape(shape)


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()


def _header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tensor_round_trip_every_dtype_and_shape(tmp_path, dtype):
    for shape in [(2, 3), (), (0,), (3, 0, 2)]:
        t = _sample(dtype, shape)
        p = tmp_path / "t.safetensors"
        ember.save(t, p)
        back = ember.load(p)
        assert _same(back, t), (shape, back, t)
        assert not back.requires_grad


def test_flat_state_dict_is_a_plain_safetensors_file(tmp_path):
    sd = collections.OrderedDict(
        [("layer.weight", _sample(ember.float32)), ("layer.bias", _sample(ember.float32, (3,)))]
    )
    p = str(tmp_path / "model.safetensors")
    ember.save(sd, p)
    header = _header(p)
    assert [k for k in header if k != "__metadata__"] == ["layer.weight", "layer.bias"]
    assert header["layer.weight"] == {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
    assert header["layer.bias"]["data_offsets"] == [24, 36]
    assert header["__metadata__"]["format"] == "pt"
    back = ember.load(p)
    assert type(back) is collections.OrderedDict and list(back) == list(sd)
    assert all(_same(back[k], sd[k]) for k in sd)
    # Without ember's metadata (as a file from another tool): a dict in file order.
    items, _ = ember._C._io.load(p)
    ember._C._io.save(list(reversed(items)), p, {})
    plain = ember.load(p)
    assert type(plain) is dict and list(plain) == ["layer.bias", "layer.weight"]


def test_nested_optimizer_state_round_trips_exactly(tmp_path):
    state = {
        "state": {
            0: {
                "step": ember.tensor(3.0),
                "exp_avg": _sample(ember.float32),
                "exp_avg_sq": _sample(ember.float64),
            },
            1: {"step": ember.tensor(3.0), "momentum_buffer": None},
        },
        "param_groups": [
            {
                "lr": 0.001,
                "betas": (0.9, 0.999),
                "eps": 1e-8,
                "weight_decay": 0,
                "amsgrad": False,
                "params": [0, 1],
            }
        ],
        "plain": [None, True, -7, 2.5, float("inf"), -0.0, "text", 10**30, {"nested": ()}],
        "types": {
            "dtype": ember.bfloat16,
            "device": ember.device("cpu"),
            "size": ember.Size([2, 3]),
        },
        1.5: "float key",
        None: "none key",
        True: "bool key",
    }
    p = tmp_path / "optim.safetensors"
    ember.save(state, p)
    names = [k for k in _header(p) if k != "__metadata__"]
    assert names == ["state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq", "state.1.step"]
    back = ember.load(p)
    assert list(back) == list(state)
    assert list(back["state"]) == [0, 1] and all(type(k) is int for k in back["state"])
    assert _same(back["state"][0]["exp_avg"], state["state"][0]["exp_avg"])
    assert _same(back["state"][0]["exp_avg_sq"], state["state"][0]["exp_avg_sq"])
    assert back["state"][1]["momentum_buffer"] is None
    assert back["param_groups"] == state["param_groups"]
    assert type(back["param_groups"][0]["betas"]) is tuple
    plain = back["plain"]
    assert plain[:4] == [None, True, -7, 2.5] and type(plain[1]) is bool
    assert plain[4] == float("inf") and str(plain[5]) == "-0.0" and plain[7] == 10**30
    assert plain[8] == {"nested": ()}
    assert back["types"]["dtype"] is ember.bfloat16 and back["types"]["device"] == ember.device(
        "cpu"
    )
    assert back[1.5] == "float key" and back[None] == "none key" and back[True] == "bool key"


def test_names_shared_tensors_and_requires_grad(tmp_path):
    w = _sample(ember.float32).requires_grad_()
    t = _sample(ember.int64)
    obj = {"a.b": t, "a": {"b": t * 2}, "same": [w, w], "view": w[0]}
    p = tmp_path / "x"
    ember.save(obj, p)
    names = [k for k in _header(p) if k != "__metadata__"]
    # The same tensor object is stored once; a dotted key that clashes with a path gets a suffix.
    assert names == ["a.b", "a.b#1", "same.0", "view"]
    back = ember.load(p)
    assert back["same"][0] is back["same"][1] and back["same"][0].requires_grad
    assert back["a"]["b"].tolist() == (t * 2).tolist() and back["a.b"].tolist() == t.tolist()
    assert back["view"].tolist() == w[0].tolist()  # a view of a saved tensor is saved again


def test_non_contiguous_tensors_and_file_objects():
    t = _sample(ember.float32, (3, 4)).t()[::2]
    buf = io.BytesIO()
    ember.save({"t": t}, buf)
    buf.seek(0)
    back = ember.load(buf)
    assert back["t"].is_contiguous() and back["t"].tolist() == t.tolist()


def test_map_location_and_torch_keywords(tmp_path):
    p = tmp_path / "x"
    ember.save({"x": _sample(ember.float32)}, p, pickle_protocol=2)
    assert ember.load(p, map_location="cpu", weights_only=False, mmap=True)[
        "x"
    ].device == ember.device("cpu")
    assert (
        ember.load(p, map_location={"cpu": "cpu"})["x"].tolist() == _sample(ember.float32).tolist()
    )
    doubled = ember.load(p, map_location=lambda t, loc: t * 2)
    assert doubled["x"].tolist() == (_sample(ember.float32) * 2).tolist()


def test_save_errors(tmp_path):
    with pytest.raises(TypeError, match="cannot save the function at 'a.0'"):
        ember.save({"a": [lambda: 0]}, tmp_path / "x")  # pickle cannot hold a lambda
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        ember.save(loop, tmp_path / "x")
    with pytest.raises(TypeError, match="f must be a path"):
        ember.save({}, 3)
    with pytest.raises(RuntimeError, match=r"\[ember.save\].*No such file or directory"):
        ember.save({}, tmp_path / "missing" / "x")
    assert os.listdir(tmp_path) == []


def test_module_state_dict_and_parameters():
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    buf = io.BytesIO()
    ember.save({"model": model.state_dict(), "p": ember.nn.Parameter(ember.ones(2))}, buf)
    buf.seek(0)
    back = ember.load(buf)
    assert type(back["p"]) is ember.nn.Parameter and back["p"].requires_grad
    other = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    other.load_state_dict(back["model"])
    x = ember.randn(5, 3)
    assert other(x).tolist() == model(x).tolist()
    # A whole module is pickled (its tensors still safetensors entries) and loads only with
    # weights_only=False, as in PyTorch 2.6+.
    buf = io.BytesIO()
    ember.save(model, buf)
    buf.seek(0)
    with pytest.raises(
        pickle.UnpicklingError, match="(?s)Weights only load failed.*a pickled Sequential"
    ):
        ember.load(buf)
    buf.seek(0)
    again = ember.load(buf, weights_only=False)
    assert type(again) is ember.nn.Sequential
    assert type(again[0].weight) is ember.nn.Parameter
    assert again(x).tolist() == model(x).tolist()


def test_objects_other_than_plain_data_are_pickled_around_safetensors_entries(tmp_path):
    path = tmp_path / "objs.pt"
    shared = ember.arange(6.0).reshape(2, 3)
    obj = {"set": {1, 2}, "pair": {(1, 2): shared}, "plain": [shared, 3], "w": shared}
    ember.save(obj, path)
    items, _ = ember._C._io.load(str(path))
    names = [name for name, _ in items]
    # The shared tensor is stored once, as a tensor; the pickles are uint8 entries beside it.
    pickles = [name for name in names if name.endswith(".__pickle__")]
    assert len(pickles) == 2 and len(names) == 3
    back = ember.load(path, weights_only=False)
    assert back["set"] == {1, 2}
    assert back["pair"][(1, 2)] is back["w"] is back["plain"][0]
    assert back["w"].tolist() == shared.tolist()
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        ember.load(path)


def test_numpy_arrays_round_trip_without_unpickling(tmp_path):
    path = tmp_path / "a.pt"
    for a in [
        np.arange(12.0).reshape(3, 4),
        np.array([True, False]),
        np.arange(5, dtype=np.int16),
        np.ones((2, 0), dtype=np.float32),
        np.arange(6.0)[::2],
    ]:
        ember.save({"a": a, "top": a}, path)
        back = ember.load(path)  # weights_only=True: arrays are plain data
        for got in (back["a"], back["top"]):
            assert isinstance(got, np.ndarray) and got.dtype == a.dtype
            np.testing.assert_array_equal(got, a)
    ember.save(np.arange(3.0), path)
    np.testing.assert_array_equal(ember.load(path), [0.0, 1.0, 2.0])
    # A dtype safetensors has no entry for (complex, uint32, strings) is pickled.
    ember.save(np.array([1 + 2j]), path)
    with pytest.raises(pickle.UnpicklingError):
        ember.load(path)
    np.testing.assert_array_equal(ember.load(path, weights_only=False), [1 + 2j])


def test_failed_save_keeps_the_old_file(tmp_path):
    p = tmp_path / "ckpt"
    ember.save({"a": ember.ones(3)}, p)
    before = p.read_bytes()
    (tmp_path / "dir").mkdir()
    with pytest.raises(RuntimeError, match="rename"):
        ember.save({"a": ember.zeros(3)}, tmp_path / "dir")
    assert sorted(os.listdir(tmp_path)) == ["ckpt", "dir"]
    assert p.read_bytes() == before


def test_relative_path_and_overwrite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ember.save({"a": ember.ones(2)}, "ckpt")
    ember.save([ember.zeros(3), "x"], b"ckpt")
    back = ember.load("ckpt")
    assert back[0].tolist() == [0.0, 0.0, 0.0] and back[1] == "x"
    assert os.listdir(tmp_path) == ["ckpt"]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "absent")
    with pytest.raises(IsADirectoryError):
        ember.load(tmp_path)


def test_truncation_at_every_length_raises_runtime_error(tmp_path):
    good = tmp_path / "good"
    ember.save({"w": _sample(ember.float32), "n": {1: _sample(ember.int8, (3,))}}, good)
    data = good.read_bytes()
    bad = tmp_path / "bad"
    for n in range(len(data)):
        bad.write_bytes(data[:n])
        with pytest.raises(RuntimeError, match=r"\[ember.load\] .*bad: "):
            ember.load(bad)


def test_corrupt_files_name_the_problem(tmp_path):
    def file_with(header, buffer=b""):
        raw = json.dumps(header).encode() if not isinstance(header, bytes) else header
        return struct.pack("<Q", len(raw)) + raw + buffer

    t = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    cases = [
        (b"", "too short"),
        (struct.pack("<Q", 1000) + b"{}", "goes beyond the end"),
        (struct.pack("<Q", 1 << 40) + b"{}", "absurd"),
        (file_with(b'{"a": 1'), "not valid JSON"),
        (file_with(b"{\xc3\x28}"), "not valid UTF-8"),
        (file_with({"t": dict(t, dtype="U16")}, bytes(8)), "'U16' is not supported"),
        (file_with({"t": dict(t, shape=[3])}, bytes(8)), "need 12"),
        (file_with({"t": t}, bytes(9)), "trailing bytes"),
        (file_with({"t": t, "u": t}, bytes(8)), "overlapping"),
        (file_with({"t": dict(t, data_offsets=[0, 8, 9])}, bytes(8)), "data_offsets must be"),
        (file_with({"__metadata__": {"ember.structure": "{"}}), "not valid JSON"),
        (
            file_with(
                {"__metadata__": {"ember.structure": '{"version": 1, "root": {"tensor": "x"}}'}}
            ),
            "'x'",
        ),
        (
            file_with({"__metadata__": {"ember.structure": '{"version": 1, "root": {"set": []}}'}}),
            "malformed",
        ),
    ]
    p = tmp_path / "corrupt.safetensors"
    for raw, message in cases:
        p.write_bytes(raw)
        with pytest.raises(RuntimeError, match=r"\[ember.load\] .*corrupt.safetensors: ") as info:
            ember.load(p)
        assert message in str(info.value), (message, str(info.value))


def test_pytorch_checkpoints_are_named_as_such(tmp_path):
    # What torch.save writes (a zip archive; a pickle before torch 1.6), made with the stdlib.
    import pickle
    import zipfile

    zipped = tmp_path / "model.pt"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"epoch": 1}, protocol=2))
    legacy = tmp_path / "legacy.pt"
    legacy.write_bytes(pickle.dumps({"epoch": 1}, protocol=2) + bytes(64))
    for path, kind in ((zipped, "a zip archive"), (legacy, "a pickle")):
        for source in (path, io.BytesIO(path.read_bytes())):
            with pytest.raises(RuntimeError, match=f"this is {kind}.*not safetensors") as info:
                ember.load(source)
            assert "header length" in str(info.value.__cause__)  # the parser's own finding


def test_random_header_flips_never_crash(tmp_path):
    good = tmp_path / "good"
    ember.save({"w": _sample(ember.float32), "b": _sample(ember.bool, (4,))}, good)
    data = good.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    rng = np.random.default_rng(5)
    for _ in range(300):
        raw = bytearray(data)
        for i in rng.integers(0, 8 + n, size=2):
            raw[i] = int(rng.integers(0, 256))
        with contextlib.suppress(RuntimeError):  # a harmless flip loads; any other error fails
            ember.load(io.BytesIO(bytes(raw)))


def test_checked_in_checkpoint():
    """The file the C++ test IoData.ReadsTheCheckedInPythonCheckpoint reads too."""
    sd = ember.load(DATA)
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias", "steps"]
    assert sd["0.weight"].tolist() == [[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]]
    assert sd["0.bias"].tolist() == [1.0, -2.0, 3.0]
    assert sd["2.weight"].dtype == ember.bfloat16 and sd["2.weight"].tolist() == [[0.25, -0.5, 1.0]]
    assert sd["2.bias"].dtype == ember.float64 and sd["2.bias"].tolist() == [-1.25]
    assert sd["steps"].dtype == ember.int64 and sd["steps"].item() == 42


NUMPY_DTYPES = [
    np.float64,
    np.float32,
    np.float16,
    np.int64,
    np.int32,
    np.int16,
    np.int8,
    np.uint8,
    np.bool_,
]


def test_interop_with_the_safetensors_package(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(0)
    arrays = {
        f"x_{np.dtype(d).name}": (rng.standard_normal((3, 2)) * 50).astype(d) for d in NUMPY_DTYPES
    }
    arrays["scalar"] = np.array(7.5, dtype=np.float32)
    arrays["empty"] = np.zeros((0, 3), dtype=np.int32)
    theirs = tmp_path / "theirs.safetensors"
    st.save_file(arrays, str(theirs), metadata={"k": "v"})
    loaded = ember.load(theirs)
    assert set(loaded) == set(arrays)
    for k, a in arrays.items():
        assert loaded[k].shape == a.shape and np.array_equal(loaded[k].numpy(), a), k
    ours = tmp_path / "ours.safetensors"
    ember.save({k: ember.from_numpy(a) for k, a in arrays.items()}, ours)
    back = st.load_file(str(ours))
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and np.array_equal(back[k], a), k


def test_bfloat16_interop_with_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    x = torch.tensor([[0.25, -3.0], [1e30, -1e-30]], dtype=torch.bfloat16)
    theirs = tmp_path / "theirs"
    st.save_file({"x": x}, str(theirs))
    assert ember.load(theirs)["x"].tolist() == x.tolist()
    ours = tmp_path / "ours"
    ember.save({"x": ember.tensor(x.tolist(), dtype=ember.bfloat16)}, ours)
    assert torch.equal(st.load_file(str(ours))["x"], x)


def test_safe_globals_allow_named_classes_with_weights_only(tmp_path):
    from ember import serialization

    path = tmp_path / "m.pt"
    model = ember.nn.Sequential(ember.nn.Linear(2, 2), ember.nn.ReLU())
    ember.save(model, path)
    with pytest.raises(pickle.UnpicklingError):
        ember.load(path)
    allowed = serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear])
    with allowed, pytest.raises(pickle.UnpicklingError, match="ReLU, which is not an allowed"):
        ember.load(path)
    with serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU]):
        back = ember.load(path)
    assert type(back[1]) is ember.nn.ReLU
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([ember.nn.Sequential])
    try:
        assert serialization.get_safe_globals() == [ember.nn.Sequential]
    finally:
        serialization.clear_safe_globals()
