"""ember.finfo / ember.iinfo: the numeric limits of a dtype, as torch.finfo / torch.iinfo (code such
as attention masking writes torch.finfo(scores.dtype).min). Plain constants of the IEEE formats
and two's-complement integers; no NumPy."""

from ember import _C

__all__ = ["finfo", "iinfo"]

# bits, eps, max, smallest normal, resolution (10 ** -(decimal digits of precision))
_FLOATS = {
    "float32": (32, 2.0**-23, (2 - 2.0**-23) * 2.0**127, 2.0**-126, 1e-06),
    "float64": (64, 2.0**-52, (2 - 2.0**-52) * 2.0**1023, 2.0**-1022, 1e-15),
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    "bfloat16": (16, 2.0**-7, (2 - 2.0**-7) * 2.0**127, 2.0**-126, 0.01),
}
_INTS = {
    "int8": (8, True),
    "uint8": (8, False),
    "int16": (16, True),
    "int32": (32, True),
    "int64": (64, True),
}


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


class finfo:
    """Limits of a floating dtype (the default dtype if none): bits, eps, max, min, tiny (=
    smallest_normal), resolution, and dtype (its name, a str, as in torch)."""

    def __init__(self, type=None):
        if type is None:
            type = _C.get_default_dtype()
        name = _name(type) if isinstance(type, _C.dtype) else None
        if name not in _FLOATS:
            raise TypeError(
                "ember.finfo() requires a floating point input type. Use ember.iinfo to handle "
                f"'{type}'"
            )
        self.bits, self.eps, self.max, self.smallest_normal, self.resolution = _FLOATS[name]
        self.min = -self.max
        self.tiny = self.smallest_normal
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: bits, min, max, and dtype (its name, a str, as in torch)."""

    def __init__(self, type):
        name = _name(type) if isinstance(type, _C.dtype) else None
        if name == "bool":
            raise TypeError(f"{type} is not supported by ember.iinfo")
        if name not in _INTS:
            raise TypeError(
                f"ember.iinfo() requires an integer input type. Use ember.finfo to handle '{type}'"
            )
        self.bits, signed = _INTS[name]
        self.min = -(2 ** (self.bits - 1)) if signed else 0
        self.max = 2 ** (self.bits - 1) - 1 if signed else 2**self.bits - 1
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
