"""Sort composites: msort and isin."""

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import ALL, NUMERIC


@composite("sort", NUMERIC, method=True)
def msort(input):
    """input sorted along its first dimension."""
    return _C.sort(input, 0)[0]


@composite("sort", ALL, differentiable=False)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (False with invert)."""
    if not isinstance(elements, _C.Tensor):
        elements = _C.tensor(elements)
    if not isinstance(test_elements, _C.Tensor):
        test_elements = _C.tensor(test_elements)
    if elements.dtype == _C.bool or test_elements.dtype == _C.bool:  # searchsorted has no bool
        elements, test_elements = elements.to(_C.uint8), test_elements.to(_C.uint8)
    flat = test_elements.reshape(-1)
    if flat.numel() == 0:
        found = _C.zeros_like(elements, dtype=_C.bool)
    else:
        values = _C.sort(flat)[0]
        pos = _C.searchsorted(values, elements.contiguous()).clamp(max=flat.numel() - 1)
        found = values[pos] == elements
    return ~found if invert else found
