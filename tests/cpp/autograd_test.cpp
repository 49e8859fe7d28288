// Autograd: version counter, saved-tensor checks, graph lifetime, higher-order gradients, the
// engine's order, custom C++ functions, broadcasting gradients, grad mode.
#include <gtest/gtest.h>

#include <any>
#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::ErrorKind;
using ember::Tensor;
using ember::TensorList;
using V = std::vector<float>;
using D = std::vector<double>;

ember::TensorOptions leaf_options(ember::DType d = ember::kFloat32) {
  return ember::TensorOptions(d).requires_grad(true);
}

TEST(VersionCounter, InPlaceOpsBumpIt) {
  Tensor x = ember::zeros({3});
  const uint32_t v0 = x.version();
  x.add_(1);
  EXPECT_EQ(x.version(), v0 + 1);
  x.mul_(2.0);
  x.fill_(3);
  x.zero_();
  x.copy_(ember::ones({3}));
  EXPECT_EQ(x.version(), v0 + 5);
  // Out-of-place ops leave it alone.
  Tensor y = x + 1;
  EXPECT_EQ(x.version(), v0 + 5);
  EXPECT_EQ(y.version(), 0u);
}

TEST(VersionCounter, SharedByViewsAndDetach) {
  Tensor x = ember::zeros({2, 3});
  Tensor row = x[1];
  Tensor d = x.detach();
  const uint32_t v0 = x.version();
  row.add_(1);
  EXPECT_EQ(x.version(), v0 + 1);
  d.mul_(2.0);
  EXPECT_EQ(row.version(), v0 + 2);
  EXPECT_EQ(x.t().version(), v0 + 2);
  EXPECT_EQ(x.to_vector<float>(), (V{0, 0, 0, 2, 2, 2}));
}

TEST(SavedTensors, ModifiedInputIsDetectedAtBackward) {
  Tensor a = ember::tensor({1.0f, 2.0f, 3.0f}, leaf_options());
  Tensor b = a * 2;
  Tensor c = b * b;  // saves b
  b.add_(1);
  EXPECT_EMBER_ERROR(c.sum().backward(), ErrorKind::Runtime, "modified by an in-place operation");
}

TEST(SavedTensors, ModifiedOutputIsDetectedThroughDetach) {
  Tensor a = ember::tensor({0.5f, -1.0f}, leaf_options());
  Tensor s = a.sigmoid();  // saves its output
  s.detach().zero_();      // same storage, same version counter
  EXPECT_EMBER_ERROR(s.sum().backward(), ErrorKind::Runtime, "modified by an in-place operation");
}

TEST(SavedTensors, UnsavedInputMayChange) {
  // add saves nothing, so modifying its input afterwards is fine.
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = a * 1;
  Tensor c = b + 5;
  b.add_(3.0);
  c.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (V{1, 1}));
}

TEST(InPlace, OnLeafThatRequiresGradRaises) {
  Tensor a = ember::ones({2}, leaf_options());
  EXPECT_EMBER_ERROR(a.add_(1), ErrorKind::Runtime, "[add_] a leaf tensor that requires grad");
  EXPECT_EMBER_ERROR(a.zero_(), ErrorKind::Runtime, "[zero_]");
  EXPECT_EMBER_ERROR(a[0].mul_(2.0), ErrorKind::Runtime, "[mul_]");
  // Under no_grad it is allowed (what optimizers do).
  {
    ember::NoGradGuard no_grad;
    a.add_(1);
  }
  EXPECT_EQ(a.to_vector<float>(), (V{2, 2}));
  EXPECT_TRUE(a.requires_grad());
}

TEST(InPlace, OnNonLeafIsRecorded) {
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = a * 3;
  Tensor c = a * 1;
  b.mul_(c);  // b = 3a^2: d/da = 6a
  EXPECT_EQ(b.to_vector<float>(), (V{3, 12}));
  EXPECT_EQ(b.grad_fn()->name(), "MulBackward0");
  b.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (V{6, 12}));
}

TEST(InPlace, SquaringInPlaceInvalidatesTheSavedOperand) {
  // As in PyTorch: b.mul_(b) saves b as the other operand, then changes it.
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = a * 3;
  b.mul_(b);
  EXPECT_EQ(b.to_vector<float>(), (V{9, 36}));
  EXPECT_EMBER_ERROR(b.sum().backward(), ErrorKind::Runtime, "modified by an in-place operation");
  // b's node saved b itself as the other operand (as PyTorch's does), a reference cycle through
  // the graph; cut it so that LeakSanitizer checks the rest of the test.
  b.detach_();
}

