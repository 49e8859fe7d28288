"""ember.optim: the optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam,
RAdam, ASGD and Rprop, each a fused multi-tensor C++ update per group and step), LBFGS, and
lr_scheduler."""

from ember.optim import lr_scheduler, swa_utils  # noqa: F401
from ember.optim.adadelta import *  # noqa: F403
from ember.optim.adagrad import *  # noqa: F403
from ember.optim.adam import *  # noqa: F403
from ember.optim.adamax import *  # noqa: F403
from ember.optim.adamw import *  # noqa: F403
from ember.optim.asgd import *  # noqa: F403
from ember.optim.lbfgs import *  # noqa: F403
from ember.optim.nadam import *  # noqa: F403
from ember.optim.optimizer import *  # noqa: F403
from ember.optim.radam import *  # noqa: F403
from ember.optim.rmsprop import *  # noqa: F403
from ember.optim.rprop import *  # noqa: F403
from ember.optim.sgd import *  # noqa: F403
from ember.optim.sparse_adam import *  # noqa: F403
