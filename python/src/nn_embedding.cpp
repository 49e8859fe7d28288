// Bindings of the embedding ops: embedding and embedding_bag in ember._C._nn (PyTorch has them only
// in torch.nn.functional; ember/nn/functional/embeddings.py wraps them), and torch.embedding and
// torch.embedding_renorm_ at the top level, with ATen's argument order.
#include "init.h"

namespace ember::py {

void init_nn_embedding(nb::module_& m) {
  nb::module_ nn = nn_submodule(m);
  using OT = std::optional<Tensor>;
  using SV = std::string_view;
  nn.def(
      "embedding",
      [](const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
        return embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                         sparse);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("padding_idx").none() = nb::none(),
      nb::arg("max_norm").none() = nb::none(), nb::arg("norm_type") = 2.0,
      nb::arg("scale_grad_by_freq") = false, nb::arg("sparse") = false);
  nn.def(
      "embedding_bag",
      [](const Tensor& input, const Tensor& weight, OT offsets, std::optional<double> max_norm,
         double norm_type, bool scale_grad_by_freq, SV mode, bool sparse, OT psw,
         bool include_last_offset, std::optional<int64_t> padding_idx) {
        return embedding_bag(input, weight, or_undefined(offsets), max_norm, norm_type,
                             scale_grad_by_freq, mode, sparse, or_undefined(psw),
                             include_last_offset, padding_idx);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("offsets").none() = nb::none(),
      nb::arg("max_norm").none() = nb::none(), nb::arg("norm_type") = 2.0,
      nb::arg("scale_grad_by_freq") = false, nb::arg("mode") = "mean", nb::arg("sparse") = false,
      nb::arg("per_sample_weights").none() = nb::none(), nb::arg("include_last_offset") = false,
      nb::arg("padding_idx").none() = nb::none());

  // torch.embedding(weight, indices, padding_idx=-1, ...): ATen's order; a negative padding_idx
  // is no padding there.
  m.def(
      "embedding",
      [](const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
         bool sparse) {
        return embedding(indices, weight,
                         padding_idx < 0 ? std::nullopt : std::optional<int64_t>(padding_idx),
                         std::nullopt, 2.0, scale_grad_by_freq, sparse);
      },
      nb::arg("weight"), nb::arg("indices"), nb::arg("padding_idx") = -1,
      nb::arg("scale_grad_by_freq") = false, nb::arg("sparse") = false);
  m.def(
      "embedding_renorm_",
      [](nb::object self, const Tensor& indices, double max_norm, double norm_type) {
        Tensor& weight = nb::cast<Tensor&>(self);
        embedding_renorm_(weight, indices, max_norm, norm_type);
        return self;  // the same Python object, as in-place methods return
      },
      nb::arg("input"), nb::arg("indices"), nb::arg("max_norm"), nb::arg("norm_type"));
}

}  // namespace ember::py