// The scalar form saves nothing of self, so the in-place change is no error (PyTorch gives 3 too).
TEST(InPlace, MulByScalarOnNonLeafIsDifferentiable) {
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = a * 1;
  b.mul_(3.0);
  b.sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (V{3, 3}));
}

TEST(GraphLifetime, SecondBackwardWithoutRetainGraphRaises) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor y = (x * x).sum();
  y.backward();
  EXPECT_EMBER_ERROR(y.backward(), ErrorKind::Runtime, "second time");
}

TEST(GraphLifetime, RetainGraphAllowsTwoBackwardsThatAccumulate) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor y = (x * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 4}));
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{4, 8}));
}

TEST(HigherOrder, CreateGraphGivesSecondDerivative) {
  Tensor x = ember::tensor<double>({2.0, -3.0}, {}, leaf_options(ember::kFloat64));
  Tensor y = (x * x * x).sum();
  Tensor g = ember::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_EQ(g.to_vector<double>(), (D{12, 27}));  // 3x^2
  EXPECT_TRUE(g.requires_grad());
  Tensor g2 = ember::grad({g.sum()}, {x})[0];
  EXPECT_EQ(g2.to_vector<double>(), (D{12, -18}));  // 6x
  EXPECT_FALSE(x.grad().defined());
}

TEST(HigherOrder, PowAndExpSecondDerivatives) {
  Tensor x = ember::tensor<double>({0.5, 2.0}, {}, leaf_options(ember::kFloat64));
  Tensor g = ember::grad({x.pow(3).sum()}, {x}, {}, std::nullopt, true)[0];
  EXPECT_EQ(ember::grad({g.sum()}, {x})[0].to_vector<double>(), (D{3, 12}));
  // exp saves its output; create_graph re-attaches it so the second derivative is exp(x).
  Tensor e = ember::grad({x.exp().sum()}, {x}, {}, std::nullopt, true)[0];
  const D second = ember::grad({e.sum()}, {x})[0].to_vector<double>();
  EXPECT_DOUBLE_EQ(second[0], std::exp(0.5));
  EXPECT_DOUBLE_EQ(second[1], std::exp(2.0));
}

TEST(HigherOrder, BackwardWithCreateGraphKeepsGradDifferentiable) {
  Tensor x = ember::tensor<double>({3.0}, {}, leaf_options(ember::kFloat64));
  (x * x * x).sum().backward(Tensor(), false, /*create_graph=*/true);
  Tensor g = x.grad();  // 3x^2 = 27, with a graph
  EXPECT_EQ(g.item<double>(), 27.0);
  ASSERT_TRUE(g.requires_grad());
  EXPECT_EQ(ember::grad({g.sum()}, {x})[0].item<double>(), 18.0);
  // x.grad's graph holds x (through its AccumulateGrad): the reference cycle PyTorch documents
  // for backward(create_graph=True). Resetting .grad breaks it.
  x.set_grad(Tensor());
}

TEST(HigherOrder, ReluGradientIsTheMaskInTheIncomingGradient) {
  // relu's gradient is g * (out > 0) in one pass; its own gradient wrt g is the same mask, and
  // x gets none.
  Tensor x = ember::tensor<double>({-1.0, 0.0, 2.0, NAN}, {}, leaf_options(ember::kFloat64));
  Tensor g = ember::tensor<double>({-5.0, 6.0, 7.0, 8.0}, {}, leaf_options(ember::kFloat64));
  Tensor gx = ember::grad({x.relu()}, {x}, {g}, std::nullopt, /*create_graph=*/true)[0];
  const D got = gx.to_vector<double>();
  EXPECT_EQ(got, (D{0, 0, 7, 0}));
  EXPECT_TRUE(std::signbit(got[0]));  // -5 * 0, as the composite g * (out > 0) gave
  ASSERT_TRUE(gx.requires_grad());
  Tensor w = ember::tensor<double>({1.0, 2.0, 3.0, 4.0}, {}, ember::TensorOptions(ember::kFloat64));
  EXPECT_EQ(ember::grad({(gx * w).sum()}, {g})[0].to_vector<double>(), (D{0, 0, 3, 0}));
}

