"""PyTorch's symbolic-shape helpers (torch.sym_int, sym_max, ...). ember traces no symbolic
shapes, so their arguments are always concrete Python numbers, on which PyTorch's helpers are
the plain operations below; SymInt, SymFloat and SymBool are the types no concrete number has."""

import builtins
import math


class SymInt:
    """The type of a symbolic int (none exist in ember: isinstance(3, SymInt) is False)."""


class SymFloat:
    """The type of a symbolic float."""


class SymBool:
    """The type of a symbolic bool."""


def sym_int(a):
    return int(a)


def sym_float(a):
    return float(a)


def sym_not(a):
    return not a


def sym_max(a, b):
    return builtins.max(a, b)


def sym_min(a, b):
    return builtins.min(a, b)


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(args):
    return builtins.sum(args)


def sym_ite(b, t, f):
    return t if b else f


def sym_constrain_range(size, *, min=None, max=None):
    """Checks that a concrete size lies in [min, max]."""
    if (min is not None and size < min) or (max is not None and size > max):
        raise RuntimeError(f"Invalid value {size} for range [{min}:{max}]")


def sym_constrain_range_for_size(size, *, min=None, max=None):
    sym_constrain_range(size, min=min, max=max)


def sym_fresh_size(expr):
    return expr


NAMES = [n for n in dir() if n.startswith("sym_") or n.startswith("Sym")]
