"""PyTorch's smaller front-end names that programs touch: predicates and properties of tensors,
process-wide switches (determinism, matmul precision, default device), and a few functions that
are methods too. None computes anything an op does not; each says what it stands for.
"""

from __future__ import annotations

import warnings
from typing import Any

from ember import _C

Tensor = _C.Tensor

# ---- Tensor predicates and properties ----------------------------------------------------------


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def is_complex(input) -> bool:
    return input.dtype.is_complex


def is_signed(input) -> bool:
    return input.dtype not in (_C.uint8, _C.bool)


def is_nonzero(input) -> bool:
    """bool(input) for a one-element tensor, with PyTorch's errors otherwise."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input, other) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_conj(input) -> bool:
    return False


def is_neg(input) -> bool:
    return False


def is_inference(input) -> bool:
    return bool(getattr(input, "_is_inference", lambda: False)())


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def _set_part(part):
    """The setter of Tensor.real / Tensor.imag: writes into that part of the tensor."""

    def setter(self, value):
        view = part(self)
        if isinstance(value, Tensor):
            view.copy_(value)
        else:
            view.fill_(value)

    return setter


def adjoint(input):
    """The conjugate transpose of the last two dims (the transpose, for real tensors)."""
    return _C.conj(input.transpose(-2, -1))


def _matrix_h(self):
    if self.dim() != 2:
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
        )
    return _C.conj(self.t())


def _mh(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mH is only supported on matrices or batches of matrices. "
            f"Got {self.dim()}-D tensor."
        )
    return _C.conj(self.transpose(-2, -1))


def _get_device(self) -> int:
    return self.device.index if self.device.type == "cuda" else -1


def _apply_(self, callable):
    """Applies a Python function to every element in place (CPU; slow, as in PyTorch)."""
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _map_(self, tensor, callable):
    if self.device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    other = tensor.expand_as(self).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _unfold(self, dimension, size, step):
    """All windows of `size` elements, `step` apart, along `dimension`, as a new last
    dimension (PyTorch returns a view; ember returns a copy made with index_select, which is
    differentiable)."""
    d = dimension + self.dim() if dimension < 0 else dimension
    if self.dim() == 0:
        return self.reshape(1).unfold(0, size, step) if size == 1 else _unfold_error(self, d, size)
    length = self.shape[d]
    if size > length:
        _unfold_error(self, d, size)
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    n = (length - size) // step + 1
    idx = (_C.arange(n) * step).reshape(-1, 1) + _C.arange(size).reshape(1, -1)
    out = self.index_select(d, idx.reshape(-1))
    shape = list(self.shape)
    shape[d : d + 1] = [n, size]
    return out.reshape(shape).movedim(d + 1, -1)


def _unfold_error(self, d, size):
    raise RuntimeError(
        f"maximum size for tensor at dimension {d} is "
        f"{self.shape[d] if self.dim() else 1} but size is {size}"
    )


def _volatile(self):
    warnings.warn(
        "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
    )
    return False


def _pin_memory(self, device=None):
    raise RuntimeError(
        "Cannot access accelerator device when none is available: pin_memory needs a CUDA "
        "device, and ember has none usable"
    )


def _new(self, *args, **kwargs):
    """Tensor.new: a tensor of self's dtype and device (sizes, data or nothing), the legacy
    constructor of PyTorch's old code."""
    if not args:
        return _C.empty(0, dtype=self.dtype, device=self.device)
    if all(isinstance(a, int) for a in args):
        return _C.empty(list(args), dtype=self.dtype, device=self.device)
    from ember._size import Size

    if len(args) == 1 and isinstance(args[0], Size):  # a Size is sizes, as in PyTorch
        return _C.empty(list(args[0]), dtype=self.dtype, device=self.device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].detach() if args[0].dtype == self.dtype else args[0].to(self.dtype)
    return _C.tensor(args[0], dtype=self.dtype, device=self.device)


