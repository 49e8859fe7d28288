"""Tensor methods written in Python: protocol methods that need no speed."""

from ember import _C
from ember._legacy import LEGACY_TYPES

Tensor = _C.Tensor


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self.shape[0]))


def _format(self, spec):
    if self.dim() == 0:
        return self.item().__format__(spec)
    return object.__format__(self, spec)


def _deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    out = self.detach().clone()
    out.requires_grad_(self.requires_grad)
    if self.grad is not None:
        out.grad = self.grad.detach().clone()
    memo[id(self)] = out
    return out


def _reversed(self):
    if self.dim() == 0:
        return self
    return (self[i] for i in range(self.shape[0] - 1, -1, -1))


# PyTorch's legacy tensor type names, by dtype name (Tensor.type, and Module's error messages).
_TENSOR_TYPENAMES = {dtype: name for name, dtype in LEGACY_TYPES.items()}


def _type(self, dtype=None, non_blocking=False, **kwargs):
    # torch.Tensor.type: no dtype gives the type name ("ember.FloatTensor", "ember.cuda.
    # FloatTensor"); a dtype, a legacy type (ember.LongTensor) or its name ("torch.LongTensor" or
    # "ember.cuda.LongTensor") converts, as .to does (self if unchanged).
    if dtype is None:
        prefix = "ember.cuda." if self.device.type == "cuda" else "ember."
        return prefix + _TENSOR_TYPENAMES.get(str(self.dtype).rsplit(".", 1)[-1], "Tensor")
    device = None
    if isinstance(dtype, str):
        prefix, _, typename = dtype.rpartition(".")
        if prefix not in ("torch", "ember", "torch.cuda", "ember.cuda") or (
            typename not in LEGACY_TYPES
        ):
            raise ValueError(f"invalid type: '{dtype}'")
        device = "cuda" if prefix.endswith("cuda") else "cpu"
        dtype = getattr(_C, LEGACY_TYPES[typename])
    elif isinstance(getattr(dtype, "dtype", None), _C.dtype) and hasattr(dtype, "_device"):
        dtype, device = dtype.dtype, dtype._device  # a legacy type class
    if not isinstance(dtype, _C.dtype):
        raise TypeError(
            f"Tensor.type: dtype must be a type, str, or dtype object, got {type(dtype).__name__}"
        )
    if device is not None and device != self.device.type:
        return self.to(device, dtype, non_blocking=non_blocking)
    return self.to(dtype, non_blocking=non_blocking)


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    # torch.Tensor.cuda: no device is the current CUDA device, an int is an index. Module.cuda
    # takes the same arguments.
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = f"cuda:{device}"
    if memory_format is None:
        return self.to(device, non_blocking=non_blocking)
    return self.to(device, non_blocking=non_blocking, memory_format=memory_format)


class _PostAccumulateHandle:
    """What register_post_accumulate_grad_hook returns: remove() unregisters the hook."""

    def __init__(self, tensor, hook_id):
        import weakref

        self._tensor = weakref.ref(tensor)
        self.id = hook_id

    def remove(self):
        tensor = self._tensor()
        if tensor is not None:
            _C._remove_post_accumulate_grad_hook(tensor, self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register_post_accumulate_grad_hook(self, hook):
    # hook(tensor) runs after backward accumulated into tensor.grad. The C++ side holds only a
    # weak reference to this Python object, so the hook passes the same object (a Parameter
    # stays a Parameter, and dicts keyed by it work) without keeping it alive.
    import weakref

    ref = weakref.ref(self)

    def run():
        tensor = ref()
        if tensor is not None:
            hook(tensor)

    return _PostAccumulateHandle(self, _C._register_post_accumulate_grad_hook(self, run))


Tensor.cuda = _cuda
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook

# The device and layout questions PyTorch's Tensor answers for backends ember does not have (its
# tensors are strided, on the CPU or CUDA): always False, so code that branches on them runs.
for _name in (
    "is_xpu",
    "is_mps",
    "is_meta",
    "is_ipu",
    "is_mtia",
    "is_maia",
    "is_vulkan",
    "is_quantized",
    "is_nested",
    "is_mkldnn",
    "is_sparse",
    "is_sparse_csr",
):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, property(lambda self: False))


