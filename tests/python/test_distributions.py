"""ember.distributions against SciPy in float64: log_prob, cdf, icdf, entropy and moments;
samples' moments and a Kolmogorov-Smirnov statistic at a fixed seed; reparameterised gradients
against finite differences; kl_divergence against Monte Carlo; transforms' inverses and
Jacobians; argument validation (test_distributions_torch.py compares with PyTorch itself)."""

import math

import numpy as np
import pytest
from scipy import stats

import ember
import ember.distributions as D
from ember.distributions import constraints, transforms

F64 = ember.float64


def t(x):
    return ember.tensor(np.asarray(x, dtype=np.float64))


# (ember distribution, scipy frozen distribution, points inside the support)
CONTINUOUS = {
    "Normal": (lambda: D.Normal(t([0.5, -1.0]), t([1.5, 0.3])),
               stats.norm([0.5, -1.0], [1.5, 0.3]), [0.2, -0.7]),
    "Uniform": (lambda: D.Uniform(t([0.0, -2.0]), t([1.0, 3.0])),
                stats.uniform([0.0, -2.0], [1.0, 5.0]), [0.3, 1.0]),
    "Exponential": (lambda: D.Exponential(t([0.5, 2.0])),
                    stats.expon(scale=[2.0, 0.5]), [0.7, 0.1]),
    "Laplace": (lambda: D.Laplace(t([0.0, 1.0]), t([1.0, 0.5])),
                stats.laplace([0.0, 1.0], [1.0, 0.5]), [-0.4, 1.3]),
    "Cauchy": (lambda: D.Cauchy(t([0.0, 1.0]), t([1.0, 2.0])),
               stats.cauchy([0.0, 1.0], [1.0, 2.0]), [0.3, -2.0]),
    "HalfNormal": (lambda: D.HalfNormal(t([1.0, 2.5])),
                   stats.halfnorm(scale=[1.0, 2.5]), [0.4, 3.0]),
    "HalfCauchy": (lambda: D.HalfCauchy(t([1.0, 0.5])),
                   stats.halfcauchy(scale=[1.0, 0.5]), [0.4, 3.0]),
    "LogNormal": (lambda: D.LogNormal(t([0.0, 0.5]), t([1.0, 0.25])),
                  stats.lognorm(s=[1.0, 0.25], scale=np.exp([0.0, 0.5])), [0.8, 1.7]),
    "Gumbel": (lambda: D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])),
               stats.gumbel_r([0.0, 1.0], [1.0, 2.0]), [0.5, -1.0]),
    "Weibull": (lambda: D.Weibull(t([1.0, 2.0]), t([1.5, 0.7])),
                stats.weibull_min([1.5, 0.7], scale=[1.0, 2.0]), [0.6, 2.2]),
    "Pareto": (lambda: D.Pareto(t([1.0, 2.0]), t([3.0, 1.5])),
               stats.pareto([3.0, 1.5], scale=[1.0, 2.0]), [1.4, 5.0]),
    "Gamma": (lambda: D.Gamma(t([0.4, 3.0]), t([1.0, 2.0])),
              stats.gamma([0.4, 3.0], scale=[1.0, 0.5]), [0.3, 1.1]),
    "Chi2": (lambda: D.Chi2(t([1.5, 4.0])), stats.chi2([1.5, 4.0]), [0.7, 3.3]),
    "Beta": (lambda: D.Beta(t([0.5, 2.0]), t([1.5, 3.0])),
             stats.beta([0.5, 2.0], [1.5, 3.0]), [0.2, 0.6]),
    "StudentT": (lambda: D.StudentT(t([3.0, 7.0]), t([0.5, -1.0]), t([1.0, 2.0])),
                 stats.t([3.0, 7.0], [0.5, -1.0], [1.0, 2.0]), [0.1, 1.5]),
    "FisherSnedecor": (lambda: D.FisherSnedecor(t([3.0, 7.0]), t([5.0, 12.0])),
                       stats.f([3.0, 7.0], [5.0, 12.0]), [0.6, 1.4]),
    "InverseGamma": (lambda: D.InverseGamma(t([3.0, 4.5]), t([1.0, 2.0])),
                     stats.invgamma([3.0, 4.5], scale=[1.0, 2.0]), [0.4, 0.9]),
    "GeneralizedPareto": (
        lambda: D.GeneralizedPareto(t([0.5, -1.0]), t([1.5, 0.7]), t([0.2, -0.3])),
        stats.genpareto([0.2, -0.3], [0.5, -1.0], [1.5, 0.7]), [1.2, -0.5]),
    "VonMises": (lambda: D.VonMises(t([0.5, -2.0]), t([0.3, 4.0])),
                 stats.vonmises([0.3, 4.0], loc=[0.5, -2.0]), [0.1, -1.5]),
}  # fmt: skip
NO_CDF = {"Gumbel", "Weibull", "Pareto", "Chi2", "Beta", "StudentT", "FisherSnedecor",
          "InverseGamma", "VonMises"}  # fmt: skip


