// Bindings of the losses (cross_entropy, nll, mse, ...). They live in the shared `ember._C._nn`
// submodule (PyTorch has them only in torch.nn.functional; ember/nn/functional/loss.py wraps them
// with the legacy size_average/reduce arguments and PyTorch's warnings).
#include "init.h"

namespace ember::py {
void init_nn_loss(nb::module_& m) {
  nb::module_ nn = nn_submodule(m);
  using OT = std::optional<Tensor>;
  using SV = std::string_view;

  nn.def(
      "cross_entropy",
      [](const Tensor& x, const Tensor& t, OT w, SV red, int64_t ii, double ls) {
        return cross_entropy(x, t, or_undefined(w), red, ii, ls);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean", nb::arg("ignore_index") = -100,
      nb::arg("label_smoothing") = 0.0);
  nn.def(
      "nll_loss",
      [](const Tensor& x, const Tensor& t, OT w, SV red, int64_t ii) {
        return nll_loss(x, t, or_undefined(w), red, ii);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean", nb::arg("ignore_index") = -100);
  nn.def(
      "binary_cross_entropy",
      [](const Tensor& x, const Tensor& t, OT w, SV red) {
        return binary_cross_entropy(x, t, or_undefined(w), red);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean");
  nn.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& x, const Tensor& t, OT w, SV red, OT pw) {
        return binary_cross_entropy_with_logits(x, t, or_undefined(w), red, or_undefined(pw));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("weight").none() = nb::none(),
      nb::arg("reduction") = "mean", nb::arg("pos_weight").none() = nb::none());
  nn.def(
      "kl_div",
      [](const Tensor& x, const Tensor& t, SV red, bool log_target) {
        return kl_div(x, t, red, log_target);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean",
      nb::arg("log_target") = false);
  nn.def(
      "multi_margin_loss",
      [](const Tensor& x, const Tensor& t, int64_t p, double margin, OT w, SV red) {
        return multi_margin_loss(x, t, p, margin, or_undefined(w), red);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("p") = 1, nb::arg("margin") = 1.0,
      nb::arg("weight").none() = nb::none(), nb::arg("reduction") = "mean");
  nn.def(
      "soft_margin_loss",
      [](const Tensor& x, const Tensor& t, SV red) { return soft_margin_loss(x, t, red); },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean");
  nn.def(
      "mse_loss",
      [](const Tensor& x, const Tensor& t, SV red, OT w) {
        return mse_loss(x, t, red, or_undefined(w));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean",
      nb::arg("weight").none() = nb::none());
  nn.def(
      "l1_loss",
      [](const Tensor& x, const Tensor& t, SV red, OT w) {
        return l1_loss(x, t, red, or_undefined(w));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean",
      nb::arg("weight").none() = nb::none());
  nn.def(
      "smooth_l1_loss",
      [](const Tensor& x, const Tensor& t, SV red, double beta) {
        return smooth_l1_loss(x, t, red, beta);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean", nb::arg("beta") = 1.0);
  nn.def(
      "huber_loss",
      [](const Tensor& x, const Tensor& t, SV red, double delta, OT w) {
        return huber_loss(x, t, red, delta, or_undefined(w));
      },
      nb::arg("input"), nb::arg("target"), nb::arg("reduction") = "mean", nb::arg("delta") = 1.0,
      nb::arg("weight").none() = nb::none());
  nn.def(
      "poisson_nll_loss",
      [](const Tensor& x, const Tensor& t, bool log_input, bool full, double eps, SV red) {
        return poisson_nll_loss(x, t, log_input, full, eps, red);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("log_input") = true, nb::arg("full") = false,
      nb::arg("eps") = 1e-8, nb::arg("reduction") = "mean");
  nn.def(
      "gaussian_nll_loss",
      [](const Tensor& x, const Tensor& t, const Tensor& var, bool full, double eps, SV red) {
        return gaussian_nll_loss(x, t, var, full, eps, red);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("var"), nb::arg("full") = false,
      nb::arg("eps") = 1e-6, nb::arg("reduction") = "mean");
  nn.def(
      "cosine_embedding_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, SV red) {
        return cosine_embedding_loss(a, b, t, margin, red);
      },
      nb::arg("input1"), nb::arg("input2"), nb::arg("target"), nb::arg("margin") = 0.0,
      nb::arg("reduction") = "mean");
  nn.def(
      "margin_ranking_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, SV red) {
        return margin_ranking_loss(a, b, t, margin, red);
      },
      nb::arg("input1"), nb::arg("input2"), nb::arg("target"), nb::arg("margin") = 0.0,
      nb::arg("reduction") = "mean");
  nn.def(
      "hinge_embedding_loss",
      [](const Tensor& x, const Tensor& t, double margin, SV red) {
        return hinge_embedding_loss(x, t, margin, red);
      },
      nb::arg("input"), nb::arg("target"), nb::arg("margin") = 1.0, nb::arg("reduction") = "mean");
  nn.def(
      "triplet_margin_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, double margin, double norm, double eps,
         bool swap, SV red) { return triplet_margin_loss(a, p, n, margin, norm, eps, swap, red); },
      nb::arg("anchor"), nb::arg("positive"), nb::arg("negative"), nb::arg("margin") = 1.0,
      nb::arg("p") = 2.0, nb::arg("eps") = 1e-6, nb::arg("swap") = false,
      nb::arg("reduction") = "mean");
}

}  // namespace ember::py
