"""PyTorch's legacy tensor types, which old tutorials still use: `ember.FloatTensor(2, 3)`,
`ember.LongTensor([1, 2])`, `isinstance(x, ember.FloatTensor)`, `x.type(ember.DoubleTensor)`.

Each is a class whose instances are never made: calling it builds an ordinary Tensor of its dtype,
and isinstance checks the dtype of a CPU tensor, as in PyTorch, where these types are the CPU
tensors of one dtype (the CUDA ones live in ember.cuda).
"""

from ember import _C
from ember._size import Size

# Type name -> dtype name, in PyTorch's spelling.
LEGACY_TYPES = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64",
    "IntTensor": "int32",
    "ShortTensor": "int16",
    "CharTensor": "int8",
    "ByteTensor": "uint8",
    "BoolTensor": "bool",
}


def _is_sizes(args):
    return all(isinstance(a, int) and not isinstance(a, bool) for a in args)


class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype and obj.device.type == cls._device
        )

    def __call__(cls, *args, device=None):
        dtype, where = cls.dtype, device or cls._device
        if not args:
            return _C.empty([0], dtype=dtype, device=where)
        if len(args) == 1 and isinstance(args[0], _C.Tensor):
            t = args[0]
            if t.dtype != dtype:
                raise TypeError(
                    f"{cls.__name__}(): expected a tensor of dtype {dtype}, got {t.dtype}"
                )
            return t.detach()  # an alias, as in PyTorch
        if _is_sizes(args):
            return _C.empty(list(args), dtype=dtype, device=where)
        if len(args) == 1 and isinstance(args[0], Size):
            return _C.empty(list(args[0]), dtype=dtype, device=where)
        if len(args) == 1:
            return _C.tensor(args[0], dtype=dtype, device=where)
        raise TypeError(
            f"{cls.__name__}(): expected sizes (ints), a torch.Size, a sequence or a tensor, "
            f"got ({', '.join(type(a).__name__ for a in args)})"
        )

    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def make_types(module: str, device: str) -> dict:
    """The legacy type classes of `module` ("ember" or "ember.cuda") for tensors on `device`."""
    out = {}
    for name, dtype_name in LEGACY_TYPES.items():
        cls = _LegacyTensorMeta(
            name,
            (),
            {"dtype": getattr(_C, dtype_name), "_device": device, "is_cuda": device == "cuda"},
        )
        cls.__module__ = module
        out[name] = cls
    return out