@pytest.mark.parametrize("name", CONTINUOUS)
def test_continuous_match_scipy(name):
    make, ref, points = CONTINUOUS[name]
    d = make()
    x = t(points)
    np.testing.assert_allclose(d.log_prob(x).numpy(), ref.logpdf(points), rtol=1e-10, atol=1e-12)
    if name not in NO_CDF:  # no closed-form cdf through the transforms
        np.testing.assert_allclose(d.cdf(x).numpy(), ref.cdf(points), rtol=1e-10, atol=1e-12)
    q = t([0.3, 0.8])
    if name not in NO_CDF | {"Gamma"}:
        np.testing.assert_allclose(d.icdf(q).numpy(), ref.ppf([0.3, 0.8]), rtol=1e-9)
    if name not in ("FisherSnedecor", "VonMises"):  # no entropy in PyTorch either
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-9, atol=1e-12)
    if name == "VonMises":  # PyTorch's variance is the circular one, 1 - I1(k) / I0(k)
        from scipy import special

        k = np.array([0.3, 4.0])
        np.testing.assert_allclose(d.variance.numpy(), 1 - special.i1(k) / special.i0(k))
    elif name not in ("Cauchy", "HalfCauchy"):  # no moments
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)


@pytest.mark.parametrize("name", CONTINUOUS)
def test_samples_follow_the_distribution(name):
    """20,000 draws per distribution: Kolmogorov-Smirnov against SciPy's cdf at a fixed seed
    (p above 1e-3: a correct sampler fails one run in a thousand; the seed is fixed)."""
    make, ref, _ = CONTINUOUS[name]
    ember.manual_seed(1234)
    s = make().sample((20000,)).numpy()
    assert s.shape == (20000, 2)
    if name == "VonMises":  # draws in [-pi, pi); SciPy's support is [loc - pi, loc + pi)
        loc = np.array([0.5, -2.0])
        s = (s - loc + np.pi) % (2 * np.pi) - np.pi + loc
    for j in range(2):
        cdf = lambda v, j=j: ref.cdf(np.stack([v, v], -1))[..., j]  # noqa: E731
        assert stats.kstest(s[:, j], cdf).pvalue > 1e-3, (name, j)


