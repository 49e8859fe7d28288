"""The nn layers, one file per topic as in PyTorch; each file lists its public names in __all__."""

import types as _types

from ember.nn.modules.activation import *  # noqa: F403
from ember.nn.modules.adaptive import *  # noqa: F403
from ember.nn.modules.batchnorm import *  # noqa: F403
from ember.nn.modules.container import *  # noqa: F403
from ember.nn.modules.conv import *  # noqa: F403
from ember.nn.modules.distance import *  # noqa: F403
from ember.nn.modules.dropout import *  # noqa: F403
from ember.nn.modules.flatten import *  # noqa: F403
from ember.nn.modules.fold import *  # noqa: F403
from ember.nn.modules.instancenorm import *  # noqa: F403
from ember.nn.modules.linear import *  # noqa: F403
from ember.nn.modules.loss import *  # noqa: F403
from ember.nn.modules.module import *  # noqa: F403
from ember.nn.modules.normalization import *  # noqa: F403
from ember.nn.modules.padding import *  # noqa: F403
from ember.nn.modules.pixelshuffle import *  # noqa: F403
from ember.nn.modules.pooling import *  # noqa: F403
from ember.nn.modules.rnn import *  # noqa: F403
from ember.nn.modules.sparse import *  # noqa: F403
from ember.nn.modules.transformer import *  # noqa: F403
from ember.nn.modules.upsampling import *  # noqa: F403

# Only the layers, as PyTorch's torch.nn.modules.__all__: without it, ember.nn's star import would
# also take the submodules, and ember.nn.modules.utils (the layers' helpers) would shadow
# ember.nn.utils (clip_grad_norm_, rnn, ...).
__all__ = [
    k
    for k, v in globals().items()
    if not k.startswith("_") and not isinstance(v, _types.ModuleType)
]

# PyTorch defines MultiheadAttention in nn.modules.activation, and programs name it there (an
# allow-list for torch.load): the same class under that name.
activation.MultiheadAttention = MultiheadAttention  # noqa: F405
