"""MNIST and FashionMNIST with torchvision's interface, read from IDX files (gzip'd or not).

The IDX format (http://yann.lecun.com/exdb/mnist/): two zero bytes, an element-type code, the
number of dimensions, then each dimension as a big-endian uint32, then the elements. Only type
0x08 (unsigned byte) occurs in MNIST-style files and only it is accepted.
"""

import os
import struct

from ember import _C
from ember.utils.data.dataset import Dataset

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

_FASHION_MNIST_DEBIAN_ROOT = "/usr/share/datasets/fashion-mnist"
_DEBIAN_PACKAGE = "dataset-fashion-mnist"
# Decompressing straight into the tensor in slices keeps peak memory at the tensor plus one slice
# (gzip's read(n) would first build an n-byte bytes object: a second copy of the whole file).
_READ_CHUNK = 1 << 22


def _open(path):
    if path.endswith(".gz"):
        import gzip  # only when needed: importing ember stays lean

        return gzip.open(path, "rb")
    return open(path, "rb")


def read_idx(path, ndim=None):
    """The contents of an IDX file of unsigned bytes as a uint8 tensor of its shape.

    `path` may be gzip-compressed (name ending in .gz). `ndim`, if given, is the number of
    dimensions the file must have. A file that is not IDX, of another element type, truncated, or
    with bytes after its data raises ValueError naming the file and the problem.
    """
    import zlib

    path = os.fspath(path)
    try:
        with _open(path) as f:
            return _read_idx_stream(f, path, ndim)
    except (EOFError, zlib.error) as e:  # a damaged gzip stream
        raise ValueError(f"{path}: corrupt gzip data: {e}") from e
    except OSError as e:
        # gzip.BadGzipFile ("Not a gzipped file") is an OSError; a missing or unreadable file is
        # left as it is.
        if type(e).__name__ == "BadGzipFile":
            raise ValueError(f"{path}: corrupt gzip data: {e}") from e
        raise


def _read_idx_stream(f, path, ndim):
    import ctypes

    magic = f.read(4)
    if len(magic) < 4:
        raise ValueError(
            f"{path}: not an IDX file: {len(magic)} bytes, shorter than the 4-byte magic number"
        )
    if magic[0] != 0 or magic[1] != 0:
        raise ValueError(
            f"{path}: not an IDX file: magic number 0x{magic.hex()} does not start with two zero "
            "bytes"
        )
    if magic[2] != 0x08:
        raise ValueError(
            f"{path}: IDX element type 0x{magic[2]:02x} is not supported (only 0x08, unsigned "
            "byte, as in MNIST's files)"
        )
    file_ndim = magic[3]
    if ndim is not None and file_ndim != ndim:
        raise ValueError(f"{path}: expected an IDX file of {ndim} dimensions, got {file_ndim}")
    dims_bytes = f.read(4 * file_ndim)
    if len(dims_bytes) < 4 * file_ndim:
        raise ValueError(
            f"{path}: truncated IDX header: {file_ndim} dimensions need {4 * file_ndim} bytes "
            f"after the magic number, the file has {len(dims_bytes)}"
        )
    shape = struct.unpack(f">{file_ndim}I", dims_bytes)
    numel = 1
    for d in shape:
        numel *= d
    out = _C.empty(list(shape), dtype=_C.uint8)
    got = 0
    if numel:
        # The file's bytes go straight into the tensor's memory: no per-element Python.
        view = memoryview((ctypes.c_ubyte * numel).from_address(out.data_ptr())).cast("B")
        while got < numel:
            n = f.readinto(view[got : got + _READ_CHUNK])
            if not n:
                break
            got += n
        del view
    if got < numel:
        raise ValueError(
            f"{path}: truncated IDX file: the header gives shape {list(shape)} ({numel} bytes of "
            f"data), the file has {got}"
        )
    if f.read(1):
        raise ValueError(
            f"{path}: extra bytes after the {numel} bytes of data of shape {list(shape)} "
            "(corrupt or not an IDX file)"
        )
    return out