DISCRETE = {
    "Bernoulli": (lambda: D.Bernoulli(t([0.3, 0.9])), stats.bernoulli([0.3, 0.9]), [1.0, 0.0]),
    "Geometric": (lambda: D.Geometric(t([0.3, 0.6])), stats.geom([0.3, 0.6], loc=-1), [2.0, 0.0]),
    # Rates and counts on both sides of the samplers' switch (Poisson rate 10, n min(p, 1-p) 10).
    "Poisson": (lambda: D.Poisson(t([3.5, 40.0])), stats.poisson([3.5, 40.0]), [2.0, 37.0]),
    "Binomial": (lambda: D.Binomial(t([8.0, 100.0]), t([0.3, 0.65])),
                 stats.binom([8, 100], [0.3, 0.65]), [3.0, 61.0]),
    "NegativeBinomial": (lambda: D.NegativeBinomial(t([3.0, 5.5]), t([0.4, 0.7])),
                         stats.nbinom([3.0, 5.5], [0.6, 0.3]), [2.0, 9.0]),
}  # fmt: skip


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_match_scipy(name):
    make, ref, points = DISCRETE[name]
    d = make()
    np.testing.assert_allclose(d.log_prob(t(points)).numpy(), ref.logpmf(points), rtol=1e-10)
    if name in ("Bernoulli", "Geometric"):
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    ember.manual_seed(5)
    s = d.sample((40000,)).numpy()
    np.testing.assert_allclose(s.mean(0), ref.mean(), rtol=0.03)
    np.testing.assert_allclose(s.var(0), ref.var(), rtol=0.08)
    for j in range(2):  # chi-square of the counts against the pmf, tail cells pooled
        values, counts = np.unique(s[:, j], return_counts=True)
        probs = ref.pmf(np.stack([values, values], -1))[:, j]
        keep = probs * 40000 >= 5
        observed, expected = counts[keep], probs[keep] * 40000
        if 1 - probs[keep].sum() > 1e-9:  # the rest of the support, pooled
            observed = np.append(observed, counts[~keep].sum())
            expected = np.append(expected, (1 - probs[keep].sum()) * 40000)
        assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-3


def test_categorical_and_one_hot():
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    d = D.Categorical(probs=t(p * 3))  # normalised
    np.testing.assert_allclose(d.probs.numpy(), p)
    np.testing.assert_allclose(
        d.log_prob(ember.tensor([2, 1])).numpy(), np.log([0.7, 0.25]), rtol=1e-12
    )
    np.testing.assert_allclose(d.entropy().numpy(), -(p * np.log(p)).sum(-1), rtol=1e-12)
    ember.manual_seed(0)
    s = d.sample((30000,)).numpy()
    for r in range(2):
        freq = np.bincount(s[:, r], minlength=3) / 30000
        np.testing.assert_allclose(freq, p[r], atol=0.01)
        assert stats.chisquare(np.bincount(s[:, r], minlength=3), p[r] * 30000).pvalue > 1e-3
    assert d.enumerate_support().tolist() == [[0, 0], [1, 1], [2, 2]]
    logits = D.Categorical(logits=t(np.log(p)))
    np.testing.assert_allclose(logits.probs.numpy(), p, rtol=1e-12)
    oh = D.OneHotCategorical(probs=t(p))
    x = oh.sample((5,))
    assert x.shape == (5, 2, 3) and (x.sum(-1) == 1).all()
    np.testing.assert_allclose(oh.log_prob(x).numpy(), d.log_prob(x.argmax(-1)).numpy())


def test_multivariate_normal_forms_and_scipy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    loc = np.array([0.5, -1.0, 2.0])
    ref = stats.multivariate_normal(loc, cov)
    x = rng.standard_normal((4, 3))
    for kw in (
        {"covariance_matrix": t(cov)},
        {"precision_matrix": t(np.linalg.inv(cov))},
        {"scale_tril": t(np.linalg.cholesky(cov))},
    ):
        d = D.MultivariateNormal(t(loc), **kw)
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref.logpdf(x), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10)
        np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), rtol=1e-9)
    ember.manual_seed(3)
    s = D.MultivariateNormal(t(loc), t(cov)).sample((40000,)).numpy()
    np.testing.assert_allclose(s.mean(0), loc, atol=0.05)
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.05, atol=0.05)
    # Batched: one loc, two covariances.
    d = D.MultivariateNormal(t(loc), t(np.stack([cov, 2 * cov])))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    want = [ref.logpdf(x[0]), stats.multivariate_normal(loc, 2 * cov).logpdf(x[0])]
    np.testing.assert_allclose(d.log_prob(t(x[0])).numpy(), want, rtol=1e-10)


