"""ember.save / ember.load: checkpoints in the safetensors format.

A tensor, or a nested structure of dicts, lists and tuples holding tensors and plain values (None,
bool, int, float, str, ember.dtype, ember.device, ember.Size, NumPy arrays), is written as one
safetensors file: the tensors under their path names ("optimizer.state.0.exp_avg"; a flat state
dict's tensors under exactly its keys), and the structure with the plain values as JSON in the
header's metadata under "ember.structure". docs/design/serialization.md describes the scheme.
Loading such a file parses JSON and copies bytes: it never runs code.

Any other object (a whole nn.Module, a user's class) is pickled as torch.save does, its tensors
still stored as safetensors entries (the pickle refers to them by name), and the pickle's bytes
kept as a uint8 entry. As in PyTorch 2.6 and later, ember.load refuses to unpickle unless
`weights_only=False` is passed, since unpickling can run arbitrary code, or the classes and
functions the pickle names are allowed (`add_safe_globals`, `safe_globals`, as PyTorch's).
"""

import collections
import ctypes
import errno
import io
import json
import os
import pickle

from ember import _C
from ember._size import Size

__all__ = ["load", "save"]

# The allow-list of torch.serialization.add_safe_globals / safe_globals: classes and functions a
# pickle in a file may name and still load with weights_only=True.
_safe_globals: list = []
# What a module's pickle always names and cannot run code through.
_ALWAYS_SAFE = (collections.OrderedDict,)


def add_safe_globals(safe_globals: list) -> None:
    """Allows these classes and functions in pickles loaded with weights_only=True."""
    _safe_globals.extend(g[0] if isinstance(g, tuple) else g for g in safe_globals)


def get_safe_globals() -> list:
    return list(_safe_globals)


def clear_safe_globals() -> None:
    _safe_globals.clear()


class safe_globals:  # noqa: N801  (PyTorch's name)
    """add_safe_globals for the duration of a with block."""

    def __init__(self, safe_globals: list) -> None:
        self.globals = list(safe_globals)

    def __enter__(self) -> None:
        self.saved = list(_safe_globals)
        add_safe_globals(self.globals)

    def __exit__(self, *exc) -> None:
        _safe_globals[:] = self.saved


_STRUCTURE_KEY = "ember.structure"
_VERSION = 1
_PLAIN_KEY_TYPES = (str, int, float, type(None))  # bool is an int
# NumPy dtypes stored as plain tensors (read back as arrays without unpickling).
_NUMPY_DTYPES = {"float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8"}

_WEIGHTS_ONLY_MESSAGE = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, do "
    "those steps only if you trust the source of the checkpoint.\n\t(1) In PyTorch 2.6, the "
    "default value of the `weights_only` argument of `torch.load` changed from `False` to "
    "`True`; ember.load does the same. Re-running `ember.load` with `weights_only` set to `False` "
    "will likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Save plain data instead: the file holds a pickled {what}, "
    "and ember.load reads tensors, dicts, lists, tuples, plain values and NumPy arrays "
    "without unpickling."
)


def _path_name(path):
    return ".".join(str(p) for p in path) if path else "tensor"


def _where(path):
    return f"'{_path_name(path)}'" if path else "the top level"


