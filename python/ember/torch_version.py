"""torch.torch_version: TorchVersion, a version string that compares with other version strings
and tuples by release numbers ("2.1.0" > "2.0", TorchVersion("2.1") >= (2, 0))."""

import re

__all__ = ["TorchVersion"]


def _release(v) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v)
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(v))
    if m is None:
        raise ValueError(f"Invalid version: {v!r}")
    return tuple(int(x) for x in m.group(1).split("."))


def _padded(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    return a + (0,) * (n - len(a)), b + (0,) * (n - len(b))


class TorchVersion(str):
    """A str whose comparisons are by release numbers (a local suffix such as "+cpu" ignored)."""

    def _cmp(self, other, op):
        a, b = _padded(_release(self), _release(other))
        return op(a, b)

    def __lt__(self, other):
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other):
        return self._cmp(other, tuple.__le__)

    def __gt__(self, other):
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other):
        return self._cmp(other, tuple.__ge__)

    def __eq__(self, other):
        try:
            return self._cmp(other, tuple.__eq__)
        except ValueError:
            return str.__eq__(self, other)

    __hash__ = str.__hash__
