// Bindings of the matrix products and linear algebra composites (matmul, mm, bmm, addmm, dot,
// einsum, tensordot, ...) as functions and Tensor methods.
#include "init.h"

namespace ember::py {
namespace {

bool is_tensor(nb::handle h) { return nb::isinstance<Tensor>(h); }

// tensordot's dims: an int, or a pair whose items are ints or lists of ints.
Tensor tensordot_py(const Tensor& a, const Tensor& b, nb::handle dims) {
  if (PyLong_Check(dims.ptr())) return tensordot(a, b, to_int64(dims, "tensordot(): dims"));
  EMBER_CHECK_TYPE(PySequence_Check(dims.ptr()) && PySequence_Size(dims.ptr()) == 2,
                   "[tensordot] dims must be an int or a pair of lists of ints, got ",
                   py_type_name(dims));
  nb::sequence pair = nb::borrow<nb::sequence>(dims);
  const DimVector da = arg_cast<DimVector>(pair[0], "tensordot(): dims[0]", "a list of ints");
  const DimVector db = arg_cast<DimVector>(pair[1], "tensordot(): dims[1]", "a list of ints");
  return tensordot(a, b, da, db);
}

}  // namespace

void init_linalg(nb::module_& m) {
#define EMBER_BIND_ADD_PRODUCT(name, a, b)                                          \
  def_both(                                                                         \
      m, #name,                                                                     \
      [](const Tensor& input, const Tensor& x, const Tensor& y, const Scalar& beta, \
         const Scalar& alpha) { return name(input, x, y, beta, alpha); },           \
      nb::arg(a), nb::arg(b), nb::kw_only(), nb::arg("beta") = 1, nb::arg("alpha") = 1);
  EMBER_BIND_ADD_PRODUCT(addmm, "mat1", "mat2")
  EMBER_BIND_ADD_PRODUCT(addbmm, "batch1", "batch2")
  EMBER_BIND_ADD_PRODUCT(baddbmm, "batch1", "batch2")
  EMBER_BIND_ADD_PRODUCT(addmv, "mat", "vec")
#undef EMBER_BIND_ADD_PRODUCT
  def_both(
      m, "dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); }, nb::arg("tensor"));
  def_both(
      m, "vdot", [](const Tensor& a, const Tensor& b) { return vdot(a, b); }, nb::arg("other"));
  def_both(
      m, "mv", [](const Tensor& a, const Tensor& b) { return mv(a, b); }, nb::arg("vec"));
  def_both(
      m, "outer", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, nb::arg("vec2"));
  def_both(
      m, "ger", [](const Tensor& a, const Tensor& b) { return outer(a, b); }, nb::arg("vec2"));
  def_both(
      m, "kron", [](const Tensor& a, const Tensor& b) { return kron(a, b); }, nb::arg("other"));
  m.def("tensordot", &tensordot_py, nb::arg("a"), nb::arg("b"), nb::arg("dims") = 2);
  // einsum(equation, *operands) or einsum(equation, [operands]).
  m.def(
      "einsum",
      [](std::string_view equation, nb::args args) {
        nb::handle items = args;
        if (args.size() == 1 && !is_tensor(args[0])) items = args[0];
        EMBER_CHECK_TYPE(PySequence_Check(items.ptr()),
                         "einsum(): expected tensors or a list of tensors as operands");
        std::vector<Tensor> operands;
        for (nb::handle h : nb::borrow<nb::sequence>(items)) {
          operands.push_back(arg_cast<Tensor>(h, "einsum(): operands", "tensors"));
        }
        return einsum(equation, operands);
      },
      nb::arg("equation"), nb::arg("operands"));
  def_both(
      m, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, nb::arg("other"));
  def_both(
      m, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, nb::arg("mat2"));
  def_both(
      m, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, nb::arg("mat2"));

  tensor_class().def(
      "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
      nb::is_operator());
}

}  // namespace ember::py
