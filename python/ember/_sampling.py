"""The reparameterised gamma sampler (torch._standard_gamma): the C++ rejection sampler
(ember._C._sample_gamma, PyTorch's algorithm) with the implicit reparameterisation gradient."""

from __future__ import annotations

import ember

__all__ = ["_standard_gamma", "_standard_gamma_grad"]


class _StandardGamma(ember.autograd.Function):
    """Gamma(alpha, 1) draws with the implicit reparameterisation gradient
    dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha), P the regularised lower incomplete gamma
    function: exact up to the central difference of P in alpha (relative step 1e-4, about 1e-8
    relative error in float64)."""

    @staticmethod
    def forward(ctx, alpha):
        x = ember._C._sample_gamma(alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, x)


def _standard_gamma_grad(alpha, x):
    a, v = alpha.double(), x.double()
    h = 1e-4 * a
    dP = (ember.special.gammainc(a + h, v) - ember.special.gammainc(a - h, v)) / (2 * h)
    log_pdf = (a - 1) * v.log() - v - ember.lgamma(a)
    pdf = log_pdf.exp()
    g = ember.where(pdf > 0, -dP / pdf, ember.zeros_like(pdf))
    return g.to(alpha.dtype)


def _standard_gamma(concentration):
    """ember._standard_gamma (torch._standard_gamma): Gamma(concentration, 1) draws,
    differentiable in the concentration."""
    return _StandardGamma.apply(concentration)