TEST(HigherOrder, MaskedGradGivesTheSameValuesOnItsCompositePath) {
  // A gradient of another dtype than t takes the composite expression (as backends without
  // the kernel do); the fused kernel gives the same values.
  const ember::TensorOptions f64(ember::kFloat64);
  Tensor t = ember::tensor<float>({-1.0f, 0.5f, 2.0f, 6.0f, NAN}, {});
  Tensor g = ember::tensor<double>({-3.0, 4.0, 5.0, 6.0, 7.0}, {}, f64);
  for (const bool closed : {false, true}) {
    const Tensor composite = ember::detail::masked_grad(g, t, 0.5, 6, closed);
    const Tensor fused = ember::detail::masked_grad(g, t.to(ember::kFloat64), 0.5, 6, closed);
    EXPECT_EQ(composite.dtype(), ember::kFloat64);
    EXPECT_EQ(composite.to_vector<double>(), closed ? (D{0, 4, 5, 6, 0}) : (D{0, 0, 5, 0, 0}));
    EXPECT_EQ(fused.to_vector<double>(), composite.to_vector<double>());
    EXPECT_TRUE(std::signbit(fused.to_vector<double>()[0]));  // -3 * 0
  }
}

TEST(GradFunction, LeavesDotGradUntouched) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  (x * 10).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{10, 10}));
  TensorList g = ember::grad({(x * x).sum()}, {x});
  EXPECT_EQ(g[0].to_vector<float>(), (V{2, 4}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{10, 10}));
}

TEST(GradFunction, GradOfIntermediate) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor h = x * 3;
  Tensor y = (h * h).sum();
  TensorList g = ember::grad({y}, {h, x});
  EXPECT_EQ(g[0].to_vector<float>(), (V{6, 12}));   // 2h
  EXPECT_EQ(g[1].to_vector<float>(), (V{18, 36}));  // 18x
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(h.grad().defined());
}

TEST(GradFunction, AllowUnused) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor z = ember::tensor({5.0f}, leaf_options());
  Tensor y = (x * 2).sum();
  EXPECT_EMBER_ERROR(ember::grad({y}, {x, z}, {}, true), ErrorKind::Runtime,
                     "appears to not have been used");
  TensorList g = ember::grad({y}, {x, z}, {}, std::nullopt, false, /*allow_unused=*/true);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].to_vector<float>(), (V{2, 2}));
  EXPECT_FALSE(g[1].defined());
}

TEST(GradFunction, WeightedByGradOutputs) {
  Tensor x = ember::tensor({1.0f, 2.0f, 3.0f}, leaf_options());
  Tensor y = x * x;
  Tensor g = ember::grad({y}, {x}, {ember::tensor({1.0f, 0.0f, -1.0f})})[0];
  EXPECT_EQ(g.to_vector<float>(), (V{2, 0, -6}));
  EXPECT_EMBER_ERROR(y.backward(), ErrorKind::Runtime, "only for scalar outputs");
}

TEST(Engine, HooksFireInReverseOrderAfterAllConsumers) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor a = x * 2;
  Tensor b = a * 3;
  Tensor c = a * 4;
  Tensor d = b + c;
  std::vector<std::string> order;
  std::vector<float> grad_of_a;
  d.register_hook([&](const Tensor&) {
    order.push_back("d");
    return Tensor();
  });
  c.register_hook([&](const Tensor&) {
    order.push_back("c");
    return Tensor();
  });
  b.register_hook([&](const Tensor&) {
    order.push_back("b");
    return Tensor();
  });
  a.register_hook([&](const Tensor& g) {
    order.push_back("a");
    grad_of_a = g.to_vector<float>();
    return Tensor();
  });
  x.register_hook([&](const Tensor&) {
    order.push_back("x");
    return Tensor();
  });
  d.sum().backward();
  EXPECT_EQ(order, (std::vector<std::string>{"d", "c", "b", "a", "x"}));
  // a's hook saw the sum from both consumers: 3 + 4.
  EXPECT_EQ(grad_of_a, (V{7, 7}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{14, 14}));
}

TEST(Engine, HookCanReplaceAndBeRemoved) {
  Tensor x = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor h = x * 2;
  const int64_t id = h.register_hook([](const Tensor& g) { return g * 10; });
  (h * 1).sum().backward(Tensor(), true);
  EXPECT_EQ(x.grad().to_vector<float>(), (V{20, 20}));
  h.remove_hook(id);
  x.set_grad(Tensor());
  (h * 1).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 2}));
}

