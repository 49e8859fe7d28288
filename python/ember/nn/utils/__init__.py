"""ember.nn.utils: gradient clipping, parameter vectors, and (in rnn) variable-length sequences."""

from ember.nn.utils import rnn  # noqa: F401
from ember.nn.utils.clip_grad import *  # noqa: F403
from ember.nn.utils.convert_parameters import *  # noqa: F403
