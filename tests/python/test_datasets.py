"""ember.datasets: MNIST / FashionMNIST on small IDX files written here, their errors on missing
and damaged files, and (when Debian's dataset-fashion-mnist is installed) the real files."""

import gzip
import os
import struct

import numpy as np
import pytest

import ember
from ember.datasets import MNIST, FashionMNIST, read_idx
from ember.utils.data import DataLoader

DEBIAN_ROOT = "/usr/share/datasets/fashion-mnist"


def idx_bytes(array):
    """An IDX file of uint8 data: 0, 0, type 0x08, ndim, big-endian dims, then the bytes."""
    array = np.asarray(array, dtype=np.uint8)
    return (
        bytes([0, 0, 8, array.ndim])
        + struct.pack(f">{array.ndim}I", *array.shape)
        + array.tobytes()
    )


def write(path, data, compress):
    if compress:
        path = str(path) + ".gz"
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    return path


def make_split(folder, prefix, n, seed, compress=True):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    write(folder / f"{prefix}-images-idx3-ubyte", idx_bytes(images), compress)
    write(folder / f"{prefix}-labels-idx1-ubyte", idx_bytes(labels), compress)
    return images, labels


@pytest.fixture
def fake_root(tmp_path):
    train = make_split(tmp_path, "train", 7, 1)
    test = make_split(tmp_path, "t10k", 3, 2, compress=False)  # plain files are read too
    return tmp_path, train, test


@pytest.mark.parametrize("cls", [MNIST, FashionMNIST])
def test_reads_both_splits(fake_root, cls):
    root, (train_x, train_y), (test_x, test_y) = fake_root
    ds = cls(root)
    assert len(ds) == 7 and ds.train
    assert ds.data.dtype == ember.uint8 and ds.data.shape == (7, 28, 28)
    assert ds.targets.dtype == ember.int64 and ds.targets.shape == (7,)
    np.testing.assert_array_equal(ds.data.numpy(), train_x)
    np.testing.assert_array_equal(ds.targets.numpy(), train_y)
    img, target = ds[3]
    assert img.dtype == ember.uint8 and img.shape == (28, 28)
    np.testing.assert_array_equal(img.numpy(), train_x[3])
    assert type(target) is int and target == train_y[3]
    assert ds[-1][1] == train_y[-1]

    test = cls(str(root), train=False)
    assert len(test) == 3 and not test.train
    np.testing.assert_array_equal(test.data.numpy(), test_x)
    np.testing.assert_array_equal(test.targets.numpy(), test_y)


def test_classes_as_torchvision():
    assert FashionMNIST.classes == [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]
    assert MNIST.classes[0] == "0 - zero" and MNIST.classes[9] == "9 - nine"
    assert issubclass(FashionMNIST, MNIST)


def test_transforms_repr_and_class_to_idx(fake_root):
    root, (train_x, train_y), _ = fake_root
    ds = FashionMNIST(root, transform=lambda x: x.float() / 255, target_transform=lambda t: t + 100)
    img, target = ds[0]
    assert img.dtype == ember.float32
    np.testing.assert_allclose(img.numpy(), train_x[0] / np.float32(255), rtol=1e-6)
    assert target == int(train_y[0]) + 100
    assert ds.class_to_idx["Bag"] == 8
    text = repr(ds)
    assert text.startswith("Dataset FashionMNIST\n    Number of datapoints: 7\n")
    assert f"Root location: {root}" in text and "Split: Train" in text


def test_torchvision_layout_and_pathlike(tmp_path):
    raw = tmp_path / "FashionMNIST" / "raw"
    raw.mkdir(parents=True)
    _, labels = make_split(raw, "train", 5, 3)
    ds = FashionMNIST(tmp_path)  # a pathlib.Path, files in root/FashionMNIST/raw
    np.testing.assert_array_equal(ds.targets.numpy(), labels)


def test_dataloader_batches(fake_root):
    root, (train_x, train_y), _ = fake_root
    x, y = next(iter(DataLoader(FashionMNIST(root), batch_size=4)))
    assert x.shape == (4, 28, 28) and x.dtype == ember.uint8
    np.testing.assert_array_equal(x.numpy(), train_x[:4])
    np.testing.assert_array_equal(y.numpy(), train_y[:4])


