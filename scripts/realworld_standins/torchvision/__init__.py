"""A small torchvision for scripts/realworld.py: random datasets with the real shapes, the
transforms the corpus programs call, and image saving that writes nothing. Written against
`torch`, which under the runner's alias is ember, so both sides see the same data."""

import os
import sys
import types

import numpy as np
import torch


def _module(name):
    mod = types.ModuleType(f"{__name__}.{name}")
    sys.modules[mod.__name__] = mod
    globals()[name] = mod
    return mod


datasets = _module("datasets")
transforms = _module("transforms")
utils = _module("utils")

# Small on purpose: a program's epoch is a few batches.
_SIZES = {True: 800, False: 400}  # multiples of the usual batch sizes


class _ImageDataset:
    shape = (28, 28)
    classes_n = 10
    as_tensor = True  # MNIST keeps uint8 tensors, CIFAR NumPy arrays

    def __init__(
        self, root=None, train=True, transform=None, target_transform=None, download=False, **kwargs
    ):
        rng = np.random.RandomState(0 if train else 1)
        n = int(os.environ.get("REALWORLD_DATA_SIZE", 0)) or _SIZES[bool(train)]
        targets = rng.randint(0, self.classes_n, size=n)
        # Images that depend on their label, so that training has something to learn.
        base = rng.randint(0, 256, size=(self.classes_n,) + self.shape)
        noise = rng.randint(-60, 60, size=(n,) + self.shape)
        data = np.clip(base[targets] + noise, 0, 255).astype(np.uint8)
        self.train = train
        self.transform, self.target_transform = transform, target_transform
        self.classes = [str(i) for i in range(self.classes_n)]
        if self.as_tensor:
            self.data = torch.from_numpy(data)
            self.targets = torch.from_numpy(targets.astype(np.int64))
        else:
            self.data, self.targets = data, targets.tolist()

    # The names of torchvision before 0.4, still in tutorials.
    train_data = property(lambda self: self.data)
    test_data = property(lambda self: self.data)
    train_labels = property(lambda self: self.targets)
    test_labels = property(lambda self: self.targets)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        img = self.data[i]
        img = img.numpy() if hasattr(img, "numpy") else img
        target = int(self.targets[i])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class MNIST(_ImageDataset):
    pass


class FashionMNIST(_ImageDataset):
    pass


class KMNIST(_ImageDataset):
    pass


class CIFAR10(_ImageDataset):
    shape = (32, 32, 3)
    as_tensor = False


class CIFAR100(CIFAR10):
    classes_n = 100


class FakeData:
    """torchvision's FakeData: random images of image_size (C, H, W) as float tensors."""

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        self.size, self.image_size, self.num_classes = min(size, 64), image_size, num_classes
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        rng = np.random.RandomState(i)
        img = rng.randint(0, 256, size=self.image_size[1:] + self.image_size[:1]).astype(np.uint8)
        target = int(rng.randint(0, self.num_classes))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


for _cls in (MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100, FakeData):
    setattr(datasets, _cls.__name__, _cls)


# Transforms on HxW or HxWxC uint8 arrays (what the datasets above give) and on tensors.
class Compose:
    def __init__(self, ts):
        self.transforms = ts

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class ToTensor:
    def __call__(self, img):
        if isinstance(img, torch.Tensor):
            return img
        a = np.asarray(img)
        if a.ndim == 2:
            a = a[:, :, None]
        return torch.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1))).float().div(255)


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std = mean, std

    def __call__(self, t):
        mean = torch.tensor(self.mean, dtype=t.dtype).view(-1, 1, 1)
        std = torch.tensor(self.std, dtype=t.dtype).view(-1, 1, 1)
        return (t - mean) / std


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class Pad:
    def __init__(self, padding, fill=0):
        self.p = padding

    def __call__(self, a):
        p = self.p
        return np.pad(a, ((p, p), (p, p)) + ((0, 0),) * (a.ndim - 2))


class RandomCrop:
    def __init__(self, size, padding=None, **kwargs):
        self.size = size if isinstance(size, (tuple, list)) else (size, size)
        self.padding = padding

    def __call__(self, a):
        if self.padding:
            a = Pad(self.padding)(a)
        h, w = self.size
        i = np.random.randint(0, a.shape[0] - h + 1)
        j = np.random.randint(0, a.shape[1] - w + 1)
        return a[i : i + h, j : j + w]


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, a):
        return a[:, ::-1].copy() if np.random.rand() < self.p else a


class Resize:
    def __init__(self, size, **kwargs):
        self.size = size

    def __call__(self, a):
        s = self.size if isinstance(self.size, (tuple, list)) else (self.size, self.size)
        rows = np.linspace(0, a.shape[0] - 1, s[0]).round().astype(int)
        cols = np.linspace(0, a.shape[1] - 1, s[1]).round().astype(int)
        return a[rows][:, cols]


class CenterCrop:
    def __init__(self, size):
        self.size = size if isinstance(size, (tuple, list)) else (size, size)

    def __call__(self, a):
        h, w = self.size
        i, j = (a.shape[0] - h) // 2, (a.shape[1] - w) // 2
        return a[i : i + h, j : j + w]


for _cls in (
    Compose,
    ToTensor,
    Normalize,
    Lambda,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    Resize,
    CenterCrop,
):
    setattr(transforms, _cls.__name__, _cls)


def save_image(tensor, fp, **kwargs):
    pass


def make_grid(tensor, **kwargs):
    return tensor


utils.save_image = save_image
utils.make_grid = make_grid
