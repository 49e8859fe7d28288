"""The dtype lists the composites declare, as the C++ registry's kAllTypes & co."""

from ember import _C

FLOATING = [_C.float16, _C.bfloat16, _C.float32, _C.float64]
INTEGRAL = [_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64]
NUMERIC = INTEGRAL + FLOATING
ALL = [_C.bool] + NUMERIC
FLOAT32_64 = [_C.float32, _C.float64]
COMPLEX = [_C.complex64, _C.complex128]
