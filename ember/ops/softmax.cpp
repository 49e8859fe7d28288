// softmax and log_softmax: one kernel each way, and backward formulas from public ops.
#include "ember/ops/softmax.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

const OpInfo kSoftmaxOps[] = {
    {"softmax", OpKind::Reduction, kFloatingTypes, true},
    {"log_softmax", OpKind::Reduction, kFloatingTypes, true},
};

Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<DType> dtype, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  const Tensor x = dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
  EMBER_CHECK_TYPE(is_floating(x.dtype()), "[", name, "] expected a floating-point tensor, got ",
                   x.dtype());
  const int64_t d = x.dim() == 0 ? (wrap_dim(dim, 0, name), 0) : wrap_dim(dim, x.dim(), name);
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).device(x.device()));
  kernel(kernels(x.device()).softmax.softmax, x.device(), name)(out, x, d, log);
  if (any_requires_grad(x)) {
    record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {&x}, {&out},
           [so = SavedTensor(out, 0), d, log](TensorList& g, Node& n) {
             const Tensor y = so.unpack(n);
             const DimVector dims{y.dim() ? d : 0};
             if (y.dim() == 0) return TensorList{log ? zeros_like(g[0]) : zeros_like(g[0])};
             // softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g).
             if (log) return TensorList{g[0] - exp(y) * sum(g[0], dims, true)};
             return TensorList{y * (g[0] - sum(g[0] * y, dims, true))};
           });
  }
  return out;
}

}  // namespace

std::span<const OpInfo> softmax_op_infos() { return kSoftmaxOps; }

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl(self, dim, dtype, false);
}

Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return softmax_impl(self, dim, dtype, true);
}

}  // namespace ember
