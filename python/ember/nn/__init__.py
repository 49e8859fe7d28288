"""ember.nn: neural-network building blocks with PyTorch's names: Module and the layers
(ember.nn.modules), Parameter, init, utils, and the functional interface (ember.nn.functional)."""

from ember.nn import (  # noqa: F401
    attention,
    common_types,
    functional,
    grad,
    init,
    parallel,  # noqa: E402, F401  (needs the modules above)
    utils,
)
from ember.nn.modules import *  # noqa: F403
from ember.nn.parallel import DataParallel  # noqa: E402, F401
from ember.nn.parameter import *  # noqa: F403


def factory_kwargs(kwargs):
    """The factory arguments (device, dtype, memory_format) among kwargs, merged with those of a
    'factory_kwargs' entry; other keys are a TypeError, as in torch.nn.factory_kwargs."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    unexpected = set(kwargs) - simple - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = {k: v for k, v in kwargs.items() if k in simple}
    for k, v in (kwargs.get("factory_kwargs") or {}).items():
        if k in out:
            raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
        if k not in simple:
            raise TypeError(f"unexpected kwarg {k} in factory_kwargs")
        out[k] = v
    return out
