"""ember.compiler: torch.compiler's helpers for code that marks what a compiler should skip.
ember.compile runs everything eagerly (ember/_compile.py), so these change nothing: disable and
allow_in_graph return their function, is_compiling is False."""

from __future__ import annotations

from typing import Any, Callable

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "reset",
]


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn: Any) -> Any:
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    return fn


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def reset() -> None:
    pass
