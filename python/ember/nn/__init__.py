"""ember.nn: neural-network building blocks with PyTorch's names: Module and the layers
(ember.nn.modules), Parameter, init, utils, and the functional interface (ember.nn.functional)."""

from ember.nn import (  # noqa: F401
    functional,
    init,
    parallel,  # noqa: E402, F401  (needs the modules above)
    utils,
)
from ember.nn.modules import *  # noqa: F403
from ember.nn.parallel import DataParallel  # noqa: E402, F401
from ember.nn.parameter import *  # noqa: F403
