// Bindings of the dropout ops: torch.dropout, alpha_dropout, feature_dropout,
// feature_alpha_dropout and their in-place forms in ember._C, and the channel-wise forms with
// unbatched inputs (dropout1d / dropout3d) in ember._C._nn, wrapped by
// ember/nn/functional/dropouts.py.
#include "init.h"

namespace ember::py {
namespace {

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

void init_nn_dropout(nb::module_& m) {
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
  nb::module_ nn = nn_submodule(m);
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