def _fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal in place (all dims of equal size, or a tall matrix whose
    diagonal restarts every ncols + 1 rows with wrap=True)."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() == 2:
        rows, cols = self.shape
        n = min(rows, cols)
        self[_C.arange(n), _C.arange(n)] = fill_value
        if wrap and rows > cols + 1:
            start = cols + 1
            while start < rows:
                k = min(cols, rows - start)
                self[_C.arange(k) + start, _C.arange(k)] = fill_value
                start += cols + 1
    else:
        idx = _C.arange(self.shape[0])
        self[(idx,) * self.dim()] = fill_value
    return self


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """exp of a normal(mean, std) sample, in place."""
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return self.normal_(mean, std, generator=generator).exp_()


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """median + sigma * tan(pi * (U - 1/2)), in place."""
    import math

    u = _C.rand(self.shape, dtype=self.dtype, generator=generator)
    return self.copy_(median + sigma * _C.tan(math.pi * (u - 0.5)))


def _geometric_(self, p, *, generator=None):
    """The number of Bernoulli(p) trials to the first success (1, 2, ...), in place."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    import math

    u = _C.rand(self.shape, dtype=_C.float64, generator=generator)
    u = _C.clamp(u, min=1e-300)
    return self.copy_(_C.ceil(_C.log(u) / math.log1p(-p)).clamp(min=1))


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    return _C.empty_strided(
        size,
        stride,
        dtype=dtype or self.dtype,
        device=device or self.device,
        requires_grad=requires_grad,
    )


def _is_set_to(self, tensor) -> bool:
    """Whether both are the same memory with the same geometry."""
    return (
        self.data_ptr() == tensor.data_ptr()
        and tuple(self.shape) == tuple(tensor.shape)
        and tuple(self.stride()) == tuple(tensor.stride())
        and self.dtype == tensor.dtype
    )


def install_tensor_methods() -> None:
    T = Tensor
    T.is_signed = is_signed
    T.is_nonzero = is_nonzero
    T.is_same_size = is_same_size
    T.is_conj = is_conj
    T.is_neg = is_neg
    T.resolve_conj = resolve_conj
    T.resolve_neg = resolve_neg
    T.adjoint = adjoint
    T.real = property(_C.real, _set_part(_C.real))
    T.imag = property(_C.imag, _set_part(_C.imag))
    T.H = property(_matrix_h)
    T.mH = property(_mh)
    T.get_device = _get_device
    T.apply_ = _apply_
    T.map_ = _map_
    T.unfold = _unfold
    T.volatile = property(_volatile)
    T.is_pinned = lambda self, device=None: False
    T.is_distributed = lambda self: False
    T.pin_memory = _pin_memory
    T.new = _new
    T.const_data_ptr = lambda self: self.data_ptr()
    T.fill_diagonal_ = _fill_diagonal_
    T.log_normal_ = _log_normal_
    T.cauchy_ = _cauchy_
    T.geometric_ = _geometric_
    T.new_empty_strided = _new_empty_strided
    T.is_set_to = _is_set_to
    T.layout = property(lambda self: strided)
    T.dim_order = lambda self: tuple(
        sorted(range(self.dim()), key=lambda d: (-self.stride(d), -self.shape[d]))
    )
    for alias, target in (
        ("absolute_", "abs_"),
        ("multiply_", "mul_"),
        ("subtract_", "sub_"),
        ("true_divide_", "div_"),
        ("negative_", "neg_"),
    ):
        if not hasattr(T, alias) and hasattr(T, target):
            setattr(T, alias, getattr(T, target))


# ---- process-wide switches ---------------------------------------------------------------------


class layout:
    """torch.layout: ember's tensors are all `strided`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ember.{self.name}"


strided = layout("strided")