def test_low_rank_multivariate_normal_is_the_dense_one():
    rng = np.random.default_rng(1)
    W, diag = rng.standard_normal((4, 2)), rng.uniform(0.5, 2.0, 4)
    loc = rng.standard_normal(4)
    low = D.LowRankMultivariateNormal(t(loc), t(W), t(diag))
    dense = stats.multivariate_normal(loc, W @ W.T + np.diag(diag))
    x = rng.standard_normal((3, 4))
    np.testing.assert_allclose(low.log_prob(t(x)).numpy(), dense.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(low.entropy().numpy(), dense.entropy(), rtol=1e-10)
    np.testing.assert_allclose(low.variance.numpy(), np.diag(W @ W.T) + diag, rtol=1e-12)


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    d = D.Multinomial(10, probs=t(p))
    x = np.array([2.0, 3.0, 5.0])
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), stats.multinomial(10, p).logpmf(x))
    np.testing.assert_allclose(d.entropy().numpy(), stats.multinomial(10, p).entropy(), rtol=1e-9)
    ember.manual_seed(2)
    s = d.sample((5000,))
    assert (s.sum(-1) == 10).all()
    np.testing.assert_allclose(s.mean(0).numpy(), 10 * p, rtol=0.05)


def test_kumaraswamy_and_relaxed():
    k = D.Kumaraswamy(t([2.0, 0.5]), t([3.0, 1.5]))
    a, b = np.array([2.0, 0.5]), np.array([3.0, 1.5])
    x = np.array([0.3, 0.6])
    logpdf = np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a))
    np.testing.assert_allclose(k.log_prob(t(x)).numpy(), logpdf, rtol=1e-10)
    ember.manual_seed(4)
    s = k.sample((40000,)).numpy()
    np.testing.assert_allclose(s.mean(0), k.mean.numpy(), rtol=0.02)
    rb = D.RelaxedBernoulli(t(0.5), probs=t([0.2, 0.8]))
    v = rb.rsample((1000,))
    assert ((v > 0) & (v < 1)).all()
    rc = D.RelaxedOneHotCategorical(t(0.5), probs=t([0.2, 0.3, 0.5]))
    v = rc.rsample((10,))
    np.testing.assert_allclose(v.sum(-1).numpy(), np.ones(10), rtol=1e-10)
    assert math.isfinite(float(rc.log_prob(v).sum()))


def test_rsample_gradients_match_finite_differences():
    """d/dtheta of E[f(x)] estimated with common random numbers: the reparameterised sample's
    gradient equals the finite difference of the same draws."""
    for make in (
        lambda p: D.Normal(p[0], p[1].exp()),
        lambda p: D.Laplace(p[0], p[1].exp()),
        lambda p: D.LogNormal(p[0], p[1].exp()),
        lambda p: D.Gumbel(p[0], p[1].exp()),
        lambda p: D.Uniform(p[0], p[0] + p[1].exp()),
        lambda p: D.Exponential(p[1].exp()),
        lambda p: D.MultivariateNormal(
            p[0].expand(2), scale_tril=ember.eye(2, dtype=F64) * p[1].exp()
        ),
    ):
        theta = ember.tensor([0.3, -0.2], dtype=F64, requires_grad=True)

        def f(th, make=make):
            ember.manual_seed(9)
            return (make(th).rsample((50,)) ** 2).mean()

        f(theta).backward()
        eps = 1e-6
        for i in range(2):
            up, down = theta.detach().clone(), theta.detach().clone()
            up[i] += eps
            down[i] -= eps
            fd = (f(up).item() - f(down).item()) / (2 * eps)
            assert theta.grad[i].item() == pytest.approx(fd, rel=1e-5, abs=1e-8)


