"""nn.DataParallel on a machine without usable GPUs: PyTorch's DataParallel then calls the
wrapped module directly (no scatter, no replicas), and so does ember's, whose CUDA backend has no
op kernels yet. The wrapper is kept (`.module`, state-dict keys prefixed "module.") so that
checkpoints and code that unwraps it behave as in PyTorch."""

from ember import cuda
from ember.nn.modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids and not cuda.is_available():
            raise RuntimeError(
                f"DataParallel: device_ids {list(device_ids)} were given, but no CUDA device is "
                "available to ember"
            )
        self.module = module
        self.device_ids = []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form: without GPUs, module(*inputs, **module_kwargs)."""
    if device_ids and not cuda.is_available():
        raise RuntimeError("data_parallel: no CUDA device is available to ember")
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return module(*inputs, **(module_kwargs or {}))