_state: dict[str, Any] = {
    "deterministic": False,
    "warn_only": False,
    "matmul_precision": "highest",
    "default_device": None,
    "warn_always": False,
    "interop_threads": 1,
}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded: ember's CPU kernels are already deterministic whatever the thread count
    (docs/design/ops.md, Note [Deterministic reductions])."""
    _state["deterministic"] = bool(mode)
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    modes = {"default": 0, "warn": 1, "error": 2}
    level = modes[debug_mode] if isinstance(debug_mode, str) else int(debug_mode)
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded ("highest", "high", "medium"): ember's float32 matmuls are always full float32
    (no TF32 or bfloat16 passes on the CPU)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid float32 matmul precision: {precision}")
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


def set_default_device(device) -> None:
    """Only the CPU (or None) is accepted: ember's factories make CPU tensors by default."""
    if device is not None and _C.device(device).type != "cpu":
        raise RuntimeError(
            f"set_default_device: ember makes tensors on the CPU by default; {device} is not "
            "supported as the default device"
        )
    _state["default_device"] = device


def get_default_device():
    return _C.device("cpu")


def set_warn_always(b: bool) -> None:
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _state["warn_always"]


def get_num_interop_threads() -> int:
    """ember runs inter-op work on the calling thread: 1."""
    return _state["interop_threads"]


def set_num_interop_threads(n: int) -> None:
    if n <= 0:
        raise RuntimeError("Expected positive number of threads")
    _state["interop_threads"] = int(n)


def set_flush_denormal(mode: bool) -> bool:
    """False: ember does not change the CPU's denormal mode (PyTorch's answer where it cannot)."""
    return False


def compiled_with_cxx11_abi() -> bool:
    return True