def test_kl_closed_forms_match_monte_carlo():
    pairs = [
        (D.Normal(t(0.3), t(1.2)), D.Normal(t(-0.5), t(0.7))),
        (D.Exponential(t(1.5)), D.Exponential(t(0.4))),
        (D.Laplace(t(0.0), t(1.0)), D.Laplace(t(1.0), t(2.0))),
        (D.Gumbel(t(0.0), t(1.0)), D.Gumbel(t(0.5), t(2.0))),
        (D.Uniform(t(0.0), t(1.0)), D.Normal(t(0.5), t(2.0))),
        (D.Bernoulli(t(0.3)), D.Bernoulli(t(0.6))),
        (D.Categorical(t([0.2, 0.3, 0.5])), D.Categorical(t([0.5, 0.25, 0.25]))),
        (
            D.MultivariateNormal(t([0.0, 1.0]), t([[2.0, 0.5], [0.5, 1.0]])),
            D.MultivariateNormal(t([1.0, 0.0]), t([[1.0, -0.3], [-0.3, 1.5]])),
        ),
        (D.Cauchy(t(0.0), t(1.0)), D.Cauchy(t(1.0), t(3.0))),
        (D.HalfNormal(t(1.0)), D.HalfNormal(t(2.0))),
        (D.Exponential(t(1.5)), D.Normal(t(0.5), t(2.0))),
    ]
    for p, q in pairs:
        ember.manual_seed(0)
        x = p.sample((200000,))
        mc = (p.log_prob(x) - q.log_prob(x)).mean().item()
        closed = D.kl_divergence(p, q).item()
        assert closed == pytest.approx(mc, rel=0.05, abs=0.01), type(p).__name__
    # Independent sums its reinterpreted dims; a missing pair is NotImplementedError.
    p = D.Independent(D.Normal(ember.zeros(3, dtype=F64), ember.ones(3, dtype=F64)), 1)
    q = D.Independent(D.Normal(ember.ones(3, dtype=F64), ember.ones(3, dtype=F64)), 1)
    assert D.kl_divergence(p, q).item() == pytest.approx(1.5)
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Cauchy(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0)))


def test_register_kl_picks_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return ember.tensor(42.0)

    try:
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
        assert D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0
    finally:
        from ember.distributions import kl

        del kl._KL_REGISTRY[MyNormal, D.Normal]
        kl._KL_MEMOIZE.clear()


def test_shapes_expand_and_independent():
    d = D.Normal(ember.zeros(3, dtype=F64), ember.ones(3, dtype=F64))
    assert d.batch_shape == (3,) and d.event_shape == ()
    assert d.sample((2, 4)).shape == (2, 4, 3)
    e = d.expand((5, 3))
    assert e.batch_shape == (5, 3) and e.sample().shape == (5, 3)
    ind = D.Independent(d, 1)
    assert ind.batch_shape == () and ind.event_shape == (3,)
    x = ember.randn(3, dtype=F64)
    np.testing.assert_allclose(ind.log_prob(x).item(), d.log_prob(x).sum().item(), rtol=1e-12)
    assert ind.support.event_dim == 1
    scalar = D.Normal(0.0, 1.0)
    assert scalar.batch_shape == () and scalar.sample().shape == ()


def test_validation_errors_are_pytorchs():
    with pytest.raises(ValueError, match="Expected parameter scale .* to satisfy the constraint"):
        D.Normal(ember.zeros(2), -ember.ones(2))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="to be within the support"):
        D.Exponential(ember.ones(2)).log_prob(-ember.ones(2))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        D.MultivariateNormal(ember.zeros(3), ember.eye(3)).log_prob(ember.zeros(2))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix"):
        D.MultivariateNormal(ember.zeros(3))
    # validate_args=False skips the checks, as in PyTorch.
    D.Normal(ember.zeros(2), -ember.ones(2), validate_args=False)
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(ember.zeros(2), -ember.ones(2))
    finally:
        D.Distribution.set_default_validate_args(True)


