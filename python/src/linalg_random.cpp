// Linear algebra composites (addmm, dot, einsum, tensordot, ...) and the samplers with tensor
// parameters (bernoulli, multinomial, normal) with the in-place samplers of Tensor.
#include "init.h"

namespace ember::py {
namespace {

bool is_tensor(nb::handle h) { return nb::isinstance<Tensor>(h); }

double number_arg(nb::handle h, const char* what) { return arg_cast<double>(h, what, "a number"); }

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

// ember.normal's four forms: (Tensor, Tensor), (float, Tensor), (Tensor, float), (float, float,
// size).
Tensor normal_py(nb::handle mean,
                 nb::handle std,
                 std::optional<DimVector> size,
                 Generator* gen,
                 std::optional<DType> dtype,
                 std::optional<Device> device,
                 bool requires_grad) {
  if (is_tensor(mean) || is_tensor(std)) {
    EMBER_CHECK_TYPE(!size, "[normal] size is only accepted with a float mean and std");
    if (is_tensor(mean) && is_tensor(std)) {
      return normal(nb::cast<const Tensor&>(mean), nb::cast<const Tensor&>(std), gen);
    }
    if (is_tensor(mean)) return normal(nb::cast<const Tensor&>(mean), number_arg(std, "std"), gen);
    return normal(number_arg(mean, "mean"), nb::cast<const Tensor&>(std), gen);
  }
  EMBER_CHECK_TYPE(size.has_value(),
                   "[normal] with a float mean and std, expected a size, got none");
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (device) o = o.device(*device);
  return normal(number_arg(mean, "mean"), number_arg(std, "std"), *size,
                o.requires_grad(requires_grad), gen);
}

// Tensor.random_(from, to), random_(to), random_(); from and to may be keywords.
Tensor& random_py(Tensor& self, nb::args args, nb::kwargs kwargs) {
  std::optional<int64_t> from, to;
  bool to_given = false;
  Generator* gen = nullptr;
  EMBER_CHECK_TYPE(args.size() <= 2, "random_() takes at most 2 positional arguments, got ",
                   args.size());
  if (args.size() == 1) {
    to = to_int64(args[0], "random_(): to");
    to_given = true;
  } else if (args.size() == 2) {
    from = to_int64(args[0], "random_(): from");
    to_given = true;
    if (!args[1].is_none()) to = to_int64(args[1], "random_(): to");
  }
  for (auto [key, value] : kwargs) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "from") {
      from = to_int64(value, "random_(): from");
    } else if (k == "to") {
      to_given = true;
      if (!value.is_none()) to = to_int64(value, "random_(): to");
    } else if (k == "generator") {
      if (!value.is_none()) gen = &nb::cast<Generator&>(value);
    } else {
      type_error("random_() got an unexpected keyword argument '" + k + "'");
    }
  }
  if (!from && !to_given) return random_(self, gen);
  return random_(self, from.value_or(0), to, gen);
}

}  // namespace

void init_linalg_random(nb::module_& m) {
  auto& cls = tensor_class();

  // ---- linear algebra ---------------------------------------------------------------------
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

  // ---- random -----------------------------------------------------------------------------
  def_both(
      m, "bernoulli",
      [](const Tensor& x, std::optional<double> p, Generator* gen) {
        return p ? bernoulli(x, *p, gen) : bernoulli(x, gen);
      },
      nb::arg("p") = nb::none(), nb::kw_only(), nb::arg("generator").none() = nb::none());
  def_both(
      m, "multinomial",
      [](const Tensor& x, int64_t n, bool replacement, Generator* gen) {
        return multinomial(x, n, replacement, gen);
      },
      nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  m.def("normal", &normal_py, nb::arg("mean"), nb::arg("std") = 1.0,
        nb::arg("size").none() = nb::none(), nb::kw_only(),
        nb::arg("generator").none() = nb::none(), nb::arg("dtype") = nb::none(),
        nb::arg("device") = nb::none(), nb::arg("requires_grad") = false);

  // In place: these return the same Python object, as PyTorch's do.
  cls.def(
      "normal_",
      [](nb::handle self, double mean, double std, Generator* gen) {
        normal_(nb::cast<Tensor&>(self), mean, std, gen);
        return nb::borrow(self);
      },
      nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  cls.def(
      "uniform_",
      [](nb::handle self, double from, double to, Generator* gen) {
        uniform_(nb::cast<Tensor&>(self), from, to, gen);
        return nb::borrow(self);
      },
      nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  cls.def(
      "exponential_",
      [](nb::handle self, double lambd, Generator* gen) {
        exponential_(nb::cast<Tensor&>(self), lambd, gen);
        return nb::borrow(self);
      },
      nb::arg("lambd") = 1.0, nb::kw_only(), nb::arg("generator").none() = nb::none());
  cls.def("random_", [](nb::handle self, nb::args args, nb::kwargs kwargs) {
    random_py(nb::cast<Tensor&>(self), args, kwargs);
    return nb::borrow(self);
  });
  cls.def(
      "bernoulli_",
      [](nb::handle self, nb::handle p, Generator* gen) {
        Tensor& t = nb::cast<Tensor&>(self);
        if (is_tensor(p)) {
          bernoulli_(t, nb::cast<const Tensor&>(p), gen);
        } else {
          bernoulli_(t, number_arg(p, "bernoulli_(): p"), gen);
        }
        return nb::borrow(self);
      },
      nb::arg("p") = 0.5, nb::kw_only(), nb::arg("generator").none() = nb::none());
}

}  // namespace ember::py
