// Elementwise ops: type promotion, broadcasting, the kernel call, and the backward of each op,
// all expanded from the lists in elementwise_ops.h.
#include "ember/ops/elementwise.h"

#include <algorithm>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/math.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise_grad.h"
#include "ember/ops/reduce.h"
#include "ember/ops/registry.h"
#include "ember/ops/view.h"

namespace ember {

namespace detail {
// The result keeps the layout of the first input that has the result's shape and is dense but
// not contiguous (PyTorch does the same), so channels-last activations stay channels-last
// through relu, add and the other elementwise ops; otherwise it is contiguous.
Tensor new_output(IntArrayRef shape, DType dtype, Device device, const Tensor* a, const Tensor* b) {
  for (const Tensor* t : {a, b}) {
    if (!t || t->is_contiguous() || !t->is_non_overlapping_and_dense()) continue;
    if (t->sizes() == shape)
      return empty_strided(shape, t->strides(), TensorOptions(dtype).device(device));
  }
  return empty(shape, TensorOptions(dtype).device(device));
}

Tensor masked_grad(const Tensor& g,
                   const Tensor& t,
                   const Scalar& lo,
                   const std::optional<Scalar>& hi,
                   bool closed) {
  const ElementwiseKernels::MaskedGrad k = kernels(g.device()).elementwise.masked_grad;
  if (!k || g.device() != t.device() || g.dtype() != t.dtype() || !is_floating(g.dtype()) ||
      g.sizes() != t.sizes()) {
    // Backends without the kernel, and gradients of another dtype or shape: the same values in
    // three passes.
    Tensor mask = closed ? ge(t, lo) : gt(t, lo);
    if (hi) mask = mask * (closed ? le(t, *hi) : lt(t, *hi));
    return g * mask;
  }
  // The layout g * mask gives.
  Tensor out = new_output(g.sizes(), g.dtype(), g.device(), &g, &t);
  // No upper bound is +inf, closed: only NaN fails t <= inf, and NaN fails t > lo as well.
  const Scalar h = hi ? *hi : Scalar(std::numeric_limits<double>::infinity());
  k(out, g, t, lo, h, closed, closed || !hi);
  if (any_requires_grad(g)) {
    // d out / d g is the same mask; t gets no gradient (the mask is flat almost everywhere), as
    // the comparisons of the composite expression gave none. PyTorch's name for relu's.
    record("ThresholdBackwardBackward0", {&g}, {&out},
           [st = SavedTensor(t), lo, hi, closed](TensorList& grads, Node& n) {
             return TensorList{masked_grad(grads[0], st.unpack(n), lo, hi, closed)};
           });
  }
  return out;
}
}  // namespace detail

namespace {

struct ElementwiseInfo {
  const char* name;
  const char* inplace_name;
  const char* backward_name;
  DTypeSet dtypes;
  bool to_float;
  unsigned saves;  // kSaveA | kSaveB | kSaveOut: what the gradient formulas read
  bool inplace;    // whether the op has a public in-place form (the lists' form column)
};

constexpr ElementwiseInfo kUnary[] = {
#define EMBER_INFO(name, F, dtypes, to_float, saves, ...) \
  {#name, #name "_", #F "Backward0", dtypes, to_float, saves, true},
    EMBER_UNARY_OPS(EMBER_INFO)};
constexpr ElementwiseInfo kBinary[] = {EMBER_BINARY_OPS(EMBER_INFO)};
#undef EMBER_INFO
constexpr ElementwiseInfo kParamUnary[] = {
#define EMBER_INFO(name, F, dtypes, to_float, saves, grad, form, ...) \
  {#name, #name "_", #F "Backward0", dtypes, to_float, saves, has_inplace(OpForm::form)},
    EMBER_PARAM_UNARY_OPS(EMBER_INFO)
#undef EMBER_INFO
};
constexpr ElementwiseInfo kCompare[] = {
#define EMBER_INFO(name, F) \
  {#name, #name "_", "", compare_dtypes(CompareOp::name), false, kSaveNone, true},
    EMBER_COMPARE_OPS(EMBER_INFO)
#undef EMBER_INFO
};
constexpr ElementwiseInfo kPredicate[] = {
#define EMBER_INFO(name, F, form) \
  {#name, #name "_", "", kAllTypesAndComplex, false, kSaveNone, has_inplace(OpForm::form)},
    EMBER_PREDICATE_OPS(EMBER_INFO)
#undef EMBER_INFO
};

// Whether the op has a gradient: false for ops on integers and bools only.
bool differentiable(const ElementwiseInfo& i) {
  return i.to_float || !(i.dtypes - kIntegralTypes - kBool).empty();
}

// The ops of this topic that are not in the lists: composites of several elementwise ops
// (elementwise_param.cpp) and the whole-tensor writes.
const OpInfo kOtherOps[] = {
    {"lerp", OpKind::Other, kFloatingTypes, true},
    {"lerp_", OpKind::Inplace, kFloatingTypes, true},
    {"addcmul", OpKind::Other, kNumericTypes | kComplexTypes, true},
    {"addcmul_", OpKind::Inplace, kNumericTypes | kComplexTypes, true},
    {"addcdiv", OpKind::Other, kFloatingTypes, true},
    {"addcdiv_", OpKind::Inplace, kFloatingTypes, true},
    {"isclose", OpKind::Compare, kAllTypesAndComplex, false},
    {"allclose", OpKind::Compare, kAllTypesAndComplex, false},
    {"equal", OpKind::Compare, kAllTypesAndComplex, false},
    {"where", OpKind::Other, kAllTypesAndComplex, true},
    {"zero_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"fill_", OpKind::Inplace, kAllTypesAndComplex, true},
    {"copy_", OpKind::Inplace, kAllTypesAndComplex, true},
};

std::vector<OpInfo> make_op_infos() {
  std::vector<OpInfo> v;
  // The in-place forms accept the dtypes their kernel computes in: self must be able to hold the
  // result, so an integer tensor has no exp_ (its exp is a float tensor). A comparison's or
  // predicate's in-place form writes 0/1 in self's dtype, any dtype.
  const auto add = [&v](const ElementwiseInfo& i, OpKind kind) {
    const bool bool_out = kind == OpKind::Compare;
    // An op that converts integers to float takes every real dtype, and complex where it
    // computes in complex.
    const DTypeSet dtypes = i.to_float ? kAllTypes | (i.dtypes - kAllTypes) : i.dtypes;
    v.push_back({i.name, kind, dtypes, !bool_out && differentiable(i)});
    if (i.inplace)
      v.push_back({i.inplace_name, OpKind::Inplace,
                   &i == &kUnary[int(UnaryOp::abs)] ? i.dtypes - kComplexTypes : i.dtypes,
                   !bool_out && differentiable(i)});
  };
  for (const auto& i : kUnary) add(i, OpKind::Unary);
  for (const auto& i : kParamUnary) add(i, OpKind::Unary);
  for (const auto& i : kBinary) add(i, OpKind::Binary);
  for (const auto& i : kCompare) add(i, OpKind::Compare);
  for (const auto& i : kPredicate) add(i, OpKind::Compare);
  v.insert(v.end(), std::begin(kOtherOps), std::end(kOtherOps));
  return v;
}

// The dtype the kernel computes in, or an error naming the op.
DType compute_dtype(const ElementwiseInfo& info, DType promoted) {
  const DType dt = info.to_float && !is_differentiable(promoted) ? get_default_dtype() : promoted;
  EMBER_CHECK_TYPE(info.dtypes.contains(dt), "[", info.name, "] not implemented for dtype ", dt,
                   " (supported: ", info.dtypes, ")");
  return dt;
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  EMBER_CHECK(a.device() == b.device(), "[", op,
              "] expected all tensors to be on the same "
              "device, but found at least two devices, ",
              a.device(), " and ", b.device());
}

// `t` converted to `dtype` without recording: autograd sees the op's original inputs.
Tensor cast(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  NoGradGuard no_grad;
  return to_dtype(t, dtype);
}

const Scalar& cast(const Scalar& s, DType) { return s; }

// PyTorch's canCast: no complex to real, no float to integer, no number to bool.
bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_differentiable(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

const Tensor* layout_source(const Tensor& t) { return &t; }
const Tensor* layout_source(const Scalar&) { return nullptr; }

using detail::new_output;

// ---- forward without autograd ----------------------------------------------------------------

Tensor unary_forward(UnaryOp op, const Tensor& x) {
  const auto& info = kUnary[int(op)];
  const DType dt = compute_dtype(info, x.dtype());
  Tensor out = new_output(x.sizes(), dt, x.device(), &x);
  kernel(kernels(x.device()).elementwise.unary[int(op)], x.device(), info.name)(out, cast(x, dt));
  return out;
}

Tensor param_unary_forward(ParamUnaryOp op, const Tensor& x, const UnaryParams& p) {
  const auto& info = kParamUnary[int(op)];
  const DType dt = compute_dtype(info, x.dtype());
  Tensor out = new_output(x.sizes(), dt, x.device(), &x);
  kernel(kernels(x.device()).elementwise.param_unary[int(op)], x.device(), info.name)(
      out, cast(x, dt), p.data());
  return out;
}

template <class A, class B>
Tensor binary_forward(const ElementwiseInfo& info,
                      ElementwiseKernels::Binary slot,
                      DType dt,
                      bool bool_out,
                      IntArrayRef shape,
                      Device device,
                      const A& a,
                      const B& b) {
  Tensor out = new_output(shape, bool_out ? kBool : dt, device, layout_source(a), layout_source(b));
  kernel(slot, device, info.name)(out, Operand(a), Operand(b));
  return out;
}

Tensor binary_tt(const ElementwiseInfo& info,
                 ElementwiseKernels::Binary slot,
                 bool bool_out,
                 const Tensor& a,
                 const Tensor& b) {
  check_same_device(a, b, info.name);
  const DType dt = compute_dtype(info, result_type(a, b));
  const DimVector shape = a.sizes() == b.sizes()
                              ? DimVector(a.sizes().data(), a.sizes().size())
                              : broadcast_shapes(a.sizes(), b.sizes(), info.name);
  return binary_forward(info, slot, dt, bool_out, shape, a.device(), cast(a, dt), cast(b, dt));
}

Tensor binary_ts(const ElementwiseInfo& info,
                 ElementwiseKernels::Binary slot,
                 bool bool_out,
                 const Tensor& a,
                 const Scalar& b,
                 bool scalar_first) {
  const DType dt = compute_dtype(info, result_type(a, b));
  const Tensor ca = cast(a, dt);
  return scalar_first ? binary_forward(info, slot, dt, bool_out, a.sizes(), a.device(), b, ca)
                      : binary_forward(info, slot, dt, bool_out, a.sizes(), a.device(), ca, b);
}

// ---- autograd ----------------------------------------------------------------------------------

SavedTensor save_if(bool cond, const Tensor& t) { return cond ? SavedTensor(t) : SavedTensor(); }

// PyTorch's convention for complex inputs: the gradient of a holomorphic f is g * conj(f'(z)).
// The lists' formulas are f'(z) with real coefficients, for which conj(f'(z)) = f'(conj(z)): the
// saved tensors go into them conjugated (real ones unchanged).
Tensor conj_saved(const Tensor& t) { return t.defined() && is_complex(t.dtype()) ? conj(t) : t; }
SavedTensor save_out_if(bool cond, const Tensor& t) {
  return cond ? SavedTensor(t, 0) : SavedTensor();
}

template <unsigned Saves, class Grad>
void record_unary(const char* name, const Tensor& x, const Tensor& out, Grad grad) {
  record(name, {&x}, {&out},
         [sx = save_if(Saves & kSaveX, x), so = save_out_if(Saves & kSaveOut, out), grad](
             TensorList& grads, Node& n) {
           return TensorList{grad(grads[0], conj_saved(sx.unpack(n)), conj_saved(so.unpack(n)))};
         });
}

template <unsigned Saves, class GradA, class GradB>
void record_binary(const char* name,
                   const Tensor& a,
                   const Tensor& b,
                   const Tensor& out,
                   GradA grad_a,
                   GradB grad_b) {
  record(name, {&a, &b}, {&out},
         [sa = save_if(Saves & kSaveA, a), sb = save_if(Saves & kSaveB, b),
          so = save_out_if(Saves & kSaveOut, out), grad_a, grad_b](TensorList& grads, Node& n) {
           const Tensor ta = conj_saved(sa.unpack(n)), tb = conj_saved(sb.unpack(n)),
                        tout = conj_saved(so.unpack(n));
           TensorList r(2);
           // Only the inputs that need a gradient get one computed.
           if (n.next_edges()[0].valid()) r[0] = grad_a(grads[0], ta, tb, tout);
           if (n.next_edges()[1].valid()) r[1] = grad_b(grads[0], ta, tb, tout);
           return r;
         });
}

// What PyTorch refuses outright for a tensor op a Python number: integer tensors to negative
// integer powers (the result would be 0 or 1 by truncation, almost never what was meant).
void check_scalar_operand(BinaryOp op, const Tensor& a, const Scalar& b) {
  if (op == BinaryOp::pow && !is_differentiable(a.dtype()) && b.is_integral()) {
    EMBER_CHECK(b.to_int() >= 0, "[pow] Integers to negative integer powers are not allowed.");
  }
}

// Integer division by zero has no value to give: refused before the kernel runs, as PyTorch's
// CPU kernels do (floating division gives inf or nan instead).
bool is_integer_division(BinaryOp op, DType dt) {
  return (op == BinaryOp::floor_divide || op == BinaryOp::remainder || op == BinaryOp::fmod) &&
         !is_floating(dt);
}
void check_divisor(BinaryOp op, DType dt, const Tensor& b) {
  if (!is_integer_division(op, dt) || b.numel() == 0) return;
  NoGradGuard no_grad;
  EMBER_CHECK(!any(eq(b, 0)).item().to_bool(), "[", kBinary[int(op)].name,
              "] ZeroDivisionError: integer division by zero");
}
void check_divisor(BinaryOp op, DType dt, const Scalar& b) {
  EMBER_CHECK(!is_integer_division(op, dt) || b.to_double() != 0, "[", kBinary[int(op)].name,
              "] ZeroDivisionError: integer division by zero");
}

// A scalar operand as a 0-d tensor, for backward formulas (only built when recording).
Tensor wrap(const Scalar& s, const Tensor& like) {
  return scalar_tensor(s, TensorOptions(like.dtype()).device(like.device()));
}

}  // namespace

std::span<const OpInfo> elementwise_op_infos() {
  static const std::vector<OpInfo> infos = make_op_infos();
  return infos;
}

// ---- type promotion
// ------------------------------------------------------------------------------

namespace {
enum Category { kCatBool, kCatInt, kCatFloat, kCatComplex };
Category category(DType t) {
  return t == kBool ? kCatBool : is_floating(t) ? kCatFloat : is_complex(t) ? kCatComplex : kCatInt;
}

// PyTorch's combine_categories: the higher-priority dtype wins unless the lower-priority one is
// of a higher category, in which case the two are promoted.
DType combine(DType higher, DType lower) {
  if (category(lower) > category(higher)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return a.dtype();
  const bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.dtype(), b.dtype());
  return a0 ? combine(b.dtype(), a.dtype()) : combine(a.dtype(), b.dtype());
}

DType result_type(const Tensor& a, const Scalar& b) {
  // A scalar stands for its category's default dtype: bool, int64, the default float, or the
  // complex dtype of the default float.
  const DType weak = b.is_bool()       ? kBool
                     : b.is_integral() ? kInt64
                     : b.is_complex()  ? to_complex_dtype(get_default_dtype())
                                       : get_default_dtype();
  return combine(a.dtype(), weak);
}

// ---- unary ops
// -------------------------------------------------------------------------------------

#define EMBER_DEFINE_UNARY(name, F, dtypes, to_float, saves, grad_expr)                       \
  Tensor name(const Tensor& x) {                                                              \
    if constexpr (UnaryOp::name == UnaryOp::abs) {                                            \
      if (is_complex(x.dtype())) return detail::complex_abs(x);                               \
    }                                                                                         \
    Tensor out = unary_forward(UnaryOp::name, x);                                             \
    if (any_requires_grad(x) && is_differentiable(out.dtype())) {                             \
      record_unary<saves>(kUnary[int(UnaryOp::name)].backward_name, x, out,                   \
                          [](const Tensor& g, const Tensor& x, const Tensor& out) -> Tensor { \
                            (void)x;                                                          \
                            (void)out;                                                        \
                            return grad_expr;                                                 \
                          });                                                                 \
    }                                                                                         \
    return out;                                                                               \
  }
EMBER_UNARY_OPS(EMBER_DEFINE_UNARY)
#undef EMBER_DEFINE_UNARY

Tensor param_unary(ParamUnaryOp op, const Tensor& x, const UnaryParams& p) {
  Tensor out = param_unary_forward(op, x, p);
  if (!any_requires_grad(x) || !is_differentiable(out.dtype())) return out;
  switch (op) {
#define EMBER_CASE(name, F, dtypes, to_float, saves, grad_expr, ...)                         \
  case ParamUnaryOp::name:                                                                   \
    record_unary<saves>(kParamUnary[int(op)].backward_name, x, out,                          \
                        [p](const Tensor& g, const Tensor& x, const Tensor& out) -> Tensor { \
                          (void)x, (void)out, (void)p;                                       \
                          return grad_expr;                                                  \
                        });                                                                  \
    break;
    EMBER_PARAM_UNARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  return out;
}

#define EMBER_DEFINE_PREDICATE(name, ...)                                                         \
  Tensor name(const Tensor& x) {                                                                  \
    Tensor out = new_output(x.sizes(), kBool, x.device(), &x);                                    \
    kernel(kernels(x.device()).elementwise.predicate[int(PredicateOp::name)], x.device(), #name)( \
        out, x);                                                                                  \
    return out;                                                                                   \
  }
EMBER_PREDICATE_OPS(EMBER_DEFINE_PREDICATE)
#undef EMBER_DEFINE_PREDICATE

// ---- binary ops
// ------------------------------------------------------------------------------------

#define EMBER_DEFINE_BINARY(name, F, dtypes, to_float, saves, grad_a_expr, grad_b_expr)            \
  namespace {                                                                                      \
  void record_##name(const Tensor& a, const Tensor& b, const Tensor& out) {                        \
    record_binary<saves>(                                                                          \
        kBinary[int(BinaryOp::name)].backward_name, a, b, out,                                     \
        [](const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& out) -> Tensor {       \
          (void)a, (void)b, (void)out;                                                             \
          return grad_a_expr;                                                                      \
        },                                                                                         \
        [](const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& out) -> Tensor {       \
          (void)a, (void)b, (void)out;                                                             \
          return grad_b_expr;                                                                      \
        });                                                                                        \
  }                                                                                                \
  }                                                                                                \
  Tensor name(const Tensor& a, const Tensor& b) {                                                  \
    const auto& info = kBinary[int(BinaryOp::name)];                                               \
    check_divisor(BinaryOp::name, result_type(a, b), b);                                           \
    Tensor out =                                                                                   \
        binary_tt(info, kernels(a.device()).elementwise.binary[int(BinaryOp::name)], false, a, b); \
    if (any_requires_grad(a, b) && is_differentiable(out.dtype())) record_##name(a, b, out);       \
    return out;                                                                                    \
  }                                                                                                \
  Tensor name(const Tensor& a, const Scalar& b) {                                                  \
    const auto& info = kBinary[int(BinaryOp::name)];                                               \
    check_scalar_operand(BinaryOp::name, a, b);                                                    \
    check_divisor(BinaryOp::name, result_type(a, b), b);                                           \
    Tensor out = binary_ts(info, kernels(a.device()).elementwise.binary[int(BinaryOp::name)],      \
                           false, a, b, false);                                                    \
    if (any_requires_grad(a) && is_differentiable(out.dtype()))                                    \
      record_##name(a, wrap(b, out), out);                                                         \
    return out;                                                                                    \
  }                                                                                                \
  Tensor name(const Scalar& a, const Tensor& b) {                                                  \
    const auto& info = kBinary[int(BinaryOp::name)];                                               \
    check_divisor(BinaryOp::name, result_type(b, a), b);                                           \
    Tensor out = binary_ts(info, kernels(b.device()).elementwise.binary[int(BinaryOp::name)],      \
                           false, b, a, true);                                                     \
    if (any_requires_grad(b) && is_differentiable(out.dtype()))                                    \
      record_##name(wrap(a, out), b, out);                                                         \
    return out;                                                                                    \
  }
EMBER_BINARY_OPS(EMBER_DEFINE_BINARY)
#undef EMBER_DEFINE_BINARY

#define EMBER_DEFINE_COMPARE(name, F)                                                            \
  Tensor name(const Tensor& a, const Tensor& b) {                                                \
    return binary_tt(kCompare[int(CompareOp::name)],                                             \
                     kernels(a.device()).elementwise.compare[int(CompareOp::name)], true, a, b); \
  }                                                                                              \
  Tensor name(const Tensor& a, const Scalar& b) {                                                \
    return binary_ts(kCompare[int(CompareOp::name)],                                             \
                     kernels(a.device()).elementwise.compare[int(CompareOp::name)], true, a, b,  \
                     false);                                                                     \
  }                                                                                              \
  Tensor name(const Scalar& a, const Tensor& b) {                                                \
    return binary_ts(kCompare[int(CompareOp::name)],                                             \
                     kernels(b.device()).elementwise.compare[int(CompareOp::name)], true, b, a,  \
                     true);                                                                      \
  }
EMBER_COMPARE_OPS(EMBER_DEFINE_COMPARE)
#undef EMBER_DEFINE_COMPARE

namespace {
bool is_one(const Scalar& s) { return s.is_integral() && s.to_int() == 1; }

// PyTorch's rule for add/sub's alpha: no float alpha for integer results, no bool alpha for
// non-bool results.
void check_alpha(DType result, const Scalar& alpha, const char* op) {
  EMBER_CHECK(!(alpha.is_floating() && !is_differentiable(result)), "[", op,
              "] for integral input "
              "tensors, argument alpha must not be a floating point number (got ",
              alpha, ")");
  EMBER_CHECK(!(alpha.is_bool() && result != kBool), "[", op,
              "] boolean alpha only supported for boolean results");
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (is_one(alpha)) return add(a, b);
  check_alpha(result_type(a, b), alpha, "add");
  return add(a, mul(b, alpha));
}

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (is_one(alpha)) return sub(a, b);
  check_alpha(result_type(a, b), alpha, "sub");
  return sub(a, mul(b, alpha));
}

// ---- where ------------------------------------------------------------------------------------

namespace {

// cond ? a : b; `a` and `b` are Tensors or Scalars, promoted together as a binary op's operands.
template <class A, class B>
Tensor where_impl(const Tensor& cond, const A& a, const B& b) {
  EMBER_CHECK(cond.dtype() == kBool,
              "[where] expected condition to be a boolean tensor, but got "
              "a tensor with dtype ",
              cond.dtype());
  constexpr bool a_tensor = std::is_same_v<A, Tensor>, b_tensor = std::is_same_v<B, Tensor>;
  DType dt;
  DimVector shape(cond.sizes().data(), cond.sizes().size());
  if constexpr (a_tensor && b_tensor) {
    dt = result_type(a, b);
    shape = broadcast_shapes(shape, broadcast_shapes(a.sizes(), b.sizes(), "where"), "where");
  } else if constexpr (a_tensor) {
    dt = result_type(a, b);
    shape = broadcast_shapes(shape, a.sizes(), "where");
  } else {
    dt = result_type(b, a);
    shape = broadcast_shapes(shape, b.sizes(), "where");
  }
  const Device dev = cond.device();
  if constexpr (a_tensor) check_same_device(cond, a, "where");
  if constexpr (b_tensor) check_same_device(cond, b, "where");
  Tensor out = new_output(shape, dt, dev, layout_source(a), layout_source(b));
  kernel(kernels(dev).elementwise.where, dev, "where")(out, cond, Operand(cast(a, dt)),
                                                       Operand(cast(b, dt)));
  bool grad = false;
  if constexpr (a_tensor) grad |= any_requires_grad(a);
  if constexpr (b_tensor) grad |= any_requires_grad(b);
  if (grad && is_differentiable(dt)) {
    const Tensor none;
    const Tensor* ta = nullptr;
    const Tensor* tb = nullptr;
    if constexpr (a_tensor) ta = &a;
    if constexpr (b_tensor) tb = &b;
    record("WhereBackward0", {ta ? ta : &none, tb ? tb : &none}, {&out},
           [sc = SavedTensor(cond)](TensorList& g, Node& n) {
             const Tensor c = sc.unpack(n);
             TensorList r(2);
             if (n.next_edges()[0].valid()) r[0] = where(c, g[0], Scalar(0));
             if (n.next_edges()[1].valid()) r[1] = where(c, Scalar(0), g[0]);
             return r;
           });
  }
  return out;
}

}  // namespace

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return where_impl(cond, a, b);
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where_impl(cond, a, b);
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where_impl(cond, a, b);
}

// ---- in-place ops
// ------------------------------------------------------------------------------------

namespace {

// True when `a` and `b` share memory without being the same elements in the same order: an
// in-place op reading one while writing the other would see half-updated values.
bool partially_overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  if (a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides()) {
    return false;  // the same elements: each is read before it is written
  }
  // As PyTorch: only dense layouts (a permutation of a contiguous block) are compared, by their
  // byte ranges; interleaved views such as a[0::2] and a[1::2] are "too hard" and allowed.
  auto dense_span = [](const Tensor& t) -> std::optional<std::pair<const char*, const char*>> {
    struct Dim {
      int64_t stride, size;
    };
    SmallVector<Dim, 6> dims;  // the dims that count (size > 1)
    for (int64_t d = 0; d < t.dim(); ++d)
      if (t.sizes()[d] > 1) dims.push_back({t.strides()[d], t.sizes()[d]});
    std::sort(dims.begin(), dims.end(), [](Dim x, Dim y) { return x.stride < y.stride; });
    int64_t expected = 1;
    for (auto [stride, size] : dims) {
      if (stride != expected) return std::nullopt;
      expected *= size;
    }
    const char* begin = static_cast<const char*>(t.data_ptr());
    return std::pair{begin, begin + expected * int64_t(t.element_size())};
  };
  const auto sa = dense_span(a), sb = dense_span(b);
  if (!sa || !sb) return false;
  return sa->first < sb->second && sb->first < sa->second;
}

void check_no_partial_overlap(const Tensor& self, const Tensor& input, const char* op) {
  EMBER_CHECK(!partially_overlaps(self, input), "[", op,
              "] unsupported operation: some elements "
              "of the input tensor and the written-to tensor refer to a single memory location. "
              "Please clone() the tensor before performing the operation.");
}

// In-place ops may not write one memory location through two elements (expanded tensors):
// the result would depend on the order of the writes. PyTorch refuses the same.
void check_no_internal_overlap(const Tensor& self, const char* op) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK(self.strides()[d] != 0 || self.sizes()[d] <= 1, "[", op,
                "] unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (dim ",
                d,
                " has stride 0, as after expand). Please clone() the tensor before performing "
                "the operation.");
  }
}

// Note [In-place ops and autograd]
// Without recording, the kernel writes straight into self. When recording, the op runs out of
// place on self's current value (cloned first when the gradient reads it), the result is copied
// into self, and self's history moves to the new node. On a view, the base's history is rebased
// instead (Note [In-place ops on views] in ops/view.cpp).
// Records an op that overwrites all of self: self's old value gets a zero gradient, `src` (if
// any) the incoming one.
void record_overwrite(const char* name, Tensor& self, const Tensor* src);

}  // namespace
namespace detail {
void commit_recorded(Tensor& self, const Tensor& result, const char* name);
}  // namespace detail
namespace {

// The checks of an in-place op with a tensor operand: same device, no partial overlap, and the
// operand broadcasts to self's shape (self does not grow).
void check_inplace_operand(const Tensor& self, const Tensor& other, const char* name) {
  check_same_device(self, other, name);
  check_no_partial_overlap(self, other, name);
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes(), name);
  EMBER_CHECK(IntArrayRef(shape) == self.sizes(), "[", name, "] output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", shape);
}

template <class Other>
Tensor& inplace_binary(BinaryOp op, Tensor& self, const Other& other) {
  const auto& info = kBinary[int(op)];
  check_no_internal_overlap(self, info.inplace_name);
  bool other_requires_grad = false;
  if constexpr (std::is_same_v<Other, Tensor>) {
    other_requires_grad = any_requires_grad(other);
    check_inplace_operand(self, other, info.inplace_name);
  } else {
    check_scalar_operand(op, self, other);
  }
  const DType dt = compute_dtype(info, result_type(self, other));
  EMBER_CHECK(can_cast(dt, self.dtype()), "[", info.inplace_name, "] result type ", dt,
              " can't be cast to the desired output type ", self.dtype());
  check_divisor(op, dt, other);
  const bool recording = any_requires_grad(self) || other_requires_grad;
  check_inplace(self, info.inplace_name, recording);
  if (!recording) {
    const auto& k = kernels(self.device()).elementwise;
    if (dt == self.dtype()) {
      kernel(k.binary[int(op)], self.device(), info.inplace_name)(self, Operand(self),
                                                                  Operand(cast(other, dt)));
    } else {
      Tensor tmp = binary_forward(info, k.binary[int(op)], dt, false, self.sizes(), self.device(),
                                  cast(self, dt), cast(other, dt));
      kernel(k.copy, self.device(), info.inplace_name)(self, tmp);
    }
    self.storage()->bump_version();
    return self;
  }
  // Formulas that read `a` need self's old value: keep a copy (self is about to change).
  const Tensor old = (info.saves & kSaveA) ? clone(self) : self;
  Tensor result;
  switch (op) {
#define EMBER_CASE(name, ...)  \
  case BinaryOp::name:         \
    result = name(old, other); \
    break;
    EMBER_BINARY_OPS(EMBER_CASE)
#undef EMBER_CASE
  }
  detail::commit_recorded(self, result, info.inplace_name);
  return self;
}

// self = f(self) for a unary op: `run` calls the kernel with self as input and output, `op` is
// the out-of-place op (used when recording).
template <class Run, class Op>
Tensor& inplace_unary(const ElementwiseInfo& info, Tensor& self, Run run, Op op) {
  check_no_internal_overlap(self, info.inplace_name);
  const DType dt = compute_dtype(info, self.dtype());
  // |z| is real: it has no complex tensor to be written into (PyTorch's error).
  EMBER_CHECK(!(is_complex(dt) && &info == &kUnary[int(UnaryOp::abs)]),
              "[abs_] In-place abs is not supported for complex tensors.");
  EMBER_CHECK(dt == self.dtype(), "[", info.inplace_name, "] result type ", dt,
              " can't be cast to the desired output type ", self.dtype());
  const bool recording = any_requires_grad(self);
  check_inplace(self, info.inplace_name, recording);
  if (!recording) {
    run();
    self.storage()->bump_version();
    return self;
  }
  detail::commit_recorded(self, op((info.saves & kSaveX) ? clone(self) : self), info.inplace_name);
  return self;
}

// self = (self op other) for a comparison or logical op: the bool result is cast to self's dtype
// (0 and 1); self's old value gets no gradient.
template <class Other, class Op>
Tensor& inplace_to_bool(const char* name, Tensor& self, const Other& other, Op op) {
  check_no_internal_overlap(self, name);
  if constexpr (std::is_same_v<Other, Tensor>) check_inplace_operand(self, other, name);
  const bool recording = any_requires_grad(self);
  check_inplace(self, name, recording);
  Tensor result;
  {
    NoGradGuard no_grad;
    result = op(self, other);
  }
  kernel(kernels(self.device()).elementwise.copy, self.device(), name)(self, result);
  self.storage()->bump_version();
  if (recording) record_overwrite(name, self, nullptr);
  return self;
}

void record_overwrite(const char* name, Tensor& self, const Tensor* src) {
  Tensor old = detach(self);  // stands for self's previous value in the graph
  if (AutogradMeta* m = autograd_meta(self)) {
    AutogradMeta& om = ensure_autograd_meta(old);
    om.grad_fn = m->grad_fn;
    om.output_nr = m->output_nr;
    om.requires_grad = m->requires_grad;
  }
  // On a view, the node's output is the view's new value, which the base's rebased history
  // takes in (Note [In-place ops on views]); otherwise self itself.
  Tensor value = self.is_view() ? detach(self) : self;
  const Tensor none;
  record(name, {&old, src ? src : &none}, {&value}, [](TensorList& g, Node& n) {
    TensorList r(2);
    if (n.next_edges()[0].valid()) r[0] = zeros_like(g[0]);
    if (n.next_edges()[1].valid()) r[1] = g[0];
    return r;
  });
  if (self.is_view()) return detail::rebase_view_history(self, value);
  mark_inplace(self);
}

}  // namespace

namespace detail {
void commit_recorded(Tensor& self, const Tensor& result, const char* name) {
  kernel(kernels(self.device()).elementwise.copy, self.device(), name)(self, result);
  self.storage()->bump_version();
  if (!result.grad_fn()) return record_overwrite(name, self, nullptr);
  if (self.is_view()) return rebase_view_history(self, result);
  attach_output(result.grad_fn(), self, uint32_t(result.output_nr()));
  mark_inplace(self);
}
}  // namespace detail

Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (is_one(alpha)) return inplace_binary(BinaryOp::add, self, other);
  check_alpha(self.dtype(), alpha, "add_");
  return inplace_binary(BinaryOp::add, self, mul(other, alpha));
}
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (is_one(alpha)) return inplace_binary(BinaryOp::sub, self, other);
  check_alpha(self.dtype(), alpha, "sub_");
  return inplace_binary(BinaryOp::sub, self, mul(other, alpha));
}

#define EMBER_DEFINE_BINARY_INPLACE(name, ...)          \
  Tensor& name##_(Tensor& self, const Tensor& other) {  \
    return inplace_binary(BinaryOp::name, self, other); \
  }                                                     \
  Tensor& name##_(Tensor& self, const Scalar& other) {  \
    return inplace_binary(BinaryOp::name, self, other); \
  }
