"""torch.types: the type aliases PyTorch's annotations use (Number, Device, ...)."""

import os
from typing import IO, Union

from ember import _C
from ember._size import Size  # noqa: F401

Tensor = _C.Tensor
Number = Union[int, float, bool]
Device = Union[_C.device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
