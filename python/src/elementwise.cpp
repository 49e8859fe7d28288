// Bindings of the elementwise ops as module functions (ember.exp(x)), Tensor methods (x.exp(),
// x.exp_()) and operators, bound in loops over the lists in ember/core/elementwise_ops.h.
#include "init.h"

namespace ember::py {
namespace {

// a op b where either side may be a number.
template <class TT, class TS, class ST>
Tensor binary(
    const TensorOrScalar& a, const TensorOrScalar& b, TT tt, TS ts, ST st, const char* name) {
  if (a.tensor && b.tensor) return tt(*a.tensor, *b.tensor);
  if (a.tensor) return ts(*a.tensor, b.scalar);
  if (b.tensor) return st(a.scalar, *b.tensor);
  type_error(std::string(name) + "(): expected at least one Tensor argument, got two numbers");
}

// add/sub with alpha (input + alpha * other), out of place or in place; other may be a number.
// A number with alpha 1 takes the scalar overload; otherwise it becomes a 0-d tensor, which
// promotes as a Python number does, and the C++ op checks alpha.
template <class ScalarOp, class TensorOp>
auto with_alpha(const TensorOrScalar& b,
                const Scalar& alpha,
                ScalarOp scalar_op,
                TensorOp tensor_op) {
  if (b.tensor) return tensor_op(*b.tensor);
  if (alpha.is_integral() && alpha.to_int() == 1) return scalar_op(b.scalar);
  return tensor_op(scalar_tensor(b.scalar));
}

// F(self, args...) as a Tensor method that returns self (the same Python object, as PyTorch's
// in-place methods do).
template <auto F>
struct InplaceMethod;
template <class... Args, Tensor& (*F)(Tensor&, Args...)>
struct InplaceMethod<F> {
  static nb::object call(nb::handle self, Args... args) {
    F(nb::cast<Tensor&>(self), std::forward<Args>(args)...);
    return nb::borrow(self);
  }
};

}  // namespace

void init_elementwise(nb::module_& m) {
  auto& cls = tensor_class();

// self op other, where other may be a Tensor or a number (the C++ op has both overloads).
#define EMBER_TENSOR_OR_SCALAR(fn) \
  [](const Tensor& a, TensorOrScalar b) { return b.tensor ? fn(a, *b.tensor) : fn(a, b.scalar); }

  // In place: these return the same Python object, as PyTorch's do.
#define EMBER_BIND_UNARY(name, ...)                            \
  def_both(m, #name, [](const Tensor& x) { return name(x); }); \
  cls.def(#name "_", [](nb::handle self) {                     \
    name##_(nb::cast<Tensor&>(self));                          \
    return nb::borrow(self);                                   \
  });
  EMBER_UNARY_OPS(EMBER_BIND_UNARY)
#define EMBER_BIND_PREDICATE_fn(name) def_both(m, #name, [](const Tensor& x) { return name(x); });
#define EMBER_BIND_PREDICATE_fn_inplace(name) EMBER_BIND_UNARY(name)
#define EMBER_BIND_PREDICATE(name, F, form) EMBER_BIND_PREDICATE_##form(name)
  EMBER_PREDICATE_OPS(EMBER_BIND_PREDICATE)
#undef EMBER_BIND_PREDICATE
#undef EMBER_BIND_PREDICATE_fn_inplace
#undef EMBER_BIND_PREDICATE_fn
#undef EMBER_BIND_UNARY
  def_both(m, "negative", [](const Tensor& x) { return neg(x); });
  def_both(m, "absolute", [](const Tensor& x) { return abs(x); });

#define EMBER_BIND_BINARY(name, ...)                                             \
  m.def(                                                                         \
      #name,                                                                     \
      [](TensorOrScalar a, TensorOrScalar b) {                                   \
        return binary(                                                           \
            a, b, [](const Tensor& x, const Tensor& y) { return name(x, y); },   \
            [](const Tensor& x, const Scalar& y) { return name(x, y); },         \
            [](const Scalar& x, const Tensor& y) { return name(x, y); }, #name); \
      },                                                                         \
      nb::arg("input"), nb::arg("other"));                                       \
  cls.def(#name, EMBER_TENSOR_OR_SCALAR(name), nb::arg("other"));
  EMBER_BINARY_OPS(EMBER_BIND_BINARY)
  EMBER_COMPARE_OPS(EMBER_BIND_BINARY)
#undef EMBER_BIND_BINARY

  // add and sub take alpha: input + alpha * other.
  for (const char* name : {"add", "sub", "subtract"}) {
    const bool is_add = name[0] == 'a';
    auto fn = [is_add](const Tensor& a, TensorOrScalar b, const Scalar& alpha) {
      return with_alpha(
          b, alpha, [&](const Scalar& s) { return is_add ? add(a, s) : sub(a, s); },
          [&](const Tensor& t) { return is_add ? add(a, t, alpha) : sub(a, t, alpha); });
    };
    m.def(name, fn, nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha") = 1);
    cls.def(name, fn, nb::arg("other"), nb::kw_only(), nb::arg("alpha") = 1);
  }
  m.def(
      "where",
      [](const Tensor& cond, TensorOrScalar a, TensorOrScalar b) {
        if (a.tensor && b.tensor) return where(cond, *a.tensor, *b.tensor);
        if (a.tensor) return where(cond, *a.tensor, b.scalar);
        if (b.tensor) return where(cond, a.scalar, *b.tensor);
        return where(cond, scalar_tensor(a.scalar), b.scalar);
      },
      nb::arg("condition"), nb::arg("input"), nb::arg("other"));
  cls.def(
      "where",
      [](const Tensor& self, const Tensor& cond, TensorOrScalar other) {
        return other.tensor ? where(cond, self, *other.tensor) : where(cond, self, other.scalar);
      },
      nb::arg("condition"), nb::arg("other"));
  def_both(m, "true_divide", EMBER_TENSOR_OR_SCALAR(div), nb::arg("other"));
  def_both(m, "multiply", EMBER_TENSOR_OR_SCALAR(mul), nb::arg("other"));

  // Operators. Returning NotImplemented for other types is nanobind's is_operator behaviour.
#define EMBER_BIND_OPERATOR(pyname, fn)                                                  \
  cls.def("__" #pyname "__", EMBER_TENSOR_OR_SCALAR(fn), nb::is_operator())              \
      .def(                                                                              \
          "__r" #pyname "__", [](const Tensor& a, const Scalar& b) { return fn(b, a); }, \
          nb::is_operator());
  EMBER_BIND_OPERATOR(add, add)
  EMBER_BIND_OPERATOR(sub, sub)
  EMBER_BIND_OPERATOR(mul, mul)
  EMBER_BIND_OPERATOR(truediv, div)
  EMBER_BIND_OPERATOR(pow, pow)
  EMBER_BIND_OPERATOR(floordiv, floor_divide)
  EMBER_BIND_OPERATOR(mod, remainder)
  EMBER_BIND_OPERATOR(and, bitwise_and)
  EMBER_BIND_OPERATOR(or, bitwise_or)
  EMBER_BIND_OPERATOR(xor, bitwise_xor)
  EMBER_BIND_OPERATOR(lshift, bitwise_left_shift)
  EMBER_BIND_OPERATOR(rshift, bitwise_right_shift)
#undef EMBER_BIND_OPERATOR
  cls.def("__neg__", [](const Tensor& a) { return neg(a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__abs__", [](const Tensor& a) { return abs(a); })
      .def("__invert__", [](const Tensor& a) { return bitwise_not(a); });
  cls.def("__eq__", EMBER_TENSOR_OR_SCALAR(eq), nb::is_operator())
      .def("__ne__", EMBER_TENSOR_OR_SCALAR(ne), nb::is_operator())
      .def("__lt__", EMBER_TENSOR_OR_SCALAR(lt), nb::is_operator())
      .def("__le__", EMBER_TENSOR_OR_SCALAR(le), nb::is_operator())
      .def("__gt__", EMBER_TENSOR_OR_SCALAR(gt), nb::is_operator())
      .def("__ge__", EMBER_TENSOR_OR_SCALAR(ge), nb::is_operator());
#undef EMBER_TENSOR_OR_SCALAR

  // In place: these return the same Python object, as PyTorch's do.
#define EMBER_BIND_INPLACE(pyname, fn, ...)            \
  cls.def(                                             \
      pyname,                                          \
      [](nb::handle self, TensorOrScalar b) {          \
        Tensor& t = nb::cast<Tensor&>(self);           \
        b.tensor ? fn(t, *b.tensor) : fn(t, b.scalar); \
        return nb::borrow(self);                       \
      },                                               \
      __VA_ARGS__);
  EMBER_BIND_INPLACE("__iadd__", add_, nb::is_operator())
  EMBER_BIND_INPLACE("__isub__", sub_, nb::is_operator())
  EMBER_BIND_INPLACE("__imul__", mul_, nb::is_operator())
  EMBER_BIND_INPLACE("__itruediv__", div_, nb::is_operator())
  EMBER_BIND_INPLACE("__iand__", bitwise_and_, nb::is_operator())
  EMBER_BIND_INPLACE("__ior__", bitwise_or_, nb::is_operator())
  EMBER_BIND_INPLACE("__ixor__", bitwise_xor_, nb::is_operator())
  EMBER_BIND_INPLACE("__ilshift__", bitwise_left_shift_, nb::is_operator())
  EMBER_BIND_INPLACE("__irshift__", bitwise_right_shift_, nb::is_operator())
  EMBER_BIND_INPLACE("__ifloordiv__", floor_divide_, nb::is_operator())
  EMBER_BIND_INPLACE("__imod__", remainder_, nb::is_operator())
  EMBER_BIND_INPLACE("__ipow__", pow_, nb::is_operator())
  // Every binary and comparison op but add_ and sub_ (which take alpha, below).
#define EMBER_BIND_BINARY_INPLACE(name, ...)                                  \
  if (std::string_view(#name) != "add" && std::string_view(#name) != "sub") { \
    EMBER_BIND_INPLACE(#name "_", name##_, nb::arg("other"))                  \
  }
  EMBER_BINARY_OPS(EMBER_BIND_BINARY_INPLACE)
  EMBER_COMPARE_OPS(EMBER_BIND_BINARY_INPLACE)
#undef EMBER_BIND_BINARY_INPLACE
#undef EMBER_BIND_INPLACE
  for (const char* name : {"add_", "sub_"}) {
    const bool is_add = name[0] == 'a';
    cls.def(
        name,
        [is_add](nb::handle self, TensorOrScalar b, const Scalar& alpha) {
          Tensor& t = nb::cast<Tensor&>(self);
          with_alpha(
              b, alpha,
              [&](const Scalar& s) -> Tensor& { return is_add ? add_(t, s) : sub_(t, s); },
              [&](const Tensor& o) -> Tensor& {
                return is_add ? add_(t, o, alpha) : sub_(t, o, alpha);
              });
          return nb::borrow(self);
        },
        nb::arg("other"), nb::kw_only(), nb::arg("alpha") = 1);
  }
  cls.def("zero_",
          [](nb::handle self) {
            zero_(nb::cast<Tensor&>(self));
            return nb::borrow(self);
          })
      .def(
          "fill_",
          [](nb::handle self, TensorOrScalar v) {
            Tensor& t = nb::cast<Tensor&>(self);
            if (v.tensor) {
              EMBER_CHECK(v.tensor->dim() == 0,
                          "[fill_] only supports 0-dimension value tensor but "
                          "got tensor with ",
                          v.tensor->dim(), " dimensions");
              if (any_requires_grad(*v.tensor)) {
                copy_(t, v.tensor->expand(t.sizes()));  // the value's gradient flows, as PyTorch
              } else {
                fill_(t, v.tensor->item());
              }
            } else {
              fill_(t, v.scalar);
            }
            return nb::borrow(self);
          },
          nb::arg("value"))
      .def(
          "copy_",
          [](nb::handle self, const Tensor& src, bool non_blocking) {
            copy_(nb::cast<Tensor&>(self), src);
            return nb::borrow(self);
          },
          nb::arg("src"), nb::arg("non_blocking") = false);

  // ---- elementwise ops with parameters --------------------------------------------------------
  // clamp(min, max): numbers, or tensors that broadcast (a number beside a tensor becomes 0-d).
  using OptBound = std::optional<TensorOrScalar>;
  auto tensor_bound = [](const OptBound& v) -> std::optional<Tensor> {
    if (!v) return std::nullopt;
    return v->tensor ? *v->tensor : scalar_tensor(v->scalar);
  };
  auto scalar_bound = [](const OptBound& v) -> std::optional<Scalar> {
    return v ? std::optional<Scalar>(v->scalar) : std::nullopt;
  };
  auto clamp_fn = [=](const Tensor& x, OptBound min, OptBound max) {
    if ((min && min->tensor) || (max && max->tensor))
      return clamp(x, tensor_bound(min), tensor_bound(max));
    return clamp(x, scalar_bound(min), scalar_bound(max));
  };
  auto clamp_inplace = [=](nb::handle self, OptBound min, OptBound max) {
    Tensor& t = nb::cast<Tensor&>(self);
    if ((min && min->tensor) || (max && max->tensor)) {
      copy_(t, clamp(t, tensor_bound(min), tensor_bound(max)));
    } else {
      clamp_(t, scalar_bound(min), scalar_bound(max));
    }
    return nb::borrow(self);
  };
  def_both(m, "clamp", clamp_fn, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  cls.def("clamp_", clamp_inplace, nb::arg("min") = nb::none(), nb::arg("max") = nb::none());

  // Each op with parameters (but clamp) as ember.<name>(input, ...), Tensor.<name>(...) and, where
  // PyTorch has one, Tensor.<name>_(...) returning self; the arguments from the list's signature.
#define ARG(type, name) , nb::arg(#name)
#define DEF(type, name, value) , nb::arg(#name) = std::decay_t<type>(value)
#define KW_ONLY , nb::kw_only()
#define EMBER_BIND_PARAM_fn(name, signature) def_both(m, #name, &name EMBER_UNPAREN signature);
#define EMBER_BIND_PARAM_fn_inplace(name, signature) \
  EMBER_BIND_PARAM_fn(name, signature)               \
      cls.def(#name "_", &InplaceMethod<&name##_>::call EMBER_UNPAREN signature);
#define EMBER_BIND_PARAM_manual(name, signature)
#define EMBER_BIND_PARAM(name, F, dtypes, to_float, saves, grad, form, signature, params) \
  EMBER_BIND_PARAM_##form(name, signature)
  EMBER_PARAM_UNARY_OPS(EMBER_BIND_PARAM)
#undef EMBER_BIND_PARAM
#undef EMBER_BIND_PARAM_manual
#undef EMBER_BIND_PARAM_fn_inplace
#undef EMBER_BIND_PARAM_fn
#undef KW_ONLY
#undef DEF
#undef ARG
  // lerp(end, weight) with a number or tensor weight; addcmul / addcdiv(tensor1, tensor2, value).
  def_both(
      m, "lerp",
      [](const Tensor& x, const Tensor& end, TensorOrScalar w) {
        return w.tensor ? lerp(x, end, *w.tensor) : lerp(x, end, w.scalar);
      },
      nb::arg("end"), nb::arg("weight"));
  cls.def(
      "lerp_",
      [](nb::handle self, const Tensor& end, TensorOrScalar w) {
        Tensor& t = nb::cast<Tensor&>(self);
        w.tensor ? lerp_(t, end, *w.tensor) : lerp_(t, end, w.scalar);
        return nb::borrow(self);
      },
      nb::arg("end"), nb::arg("weight"));
  for (const char* name : {"addcmul", "addcdiv"}) {
    const bool mul = name[4] == 'm';
    def_both(
        m, name,
        [mul](const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value) {
          return mul ? addcmul(x, t1, t2, value) : addcdiv(x, t1, t2, value);
        },
        nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
    cls.def((std::string(name) + "_").c_str(),
            [mul](nb::handle self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
              Tensor& t = nb::cast<Tensor&>(self);
              mul ? addcmul_(t, t1, t2, value) : addcdiv_(t, t1, t2, value);
              return nb::borrow(self);
            },
            nb::arg("tensor1"), nb::arg("tensor2"), nb::kw_only(), nb::arg("value") = 1);
  }
  def_both(
      m, "isclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return isclose(a, b, rtol, atol, equal_nan);
      },
      nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
      nb::arg("equal_nan") = false);
  def_both(
      m, "allclose",
      [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
        return allclose(a, b, rtol, atol, equal_nan);
      },
      nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
      nb::arg("equal_nan") = false);
  def_both(
      m, "equal", [](const Tensor& a, const Tensor& b) { return equal(a, b); }, nb::arg("other"));
}

}  // namespace ember::py