TRANSFORMS = [
    (transforms.ExpTransform(), [-0.5, 0.3]),
    (transforms.SigmoidTransform(), [-0.5, 2.0]),
    (transforms.TanhTransform(), [-0.5, 0.9]),
    (transforms.SoftplusTransform(), [-1.0, 2.0]),
    (transforms.AffineTransform(1.0, -2.5), [0.3, 4.0]),
    (transforms.PowerTransform(t(2.5)), [0.3, 1.7]),
    (
        transforms.ComposeTransform(
            [transforms.ExpTransform(), transforms.AffineTransform(0.5, 2.0)]
        ),
        [0.1, -1.0],
    ),
]  # fmt: skip


@pytest.mark.parametrize("tr, xs", TRANSFORMS, ids=lambda v: type(v).__name__)
def test_transforms_invert_and_have_their_jacobians(tr, xs):
    x = t(xs).requires_grad_()
    y = tr(x)
    np.testing.assert_allclose(tr.inv(y).detach().numpy(), xs, rtol=1e-10)
    # d y_i / d x_i by autograd (elementwise transforms): log |dy/dx| is the Jacobian term.
    (dy,) = ember.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(
        tr.log_abs_det_jacobian(x, y).detach().numpy(), np.log(np.abs(dy.numpy())), rtol=1e-9
    )


def test_stick_breaking_and_biject_to():
    x = t([0.3, -0.5, 1.2])
    st = transforms.StickBreakingTransform()
    y = st(x)
    assert y.shape == (4,) and abs(y.sum().item() - 1) < 1e-12
    np.testing.assert_allclose(st.inv(y).numpy(), x.numpy(), rtol=1e-10)
    # Its log |det J| against the Jacobian of the first 3 coordinates by autograd.
    jac = ember.autograd.functional.jacobian(lambda v: st(v)[:3], x)
    want = np.log(abs(np.linalg.det(jac.numpy())))
    assert st.log_abs_det_jacobian(x, y).item() == pytest.approx(want, rel=1e-10)
    for c, v in [
        (constraints.positive, t([-3.0, 2.0])),
        (constraints.interval(-1.0, 2.0), t([-3.0, 2.0])),
        (constraints.greater_than(1.5), t([-3.0, 2.0])),
        (constraints.simplex, t([0.5, -1.0])),
        (constraints.lower_cholesky, t([[0.3, 5.0], [-1.0, 0.2]])),
    ]:
        assert c.check(D.transform_to(c)(v)).all()
    assert constraints.unit_interval.check(D.biject_to(constraints.unit_interval)(t(5.0)))


def test_transformed_distribution_is_the_pushforward():
    base = D.Normal(t(0.0), t(1.0))
    d = D.TransformedDistribution(
        base, [transforms.AffineTransform(1.0, 2.0), transforms.ExpTransform()]
    )
    x = t([0.5, 3.0])
    want = stats.lognorm(s=2.0, scale=np.exp(1.0)).logpdf([0.5, 3.0])
    np.testing.assert_allclose(d.log_prob(x).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(
        d.cdf(x).numpy(), stats.lognorm(s=2.0, scale=np.exp(1.0)).cdf([0.5, 3.0]), rtol=1e-10
    )
    assert d.support is not None and d.has_rsample


def test_dirichlet():
    a = np.array([0.7, 2.0, 3.5])
    d = D.Dirichlet(t(a))
    x = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(d.log_prob(t(x)).item(), stats.dirichlet(a).logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), stats.dirichlet(a).entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), stats.dirichlet(a).var(), rtol=1e-10)
    ember.manual_seed(6)
    s = d.sample((40000,)).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(s.mean(0), stats.dirichlet(a).mean(), rtol=0.02)
    # The first coordinate is Beta(a_0, a_1 + a_2).
    assert stats.kstest(s[:, 0], stats.beta(a[0], a[1:].sum()).cdf).pvalue > 1e-3


