#include "ember/nn/dropout.h"

#include "ember/nn/repr_util.h"
#include "ember/ops/nn_norm.h"

namespace ember::nn {

Dropout::Dropout(double p) : Dropout("Dropout", p) {}

Dropout::Dropout(const char* name, double p) : Module(name), p(p) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "[", name,
                    "] dropout probability has to be between 0 and 1, but got ", p);
}

Tensor Dropout::forward(const Tensor& input) const { return dropout(input, p, training_); }

std::string Dropout::extra_repr() const { return "p=" + detail::py_float(p) + ", inplace=False"; }

Tensor Dropout2d::forward(const Tensor& input) const {
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                    "[Dropout2d] expected 3D (unbatched) or 4D input, got ", input.dim(), "D");
  return feature_dropout(input, p, training_, input.dim() == 4);
}

}  // namespace ember::nn
