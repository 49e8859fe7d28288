// Complex ops (ember/ops/complex.h): view_as_real, view_as_complex, real, imag, conj, angle, sgn,
// complex, polar. Tensor.real and Tensor.imag are properties with setters, made in
// ember/_frontend.py from these functions.
#include "init.h"

namespace ember::py {

namespace {
// conj and real of a real tensor are the tensor itself, the same Python object (as PyTorch's).
template <Tensor (*F)(const Tensor&)>
nb::object same_if_real(nb::handle h) {
  const Tensor& x = nb::cast<const Tensor&>(h);
  return is_complex(x.dtype()) ? nb::cast(F(x)) : nb::borrow(h);
}
}  // namespace

void init_complex(nb::module_& m) {
  def_both(m, "view_as_real", [](const Tensor& x) { return view_as_real(x); });
  def_both(m, "view_as_complex", [](const Tensor& x) { return view_as_complex(x); });
  m.def("real", &same_if_real<real>, nb::arg("input"));
  m.def(
      "imag", [](const Tensor& x) { return imag(x); }, nb::arg("input"));
  def_both(m, "conj", &same_if_real<conj>);
  def_both(m, "conj_physical", [](const Tensor& x) { return conj_physical(x); });
  def_both(m, "angle", [](const Tensor& x) { return angle(x); });
  // ember.sgn is a composite (python/ember/_composites/elementwise.py) with an in-place form.
  m.def(
      "_sgn", [](const Tensor& x) { return sgn(x); }, nb::arg("input"));
  m.def(
      "complex", [](const Tensor& re, const Tensor& im) { return complex(re, im); },
      nb::arg("real"), nb::arg("imag"));
  m.def(
      "polar", [](const Tensor& abs, const Tensor& angle) { return polar(abs, angle); },
      nb::arg("abs"), nb::arg("angle"));
  tensor_class().def("is_complex", [](const Tensor& x) { return is_complex(x.dtype()); });
}

}  // namespace ember::py
