"""ember.special: torch.special's functions. The gamma family (gammaln, digamma / psi,
polygamma, multigammaln, gammainc / gammaincc), the Bessel functions i0 / i0e / i1 / i1e, zeta,
and nextafter's neighbours are C++ kernels (core/math.h, docs/design/special.md); the rest are the
elementwise ops and composites they name (ndtr, log_ndtr, erfcx, entr, xlog1py, the orthogonal
polynomials, the Bessel functions of the first and second kind (bessel_j0/j1/y0/y1),
modified_bessel_k0/k1 and their scaled forms, airy_ai, ...)."""

import ember as _ember
from ember import _C
from ember._composite import FUNCTIONS as _FUNCTIONS

Tensor = _C.Tensor

erf = _ember.erf
erfc = _ember.erfc
erfinv = _ember.erfinv
expit = _ember.sigmoid
logit = _ember.logit
exp2 = _ember.exp2
expm1 = _ember.expm1
log1p = _ember.log1p
round = _ember.round  # noqa: A001
sinc = _ember.sinc
xlogy = _ember.xlogy
logsumexp = _ember.logsumexp
gammaln = _ember.lgamma
digamma = _ember.digamma
psi = _ember.digamma
i0 = _ember.i0
modified_bessel_i0 = _ember.i0
i0e = _C.special_i0e
i1 = _C.special_i1
modified_bessel_i1 = _C.special_i1
i1e = _C.special_i1e
gammainc = _ember.igamma
gammaincc = _ember.igammac
zeta = _C.special_zeta
multigammaln = _ember.mvlgamma


def polygamma(n, input):
    """torch.polygamma(n, input), also ember.polygamma: the n-th derivative of digamma (n >= 0).
    (The kernel's own argument order is the method's, input.polygamma(n).)"""
    return _C.polygamma(input, n)


softmax = _ember.softmax
log_softmax = _ember.log_softmax


globals().update(
    {name.split(".", 1)[1]: fn for name, fn in _FUNCTIONS.items() if name.startswith("special.")}
)