def test_gamma_reparameterised_gradient():
    """The implicit reparameterisation: dx/dalpha = -(dP/dalpha) / p at each draw (P the
    regularised incomplete gamma function, differentiated by SciPy here), and the mean of the
    draws' gradients is the derivative of the mean: d E[x] / d alpha = 1 / rate."""
    from scipy import special

    alpha = ember.tensor([0.3, 2.5, 40.0], dtype=F64, requires_grad=True)
    ember.manual_seed(8)
    x = ember._standard_gamma(alpha)
    x.sum().backward()
    a, v = alpha.detach().numpy(), x.detach().numpy()
    h = 1e-6 * a
    dP = (special.gammainc(a + h, v) - special.gammainc(a - h, v)) / (2 * h)
    want = -dP / stats.gamma(a).pdf(v)
    np.testing.assert_allclose(alpha.grad.numpy(), want, rtol=1e-5)
    conc = ember.full((20000,), 1.7, dtype=F64, requires_grad=True)
    rate = ember.tensor(2.0, dtype=F64, requires_grad=True)
    ember.manual_seed(9)
    D.Gamma(conc, rate).rsample().mean().backward()
    assert conc.grad.sum().item() == pytest.approx(1 / 2.0, rel=0.03)
    assert rate.grad.item() == pytest.approx(-1.7 / 4.0, rel=0.03)  # d(alpha / rate) / d rate


def test_samplers_validate_and_are_reproducible():
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        ember.poisson(ember.tensor([-1.0]))
    with pytest.raises(RuntimeError, match="probabilities"):
        ember.binomial(ember.tensor([3.0]), ember.tensor([1.5]))
    rates = ember.tensor([0.0, 2.0, 50.0])
    ember.manual_seed(1)
    a = ember.poisson(rates)
    ember.manual_seed(1)
    assert ember.poisson(rates).tolist() == a.tolist() and a[0].item() == 0
    threads = ember.get_num_threads()
    try:
        out = []
        for n in (1, 2):
            ember.set_num_threads(n)
            ember.manual_seed(2)
            out.append(ember._standard_gamma(ember.full((5000,), 0.8)).tolist())
        assert out[0] == out[1]
    finally:
        ember.set_num_threads(threads)


def test_dirichlet_and_beta_gradients_are_unbiased():
    """E[x_0] = a_0 / sum(a): the mean of the draws' gradients is its derivative."""
    a = ember.tensor([1.5, 0.7, 2.2], dtype=F64)
    conc = a.expand(30000, 3).clone().requires_grad_()
    ember.manual_seed(10)
    D.Dirichlet(conc).rsample()[:, 0].mean().backward()
    s = a.sum().item()
    want = [(s - 1.5) / s**2, -1.5 / s**2, -1.5 / s**2]
    np.testing.assert_allclose(conc.grad.sum(0).numpy(), want, rtol=0.05, atol=0.005)
    c1 = ember.full((30000,), 2.0, dtype=F64, requires_grad=True)
    c0 = ember.full((30000,), 3.0, dtype=F64, requires_grad=True)
    ember.manual_seed(11)
    D.Beta(c1, c0).rsample().mean().backward()
    assert c1.grad.sum().item() == pytest.approx(3.0 / 25.0, rel=0.05)
    assert c0.grad.sum().item() == pytest.approx(-2.0 / 25.0, rel=0.05)


