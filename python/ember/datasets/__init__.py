"""ember.datasets: torchvision's MNIST and FashionMNIST, read from IDX files on disk.

ember never downloads: the files come from Debian's `dataset-fashion-mnist` package
(/usr/share/datasets/fashion-mnist) or any folder holding the four IDX files. Images are uint8
tensors, not PIL images (ember has no PIL dependency). See docs/design/datasets.md.
"""

from ember.datasets.mnist import MNIST, FashionMNIST, read_idx

__all__ = ["MNIST", "FashionMNIST", "read_idx"]