def test_missing_files(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        FashionMNIST(tmp_path)
    msg = str(e.value)
    assert "train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz] not found" in msg
    assert str(tmp_path) in msg and "apt-get install dataset-fashion-mnist" in msg
    make_split(tmp_path, "train", 2, 0)
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte"):
        FashionMNIST(tmp_path, train=False)
    with pytest.raises(FileNotFoundError, match="pass the folder"):
        MNIST(tmp_path / "nowhere")


def test_no_download(fake_root, tmp_path_factory):
    root = fake_root[0]
    assert len(FashionMNIST(root, download=True)) == 7  # present: nothing to download
    empty = tmp_path_factory.mktemp("empty")
    with pytest.raises(RuntimeError, match="ember does not download"):
        FashionMNIST(empty, download=True)


def test_mnist_needs_root():
    with pytest.raises(TypeError, match="MNIST\\(\\) needs root"):
        MNIST()


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"\x00\x00", "shorter than the 4-byte magic number"),
        (b"\x1f\x8b\x08\x03", "does not start with two zero bytes"),
        (b"\x00\x00\x0d\x01\x00\x00\x00\x01", "element type 0x0d is not supported"),
        (b"\x00\x00\x08\x02\x00\x00\x00\x03", "expected an IDX file of 1 dimensions, got 2"),
        (b"\x00\x00\x08\x01\x00\x00", "truncated IDX header"),
        (
            b"\x00\x00\x08\x01\x00\x00\x00\x05abc",
            "shape \\[5\\] \\(5 bytes of data\\), the file has 3",
        ),
        (b"\x00\x00\x08\x01\x00\x00\x00\x02abc", "extra bytes after the 2 bytes"),
    ],
)
@pytest.mark.parametrize("compress", [False, True])
def test_corrupt_idx(tmp_path, data, problem, compress):
    path = write(tmp_path / "f-idx1-ubyte", data, compress)
    with pytest.raises(ValueError, match=problem) as e:
        read_idx(path, ndim=1)
    assert str(path) in str(e.value)


def test_corrupt_gzip(tmp_path):
    good = gzip.compress(idx_bytes(np.arange(1000) % 256))
    (tmp_path / "cut.gz").write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="corrupt gzip data"):
        read_idx(tmp_path / "cut.gz")
    (tmp_path / "plain.gz").write_bytes(idx_bytes(np.arange(4)))  # named .gz, not compressed
    with pytest.raises(ValueError, match="corrupt gzip data"):
        read_idx(tmp_path / "plain.gz")


def test_mismatched_counts_and_labels(tmp_path):
    make_split(tmp_path, "train", 4, 0)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes([1, 2, 3]), compress=True)
    with pytest.raises(ValueError, match="has 4 images but .* has 3 labels"):
        FashionMNIST(tmp_path)
    write(tmp_path / "train-labels-idx1-ubyte", idx_bytes([1, 2, 3, 10]), compress=True)
    with pytest.raises(ValueError, match="has label 10, but there are only 10 classes"):
        FashionMNIST(tmp_path)


def test_empty_idx(tmp_path):
    path = write(tmp_path / "e", bytes([0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 28, 0, 0, 0, 28]), False)
    assert read_idx(path).shape == (0, 28, 28)


needs_debian = pytest.mark.skipif(
    not os.path.exists(os.path.join(DEBIAN_ROOT, "t10k-labels-idx1-ubyte.gz")),
    reason="Debian's dataset-fashion-mnist is not installed",
)


@needs_debian
def test_debian_fashion_mnist():
    train = FashionMNIST()  # the default root is Debian's folder
    test = FashionMNIST(train=False)
    assert train.data.shape == (60000, 28, 28) and test.data.shape == (10000, 28, 28)
    counts = [int((train.targets == c).sum()) for c in range(10)]
    assert counts == [6000] * 10
    assert [int((test.targets == c).sum()) for c in range(10)] == [1000] * 10
    # Known values of Zalando's files: the first labels of each split, the first training
    # image's pixel sum (as NumPy reads it), and the pixels' mean and standard deviation (the
    # 0.2860 and 0.3530 every example normalises with).
    assert train.targets[:10].tolist() == [9, 0, 0, 3, 0, 2, 7, 2, 5, 5]
    assert test.targets[:10].tolist() == [9, 2, 1, 1, 6, 1, 4, 6, 5, 7]
    assert int(train.data[0].sum()) == 76247
    pixels = train.data.float() / 255
    assert abs(float(pixels.mean()) - 0.2860) < 5e-5
    assert abs(float(pixels.std()) - 0.3530) < 5e-5
