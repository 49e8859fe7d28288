"""ember.utils.data: datasets, samplers, collation and the DataLoader, with PyTorch's names."""

from ember.utils.data import distributed  # noqa: F401
from ember.utils.data._collate import *  # noqa: F403
from ember.utils.data.dataloader import *  # noqa: F403
from ember.utils.data.dataset import *  # noqa: F403
from ember.utils.data.distributed import DistributedSampler  # noqa: F401
from ember.utils.data.sampler import *  # noqa: F403