class _Flattener:
    """Walks an object: collects (name, tensor) pairs and returns its structure as JSON data."""

    def __init__(self):
        self.items = []
        self.names = set()
        self.by_id = {}  # the same tensor object twice is stored once
        self.active = set()  # ids of the containers being walked, to catch reference cycles
        self.pickles = 0

    def entry(self, t, path, suffix=""):
        """Adds a tensor that is not the user's (a pickle's bytes, an array's data) by name."""
        name = _path_name(path) + suffix
        while name in self.names:
            name += "#"
        self.names.add(name)
        self.items.append((name, t))
        return name

    def pickled(self, obj, path):
        """An object JSON cannot describe: pickled, with its tensors as entries of the file."""
        flat = self

        class Pickler(pickle.Pickler):
            def persistent_id(self, o):
                if isinstance(o, _C.Tensor):
                    return ("ember.tensor", flat.tensor(o, (*path, f"pickled{flat.pickles}")))
                return None

        buf = io.BytesIO()
        try:
            Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            raise TypeError(
                f"ember.save: cannot save the {type(obj).__name__} at {_where(path)}: {e}"
            ) from e
        self.pickles += 1
        raw = buf.getvalue()
        data = _C.empty([len(raw)], dtype=_C.uint8)
        ctypes.memmove(data.data_ptr(), raw, len(raw))
        return {"pickle": self.entry(data, path, ".__pickle__")}

    def ndarray(self, a, path):
        import numpy as np

        dtype = a.dtype.name
        if a.dtype == np.bool_ or dtype in _NUMPY_DTYPES:
            return {"ndarray": self.entry(_C.from_numpy(np.ascontiguousarray(a)).clone(), path)}
        return self.pickled(a, path)

    def tensor(self, t, path):
        name = self.by_id.get(id(t))
        if name is None:
            name = _path_name(path)
            if name in self.names:  # "a.b" as a key and as a nested path
                i = 1
                while f"{name}#{i}" in self.names:
                    i += 1
                name = f"{name}#{i}"
            self.names.add(name)
            self.by_id[id(t)] = name
            self.items.append((name, t))
        node = {"tensor": name}
        if t.requires_grad:
            node["requires_grad"] = True
        parameter = getattr(_nn(), "Parameter", None)
        if parameter is not None and isinstance(t, parameter):
            node["parameter"] = True
        return node

    def node(self, obj, path):
        if isinstance(obj, _C.Tensor):
            return self.tensor(obj, path)
        if obj is None or isinstance(obj, bool):
            return obj
        if isinstance(obj, (int, float, str)):
            # Subclasses (IntEnum, numpy.float64) are stored as the plain type.
            return (
                int(obj)
                if isinstance(obj, int)
                else float(obj)
                if isinstance(obj, float)
                else str(obj)
            )
        if isinstance(obj, _C.dtype):
            return {"dtype": str(obj).removeprefix("ember.")}
        if isinstance(obj, _C.device):
            return {"device": str(obj)}
        if isinstance(obj, Size):
            return {"size": [int(d) for d in obj]}
        if isinstance(obj, (dict, list, tuple)):
            if id(obj) in self.active:
                raise ValueError(f"ember.save: the object at {_where(path)} contains itself")
            self.active.add(id(obj))
            try:
                if isinstance(obj, dict):
                    if not all(isinstance(k, _PLAIN_KEY_TYPES) for k in obj):
                        return self.pickled(obj, path)  # keys JSON cannot hold (tuples, ...)
                    tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
                    entries = [[self.node(k, ()), self.node(v, (*path, k))] for k, v in obj.items()]
                    return {tag: entries}
                tag = "list" if isinstance(obj, list) else "tuple"
                return {tag: [self.node(v, (*path, i)) for i, v in enumerate(obj)]}
            finally:
                self.active.discard(id(obj))
        if type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray":
            return self.ndarray(obj, path)
        return self.pickled(obj, path)


def save(
    obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True, **kwargs
):
    """Saves `obj` to the file `f` (a path, or a binary file object) in the safetensors format.

    `obj` is a tensor or a nested dict / list / tuple of tensors and plain values; any other object
    in it is pickled (Python's pickle, as torch.save; the pickle arguments are ignored) and needs
    `weights_only=False` to load. A path is written atomically (a temporary file renamed over it).
    """
    flat = _Flattener()
    structure = {"version": _VERSION, "root": flat.node(obj, ())}
    # "format": "pt" is what safetensors.torch writes; tools such as transformers check it.
    metadata = {"format": "pt", _STRUCTURE_KEY: json.dumps(structure, separators=(",", ":"))}
    if hasattr(f, "write"):
        f.write(_C._io.to_bytes(flat.items, metadata))
        return
    if not isinstance(f, (str, bytes, os.PathLike)):
        raise TypeError(
            f"ember.save: f must be a path or a binary file object, got {type(f).__name__}"
        )
    _C._io.save(flat.items, os.fsdecode(f), metadata)


