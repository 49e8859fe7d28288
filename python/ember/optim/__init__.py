"""ember.optim: optimizers whose update math is fused multi-tensor C++ ops, and lr_scheduler."""

from ember.optim import lr_scheduler  # noqa: F401
from ember.optim.adagrad import *  # noqa: F403
from ember.optim.adam import *  # noqa: F403
from ember.optim.adamw import *  # noqa: F403
from ember.optim.optimizer import *  # noqa: F403
from ember.optim.rmsprop import *  # noqa: F403
from ember.optim.sgd import *  # noqa: F403