// A hook registered before an in-place op stays on the node it was registered on; removing it
// must still find it there.
TEST(Engine, HookRegisteredBeforeInPlaceOpCanBeRemoved) {
  Tensor x = ember::tensor({1.0f}, leaf_options());
  Tensor y = x * 1;
  int calls = 0;
  const int64_t id = y.register_hook([&](const Tensor&) {
    ++calls;
    return Tensor();
  });
  y.mul_(2.0);
  y.remove_hook(id);
  (y * 5).sum().backward();
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(x.grad().to_vector<float>(), (V{10}));
}

// y = k * a * b, written as a custom function that records what the context told it.
struct ScaledMul : ember::Function<ScaledMul> {
  static inline std::vector<bool> needs;
  static inline bool grad_mode_in_forward = true;
  static Tensor forward(ember::AutogradContext* ctx, const Tensor& a, const Tensor& b, double k) {
    grad_mode_in_forward = ember::GradMode::is_enabled();
    ctx->save_for_backward({a, b});
    ctx->saved_data["k"] = k;
    return a * b * k;
  }
  static TensorList backward(ember::AutogradContext* ctx, TensorList grads) {
    needs = {ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    const TensorList saved = ctx->get_saved_variables();
    const double k = std::any_cast<double>(ctx->saved_data["k"]);
    Tensor ga = ctx->needs_input_grad(0) ? grads[0] * saved[1] * k : Tensor();
    Tensor gb = ctx->needs_input_grad(1) ? grads[0] * saved[0] * k : Tensor();
    return {ga, gb, Tensor()};
  }
};

TEST(CustomFunction, SaveForBackwardAndNeedsInputGrad) {
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = ember::tensor({3.0f, 5.0f});
  Tensor y = ScaledMul::apply(a, b, 0.5);
  EXPECT_FALSE(ScaledMul::grad_mode_in_forward);
  EXPECT_EQ(y.to_vector<float>(), (V{1.5f, 5.0f}));
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "CppFunction");
  y.sum().backward();
  EXPECT_EQ(ScaledMul::needs, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(a.grad().to_vector<float>(), (V{1.5f, 2.5f}));
  EXPECT_FALSE(b.grad().defined());
  // The saved variables were released with the graph.
  EXPECT_EMBER_ERROR(y.sum().backward(), ErrorKind::Runtime, "second time");
}

TEST(CustomFunction, DetectsInPlaceChangeOfSavedInput) {
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = ember::tensor({3.0f, 5.0f});
  Tensor y = ScaledMul::apply(a, b, 2.0);
  b.add_(1);
  EXPECT_EMBER_ERROR(y.sum().backward(), ErrorKind::Runtime, "modified by an in-place operation");
}

struct Exp : ember::Function<Exp> {
  static Tensor forward(ember::AutogradContext* ctx, const Tensor& x) {
    Tensor out = x.exp();
    ctx->save_for_backward({out});
    return out;
  }
  static TensorList backward(ember::AutogradContext* ctx, TensorList grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

TEST(CustomFunction, SavedOutput) {
  Tensor x = ember::tensor({0.0f, 1.0f}, leaf_options());
  Tensor y = Exp::apply(x);
  (y * 2).sum().backward();
  const V g = x.grad().to_vector<float>();
  EXPECT_FLOAT_EQ(g[0], 2.0f);
  EXPECT_FLOAT_EQ(g[1], 2.0f * std::exp(1.0f));
  // No input requires grad: no graph.
  EXPECT_FALSE(Exp::apply(ember::zeros({2})).requires_grad());
}

TEST(Broadcasting, GradientsAreSummedToInputShapes) {
  Tensor a = ember::tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}, leaf_options());
  Tensor b = ember::tensor({10.0f, 20.0f, 30.0f}, leaf_options());
  Tensor c = ember::tensor({{1.0f}, {2.0f}}, leaf_options());
  Tensor s = ember::scalar_tensor(2.0, leaf_options());
  ((a * b + c) * s).sum().backward();
  EXPECT_EQ(ember_test::vec(a.grad().sizes()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.grad().to_vector<float>(), (V{20, 40, 60, 20, 40, 60}));
  EXPECT_EQ(ember_test::vec(b.grad().sizes()), (std::vector<int64_t>{3}));
  EXPECT_EQ(b.grad().to_vector<float>(), (V{10, 14, 18}));
  EXPECT_EQ(ember_test::vec(c.grad().sizes()), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(c.grad().to_vector<float>(), (V{6, 6}));
  EXPECT_EQ(s.grad().dim(), 0);
  EXPECT_EQ(s.grad().item<float>(), 10 + 40 + 90 + 40 + 100 + 180 + 3 * 1 + 3 * 2);
}

TEST(Broadcasting, MixedDtypeGradientsKeepInputDtype) {
  Tensor a = ember::tensor({1.0f, 2.0f}, leaf_options());
  Tensor b = ember::tensor<double>({3.0, 4.0}, {}, leaf_options(ember::kFloat64));
  Tensor y = a * b;
  EXPECT_EQ(y.dtype(), ember::kFloat64);
  y.sum().backward();
  EXPECT_EQ(a.grad().dtype(), ember::kFloat32);
  EXPECT_EQ(a.grad().to_vector<float>(), (V{3, 4}));
  EXPECT_EQ(b.grad().dtype(), ember::kFloat64);
  EXPECT_EQ(b.grad().to_vector<double>(), (D{1, 2}));
}

TEST(Gradients, ReductionsViewsAndMatmul) {
  Tensor x = ember::tensor({{1.0f, 5.0f, 5.0f}, {4.0f, 2.0f, 0.0f}}, leaf_options());
  // max() shares the gradient among ties; max(dim) picks the first index.
  x.max().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0.5f, 0.5f, 0, 0, 0}));
  x.set_grad(Tensor());
  x.max(1).first.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 1, 0, 1, 0, 0}));
  x.set_grad(Tensor());
  x.mean({0}).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}));
  x.set_grad(Tensor());
  (x.t().slice(0, 1, std::nullopt) * ember::tensor({{1.0f}, {2.0f}})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 1, 2, 0, 1, 2}));
  x.set_grad(Tensor());
  x.relu().select(1, 2).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0, 1, 0, 0, 0}));  // relu'(0) = 0

  Tensor w = ember::tensor({{1.0f, -1.0f}, {2.0f, 0.5f}, {0.0f, 3.0f}}, leaf_options());
  Tensor m = ember::tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}, leaf_options());
  m.matmul(w).sum().backward();
  // d/dm = ones(2,2) @ w^T: row sums of w; d/dw = m^T @ ones(2,2): column sums of m.
  EXPECT_EQ(m.grad().to_vector<float>(), (V{0, 2.5f, 3, 0, 2.5f, 3}));
  EXPECT_EQ(w.grad().to_vector<float>(), (V{5, 5, 7, 7, 9, 9}));
}