EMBER_BINARY_OPS(EMBER_DEFINE_BINARY_INPLACE)
#undef EMBER_DEFINE_BINARY_INPLACE

#define EMBER_DEFINE_COMPARE_INPLACE(name, ...)                                          \
  Tensor& name##_(Tensor& self, const Tensor& other) {                                   \
    return inplace_to_bool(kCompare[int(CompareOp::name)].inplace_name, self, other,     \
                           [](const Tensor& a, const Tensor& b) { return name(a, b); }); \
  }                                                                                      \
  Tensor& name##_(Tensor& self, const Scalar& other) {                                   \
    return inplace_to_bool(kCompare[int(CompareOp::name)].inplace_name, self, other,     \
                           [](const Tensor& a, const Scalar& b) { return name(a, b); }); \
  }
EMBER_COMPARE_OPS(EMBER_DEFINE_COMPARE_INPLACE)
#undef EMBER_DEFINE_COMPARE_INPLACE

// The in-place forms of the predicates (the fn_inplace ones): 0/1 in self's dtype.
#define EMBER_DEFINE_PREDICATE_INPLACE_fn(name)
#define EMBER_DEFINE_PREDICATE_INPLACE_fn_inplace(name)                             \
  Tensor& name##_(Tensor& self) {                                                   \
    return inplace_to_bool(#name "_", self, Scalar(0),                              \
                           [](const Tensor& a, const Scalar&) { return name(a); }); \
  }