class _Rebuilder:
    def __init__(self, tensors, source, weights_only):
        self.tensors = tensors
        self.source = source
        self.weights_only = weights_only
        self.made = {}  # name -> the rebuilt tensor, so shared entries stay one object

    def entry(self, name):
        t = self.tensors.get(name) if isinstance(name, str) else None
        if t is None:
            self.fail(f"the structure refers to tensor '{name}', which the file does not hold")
        return t

    def unpickle(self, name):
        data = self.entry(name)
        if data.dtype != _C.uint8 or data.dim() != 1:
            self.fail(f"the pickle entry '{name}' is not a 1-d uint8 tensor")
        raw = ctypes.string_at(data.data_ptr(), data.numel()) if data.numel() else b""
        if self.weights_only and not _safe_globals:
            what = _pickled_class(raw)
            raise pickle.UnpicklingError(_WEIGHTS_ONLY_MESSAGE.format(what=what))
        rebuilder = self
        restricted = self.weights_only

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                found = super().find_class(module, name)
                if restricted and not any(found is g for g in (*_safe_globals, *_ALWAYS_SAFE)):
                    raise pickle.UnpicklingError(
                        f"Weights only load failed: the file names {module}.{name}, which is "
                        "not an allowed global. Allow it with ember.serialization.safe_globals"
                        f"([{name}]) or add_safe_globals, if you trust the file, or load with "
                        "weights_only=False."
                    )
                return found

            def persistent_load(self, pid):
                if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "ember.tensor"):
                    rebuilder.fail(f"an unknown persistent id in a pickle: {pid!r:.80}")
                return rebuilder.tensor(pid[1])

        return Unpickler(io.BytesIO(raw)).load()

    def fail(self, problem):
        raise RuntimeError(f"[ember.load] {self.source}: {problem}")

    def node(self, n):
        if n is None or isinstance(n, (bool, int, float, str)):
            return n
        if isinstance(n, dict) and len(n) >= 1:
            if "tensor" in n:
                return self.tensor(n)
            if len(n) == 1:
                ((tag, value),) = n.items()
                if tag in ("dict", "odict") and isinstance(value, list):
                    out = {} if tag == "dict" else collections.OrderedDict()
                    for entry in value:
                        if not (isinstance(entry, list) and len(entry) == 2):
                            self.fail(f"a malformed dict entry in the structure: {entry!r:.80}")
                        key = entry[0]
                        if not isinstance(key, _PLAIN_KEY_TYPES):
                            self.fail(f"a malformed dict key in the structure: {key!r:.80}")
                        out[key] = self.node(entry[1])
                    return out
                if tag in ("list", "tuple") and isinstance(value, list):
                    items = [self.node(v) for v in value]
                    return items if tag == "list" else tuple(items)
                if tag == "dtype" and isinstance(value, str):
                    dtype = getattr(_C, value, None)
                    if not isinstance(dtype, _C.dtype):
                        self.fail(f"unknown dtype '{value}' in the structure")
                    return dtype
                if tag == "device" and isinstance(value, str):
                    return _C.device(value)
                if tag == "size" and isinstance(value, list) and all(type(d) is int for d in value):
                    return Size(value)
                if tag == "ndarray":
                    return self.entry(value).numpy()
                if tag == "pickle":
                    return self.unpickle(value)
        self.fail(f"a malformed node in the structure: {n!r:.80}")

    def tensor(self, n):
        name = n["tensor"]
        if not isinstance(name, str) or not set(n) <= {"tensor", "requires_grad", "parameter"}:
            self.fail(f"a malformed tensor node in the structure: {n!r:.80}")
        if name in self.made:
            return self.made[name]
        t = self.entry(name)
        parameter = getattr(_nn(), "Parameter", None) if n.get("parameter") else None
        if parameter is not None:
            t = parameter(t, requires_grad=bool(n.get("requires_grad")))
        elif n.get("requires_grad"):
            t.requires_grad_(True)
        self.made[name] = t
        return t


