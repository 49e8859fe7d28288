"""Python composites: ops written in Python with other ops, for PyTorch's rarer functions that
need no kernel of their own (docs/dev/adding_an_op.md, "(d) A Python composite").

`@composite(topic, dtypes)` declares one: it records the op beside the C++ registry, so that
`ember._op_registry()` lists it with its topic and dtypes and the op table tests it like any
other op (forward against NumPy, gradients by finite differences, dtypes, strided inputs); it
checks the dtype of the first tensor argument with the `[name]` error of the C++ ops; it puts
`[name]` before the message of an error raised by one of its parts; and it makes the op
`ember.<name>` and, with `method=True`, `Tensor.<name>`. The function's body is the
op: its backward is the chain of its parts', so it needs none of its own.

The composites live in python/ember/_composites/<topic>.py, by the topic of the C++ registry
they belong to (ops/<topic>.cpp), and ember/__init__.py imports them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Callable

from ember import _C
from ember._tensor import _inplace_from

_PLAIN_ERRORS = (RuntimeError, IndexError, ValueError, TypeError)

# (name, "composite", dtypes, differentiable, topic), as the tuples of _C._op_registry().
RECORDS: list[tuple] = []
FUNCTIONS: dict[str, Callable] = {}


def _dtype_name(d) -> str:
    return str(d).rpartition(".")[2]


def composite(
    topic: str,
    dtypes: Sequence,
    *,
    differentiable: bool = True,
    method: bool = False,
    name: str | None = None,
    check_dtype: bool = True,
    inplace_dtypes: Sequence | None = None,
) -> Callable:
    def declare(fn: Callable) -> Callable:
        opname = name or fn.__name__
        allowed = frozenset(dtypes)

        @functools.wraps(fn)
        def op(*args, **kwargs):
            if check_dtype:
                first = next((a for a in args if isinstance(a, _C.Tensor)), None)
                # A creation op (no tensor argument) is checked on its dtype= argument.
                dtype = first.dtype if first is not None else kwargs.get("dtype")
                if dtype is not None and dtype not in allowed:
                    names = ", ".join(_dtype_name(d) for d in dtypes)
                    raise TypeError(
                        f"[{opname}] does not support dtype {_dtype_name(dtype)} "
                        f"(supported: {names})"
                    )
            try:
                return fn(*args, **kwargs)
            except (RuntimeError, IndexError, ValueError, TypeError) as e:
                # An error of a part ("[mul] shapes ... cannot be broadcast") names this op too.
                text = str(e)
                if type(e) not in _PLAIN_ERRORS or text.startswith(f"[{opname}]"):
                    raise
                raise type(e)(f"[{opname}] {text}") from None

        op.__name__ = opname
        RECORDS.append((opname, "composite", list(dtypes), differentiable, topic))
        FUNCTIONS[opname] = op
        if method:
            setattr(_C.Tensor, opname, op)
        if inplace_dtypes is not None:
            RECORDS.append((opname + "_", "inplace", list(inplace_dtypes), differentiable, topic))
            setattr(_C.Tensor, opname + "_", _inplace_from(opname, op, frozenset(inplace_dtypes)))
        return op

    return declare


def op_registry() -> list[tuple]:
    """Every op: the C++ registry's records, then the Python composites'."""
    return list(_C._op_registry()) + RECORDS