#define EMBER_DEFINE_PREDICATE_INPLACE(name, F, form) EMBER_DEFINE_PREDICATE_INPLACE_##form(name)
EMBER_PREDICATE_OPS(EMBER_DEFINE_PREDICATE_INPLACE)
#undef EMBER_DEFINE_PREDICATE_INPLACE
#undef EMBER_DEFINE_PREDICATE_INPLACE_fn_inplace
#undef EMBER_DEFINE_PREDICATE_INPLACE_fn

#define EMBER_DEFINE_UNARY_INPLACE(name, ...)                                                 \
  Tensor& name##_(Tensor& self) {                                                             \
    return inplace_unary(                                                                     \
        kUnary[int(UnaryOp::name)], self,                                                     \
        [&] {                                                                                 \
          kernel(kernels(self.device()).elementwise.unary[int(UnaryOp::name)], self.device(), \
                 #name "_")(self, self);                                                      \
        },                                                                                    \
        [](const Tensor& x) { return name(x); });                                             \
  }
EMBER_UNARY_OPS(EMBER_DEFINE_UNARY_INPLACE)
#undef EMBER_DEFINE_UNARY_INPLACE

Tensor& param_unary_(ParamUnaryOp op, Tensor& self, const UnaryParams& p) {
  const auto& info = kParamUnary[int(op)];
  return inplace_unary(
      info, self,
      [&] {
        kernel(kernels(self.device()).elementwise.param_unary[int(op)], self.device(),
               info.inplace_name)(self, self, p.data());
      },
      [&](const Tensor& x) { return param_unary(op, x, p); });
}

