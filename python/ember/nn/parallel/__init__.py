"""ember.nn.parallel: DataParallel (which runs the module itself when there is no GPU, as
PyTorch's does) and DistributedDataParallel (gradients averaged across the processes of a
group, docs/design/distributed.md)."""

from ember.nn.parallel.data_parallel import DataParallel, data_parallel
from ember.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
