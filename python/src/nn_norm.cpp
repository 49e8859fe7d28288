// Bindings of the neural-network ops: normalisation (batch, layer, group, instance, local response,
// normalize) and dropout. torch.* names go into ember._C (so ember.batch_norm, ember.dropout_,
// ...); those PyTorch has only in torch.nn.functional go into ember._C._nn, which
// ember.nn.functional wraps (python/ember/nn/_functional_norm.py).
#include "init.h"

namespace ember::py {
namespace {

using OptTensor = std::optional<Tensor>;

// An in-place op returns the same Python object, as PyTorch's do.
template <class F>
auto inplace(F f) {
  return [f](nb::handle self, double p, bool train) {
    Tensor x = arg_cast<Tensor>(self, "input", "a Tensor");
    f(x, p, train);
    return nb::borrow(self);
  };
}

// Dropout that does nothing (p = 0, evaluation, empty input) returns its input: the same Python
// object, as in PyTorch.
template <class F>
auto same_or_new(F f) {
  return [f](nb::handle input, double p, bool train) -> nb::object {
    const Tensor x = arg_cast<Tensor>(input, "input", "a Tensor");
    Tensor out = f(x, p, train);
    if (out.is_same(x)) return nb::borrow(input);
    return wrap(std::move(out));
  };
}

}  // namespace

void init_nn_norm(nb::module_& m) {
  m.def(
      "batch_norm",
      [](const Tensor& input, OptTensor weight, OptTensor bias, OptTensor running_mean,
         OptTensor running_var, bool training, double momentum, double eps, bool) {
        return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
      },
      nb::arg("input"), nb::arg("weight").none(), nb::arg("bias").none(),
      nb::arg("running_mean").none(), nb::arg("running_var").none(), nb::arg("training"),
      nb::arg("momentum"), nb::arg("eps"), nb::arg("cudnn_enabled") = true);
  m.def(
      "instance_norm",
      [](const Tensor& input, OptTensor weight, OptTensor bias, OptTensor running_mean,
         OptTensor running_var, bool use_input_stats, double momentum, double eps, bool) {
        return instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                             momentum, eps);
      },
      nb::arg("input"), nb::arg("weight").none(), nb::arg("bias").none(),
      nb::arg("running_mean").none(), nb::arg("running_var").none(), nb::arg("use_input_stats"),
      nb::arg("momentum"), nb::arg("eps"), nb::arg("cudnn_enabled") = true);
  m.def(
      "layer_norm",
      [](const Tensor& input, DimVector normalized_shape, OptTensor weight, OptTensor bias,
         double eps, bool) { return layer_norm(input, normalized_shape, weight, bias, eps); },
      nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none() = nb::none(),
      nb::arg("bias").none() = nb::none(), nb::arg("eps") = 1e-5, nb::arg("cudnn_enable") = true);
  m.def(
      "rms_norm",
      [](const Tensor& input, DimVector normalized_shape, OptTensor weight,
         std::optional<double> eps) { return rms_norm(input, normalized_shape, weight, eps); },
      nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none() = nb::none(),
      nb::arg("eps") = nb::none());
  m.def(
      "group_norm",
      [](const Tensor& input, int64_t num_groups, OptTensor weight, OptTensor bias, double eps,
         bool) { return group_norm(input, num_groups, weight, bias, eps); },
      nb::arg("input"), nb::arg("num_groups"), nb::arg("weight").none() = nb::none(),
      nb::arg("bias").none() = nb::none(), nb::arg("eps") = 1e-5, nb::arg("cudnn_enabled") = true);

  // torch.dropout(input, p, train) and friends; in-place forms return self.
  m.def("dropout", same_or_new([](const Tensor& x, double p, bool t) { return dropout(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("dropout_", inplace([](Tensor& x, double p, bool t) { dropout_(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("alpha_dropout",
        same_or_new([](const Tensor& x, double p, bool t) { return alpha_dropout(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("alpha_dropout_", inplace([](Tensor& x, double p, bool t) { alpha_dropout_(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("feature_dropout",
        same_or_new([](const Tensor& x, double p, bool t) { return feature_dropout(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("feature_dropout_", inplace([](Tensor& x, double p, bool t) { feature_dropout_(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("feature_alpha_dropout", same_or_new([](const Tensor& x, double p, bool t) {
          return feature_alpha_dropout(x, p, t);
        }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));
  m.def("feature_alpha_dropout_",
        inplace([](Tensor& x, double p, bool t) { feature_alpha_dropout_(x, p, t); }),
        nb::arg("input"), nb::arg("p"), nb::arg("train"));

  // torch.nn.functional only.
  nb::module_ nn = m.def_submodule("_nn", "ember.nn.functional's C++ functions");
  nn.def(
      "local_response_norm",
      [](const Tensor& x, int64_t size, double alpha, double beta, double k) {
        return local_response_norm(x, size, alpha, beta, k);
      },
      nb::arg("input"), nb::arg("size"), nb::arg("alpha") = 1e-4, nb::arg("beta") = 0.75,
      nb::arg("k") = 1.0);
  nn.def(
      "normalize",
      [](const Tensor& x, double p, DimVector dim, double eps) {
        return normalize(x, p, dim, eps);
      },
      nb::arg("input"), nb::arg("p") = 2.0, nb::arg("dim") = 1, nb::arg("eps") = 1e-12);
  // Channel-wise dropout with dropout1d / dropout3d's unbatched inputs (batched false: dim 0
  // holds the channels), out of place or in place.
  nn.def(
      "feature_dropout",
      [](nb::handle self, double p, bool train, bool alpha, bool inplace, bool batched) {
        Tensor x = arg_cast<Tensor>(self, "input", "a Tensor");
        if (inplace) {
          if (alpha)
            feature_alpha_dropout_(x, p, train, batched);
          else
            feature_dropout_(x, p, train, batched);
          return nb::borrow(self);
        }
        Tensor out = alpha ? feature_alpha_dropout(x, p, train, batched)
                           : feature_dropout(x, p, train, batched);
        return out.is_same(x) ? nb::borrow(self) : wrap(std::move(out));
      },
      nb::arg("input"), nb::arg("p"), nb::arg("train"), nb::arg("alpha"), nb::arg("inplace"),
      nb::arg("batched"));
}

}  // namespace ember::py
