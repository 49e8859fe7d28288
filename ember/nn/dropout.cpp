#include "ember/nn/dropout.h"

#include "ember/nn/repr_util.h"
#include "ember/ops/nn_dropout.h"
#include "ember/ops/nn_norm.h"

namespace ember::nn {

Dropout::Dropout(double p) : Dropout("Dropout", p) {}

Dropout::Dropout(const char* name, double p) : Module(name), p(p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[", name,
                    "] dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& input) const { return dropout(input, p, training_); }

std::string Dropout::extra_repr() const { return "p=" + detail::py_float(p) + ", inplace=False"; }

// Channel dropout on `spatial`-d inputs: batched with spatial + 2 dims, unbatched with one less.
static Tensor channel_dropout(
    const Tensor& input, double p, bool train, int64_t spatial, const std::string& name) {
  EMBER_CHECK_VALUE(input.dim() == spatial + 1 || input.dim() == spatial + 2, "[", name,
                    "] expected ", spatial + 1, "D (unbatched) or ", spatial + 2, "D input, got ",
                    input.dim(), "D");
  return feature_dropout(input, p, train, input.dim() == spatial + 2);
}

Tensor Dropout1d::forward(const Tensor& input) const {
  return channel_dropout(input, p, training_, 1, type_name());
}
Tensor Dropout2d::forward(const Tensor& input) const {
  return channel_dropout(input, p, training_, 2, type_name());
}
Tensor Dropout3d::forward(const Tensor& input) const {
  return channel_dropout(input, p, training_, 3, type_name());
}
Tensor AlphaDropout::forward(const Tensor& input) const {
  return alpha_dropout(input, p, training_);
}

}  // namespace ember::nn