def _pickled_class(raw):
    """The class a pickle builds at its top ("nn.Sequential"), read without unpickling."""
    import pickletools

    try:
        for op, arg, _ in pickletools.genops(raw):
            if op.name in ("GLOBAL", "STACK_GLOBAL", "SHORT_BINUNICODE", "BINUNICODE"):
                if op.name == "GLOBAL":
                    return str(arg).replace(" ", ".")
                if isinstance(arg, str) and "." not in arg and arg[:1].isupper():
                    return arg
    except Exception:
        pass
    return "object"


def _nn():
    import ember.nn  # not at import time: ember.nn imports this package's parent

    return ember.nn


def _map_tensors(tensors, map_location):
    if map_location is None:
        return tensors
    out = {}
    for name, t in tensors.items():
        if callable(map_location):
            moved = map_location(t, "cpu")
            out[name] = t if moved is None else moved
        elif isinstance(map_location, dict):
            target = map_location.get("cpu")
            out[name] = t if target is None else t.to(target)
        else:
            out[name] = t.to(map_location)
    return out


def _explain_foreign_format(head, source, error):
    """Called when a file failed to parse: if it starts as PyTorch's own checkpoints do (a zip
    archive since torch 1.6, a pickle before), says so. Only after a failure, since a valid
    safetensors file may start with the same bytes (its header length is little-endian)."""
    if head[:4] == b"PK\x03\x04":
        kind = "a zip archive (torch.save's format)"
    elif head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        kind = "a pickle (the legacy torch.save format)"
    else:
        return
    raise RuntimeError(
        f"[ember.load] {source}: this is {kind}, not safetensors; ember.load does not read "
        "PyTorch's format. "
        "Convert it once with PyTorch, e.g. for a state dict: "
        "safetensors.torch.save_file(torch.load(path), 'model.safetensors')"
    ) from error


def load(
    f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args
):
    """Loads what ember.save wrote, or any safetensors file (a dict name -> tensor in file order).

    `f` is a path or a binary file object. Tensors are read onto the CPU, then moved as
    `map_location` says (a device, a string such as "cpu", a dict {"cpu": device}, or a callable
    (tensor, "cpu") -> tensor). A file that holds pickled objects (ember.save of a module or any
    other object) loads only with `weights_only=False`, as in PyTorch 2.6+: otherwise a
    pickle.UnpicklingError says so. A missing file is a FileNotFoundError, a corrupt one a
    RuntimeError that names the file and the problem.
    """
    if hasattr(f, "read"):
        source = str(getattr(f, "name", "<file object>"))
        data = bytes(f.read())
        try:
            items, metadata = _C._io.from_bytes(data, source)
        except RuntimeError as e:
            _explain_foreign_format(data[:8], source, e)
            raise
    else:
        if not isinstance(f, (str, bytes, os.PathLike)):
            raise TypeError(
                f"ember.load: f must be a path or a binary file object, got {type(f).__name__}"
            )
        source = os.fsdecode(f)
        os.stat(source)  # FileNotFoundError / PermissionError, as open() raises them in torch.load
        if os.path.isdir(source):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), source)
        try:
            items, metadata = _C._io.load(source)
        except RuntimeError as e:
            with open(source, "rb") as head:
                _explain_foreign_format(head.read(8), source, e)
            raise
    if weights_only is None:  # PyTorch's default, True since 2.6
        weights_only = True
    tensors = _map_tensors(dict(items), map_location)
    text = metadata.get(_STRUCTURE_KEY)
    if text is None:  # a file from another tool: its tensors, in file order
        return tensors
    try:
        structure = json.loads(text)
    except ValueError as e:
        raise RuntimeError(
            f"[ember.load] {source}: the {_STRUCTURE_KEY} metadata is not valid JSON: {e}"
        ) from None
    if not (
        isinstance(structure, dict) and structure.get("version") == _VERSION and "root" in structure
    ):
        raise RuntimeError(
            f"[ember.load] {source}: the {_STRUCTURE_KEY} metadata is not a structure of "
            f"version {_VERSION}"
        )
    return _Rebuilder(tensors, source, weights_only).node(structure["root"])
