// Binding of scaled_dot_product_attention in ember._C._nn, wrapped by
// ember/nn/functional/attention.py.
#include "init.h"

namespace ember::py {

void init_nn_attention(nb::module_& m) {
  nb::module_ nn = nn_submodule(m);
  nn.def(
      "scaled_dot_product_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& attn_mask,
         double dropout_p, bool is_causal, std::optional<double> scale, bool enable_gqa) {
        return scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale,
                                            enable_gqa);
      },
      nb::arg("query"), nb::arg("key"), nb::arg("value"), nb::arg("attn_mask").none() = nb::none(),
      nb::arg("dropout_p") = 0.0, nb::arg("is_causal") = false,
      nb::arg("scale").none() = nb::none(), nb::arg("enable_gqa") = false);
}

}  // namespace ember::py
