"""nn.utils.skip_init: a module made without running its initialisers (the parameters hold
whatever memory held; ember allocates them and skips reset_parameters)."""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    reset = getattr(module_cls, "reset_parameters", None)
    if reset is None:
        return module_cls(*args, **kwargs)
    module_cls.reset_parameters = lambda self: None
    try:
        return module_cls(*args, **kwargs)
    finally:
        module_cls.reset_parameters = reset
