"""ember.nn.functional: PyTorch's functional interface over ember's C++ ops, one module per
topic. This module only gathers them: each part's public names (its __all__) are this module's.

The parts import ember and ember._C, and some a public function of another part (loss imports
distance; attention imports activation, conv, dropouts and shape), never this package nor
ember.nn: `import ember.nn` imports this package while ember.nn is still being initialised, so
importing either back would read a half-built module.
"""

from ember.nn.functional import (
    activation,
    attention,
    conv,
    dispatch,
    distance,
    dropouts,
    embeddings,
    loss,
    norm,
    pool,
    resample,
    sampling,
    shape,
)
from ember.nn.functional.activation import *  # noqa: F403
from ember.nn.functional.attention import *  # noqa: F403
from ember.nn.functional.conv import *  # noqa: F403
from ember.nn.functional.dispatch import *  # noqa: F403
from ember.nn.functional.distance import *  # noqa: F403
from ember.nn.functional.dropouts import *  # noqa: F403
from ember.nn.functional.embeddings import *  # noqa: F403
from ember.nn.functional.loss import *  # noqa: F403
from ember.nn.functional.norm import *  # noqa: F403
from ember.nn.functional.pool import *  # noqa: F403
from ember.nn.functional.resample import *  # noqa: F403
from ember.nn.functional.sampling import *  # noqa: F403
from ember.nn.functional.shape import *  # noqa: F403

# dropouts and embeddings are plural so that no part's name shadows a function (F.dropout,
# F.embedding) once the star imports bind the functions.
_PARTS = (
    activation, shape, conv, pool, resample, sampling, norm, dropouts, loss, embeddings, distance,
    attention, dispatch,
)  # fmt: skip

__all__ = [name for part in _PARTS for name in part.__all__]


def __getattr__(name):
    # F.grad is the module torch.nn.grad (imported lazily: ember.nn imports this package first).
    if name == "grad":
        import ember.nn.grad

        return ember.nn.grad
    raise AttributeError(f"module 'ember.nn.functional' has no attribute '{name}'")


def _install_top_level(namespace, tensor) -> None:
    """PyTorch also has some of these at torch.* (and as Tensor methods): the same functions,
    and the ATen-named forms of ember/_nn_aten.py."""
    from ember import _nn_aten

    for name in _nn_aten.NAMES:
        namespace.setdefault(name, getattr(_nn_aten, name))
    for name in (
        "cosine_similarity",
        "pairwise_distance",
        "hardshrink",
        "prelu",
        "rrelu",
        "channel_shuffle",
    ):
        namespace.setdefault(name, globals()[name])
    for name in ("hardshrink", "prelu"):
        if not hasattr(tensor, name):
            setattr(tensor, name, globals()[name])
