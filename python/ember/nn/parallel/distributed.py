"""nn.parallel.DistributedDataParallel: the name, so that programs which import it run as a
single process. Wrapping a module needs a process group, which ember cannot start yet (issue
19), so construction raises PyTorch's error for a missing default group."""

from ember.distributed import _NO_GROUP
from ember.nn.modules.module import Module


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        raise ValueError(_NO_GROUP)
