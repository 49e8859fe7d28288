"""ember.save / ember.load: checkpoints in the safetensors format (no pickle).

A tensor, or a nested structure of dicts, lists and tuples holding tensors and plain values (None,
bool, int, float, str, ember.dtype, ember.device, ember.Size), is written as one safetensors file:
the tensors under their path names ("optimizer.state.0.exp_avg"; a flat state dict's tensors under
exactly its keys), and the structure with the plain values as JSON in the header's metadata under
"ember.structure". docs/design/serialization.md describes the scheme. Loading parses JSON and
copies bytes: it never runs code, whatever `weights_only` says.
"""

import collections
import errno
import json
import os

from ember import _C
from ember._size import Size

__all__ = ["load", "save"]

_STRUCTURE_KEY = "ember.structure"
_VERSION = 1
_PLAIN_KEY_TYPES = (str, int, float, type(None))  # bool is an int


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
                    tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
                    entries = []
                    for k, v in obj.items():
                        if not isinstance(k, _PLAIN_KEY_TYPES):
                            raise TypeError(
                                f"ember.save: dict keys must be str, int, float, bool or None, "
                                f"got {type(k).__name__} at {_where(path)}"
                            )
                        entries.append([self.node(k, ()), self.node(v, (*path, k))])
                    return {tag: entries}
                tag = "list" if isinstance(obj, list) else "tuple"
                return {tag: [self.node(v, (*path, i)) for i, v in enumerate(obj)]}
            finally:
                self.active.discard(id(obj))
        hint = " (save its state_dict() instead)" if hasattr(obj, "state_dict") else ""
        raise TypeError(
            f"ember.save: cannot save an object of type {type(obj).__name__} at {_where(path)}"
            f"{hint}; supported: tensors, dict, list, tuple, None, bool, int, float, str, "
            f"ember.dtype, ember.device, ember.Size"
        )


def save(
    obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True, **kwargs
):
    """Saves `obj` to the file `f` (a path, or a binary file object) in the safetensors format.

    `obj` is a tensor or a nested dict / list / tuple of tensors and plain values. A path is written
    atomically (a temporary file renamed over it). The pickle arguments of torch.save are accepted
    and ignored.
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
    def __init__(self, tensors, source):
        self.tensors = tensors
        self.source = source
        self.made = {}  # name -> the rebuilt tensor, so shared entries stay one object

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
        self.fail(f"a malformed node in the structure: {n!r:.80}")

    def tensor(self, n):
        name = n["tensor"]
        if not isinstance(name, str) or not set(n) <= {"tensor", "requires_grad", "parameter"}:
            self.fail(f"a malformed tensor node in the structure: {n!r:.80}")
        if name in self.made:
            return self.made[name]
        t = self.tensors.get(name)
        if t is None:
            self.fail(f"the structure refers to tensor '{name}', which the file does not hold")
        parameter = getattr(_nn(), "Parameter", None) if n.get("parameter") else None
        if parameter is not None:
            t = parameter(t, requires_grad=bool(n.get("requires_grad")))
        elif n.get("requires_grad"):
            t.requires_grad_(True)
        self.made[name] = t
        return t


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
        f"[ember.load] {source}: this is {kind}, not safetensors; ember.load never unpickles. "
        "Convert it once with PyTorch, e.g. for a state dict: "
        "safetensors.torch.save_file(torch.load(path), 'model.safetensors')"
    ) from error


def load(
    f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args
):
    """Loads what ember.save wrote, or any safetensors file (a dict name -> tensor in file order).

    `f` is a path or a binary file object. Tensors are read onto the CPU, then moved as
    `map_location` says (a device, a string such as "cpu", a dict {"cpu": device}, or a callable
    (tensor, "cpu") -> tensor). Nothing in a file is executed, so `weights_only` and the pickle
    arguments of torch.load change nothing. A missing file is a FileNotFoundError, a corrupt one a
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
    return _Rebuilder(tensors, source).node(structure["root"])