void check_fill_value(const Scalar& value, DType dtype, const char* op) {
  dispatch_dtype<kAllTypesAndComplex>(dtype, op, [&]<class T>() { (void)value.checked_to<T>(); });
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  check_fill_value(value, self.dtype(), "fill_");
  check_no_internal_overlap(self, "fill_");
  const bool recording = any_requires_grad(self);
  check_inplace(self, "fill_", recording);
  kernel(kernels(self.device()).elementwise.fill, self.device(), "fill_")(self, value);
  self.storage()->bump_version();
  if (recording) record_overwrite("FillBackward0", self, nullptr);
  return self;
}

Tensor& zero_(Tensor& self) {
  check_no_internal_overlap(self, "zero_");
  const bool recording = any_requires_grad(self);
  check_inplace(self, "zero_", recording);
  kernel(kernels(self.device()).elementwise.fill, self.device(), "zero_")(self, 0);
  self.storage()->bump_version();
  if (recording) record_overwrite("ZeroBackward0", self, nullptr);
  return self;
}

Tensor& copy_(Tensor& self, const Tensor& src) {
  check_no_internal_overlap(self, "copy_");
  // Before anything is written: any_requires_grad also refuses stale views (Note [Views and
  // in-place history]).
  const bool recording = any_requires_grad(self, src);
  check_inplace(self, "copy_", recording);
  EMBER_CHECK(is_expandable_to(src.sizes(), self.sizes()), "[copy_] the source of shape ",
              src.sizes(), " cannot be broadcast to the destination of shape ", self.sizes());
  check_no_partial_overlap(self, src, "copy_");
  if (self.data_ptr() == src.data_ptr() && self.sizes() == src.sizes() &&
      self.strides() == src.strides() && self.dtype() == src.dtype()) {
    return self;  // copying a tensor onto itself
  }
  // Across devices, the non-CPU backend moves the bytes.
  const Device dev = self.device().is_cpu() ? src.device() : self.device();
  kernel(kernels(dev).elementwise.copy, dev, "copy_")(self, src);
  self.storage()->bump_version();
  if (recording) record_overwrite("CopyBackwards", self, &src);
  return self;
}

}  // namespace ember
