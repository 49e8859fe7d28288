// Ops as module functions (ember.exp(x)) and as Tensor methods (x.exp()), and the operators.
// Elementwise ops are bound in loops over the lists in ember/core/elementwise_ops.h.
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

Tensor to_impl(const Tensor& self,
               std::optional<DType> dtype,
               std::optional<Device> device,
               bool copy) {
  Tensor out = self;
  if (device && !(*device == out.device())) out = out.to(*device, false);
  if (dtype && *dtype != out.dtype()) out = to_dtype(out, *dtype);
  if (copy && out.is_same(self)) out = clone(self);
  return out;
}

}  // namespace

void init_ops(nb::module_& m) {
  auto& cls = tensor_class();

// self op other, where other may be a Tensor or a number (the C++ op has both overloads).
#define EMBER_TENSOR_OR_SCALAR(fn) \
  [](const Tensor& a, TensorOrScalar b) { return b.tensor ? fn(a, *b.tensor) : fn(a, b.scalar); }

  // ---- elementwise ------------------------------------------------------------------------
  // In place: these return the same Python object, as PyTorch's do.
#define EMBER_BIND_UNARY(name, ...)                            \
  def_both(m, #name, [](const Tensor& x) { return name(x); }); \
  cls.def(#name "_", [](nb::handle self) {                     \
    name##_(nb::cast<Tensor&>(self));                          \
    return nb::borrow(self);                                   \
  });
  EMBER_UNARY_OPS(EMBER_BIND_UNARY)
  EMBER_BIND_UNARY(logical_not)
#undef EMBER_BIND_UNARY
#define EMBER_BIND_PREDICATE(name, ...) def_both(m, #name, [](const Tensor& x) { return name(x); });
  EMBER_PREDICATE_OPS(EMBER_BIND_PREDICATE)
#undef EMBER_BIND_PREDICATE
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
  cls.def(
         "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
         nb::is_operator())
      .def("__neg__", [](const Tensor& a) { return neg(a); })
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

  // Each op with parameters as ember.<name>(input, ...), Tensor.<name>(...) and, where PyTorch
  // has one, Tensor.<name>_(...) returning self.
#define EMBER_BIND_PARAM(name, params, args, ...)                                                  \
  def_both(                                                                                        \
      m, #name, [](const Tensor& x, EMBER_UNPAREN params) { return name(x, EMBER_UNPAREN args); }, \
      __VA_ARGS__);
#define EMBER_BIND_PARAM_INPLACE(name, params, args, ...)     \
  EMBER_BIND_PARAM(name, params, args, __VA_ARGS__)           \
  cls.def(                                                    \
      #name "_",                                              \
      [](nb::handle self, EMBER_UNPAREN params) {             \
        name##_(nb::cast<Tensor&>(self), EMBER_UNPAREN args); \
        return nb::borrow(self);                              \
      },                                                      \
      __VA_ARGS__);
#define EMBER_UNPAREN(...) __VA_ARGS__
  EMBER_BIND_PARAM_INPLACE(hardtanh, (const Scalar& lo, const Scalar& hi), (lo, hi),
                           nb::arg("min_val") = -1.0, nb::arg("max_val") = 1.0)
  EMBER_BIND_PARAM_INPLACE(threshold, (const Scalar& th, const Scalar& v), (th, v),
                           nb::arg("threshold"), nb::arg("value"))
  EMBER_BIND_PARAM_INPLACE(leaky_relu, (const Scalar& slope), (slope),
                           nb::arg("negative_slope") = 0.01)
  EMBER_BIND_PARAM_INPLACE(elu, (const Scalar& a, const Scalar& s, const Scalar& is), (a, s, is),
                           nb::arg("alpha") = 1.0, nb::arg("scale") = 1.0,
                           nb::arg("input_scale") = 1.0)
  EMBER_BIND_PARAM_INPLACE(celu, (const Scalar& alpha), (alpha), nb::arg("alpha") = 1.0)
  EMBER_BIND_PARAM(softplus, (const Scalar& beta, const Scalar& th), (beta, th),
                   nb::arg("beta") = 1, nb::arg("threshold") = 20)
  EMBER_BIND_PARAM(gelu, (std::string_view approximate), (approximate), nb::kw_only(),
                   nb::arg("approximate") = "none")
  EMBER_BIND_PARAM_INPLACE(logit, (std::optional<double> eps), (eps), nb::arg("eps") = nb::none())
  EMBER_BIND_PARAM_INPLACE(round, (int64_t decimals), (decimals), nb::kw_only(),
                           nb::arg("decimals") = 0)
  EMBER_BIND_PARAM_INPLACE(
      nan_to_num,
      (std::optional<double> nan, std::optional<double> pinf, std::optional<double> ninf),
      (nan, pinf, ninf), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(),
      nb::arg("neginf") = nb::none())
#undef EMBER_UNPAREN
#undef EMBER_BIND_PARAM_INPLACE
#undef EMBER_BIND_PARAM
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

  // ---- reductions ---------------------------------------------------------------------------
  def_both(
      m, "sum",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? sum(x, *dim, keepdim, dtype) : sum(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  def_both(
      m, "mean",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? mean(x, *dim, keepdim, dtype) : mean(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  for (const char* name : {"all", "any"}) {
    const bool is_all = name[1] == 'l';
    def_both(
        m, name,
        [is_all](const Tensor& x, std::optional<DimVector> dim, bool keepdim) {
          if (!dim) {
            EMBER_CHECK(!keepdim, "[", is_all ? "all" : "any", "] keepdim needs a dim");
            return is_all ? all(x) : any(x);
          }
          return is_all ? all(x, *dim, keepdim) : any(x, *dim, keepdim);
        },
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  // (values, indices) results are named tuples, as torch.return_types.max etc.; the module owns
  // the types (ember._C._<name>_type).
  auto named_pair = [&](const char* name) -> nb::handle {
    nb::object t = nb::module_::import_("collections").attr("namedtuple")(name, "values indices");
    m.attr(("_" + std::string(name) + "_type").c_str()) = t;
    return t;
  };
  for (const char* name : {"max", "min"}) {
    const bool is_max = name[1] == 'a';
    nb::handle type = named_pair(name);
    auto fn = [is_max, type](const Tensor& x, nb::handle dim, bool keepdim) -> nb::object {
      if (nb::isinstance<Tensor>(dim)) {  // max(input, other): the elementwise maximum
        const Tensor& o = nb::cast<const Tensor&>(dim);
        return wrap(is_max ? maximum(x, o) : minimum(x, o));
      }
      if (dim.is_none()) {
        EMBER_CHECK(!keepdim, "[", is_max ? "max" : "min", "] keepdim needs a dim");
        return wrap(is_max ? max(x) : min(x));
      }
      const int64_t d = to_int64(dim, is_max ? "max(): dim" : "min(): dim");
      auto [values, indices] = is_max ? max(x, d, keepdim) : min(x, d, keepdim);
      return type(wrap(values), wrap(indices));
    };
    def_both(m, name, fn, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  for (const char* name : {"amax", "amin"}) {
    const bool is_max = name[2] == 'a';
    def_both(
        m, name,
        [is_max](const Tensor& x, DimVector dim, bool keepdim) {
          return is_max ? amax(x, dim, keepdim) : amin(x, dim, keepdim);
        },
        nb::arg("dim") = DimVector(), nb::arg("keepdim") = false);
  }
  for (const char* name : {"argmax", "argmin"}) {
    const bool is_max = name[4] == 'a';
    def_both(
        m, name,
        [is_max](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
          return is_max ? argmax(x, dim, keepdim) : argmin(x, dim, keepdim);
        },
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  def_both(
      m, "prod",
      [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
        return dim ? prod(x, *dim, keepdim, dtype) : prod(x, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  def_both(
      m, "nansum",
      [](const Tensor& x, std::optional<DimVector> dim, bool keepdim, std::optional<DType> dtype) {
        return nansum(x, dim ? IntArrayRef(*dim) : IntArrayRef(), keepdim, dtype);
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
  def_both(
      m, "count_nonzero",
      [](const Tensor& x, std::optional<DimVector> dim) {
        return count_nonzero(x, dim ? IntArrayRef(*dim) : IntArrayRef());
      },
      nb::arg("dim") = nb::none());
  // var / std (and with the mean): PyTorch's correction, or the older unbiased flag.
  auto correction_of = [](std::optional<bool> unbiased, std::optional<double> correction) {
    EMBER_CHECK(!(unbiased && correction),
                "[var] cannot specify both the unbiased and correction arguments");
    return correction ? *correction : (unbiased.value_or(true) ? 1.0 : 0.0);
  };
  for (const char* name : {"var", "std", "var_mean", "std_mean"}) {
    const std::string n = name;
    def_both(
        m, name,
        [n, correction_of](const Tensor& x, nb::handle dim_or_unbiased,
                           std::optional<bool> unbiased, bool keepdim,
                           std::optional<double> correction) -> nb::object {
          std::optional<DimVector> dim;
          if (PyBool_Check(dim_or_unbiased.ptr())) {  // var(x, unbiased)
            unbiased = nb::cast<bool>(dim_or_unbiased);
          } else if (!dim_or_unbiased.is_none()) {
            dim = arg_cast<DimVector>(dim_or_unbiased, "dim", "an int or a tuple of ints");
          }
          const double c = correction_of(unbiased, correction);
          if (n == "var") return wrap(var(x, dim, c, keepdim));
          if (n == "std") return wrap(ember::std(x, dim, c, keepdim));
          auto [a, b] =
              n == "var_mean" ? var_mean(x, dim, c, keepdim) : std_mean(x, dim, c, keepdim);
          return nb::make_tuple(wrap(a), wrap(b));
        },
        nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false,
        nb::kw_only(), nb::arg("correction") = nb::none());
  }
  def_both(
      m, "logsumexp",
      [](const Tensor& x, DimVector dim, bool keepdim) { return logsumexp(x, dim, keepdim); },
      nb::arg("dim"), nb::arg("keepdim") = false);
  for (const char* name : {"softmax", "log_softmax"}) {
    const bool log = name[0] == 'l';
    def_both(
        m, name,
        [log](const Tensor& x, int64_t dim, std::optional<DType> dtype) {
          return log ? log_softmax(x, dim, dtype) : softmax(x, dim, dtype);
        },
        nb::arg("dim"), nb::arg("dtype") = nb::none());
  }
  // torch.norm: p a number, "fro" (the 2-norm over the given dims) or "nuc" (not yet).
  def_both(
      m, "norm",
      [](const Tensor& x, nb::handle p, std::optional<DimVector> dim, bool keepdim,
         std::optional<DType> dtype) {
        const IntArrayRef dims = dim ? IntArrayRef(*dim) : IntArrayRef();
        double ord = 2;
        if (nb::isinstance<nb::str>(p)) {
          const std::string s = nb::cast<std::string>(p);
          EMBER_CHECK_KIND(ErrorKind::NotImplemented, s != "nuc",
                           "[norm] p='nuc' needs a singular value decomposition, which ember "
                           "does not have yet");
          EMBER_CHECK_VALUE(s == "fro", "[norm] unknown p '", s,
                            "' (use a number, 'fro' or 'nuc')");
        } else if (!p.is_none()) {
          ord = arg_cast<double>(p, "norm(): p", "a number or a string");
        }
        return linalg_vector_norm(x, ord, dims, keepdim, dtype);
      },
      nb::arg("p") = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::arg("dtype") = nb::none());
  nb::module_ linalg = m.def_submodule("_linalg", "ember.linalg's C++ functions");
  linalg.def(
      "vector_norm",
      [](const Tensor& x, double ord, std::optional<DimVector> dim, bool keepdim,
         std::optional<DType> dtype) {
        return linalg_vector_norm(x, ord, dim ? IntArrayRef(*dim) : IntArrayRef(), keepdim, dtype);
      },
      nb::arg("x"), nb::arg("ord") = 2, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::kw_only(), nb::arg("dtype") = nb::none());
  linalg.def(
      "matrix_norm",
      [](const Tensor& a, nb::handle ord, DimVector dim, bool keepdim) {
        if (nb::isinstance<nb::str>(ord)) {
          return linalg_matrix_norm(a, nb::cast<std::string>(ord), dim, keepdim);
        }
        return linalg_matrix_norm(
            a, arg_cast<double>(ord, "matrix_norm(): ord", "a number or a string"), dim, keepdim);
      },
      nb::arg("A"), nb::arg("ord") = "fro", nb::arg("dim") = DimVector{-2, -1},
      nb::arg("keepdim") = false);

  // ---- linear algebra -----------------------------------------------------------------------
  def_both(
      m, "matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, nb::arg("other"));
  def_both(
      m, "mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }, nb::arg("mat2"));
  def_both(
      m, "bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); }, nb::arg("mat2"));

  // ---- views and copies ---------------------------------------------------------------------
  cls.def("view",
          [](const Tensor& t, nb::args shape) -> nb::object {
            if (shape.size() == 1 && nb::isinstance<DTypeObject>(shape[0])) {
              EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[view] view(dtype) is not supported yet");
            }
            return wrap(view(t, shape_from_args(shape, "view")));
          })
      .def("reshape", [](const Tensor& t,
                         nb::args shape) { return reshape(t, shape_from_args(shape, "reshape")); })
      .def("expand", [](const Tensor& t,
                        nb::args shape) { return expand(t, shape_from_args(shape, "expand")); })
      .def("permute", [](const Tensor& t,
                         nb::args dims) { return permute(t, shape_from_args(dims, "permute")); })
      .def("sum_to_size",
           [](const Tensor& t, nb::args size) {
             return sum_to_size(t, shape_from_args(size, "sum_to_size"));
           })
      .def(
          "view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); },
          nb::arg("other"))
      .def(
          "reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); },
          nb::arg("other"))
      .def(
          "expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); },
          nb::arg("other"))
      .def_prop_ro("T",
                   [](const Tensor& t) {
                     DimVector dims;
                     for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
                     return permute(t, dims);
                   })
      .def_prop_ro("mT", [](const Tensor& t) {
        EMBER_CHECK(t.dim() >= 2,
                    "[mT] tensor.mT is only supported on matrices or batches of "
                    "matrices. Got ",
                    t.dim(), "-D tensor.");
        return transpose(t, -2, -1);
      });
  m.def(
      "reshape", [](const Tensor& t, DimVector shape) { return reshape(t, shape); },
      nb::arg("input"), nb::arg("shape"));
  m.def(
      "permute", [](const Tensor& t, DimVector dims) { return permute(t, dims); }, nb::arg("input"),
      nb::arg("dims"));
  def_both(
      m, "transpose", [](const Tensor& t, int64_t d0, int64_t d1) { return transpose(t, d0, d1); },
      nb::arg("dim0"), nb::arg("dim1"));
  def_both(
      m, "swapaxes", [](const Tensor& t, int64_t d0, int64_t d1) { return transpose(t, d0, d1); },
      nb::arg("axis0"), nb::arg("axis1"));
  def_both(m, "t", [](const Tensor& t) { return ember::t(t); });
  def_both(
      m, "squeeze",
      [](const Tensor& t, std::optional<DimVector> dim) {
        if (!dim) return squeeze(t);
        Tensor out = t;
        // Several dims: squeeze from the last so the earlier indices stay valid.
        DimVector dims;
        for (int64_t d : *dim) dims.push_back(wrap_dim(d, t.dim(), "squeeze"));
        std::sort(dims.begin(), dims.end());
        for (size_t i = 1; i < dims.size(); ++i) {
          EMBER_CHECK(dims[i] != dims[i - 1], "[squeeze] dim ", dims[i],
                      " appears multiple times in the list of dims");
        }
        for (size_t i = dims.size(); i-- > 0;) out = squeeze(out, dims[i]);
        return out;
      },
      nb::arg("dim") = nb::none());
  def_both(
      m, "unsqueeze", [](const Tensor& t, int64_t dim) { return unsqueeze(t, dim); },
      nb::arg("dim"));
  def_both(
      m, "flatten", [](const Tensor& t, int64_t s, int64_t e) { return flatten(t, s, e); },
      nb::arg("start_dim") = 0, nb::arg("end_dim") = -1);
  def_both(
      m, "narrow",
      [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
        return narrow(t, dim, start, length);
      },
      nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  def_both(
      m, "select",
      [](const Tensor& t, int64_t dim, int64_t index) { return select(t, dim, index); },
      nb::arg("dim"), nb::arg("index"));
  def_both(
      m, "clone", [](const Tensor& t, MemoryFormat format) { return clone(t, format); },
      nb::kw_only(), nb::arg("memory_format") = MemoryFormat::Preserve);
  def_both(
      m, "as_strided",
      [](const Tensor& t, DimVector size, DimVector stride, std::optional<int64_t> offset) {
        return as_strided(t, size, stride, offset);
      },
      nb::arg("size"), nb::arg("stride"), nb::arg("storage_offset") = nb::none());
  // The gradients of select and slicing, as ops of their own (their backward is select/slice).
  m.def(
      "_select_backward",
      [](const Tensor& g, DimVector sizes, int64_t dim, int64_t index) {
        return select_backward(g, sizes, dim, index);
      },
      nb::arg("grad"), nb::arg("input_sizes"), nb::arg("dim"), nb::arg("index"));
  m.def(
      "_slice_backward",
      [](const Tensor& g, DimVector sizes, int64_t dim, int64_t start, int64_t end, int64_t step) {
        return slice_backward(g, sizes, dim, start, end, step);
      },
      nb::arg("grad"), nb::arg("input_sizes"), nb::arg("dim"), nb::arg("start"), nb::arg("end"),
      nb::arg("step"));
  def_both(m, "detach", [](const Tensor& t) { return detach(t); });
  cls.def(
      "contiguous",
      [](nb::handle self, MemoryFormat format) -> nb::object {
        const Tensor& t = nb::cast<const Tensor&>(self);
        Tensor out = contiguous(t, format);
        return out.is_same(t) ? nb::borrow(self) : wrap(std::move(out));
      },
      nb::arg("memory_format") = MemoryFormat::Contiguous);
  cls.def("detach_", [](nb::handle self) {
    nb::cast<Tensor&>(self).detach_();
    return nb::borrow(self);
  });

  // to(dtype), to(device), to(device, dtype), to(other), with keywords as PyTorch.
  cls.def("to", [](nb::handle self, nb::args args, nb::kwargs kwargs) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    std::optional<DType> dtype;
    std::optional<Device> device;
    bool copy = false;
    MemoryFormat format = MemoryFormat::Preserve;
    for (nb::handle a : args) {
      if (nb::isinstance<Tensor>(a)) {
        dtype = nb::cast<const Tensor&>(a).dtype();
        device = nb::cast<const Tensor&>(a).device();
      } else if (nb::isinstance<DTypeObject>(a)) {
        dtype = arg_cast<DType>(a, "dtype", "an ember.dtype");
      } else if (a.is_none()) {
        continue;
      } else if (nb::isinstance<Device>(a) || nb::isinstance<nb::str>(a)) {
        device = device_arg(a);
      } else if (PyBool_Check(a.ptr())) {
        continue;  // non_blocking
      } else {
        type_error("to() received an invalid combination of arguments");
      }
    }
    for (auto [k, v] : kwargs) {
      const std::string key = nb::cast<std::string>(k);
      if (key == "dtype") {
        if (!v.is_none()) dtype = arg_cast<DType>(v, "to(): dtype", "an ember.dtype");
      } else if (key == "device") {
        if (!v.is_none()) device = device_arg(v);
      } else if (key == "copy") {
        copy = arg_cast<bool>(v, "to(): copy", "a bool");
      } else if (key == "memory_format") {
        format = arg_cast<MemoryFormat>(v, "to(): memory_format", "an ember.memory_format");
      } else if (key != "non_blocking") {
        type_error("to() got an unexpected keyword argument '" + key + "'");
      }
    }
    Tensor out = to_impl(t, dtype, device, copy);
    // to(memory_format=...) copies unless the tensor's suggested format is already that one, as
    // PyTorch: a transposed matrix stays as it is, an N x C x 1 x 1 tensor takes the format's
    // strides.
    if (format != MemoryFormat::Preserve && out.suggest_memory_format() != format)
      out = clone(out, format);
    return out.is_same(t) ? nb::borrow(self) : wrap(std::move(out));
  });
  struct Cast {
    const char* name;
    DType dtype;
  };
  for (Cast c :
       {Cast{"float", kFloat32}, Cast{"double", kFloat64}, Cast{"half", kFloat16},
        Cast{"bfloat16", kBFloat16}, Cast{"int", kInt32}, Cast{"long", kInt64},
        Cast{"short", kInt16}, Cast{"char", kInt8}, Cast{"byte", kUInt8}, Cast{"bool", kBool}}) {
    const DType dt = c.dtype;
    cls.def(c.name, [dt](nb::handle self) -> nb::object {
      const Tensor& t = nb::cast<const Tensor&>(self);
      return t.dtype() == dt ? nb::borrow(self) : wrap(to_dtype(t, dt));
    });
  }
  cls.def("cpu", [](nb::handle self) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    return t.device().is_cpu() ? nb::borrow(self) : wrap(t.to(kCPU));
  });
  cls.def(
      "type_as", [](const Tensor& t, const Tensor& o) { return to_dtype(t, o.dtype()); },
      nb::arg("other"));
}

}  // namespace ember::py
