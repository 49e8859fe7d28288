// Bindings of the normalisation ops: batch, layer, group, instance, local response norm and
// normalize. torch.* names go into ember._C (so ember.batch_norm, ...); those PyTorch has only in
// torch.nn.functional go into ember._C._nn, which ember.nn.functional wraps
// (python/ember/nn/functional/norm.py).
#include "init.h"

namespace ember::py {
namespace {

using OptTensor = std::optional<Tensor>;

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

  // torch.nn.functional only.
  nb::module_ nn = nn_submodule(m);
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
}

}  // namespace ember::py