def _to_dense(self, dtype=None, *, masked_grad=None):
    """A strided tensor is dense already: itself (or a copy in dtype), as PyTorch returns."""
    return self if dtype is None else self.to(dtype)


Tensor.to_dense = _to_dense
Tensor.type = _type
Tensor.__iter__ = _iter
Tensor.__format__ = _format
Tensor.__deepcopy__ = _deepcopy
Tensor.__reversed__ = _reversed
Tensor.__array_priority__ = 1000  # NumPy defers to Tensor's reflected operators


# PyTorch's other names of the same ops, as functions and methods (and in-place methods where the
# op has one). Set here rather than bound twice in C++: an alias is the very same callable.
_ALIASES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "fix": "trunc",
    "clip": "clamp",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
    "divide": "div",
    "unsafe_chunk": "chunk",
    "unsafe_split": "split",
    "unsafe_split_with_sizes": "split_with_sizes",
}


def _install_aliases(namespace):
    for alias, target in _ALIASES.items():
        if alias not in namespace and target in namespace:
            namespace[alias] = namespace[target]
        for suffix in ("", "_"):
            method = getattr(Tensor, target + suffix, None)
            if method is not None and not hasattr(Tensor, alias + suffix):
                setattr(Tensor, alias + suffix, method)


# The in-place forms the registry lists that C++ does not bind as methods (addmm_ & co, cumsum_,
# cumprod_), and those of the Python composites (ember/_composite.py): the out-of-place op,
# copied into self. copy_ records the history, so autograd sees self's old value through the op;
# while recording, the op reads a clone of self, since it may save its input for backward
# (cumprod does) and copy_ then changes self. The result must fit self: no growth by
# broadcasting, and (with `allowed`) a dtype the in-place form accepts.
def _inplace_from(name, op=None, allowed=None):
    op = op if op is not None else getattr(_C, name)

    def method(self, *args, **kwargs):
        if allowed is not None and self.dtype not in allowed:
            raise RuntimeError(
                f"[{name}_] result type of {name} can't be cast to the desired output type "
                f"{str(self.dtype).rpartition('.')[2]}"
            )
        recording = _C.is_grad_enabled() and (
            self.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in args)
        )
        result = op(self.clone() if recording else self, *args, **kwargs)
        if tuple(result.shape) != tuple(self.shape):
            raise RuntimeError(
                f"[{name}_] output with shape {list(self.shape)} doesn't match the broadcast "
                f"shape {list(result.shape)}"
            )
        return self.copy_(result)

    method.__name__ = name + "_"
    return method


for _name, _kind, *_ in _C._op_registry():
    if _kind == "inplace" and not hasattr(Tensor, _name) and hasattr(_C, _name[:-1]):
        setattr(Tensor, _name, _inplace_from(_name[:-1]))


def _install_inplace_functions(namespace):
    """ember.exp_(x) and the like, as torch.exp_: the in-place method as a module function,
    for every op that has both an ember.<op> function and a Tensor.<op>_ method."""
    for name in dir(Tensor):
        if not name.endswith("_") or name.startswith("_") or name in namespace:
            continue
        if name[:-1] in namespace:
            namespace[name] = getattr(Tensor, name)


# Pickling (DataLoader workers send batches this way): the raw bytes of a contiguous copy, the
# dtype's name and the shape. No NumPy: the bytes are read and written through ctypes.
def _rebuild_tensor(data, dtype_name, shape, requires_grad):
    import ctypes

    out = _C.empty(shape, dtype=getattr(_C, dtype_name))
    if len(data):
        ctypes.memmove(out.data_ptr(), data, len(data))
    if requires_grad:
        out.requires_grad_(True)
    return out


def _reduce_ex(self, protocol):
    import ctypes

    if not self.device.type == "cpu":
        raise RuntimeError(f"pickling a tensor on {self.device} is not supported")
    src = self.detach().contiguous()
    data = ctypes.string_at(src.data_ptr(), src.nbytes) if src.numel() else b""
    dtype_name = str(self.dtype).rpartition(".")[2]
    return _rebuild_tensor, (data, dtype_name, tuple(self.shape), self.requires_grad)


Tensor.__reduce_ex__ = _reduce_ex
