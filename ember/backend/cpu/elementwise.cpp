// CPU kernels of the elementwise ops (expanded from the lists in ops/elementwise_ops.h), copy
// with dtype conversion, and fill.
#include <algorithm>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/ops/math.h"

namespace ember::cpu {
namespace {

template <class F, DTypeSet Types>
void unary_kernel(const Tensor& out, const Tensor& in) {
  dispatch_dtype<Types>(out.dtype(), "unary kernel",
                        [&]<class T>() { run_unary<T, T>(out, in, F()); });
}

template <template <class> class F, DTypeSet Types>
void param_unary_kernel(const Tensor& out, const Tensor& in, const Scalar* p) {
  dispatch_dtype<Types>(out.dtype(), "unary kernel",
                        [&]<class T>() { run_unary<T, T>(out, in, F<opmath_t<T>>(p)); });
}

template <class F>
void predicate_kernel(const Tensor& out, const Tensor& in) {
  dispatch_dtype(in.dtype(), "predicate kernel",
                 [&]<class T>() { run_unary<bool, T>(out, in, F()); });
}

template <class F, DTypeSet Types>
void binary_kernel(const Tensor& out, const Operand& a, const Operand& b) {
  const DType dt = a.tensor ? a.tensor->dtype() : b.tensor->dtype();
  dispatch_dtype<Types>(dt, "binary kernel", [&]<class T>() { run_binary<T>(out, a, b, F()); });
}

void where_kernel(const Tensor& out, const Tensor& cond, const Operand& a, const Operand& b) {
  dispatch_dtype(out.dtype(), "where", [&]<class T>() {
    T sa{}, sb{};
    ElementwiseIter it;
    it.add_output(out);
    it.add_input(cond);
    if (a.tensor) {
      it.add_input(*a.tensor);
    } else {
      sa = a.scalar.to<T>();
      it.add_scalar(&sa);
    }
    if (b.tensor) {
      it.add_input(*b.tensor);
    } else {
      sb = b.scalar.to<T>();
      it.add_scalar(&sb);
    }
    it.build();
    parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
      it.for_each_row(begin, end, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
          *reinterpret_cast<T*>(p[0] + i * s[0]) =
              *reinterpret_cast<const T*>((c ? p[2] : p[3]) + i * (c ? s[2] : s[3]));
        }
      });
    });
  });
}

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.numel() == src.numel()) {
    const size_t nbytes = dst.nbytes();
    char* d = static_cast<char*>(dst.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    parallel_for(0, int64_t(nbytes), int64_t(1) << 20,
                 [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, size_t(e - b)); });
    return;
  }
  dispatch_dtype(dst.dtype(), "copy", [&]<class D>() {
    dispatch_dtype(src.dtype(), "copy", [&]<class S>() {
      run_unary<D, S>(dst, src, [](opmath_t<S> v) { return convert<D>(v); });
    });
  });
}

void fill_kernel(const Tensor& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  dispatch_dtype(dst.dtype(), "fill", [&]<class T>() {
    const T v = value.to<T>();
    if (dst.is_contiguous()) {
      T* p = static_cast<T*>(dst.data_ptr());
      parallel_for(0, dst.numel(), kElementwiseGrain,
                   [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
      return;
    }
    ElementwiseIter it;
    it.add_output(dst);
    it.build();
    parallel_for(0, it.numel(), kElementwiseGrain, [&](int64_t b, int64_t e) {
      it.for_each_row(b, e, [&](char** p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      });
    });
  });
}

}  // namespace

void register_elementwise(KernelTable& t) {
#define EMBER_REGISTER(name, F, dtypes, ...) \
  t.unary[int(UnaryOp::name)] = &unary_kernel<math::F, dtypes>;
  EMBER_UNARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F, dtypes, ...) \
  t.binary[int(BinaryOp::name)] = &binary_kernel<math::F, dtypes>;
  EMBER_BINARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F) \
  t.compare[int(CompareOp::name)] = &binary_kernel<math::F, kAllTypes>;
  EMBER_COMPARE_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F, dtypes, ...) \
  t.param_unary[int(ParamUnaryOp::name)] = &param_unary_kernel<math::F, dtypes>;
  EMBER_PARAM_UNARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F) t.predicate[int(PredicateOp::name)] = &predicate_kernel<math::F>;
  EMBER_PREDICATE_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
  t.where = &where_kernel;
  t.copy = &copy_kernel;
  t.fill = &fill_kernel;
}

}  // namespace ember::cpu
