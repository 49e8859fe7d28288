"""ember.nn.utils: gradient clipping, parameter vectors, variable-length sequences (rnn),
parametrizations, weight and spectral norm, batch-norm fusion, functional_call."""

from ember.nn.utils import (  # noqa: F401
    fusion,
    init,
    memory_format,
    parametrizations,
    parametrize,
    rnn,
    stateless,
)
from ember.nn.utils.clip_grad import *  # noqa: F403
from ember.nn.utils.convert_parameters import *  # noqa: F403
from ember.nn.utils.fusion import *  # noqa: F403
from ember.nn.utils.init import skip_init  # noqa: F401
from ember.nn.utils.memory_format import *  # noqa: F403
from ember.nn.utils.weight_norm import *  # noqa: F403
