// The recurrent ops and scaled_dot_product_attention from C++: values worked out by hand, the
// sequence functions against their cells, and the same bits on one and two threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

namespace {

using ember::Tensor;

float at(const Tensor& t, std::vector<int64_t> idx) {
  Tensor s = t;
  for (int64_t i : idx) s = s.select(0, i);
  return s.item<float>();
}

bool same_bits(const Tensor& a, const Tensor& b) {
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.sizes() == cb.sizes() && std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

TEST(NnRnn, CellsGiveHandCheckedValues) {
  const Tensor x = ember::tensor({{1.f}}), h = ember::tensor({{0.5f}}), c = ember::tensor({{1.f}});
  // rnn: tanh(0.5 * 1 + 0.25 * 0.5 + 0.1 + 0.2) = tanh(0.925)
  const Tensor y = ember::rnn_tanh_cell(x, h, ember::tensor({{0.5f}}), ember::tensor({{0.25f}}),
                                        ember::tensor({0.1f}), ember::tensor({0.2f}));
  EXPECT_NEAR(at(y, {0, 0}), std::tanh(0.925f), 1e-6);
  EXPECT_EQ(
      at(ember::rnn_relu_cell(-x, h, ember::tensor({{0.5f}}), ember::tensor({{0.25f}})), {0, 0}),
      0.f);  // relu(-0.5 + 0.125)
  // LSTM with zero weights: i = f = o = 1/2, g = 0, so c' = c / 2 and h' = tanh(c / 2) / 2.
  const auto [h1, c1] = ember::lstm_cell(x, {h, c}, ember::zeros({4, 1}), ember::zeros({4, 1}));
  EXPECT_FLOAT_EQ(at(c1, {0, 0}), 0.5f);
  EXPECT_NEAR(at(h1, {0, 0}), 0.5f * std::tanh(0.5f), 1e-6);
  // LSTM gate order i, f, g, o: a bias of 100 on g alone gives g = 1, c' = c / 2 + 1 / 2.
  const Tensor b = ember::tensor({0.f, 0.f, 100.f, 0.f});
  EXPECT_NEAR(
      at(ember::lstm_cell(x, {h, c}, ember::zeros({4, 1}), ember::zeros({4, 1}), b).second, {0, 0}),
      1.f, 1e-6);
  // GRU with zero weights: r = z = 1/2, n = 0, h' = h / 2. With b_hn = 2 and r = 1/2:
  // n = tanh(1), h' = (tanh(1) + h) / 2.
  EXPECT_FLOAT_EQ(at(ember::gru_cell(x, h, ember::zeros({3, 1}), ember::zeros({3, 1})), {0, 0}),
                  0.25f);
  const Tensor g = ember::gru_cell(x, h, ember::zeros({3, 1}), ember::zeros({3, 1}),
                                   ember::zeros({3}), ember::tensor({0.f, 0.f, 2.f}));
  EXPECT_NEAR(at(g, {0, 0}), (std::tanh(1.f) + 0.5f) / 2, 1e-6);
}

TEST(NnRnn, CellGradientsByHand) {
  // h' = tanh(w x): dh'/dw = x (1 - h'^2).
  Tensor w = ember::tensor({{0.3f}});
  w.requires_grad_();
  const Tensor x = ember::tensor({{2.f}});
  const Tensor y = ember::rnn_tanh_cell(x, ember::zeros({1, 1}), w, ember::zeros({1, 1}));
  y.sum().backward();
  const float t = std::tanh(0.6f);
  EXPECT_NEAR(at(w.grad(), {0, 0}), 2.f * (1 - t * t), 1e-6);
}

TEST(NnRnn, OneStepSequenceEqualsTheCell) {
  ember::manual_seed(0);
  const int64_t B = 3, I = 4, H = 5;
  const Tensor x = ember::randn({1, B, I}), h0 = ember::randn({1, B, H}),
               c0 = ember::randn({1, B, H});
  const std::vector<Tensor> p = {ember::randn({4 * H, I}), ember::randn({4 * H, H}),
                                 ember::randn({4 * H}), ember::randn({4 * H})};
  const auto [out, hn, cn] = ember::lstm(x, {h0, c0}, p, true, 1, 0.0, false, false, false);
  const auto [h1, c1] = ember::lstm_cell(x[0], {h0[0], c0[0]}, p[0], p[1], p[2], p[3]);
  EXPECT_TRUE(ember::allclose(out[0], h1, 1e-6, 1e-6));
  EXPECT_TRUE(ember::allclose(hn[0], h1, 1e-6, 1e-6));
  EXPECT_TRUE(ember::allclose(cn[0], c1, 1e-6, 1e-6));
  EXPECT_EQ(ember_test::vec(out.sizes()), (std::vector<int64_t>{1, B, H}));
}

TEST(NnRnn, AttentionGivesHandCheckedValues) {
  // One query [1, 0] against keys [1, 0] and [0, 1], scale 1: weights e/(1+e) and 1/(1+e).
  const Tensor q = ember::tensor({{1.f, 0.f}}), k = ember::tensor({{1.f, 0.f}, {0.f, 1.f}});
  const Tensor v = ember::tensor({{10.f}, {20.f}});
  const float e = std::exp(1.f), want = (10 * e + 20) / (1 + e);
  EXPECT_NEAR(
      at(ember::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, 1.0), {0, 0}), want,
      1e-5);
  // Causal: the first of two queries sees the first key only; a bool mask that hides the
  // second key does the same.
  const Tensor q2 = ember::tensor({{1.f, 0.f}, {0.f, 1.f}});
  const Tensor causal = ember::scaled_dot_product_attention(q2, k, v, std::nullopt, 0.0, true);
  EXPECT_FLOAT_EQ(at(causal, {0, 0}), 10.f);
  const Tensor keep = ember::tensor({{true, false}, {true, false}});
  const Tensor masked = ember::scaled_dot_product_attention(q2, k, v, keep);
  EXPECT_FLOAT_EQ(at(masked, {1, 0}), 10.f);
  // A query that sees no key gives 0, as PyTorch's.
  const Tensor none = ember::tensor({{false, false}, {true, true}});
  EXPECT_EQ(at(ember::scaled_dot_product_attention(q2, k, v, none), {0, 0}), 0.f);
}

TEST(NnRnn, ErrorsNameTheOp) {
  EXPECT_EMBER_ERROR(ember::lstm_cell(ember::randn({2, 3}), {ember::randn({2, 4})},
                                      ember::randn({16, 3}), ember::randn({16, 4})),
                     ember::ErrorKind::Runtime, "[lstm_cell] expects two hidden states");
  EXPECT_EMBER_ERROR(ember::gru(ember::randn({3, 2, 1}), ember::randn({1, 2, 4}),
                                {ember::randn({12, 1}), ember::randn({12, 5})}, false, 1, 0.0,
                                false, false, false),
                     ember::ErrorKind::Runtime, "[gru] expected weight_hh_l0 of shape");
  EXPECT_EMBER_ERROR(ember::scaled_dot_product_attention(ember::randn({2, 3}), ember::randn({4, 3}),
                                                         ember::randn({4, 3}).to(ember::kFloat64)),
                     ember::ErrorKind::Runtime, "[scaled_dot_product_attention]");
}

// Note [Deterministic matmul]: fixed blocks, so one and two threads give the same bits.
TEST(NnRnn, SameBitsOnOneAndTwoThreads) {
  ember_test::NumThreadsGuard guard;
  ember::manual_seed(1);
  const int64_t T = 6, B = 32, I = 96, H = 128;
  const Tensor x = ember::randn({T, B, I}), h0 = ember::randn({2, B, H}),
               c0 = ember::randn({2, B, H});
  std::vector<Tensor> p;
  for (int d = 0; d < 2; ++d) {
    p.push_back(ember::randn({4 * H, I}) * 0.1);
    p.push_back(ember::randn({4 * H, H}) * 0.1);
    p.push_back(ember::randn({4 * H}));
    p.push_back(ember::randn({4 * H}));
  }
  for (Tensor& t : p) t.requires_grad_();
  Tensor q = ember::randn({2, 3, 200, 32});
  const Tensor k = ember::randn({2, 3, 300, 32}), v = ember::randn({2, 3, 300, 32});
  q.requires_grad_();
  auto run = [&](int threads) {
    ember::set_num_threads(threads);
    std::vector<Tensor> r;
    const auto [out, hn, cn] = ember::lstm(x, {h0, c0}, p, true, 1, 0.0, true, true, false);
    (out.sum() + hn.sum() * 0.5).backward();
    r.push_back(out);
    for (const Tensor& t : p) {
      r.push_back(t.grad());
      t.set_grad(Tensor());
    }
    const Tensor a = ember::scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true);
    a.sum().backward();
    r.push_back(a);
    r.push_back(q.grad());
    q.set_grad(Tensor());
    return r;
  };
  const std::vector<Tensor> one = run(1), two = run(2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same_bits(one[i], two[i])) << "result " << i;
}

}  // namespace