def typename(obj) -> str:
    """torch.typename, as PyTorch's error messages use it too: 'ember.FloatTensor' for a float32
    tensor (Tensor.type), the qualified class name otherwise (of a class, its own)."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    if module in ("builtins", "__builtin__", None):
        return cls.__qualname__
    return module + "." + cls.__qualname__


def is_storage(obj) -> bool:
    return False


def is_vulkan_available() -> bool:
    """False: ember has no Vulkan backend (PyTorch's answer on a build without one)."""
    return False


def cudnn_is_acceptable(tensor) -> bool:
    """Whether PyTorch would hand this tensor to cuDNN: never for ember's callers, which pick
    kernels behind the plain ops (PyTorch's answer for a CPU tensor)."""
    return False


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to, as ember.Size."""
    from ember._size import Size

    result: list[int] = []
    for shape in shapes:
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for i, d in enumerate(reversed(shape)):
            if d < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {shape}")
            if i >= len(result):
                result.insert(0, d)
                continue
            cur = result[-1 - i]
            if cur == 1:
                result[-1 - i] = d
            elif d != 1 and d != cur:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape. Mismatch "
                    f"is between {list(shapes[0])} and {list(shape)}"
                )
    return Size(result)


_KIND = {_C.bool: 0, _C.uint8: 1, _C.int8: 1, _C.int16: 1, _C.int32: 1, _C.int64: 1}


def can_cast(from_, to) -> bool:
    """Whether PyTorch's type promotion allows an in-place result of `from_` into `to`: no
    floating to integral, no non-bool to bool."""
    kind_from = _KIND.get(from_, 2)
    kind_to = _KIND.get(to, 2)
    return kind_from <= kind_to


def fill(input, value):
    return _C.full_like(input, value)


def fill_(input, value):
    return input.fill_(value)


def zero_(input):
    return input.zero_()


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor of the buffer's bytes read as dtype, as torch.frombuffer, but a copy:
    PyTorch's shares the buffer's memory, ember's does not (yet)."""
    import ctypes

    view = memoryview(buffer).cast("B")
    size = _C.empty(0, dtype=dtype).element_size()
    avail = (len(view) - offset) // size
    n = avail if count < 0 else count
    if offset < 0 or offset > len(view) or n > avail or (count < 0 and avail == 0):
        raise ValueError(
            f"frombuffer: a buffer of {len(view)} bytes has no {n} elements of {size} bytes "
            f"at offset {offset}"
        )
    out = _C.empty(n, dtype=dtype)
    if n:
        ctypes.memmove(out.data_ptr(), bytes(view[offset : offset + n * size]), n * size)
    return out.requires_grad_(requires_grad) if requires_grad else out


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (torch.cuda.OutOfMemoryError): raised when an allocation fails."""


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an error of an accelerator's runtime."""


def get_device(input) -> int:
    return input.get_device()


def init_num_threads() -> None:
    """Nothing to do: ember's thread pool starts on first use."""


def is_distributed(input) -> bool:
    return False


def set_default_tensor_type(t) -> None:
    """The legacy way to set the default floating dtype: ember.FloatTensor / DoubleTensor (or
    their names); CUDA tensor types are refused, since ember makes tensors on the CPU."""
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        prefix, _, name = t.rpartition(".")
        if prefix.endswith("cuda"):
            raise TypeError(f"set_default_tensor_type: {t} needs a CUDA device")
        from ember._legacy import LEGACY_TYPES

        if name not in LEGACY_TYPES:
            raise TypeError(f"invalid type: '{t}'")
        dtype = getattr(_C, LEGACY_TYPES[name])
    else:
        if getattr(t, "_device", "cpu") != "cpu":
            raise TypeError(f"set_default_tensor_type: {t} needs a CUDA device")
        dtype = t.dtype
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(dtype)


def unravel_index(indices, shape):
    """The coordinates in `shape` of flat indices, as a tuple of tensors (one per dim)."""
    if not isinstance(indices, Tensor):
        indices = _C.tensor(indices)
    if indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError("expected 'indices' to be integer dtype, but got " + str(indices.dtype))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = 1
    for d in shape:
        if d < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(shape))
        total *= d
    if indices.numel() and (bool((indices < -total).any()) or bool((indices >= total).any())):
        raise ValueError(f"'indices' must be in range [-{total}, {total} - 1]")
    flat = _C.remainder(indices.long(), max(total, 1))
    out = []
    for d in reversed(shape):
        out.append(_C.remainder(flat, d))
        flat = _C.floor_divide(flat, d)
    return tuple(reversed(out))


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands), eagerly (torch.cond's semantics
    without its graph capture)."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError("cond: the predicate must be a one-element tensor or a bool")
        pred = bool(pred.item())
    return true_fn(*operands) if pred else false_fn(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs body_fn on the carried values while cond_fn holds, eagerly (torch.while_loop)."""
    values = tuple(carried_inputs)
    while True:
        c = cond_fn(*values)
        if not (bool(c.item()) if isinstance(c, Tensor) else bool(c)):
            return values
        out = body_fn(*values)
        values = tuple(out) if isinstance(out, (tuple, list)) else (out,)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """ember.func.vmap."""
    from ember.func import vmap as _vmap

    return _vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


__all__ = [
    "AcceleratorError",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "empty_permuted",
    "get_device_module",
    "to_dlpack",
    "vander",
    "OutOfMemoryError",
    "cond",
    "get_device",
    "init_num_threads",
    "is_distributed",
    "set_default_tensor_type",
    "unravel_index",
    "vmap",
    "while_loop",
    "adjoint", "are_deterministic_algorithms_enabled", "broadcast_shapes", "can_cast",
    "compiled_with_cxx11_abi", "fill", "fill_", "frombuffer", "get_default_device",
    "get_deterministic_debug_mode", "get_float32_matmul_precision", "get_num_interop_threads",
    "is_complex", "is_conj", "is_deterministic_algorithms_warn_only_enabled",
    "is_floating_point", "is_inference", "is_neg", "is_nonzero", "is_same_size", "is_signed",
    "is_storage", "is_warn_always_enabled", "layout", "resolve_conj", "resolve_neg",
    "set_default_device", "set_deterministic_debug_mode", "set_float32_matmul_precision",
    "set_flush_denormal", "set_num_interop_threads", "set_warn_always", "strided", "typename",
    "use_deterministic_algorithms", "zero_",
    "is_vulkan_available",
    "cudnn_is_acceptable",
]  # fmt: skip


# ---- smaller torch-level names ------------------------------------------------------------------


def _torch_range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """The deprecated inclusive range: start, start + step, ... up to end included, in the
    default float dtype."""
    import warnings

    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    n = int((end - start) / step) + 1 if (end - start) / step >= 0 else 0
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    out = _C.arange(n, dtype=_C.float64, device=device) * step + start
    return out.to(dtype).requires_grad_(requires_grad)


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """An uninitialised tensor of `size` whose memory holds its dims in physical_layout's order
    (physical_layout[0] outermost)."""
    physical = [size[d] for d in physical_layout]
    out = _C.empty(physical, dtype=dtype, device=device)
    inverse = [0] * len(physical_layout)
    for i, d in enumerate(physical_layout):
        inverse[d] = i
    return out.permute(*inverse).requires_grad_(requires_grad)


def get_device_module(device=None):
    """The module of a device type: ember.cuda for "cuda", ember.cpu for "cpu" (the current
    accelerator's when device is None)."""
    import ember

    kind = (
        ("cuda" if ember.cuda.is_available() else "cpu")
        if device is None
        else (device.type if isinstance(device, _C.device) else str(device).split(":")[0])
    )
    if kind == "cuda":
        return ember.cuda
    if kind == "cpu":
        return ember.cpu
    raise RuntimeError(
        f"Device '{kind}' does not have a corresponding module registered as 'ember.{kind}'."
    )


def to_dlpack(tensor):
    """A DLPack capsule sharing tensor's memory (torch.utils.dlpack.to_dlpack)."""
    return tensor.__dlpack__()


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-d x: columns x^(N-1), ..., x^0 (increasing: x^0 first)."""
    import ember

    if x.dim() != 1:
        raise RuntimeError("[vander] x must be a one-dimensional tensor.")
    out = ember.linalg.vander(x, N=N)
    return out if increasing else out.flip(-1)


class DisableTorchFunctionSubclass:
    """Context in which Tensor subclasses' __torch_function__ is not consulted: ember's functions
    never consult it, so it changes nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """As DisableTorchFunctionSubclass, for every __torch_function__."""


def _map2_(self, x, y, callable):
    """self[i] = callable(self[i], x[i], y[i]) for CPU tensors of self's shape (broadcast)."""
    xb, yb = x.expand_as(self), y.expand_as(self)
    values = [
        callable(a, b, c)
        for a, b, c in zip(
            self.reshape(-1).tolist(), xb.reshape(-1).tolist(), yb.reshape(-1).tolist()
        )
    ]
    self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _module_load(self, other, assign=False):
    """What Module.load_state_dict stores for this parameter or buffer: other itself with
    assign, else self with other's values copied in (both detached)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _reinforce(self, reward):
    raise RuntimeError(
        "reinforce() was removed.\nUse torch.distributions instead.\nSee "
        "https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = "
        "policy_network(state)\naction = probs.multinomial()\nnext_state, reward = "
        "env.step(action)\naction.reinforce(reward)\naction.backward()\n\nUse:\n\nprobs = "
        "policy_network(state)\n# NOTE: categorical is equivalent to what used to be called "
        "multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\n"
        "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
        "loss.backward()"
    )


def install_more_tensor_methods(namespace) -> None:
    """The smaller Tensor methods and torch-level names above."""
    from ember._tensor import _inplace_from

    T = _C.Tensor
    for name, method in (
        ("map2_", _map2_),
        ("module_load", _module_load),
        ("reinforce", _reinforce),
        ("is_inference", is_inference),
        ("addr_", _inplace_from("addr", namespace.get("addr"))),
        ("put_", _inplace_from("put", namespace.get("put"))),
    ):
        if not hasattr(T, name):
            setattr(T, name, method)
    namespace.setdefault("negative_", T.neg_)
    namespace.setdefault("range", _torch_range)
