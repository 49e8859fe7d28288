"""torch.nn.common_types: the type aliases of nn's annotations (sizes as an int or a tuple)."""

from typing import Optional, TypeVar, Union

from ember import _C

T = TypeVar("T")
_scalar_or_tuple_any_t = Union[T, tuple[T, ...]]
_scalar_or_tuple_1_t = Union[T, tuple[T]]
_scalar_or_tuple_2_t = Union[T, tuple[T, T]]
_scalar_or_tuple_3_t = Union[T, tuple[T, T, T]]
_size_any_t = _scalar_or_tuple_any_t[int]
_size_1_t = _scalar_or_tuple_1_t[int]
_size_2_t = _scalar_or_tuple_2_t[int]
_size_3_t = _scalar_or_tuple_3_t[int]
_ratio_any_t = _scalar_or_tuple_any_t[float]
_tensor_list_t = _scalar_or_tuple_any_t[_C.Tensor]
_maybe_indices_t = _scalar_or_tuple_2_t[_C.Tensor]
_size_2_opt_t = _scalar_or_tuple_2_t[Optional[int]]