class MNIST(Dataset):
    """MNIST from its four IDX files, with torchvision.datasets.MNIST's interface.

    Args:
        root: the folder holding train-images-idx3-ubyte, train-labels-idx1-ubyte,
            t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each possibly with .gz (also
            found in torchvision's layout, root/<ClassName>/raw). MNIST has no default (Debian
            packages no MNIST); FashionMNIST defaults to Debian's package folder.
        train: the 60000 training images if True, else the 10000 test images.
        transform: applied to each image (a uint8 tensor [28, 28]; torchvision gives a PIL image,
            ember has no PIL dependency).
        target_transform: applied to each label (a Python int, as torchvision's).
        download: ember never downloads; with the files present this is ignored (as
            torchvision, which downloads only what is missing), without them it raises.

    Attributes: `data` (uint8 [N, 28, 28]), `targets` (int64 [N]), `classes`, `class_to_idx`.
    """

    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]
    default_root = None
    # The prefix of each split's files: <prefix>-images-idx3-ubyte and <prefix>-labels-idx1-ubyte.
    _split_prefix = {True: "train", False: "t10k"}

    def __init__(
        self, root=None, train=True, transform=None, target_transform=None, download=False
    ):
        name = type(self).__name__
        if root is None:
            root = self.default_root
            if root is None:
                raise TypeError(
                    f"{name}() needs root: the folder holding the IDX files (Debian has no "
                    f"{name} package; FashionMNIST defaults to {_FASHION_MNIST_DEBIAN_ROOT})"
                )
        self.root = os.path.expanduser(os.fspath(root))
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        prefix = self._split_prefix[bool(train)]
        images_path, labels_path = self._find_files(
            [f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"], download
        )
        self.data = read_idx(images_path, ndim=3)
        labels = read_idx(labels_path, ndim=1)
        if labels.shape[0] != self.data.shape[0]:
            raise ValueError(
                f"{name}: {images_path} has {self.data.shape[0]} images but {labels_path} has "
                f"{labels.shape[0]} labels"
            )
        if labels.numel() and int(labels.max()) >= len(self.classes):
            raise ValueError(
                f"{name}: {labels_path} has label {int(labels.max())}, but there are only "
                f"{len(self.classes)} classes"
            )
        self.targets = labels.to(_C.int64)

    def _find_files(self, names, download):
        """The path of each IDX file of `names` (plain or .gz), searched in root and then in
        torchvision's layout root/<ClassName>/raw."""
        name = type(self).__name__
        folders = [self.root, os.path.join(self.root, name, "raw")]
        for folder in folders:
            found = []
            for n in names:
                for candidate in (n, n + ".gz"):
                    path = os.path.join(folder, candidate)
                    if os.path.isfile(path):
                        found.append(path)
                        break
            if len(found) == len(names):
                return found
        wanted = ", ".join(f"{n}[.gz]" for n in names)
        hint = (
            f"install Debian's package (apt-get install {_DEBIAN_PACKAGE}: the files go to "
            f"{_FASHION_MNIST_DEBIAN_ROOT}) or pass the folder that holds them"
            if isinstance(self, FashionMNIST)
            else "pass the folder that holds them"
        )
        if download:
            raise RuntimeError(
                f"{name}: ember does not download datasets (download=True) and {wanted} are not "
                f"in {self.root}: {hint}"
            )
        raise FileNotFoundError(
            f"{name}: {wanted} not found in {self.root} (nor in {folders[1]}): {hint} "
            "(the examples take --data-dir)"
        )

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __repr__(self):
        lines = [
            f"Dataset {type(self).__name__}",
            f"    Number of datapoints: {len(self)}",
            f"    Root location: {self.root}",
            f"    Split: {'Train' if self.train else 'Test'}",
        ]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's 28x28 greyscale clothing images), MNIST's format and interface;
    root defaults to the folder of Debian's dataset-fashion-mnist package."""

    classes = [
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
    default_root = _FASHION_MNIST_DEBIAN_ROOT
