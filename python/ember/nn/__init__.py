"""ember.nn: neural-network building blocks with PyTorch's names: Module and the layers
(ember.nn.modules), Parameter, init, utils, and the functional interface (ember.nn.functional)."""

from ember.nn import functional, init, utils  # noqa: F401
from ember.nn.modules import *  # noqa: F403
from ember.nn.parameter import *  # noqa: F403
