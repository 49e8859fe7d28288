"""ember.version: what programs read as torch.version (the CUDA version is None: ember's CUDA
backend has no kernels to run yet)."""

__version__ = "0.1.0"
cuda = None
hip = None
debug = False
git_version = "unknown"
