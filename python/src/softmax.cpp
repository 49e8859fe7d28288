// Bindings of softmax and log_softmax as functions and Tensor methods.
#include "init.h"

namespace ember::py {

void init_softmax(nb::module_& m) {
  for (const char* name : {"softmax", "log_softmax"}) {
    const bool log = name[0] == 'l';
    def_both(
        m, name,
        [log](const Tensor& x, int64_t dim, std::optional<DType> dtype) {
          return log ? log_softmax(x, dim, dtype) : softmax(x, dim, dtype);
        },
        nb::arg("dim"), nb::arg("dtype") = nb::none());
  }
}

}  // namespace ember::py