def test_continuous_bernoulli_logistic_normal_and_mixture():
    # ContinuousBernoulli: the density integrates to 1, mean and variance are its moments, near
    # lambda = 1/2 too (the Taylor branch).
    grid = np.linspace(0, 1, 200001)
    for lam in (0.2, 0.4995, 0.9):
        d = D.ContinuousBernoulli(t(lam))
        pdf = np.exp(d.log_prob(t(grid)).numpy())
        assert np.trapezoid(pdf, grid) == pytest.approx(1.0, abs=1e-6)
        assert d.mean.item() == pytest.approx(np.trapezoid(grid * pdf, grid), abs=1e-6)
        m = d.mean.item()
        assert d.variance.item() == pytest.approx(
            np.trapezoid((grid - m) ** 2 * pdf, grid), abs=1e-6
        )
        np.testing.assert_allclose(d.cdf(d.icdf(t([0.3, 0.8]))).numpy(), [0.3, 0.8], rtol=1e-9)
    # LogisticNormal: draws on the simplex.
    ember.manual_seed(0)
    s = D.LogisticNormal(t([0.2, -0.5]), t([1.0, 0.5])).sample((100,))
    assert s.shape == (100, 3) and np.allclose(s.sum(-1).numpy(), 1.0)
    # MixtureSameFamily: log of the weighted sum of the components' densities.
    mix = D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])), D.Normal(t([-1.0, 2.0]), t([0.5, 1.0])))
    x = np.array([-0.8, 0.4, 2.5])
    want = np.log(0.3 * stats.norm(-1.0, 0.5).pdf(x) + 0.7 * stats.norm(2.0, 1.0).pdf(x))
    np.testing.assert_allclose(mix.log_prob(t(x)).numpy(), want, rtol=1e-12)
    assert mix.mean.item() == pytest.approx(0.3 * -1.0 + 0.7 * 2.0)
    ember.manual_seed(1)
    draws = mix.sample((40000,)).numpy()
    assert (
        stats.kstest(
            draws, lambda v: 0.3 * stats.norm(-1.0, 0.5).cdf(v) + 0.7 * stats.norm(2.0, 1.0).cdf(v)
        ).pvalue
        > 1e-3
    )


def test_wishart_and_lkj_cholesky():
    cov = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]])
    w = D.Wishart(t(4.5), t(cov))
    ref = stats.wishart(df=4.5, scale=cov)
    ember.manual_seed(0)
    x = w.sample((3,)).numpy()
    np.testing.assert_allclose(w.log_prob(t(x)).numpy(), [ref.logpdf(xi) for xi in x], rtol=1e-10)
    np.testing.assert_allclose(w.entropy().item(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(w.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(w.variance.numpy(), ref.var(), rtol=1e-12)
    ember.manual_seed(1)
    draws = D.Wishart(t(6.0), scale_tril=t(np.linalg.cholesky(cov))).sample((20000,)).numpy()
    np.testing.assert_allclose(draws.mean(0), 6.0 * cov, rtol=0.05, atol=0.05)
    # LKJCholesky(3, eta): each off-diagonal correlation is 2 Beta(eta + 1/2, eta + 1/2) - 1.
    lkj = D.LKJCholesky(3, t(2.0))
    ember.manual_seed(2)
    L = lkj.sample((20000,))
    assert constraints.corr_cholesky.check(L).all()
    r = (L @ L.mT)[:, 1, 0].numpy()
    assert stats.kstest((r + 1) / 2, stats.beta(2.5, 2.5).cdf).pvalue > 1e-3
    # The density integrates to 1 over the correlations of dim 2: r ~ 2 Beta(eta, eta) - 1.
    two = D.LKJCholesky(2, t(1.7))
    rs = np.linspace(-0.99, 0.99, 5)
    Ls = np.zeros((5, 2, 2))
    Ls[:, 0, 0], Ls[:, 1, 0], Ls[:, 1, 1] = 1.0, rs, np.sqrt(1 - rs**2)
    # p(L) relates to p(r) by the Jacobian dr/dL_10 = 1: log p(r) = log_prob(L).
    np.testing.assert_allclose(
        two.log_prob(t(Ls)).numpy(),
        stats.beta(1.7, 1.7).logpdf((rs + 1) / 2) - np.log(2),
        rtol=1e-9,
    )
    tr = transforms.CorrCholeskyTransform()
    v = t(np.random.default_rng(0).standard_normal((4, 6)))
    y = tr(v)
    assert y.shape == (4, 4, 4) and constraints.corr_cholesky.check(y).all()
    np.testing.assert_allclose(tr.inv(y).numpy(), v.numpy(), rtol=1e-10)
    assert isinstance(D.biject_to(constraints.corr_cholesky), transforms.CorrCholeskyTransform)
