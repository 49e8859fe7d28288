"""torch.return_types: the named-tuple types of functions with several results (sort, topk,
linalg_qr, ...), by PyTorch's names. Each is the type that ember's function returns."""

from ember import _C

_la = _C._linalg


def _collect():
    types = {}
    for holder in (_C, _la):
        for name in dir(holder):
            if (
                name.startswith("_")
                and name.endswith("_type")
                and isinstance(getattr(holder, name), type)
            ):
                types[name[1:-5]] = getattr(holder, name)
    return types


globals().update(_collect())

from ember._composites.linalg_factor import LstsqResult as linalg_lstsq  # noqa: E402, F401
from ember._composites.statistics import _Histogram as histogram  # noqa: E402, F401
from ember._composites.statistics import _HistogramDD as histogramdd  # noqa: E402, F401
from ember._composites.statistics import _Mode as mode  # noqa: E402, F401
from ember._linalg_torch import _slogdet_t as slogdet  # noqa: E402, F401
from ember._linalg_torch import _svd_t as svd  # noqa: E402, F401
from ember._linalg_torch import _triangular_solve_t as triangular_solve  # noqa: E402, F401
