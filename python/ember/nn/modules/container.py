"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict, with
PyTorch's methods, numbering and reprs."""

import operator
from collections import OrderedDict
from collections import abc as container_abcs
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

from ember import _C
from ember.nn.modules.module import Module, _addindent, _typename
from ember.nn.parameter import Parameter

Tensor = _C.Tensor

__all__ = [
    "Container",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "Sequential",
]


class Sequential(Module):
    """Modules called in order, each on the previous one's output, as torch.nn.Sequential.

    Sequential(m0, m1, ...) names the children '0', '1', ...; Sequential(OrderedDict(...))
    keeps the given names.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Iterable, idx: int) -> Any:
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        # Renumber, so that the names stay 0..n-1.
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: Any) -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: Any) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def __imul__(self, other: Any) -> "Sequential":
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        len_original = len(self)
        offset = len(self)
        for _ in range(other - 1):
            for i in range(len_original):
                self.add_module(str(i + offset), self._modules[str(i)])
            offset += len_original
        return self

    def pop(self, key: Any) -> Any:
        v = self[key]
        del self[key]
        return v

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input

    def append(self, module: Module) -> "Sequential":
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(Module):
    """A list of submodules, registered as children '0', '1', ... (no forward of its own)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx: Any) -> str:
        idx = operator.index(idx)
        if not (-len(self) <= idx < len(self)):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        # Runs of identical children print once, as "(0-2): 3 x Linear(...)" (PyTorch 2).
        list_of_reprs = [repr(item) for item in self]
        if not list_of_reprs:
            return self._get_name() + "()"
        start_end_indices = [[0, 0]]
        repeated_blocks = [list_of_reprs[0]]
        for i, r in enumerate(list_of_reprs[1:], 1):
            if r == repeated_blocks[-1]:
                start_end_indices[-1][1] += 1
                continue
            start_end_indices.append([i, i])
            repeated_blocks.append(r)
        lines = []
        for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
            local_repr = f"({start_id}): {b}"
            if start_id != end_id:
                n = end_id - start_id + 1
                local_repr = f"({start_id}-{end_id}): {n} x {b}"
            lines.append(_addindent(local_repr, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: Any) -> Any:
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of submodules, registered as children under their keys."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but "
                "got " + type(modules).__name__
            )
        if isinstance(modules, (OrderedDict, ModuleDict, container_abcs.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if not isinstance(m, container_abcs.Iterable):
                    raise TypeError(
                        "ModuleDict update sequence element #"
                        + str(j)
                        + " should be Iterable; is"
                        + type(m).__name__
                    )
                if not len(m) == 2:
                    raise ValueError(
                        "ModuleDict update sequence element #"
                        + str(j)
                        + " has length "
                        + str(len(m))
                        + "; 2 is required"
                    )
                self[m[0]] = m[1]


def _parameter_line(key: Any, p: Any, type_name: bool) -> str:
    # PyTorch prints the dtype in ParameterList ("torch.float32") but the tensor type name in
    # ParameterDict ("torch.FloatTensor"); both are kept.
    if isinstance(p, Tensor):
        size_str = "x".join(str(size) for size in p.size())
        device_str = f" ({p.device})" if p.device.type != "cpu" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        kind_of = _typename(p) if type_name else str(p.dtype)
        return f"  ({key}): {kind} containing: [{kind_of} of size {size_str}{device_str}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters, registered as '0', '1', ...; plain tensors are wrapped in
    Parameter when added, other objects are kept as they are."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx: Any) -> str:
        idx = operator.index(idx)
        if not (-len(self) <= idx < len(self)):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        # Every way of adding an entry ends here, so this is where tensors become Parameters.
        key = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> "ParameterList":
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        # A Tensor is iterable, but is never unpacked here.
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, False) for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters under string keys; plain tensors are wrapped in
    Parameter when added."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        attr = self._key_to_attr(key)
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key: Any) -> bool:
        return key in self._keys

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        k, _ = self._keys.popitem()
        # Put the key back so that del self[k] can remove it with its attribute.
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401  (this is get itself)

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> "ParameterDict":
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, container_abcs.Mapping):
            # PyTorch sorts the keys of an unordered mapping.
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, container_abcs.Iterable):
                    raise TypeError(
                        "ParameterDict update sequence element #"
                        + str(j)
                        + " should be Iterable; is"
                        + type(p).__name__
                    )
                if not len(p) == 2:
                    raise ValueError(
                        "ParameterDict update sequence element #"
                        + str(j)
                        + " has length "
                        + str(len(p))
                        + "; 2 is required"
                    )
                self[p[0]] = p[1]

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, True) for k, p in self.items())

    def __call__(self, input: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: "ParameterDict") -> "ParameterDict":
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: "ParameterDict") -> "ParameterDict":
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: "ParameterDict") -> "ParameterDict":
        self.update(other)
        return self


class Container(Module):
    """PyTorch's deprecated container: a Module with the keyword arguments as submodules."""

    def __init__(self, **kwargs) -> None:
        import warnings

        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
