"""default_collate and default_convert: samples to batches, with PyTorch's rules.

Tensors are stacked, Python floats become float64 tensors and ints int64 (bools bool), NumPy
arrays and scalars become tensors, strings stay lists, and mappings, namedtuples and sequences
are collated field by field. NumPy is never imported here: a NumPy object is recognised by its
type's module and converted through the buffer protocol."""

import collections.abc
import copy
import re

import ember

__all__ = ["default_collate", "default_convert"]

# NumPy dtypes that cannot become tensors: strings, bytes, objects.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")

_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_numpy(obj):
    t = type(obj)
    return t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_")


def _numpy_to_tensor(obj):
    # ember.tensor copies through DLPack / the buffer protocol; a NumPy scalar is a 0-d buffer.
    return ember.tensor(obj)


def default_convert(data):
    """Converts NumPy arrays and scalars inside `data` to tensors, keeping the structure; what
    DataLoader applies to samples when automatic batching is off (batch_size=None)."""
    elem_type = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if _is_numpy(data):
        if (
            elem_type.__name__ in ("ndarray", "memmap")
            and _np_str_obj_array_pattern.search(data.dtype.str) is not None
        ):
            return data
        return _numpy_to_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Merges a list of samples into a batch: see the module docstring for the rules. Raises
    TypeError for element types it does not know, RuntimeError for sequences of unequal length."""
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, ember.Tensor):
        return ember.stack(list(batch), 0)
    if _is_numpy(elem):
        if elem_type.__name__ in ("ndarray", "memmap"):
            if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(_collate_err_msg_format.format(elem.dtype))
            return ember.stack([_numpy_to_tensor(b) for b in batch], 0)
        if elem.shape == ():  # NumPy scalar: a 1-d tensor of its dtype
            return ember.stack([_numpy_to_tensor(b) for b in batch], 0)
        raise TypeError(_collate_err_msg_format.format(elem_type))
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):  # bools too: a bool tensor, as PyTorch
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: default_collate([d[key] for d in batch]) for key in elem})
                return clone
            return elem_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            # A list, not a tuple, as PyTorch (backwards compatibility there).
            return [default_collate(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = default_collate(samples)
                return clone
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(_collate_err_msg_format.format(elem_type))
