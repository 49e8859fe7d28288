"""nn.utils.stateless.functional_call: a module's forward with some parameters and buffers
replaced for one call (torch.func.functional_call)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

__all__ = ["functional_call"]


def _owner(module, dotted):
    *path, name = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, name


@contextmanager
def _swapped(module, tensors, strict):
    saved = []
    try:
        for key, value in tensors.items():
            owner, name = _owner(module, key)
            if name in owner._parameters:
                saved.append((owner, name, "_parameters", owner._parameters[name]))
                owner._parameters[name] = value
            elif name in owner._buffers:
                saved.append((owner, name, "_buffers", owner._buffers[name]))
                owner._buffers[name] = value
            elif strict:
                raise RuntimeError(f"functional_call: unexpected key '{key}'")
            else:
                saved.append((owner, name, None, owner.__dict__.get(name)))
                owner.__dict__[name] = value
        yield
    finally:
        for owner, name, where, old in reversed(saved):
            if where is None:
                owner.__dict__.pop(name, None)
            else:
                getattr(owner, where)[name] = old


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """module(*args, **kwargs) with the tensors of the dict(s) (keyed as in state_dict) in
    place of the module's own; the module is unchanged afterwards."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (list, tuple)):
        merged = {}
        for d in dicts:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries")
                merged[k] = v
        dicts = merged
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, dict(dicts), strict):
        return module(*args, **(kwargs or {}))
