// Ops as module functions (ember.exp(x)) and as Tensor methods (x.exp()), and the operators.
// Elementwise ops are bound in loops over the lists in ember/ops/elementwise_ops.h.
#include "init.h"

namespace ember::py {
namespace {

// Binds f as ember.<name>(input, ...) and as Tensor.<name>(...).
template <class F, class... Extra>
void def_both(nb::module_& m, const char* name, F f, const Extra&... extra) {
  m.def(name, f, nb::arg("input"), extra...);
  tensor_class().def(name, f, extra...);
}

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

nb::handle max_type;  // namedtuple ("values", "indices"), owned by the module (_max_type)

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
#define EMBER_BIND_UNARY(name, ...) def_both(m, #name, [](const Tensor& x) { return name(x); });
  EMBER_UNARY_OPS(EMBER_BIND_UNARY)
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
#undef EMBER_BIND_OPERATOR
  cls.def(
         "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); },
         nb::is_operator())
      .def("__neg__", [](const Tensor& a) { return neg(a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__abs__", [](const Tensor& a) { return abs(a); });
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
  EMBER_BIND_INPLACE("mul_", mul_, nb::arg("other"))
  EMBER_BIND_INPLACE("div_", div_, nb::arg("other"))
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
  m.attr("_max_type") =
      nb::module_::import_("collections").attr("namedtuple")("max", "values indices");
  max_type = m.attr("_max_type");
  def_both(
      m, "max",
      [](const Tensor& x, std::optional<int64_t> dim, bool keepdim) -> nb::object {
        if (!dim) {
          EMBER_CHECK(!keepdim, "[max] keepdim needs a dim");
          return wrap(max(x));
        }
        auto [values, indices] = max(x, *dim, keepdim);
        return max_type(wrap(values), wrap(indices));
      },
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);

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
  def_both(m, "clone", [](const Tensor& t) { return clone(t); });
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
  cls.def("contiguous", [](nb::handle self) -> nb::object {
    const Tensor& t = nb::cast<const Tensor&>(self);
    return t.is_contiguous() ? nb::borrow(self) : wrap(clone(t));
  });
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
      } else if (key != "non_blocking" && key != "memory_format") {
        type_error("to() got an unexpected keyword argument '" + key + "'");
      }
    }
    Tensor out = to_impl(t, dtype, device, copy);
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