TEST(RetainGrad, NonLeafKeepsItsGradient) {
  Tensor x = ember::tensor({1.0f, -2.0f}, leaf_options());
  Tensor h = x * 2;
  Tensor k = x * 3;  // no retain_grad
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  EXPECT_FALSE(h.is_leaf());
  ((h * h).sum() + k.sum()).backward();
  EXPECT_EQ(h.grad().to_vector<float>(), (V{4, -8}));    // 2h
  EXPECT_EQ(x.grad().to_vector<float>(), (V{11, -13}));  // 8x + 3
  EXPECT_FALSE(k.grad().defined());
  EXPECT_EMBER_ERROR(ember::zeros({1}).retain_grad(), ErrorKind::Runtime, "[retain_grad]");
}

TEST(GradMode, NoGradGuardStopsRecording) {
  Tensor x = ember::ones({2}, leaf_options());
  EXPECT_TRUE(ember::GradMode::is_enabled());
  {
    ember::NoGradGuard no_grad;
    EXPECT_FALSE(ember::GradMode::is_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_FALSE(y.grad_fn());
    {
      ember::EnableGradGuard enable;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    EXPECT_FALSE(ember::GradMode::is_enabled());
  }
  EXPECT_TRUE(ember::GradMode::is_enabled());
  Tensor z = x * 2;
  EXPECT_TRUE(z.requires_grad());
  EXPECT_EQ(z.grad_fn()->name(), "MulBackward0");
}

TEST(Leaves, RequiresGradRules) {
  EXPECT_EMBER_ERROR(ember::zeros({2}, ember::kInt64).requires_grad_(), ErrorKind::Runtime,
                     "[requires_grad_]");
  Tensor x = ember::ones({2}, leaf_options());
  Tensor y = x * 2;
  EXPECT_EMBER_ERROR(y.requires_grad_(false), ErrorKind::Runtime, "[requires_grad_]");
  EXPECT_EMBER_ERROR(x.set_grad(ember::zeros({3})), ErrorKind::Runtime, "[grad]");
  EXPECT_EMBER_ERROR(ember::zeros({1}).backward(), ErrorKind::Runtime, "does not require grad");
  // Comparisons and integer results are not differentiable.
  EXPECT_FALSE((x > 0).requires_grad());
  EXPECT_FALSE(x.max(0).second.requires_grad());
}

}  // namespace
