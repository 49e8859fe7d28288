// CPU kernels of the elementwise ops (expanded from the lists in core/elementwise_ops.h), copy
// with dtype conversion, and fill.
#include <algorithm>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"
#include "ember/backend/cpu/simd.h"
#include "ember/core/math.h"

namespace ember::cpu {
namespace {

// The row of simd::Table for a dtype: 0 float32, 1 float64, -1 none.
int simd_row(DType dt) { return dt == kFloat32 ? 0 : dt == kFloat64 ? 1 : -1; }

// Runs `run(in_offset_bytes, out_offset_bytes, count)` over the n elements in parallel chunks.
template <class Run>
void simd_chunks(int64_t n, Run run) {
  parallel_for(0, n, kElementwiseGrain, [&](int64_t b, int64_t e) { run(b, e - b); });
}

// Below this many elements the portable flat loop is cheaper than looking up a vector loop
// (the per-op overhead of tiny tensors is what counts there).
constexpr int64_t kSimdMinElements = 64;

// Contiguous float32 / float64 data through the vectorised loops of simd.h; false otherwise.
bool simd_unary(int op, const Tensor& out, const Tensor& in) {
  const int row = simd_row(out.dtype());
  if (row < 0 || out.numel() < kSimdMinElements || !all_flat(out, {&in})) return false;
  const simd::UnaryFn fn = simd::table().unary[row][op];
  if (!fn) return false;
  const char* x = static_cast<const char*>(in.data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  const int64_t es = int64_t(out.element_size());
  simd_chunks(out.numel(), [&](int64_t b, int64_t n) { fn(x + b * es, o + b * es, n); });
  return true;
}

bool simd_param_unary(int op, const Tensor& out, const Tensor& in, const Scalar* p) {
  const int row = simd_row(out.dtype());
  if (row < 0 || out.numel() < kSimdMinElements || !all_flat(out, {&in})) return false;
  const simd::ParamUnaryFn fn = simd::table().param_unary[row][op];
  if (!fn) return false;
  const char* x = static_cast<const char*>(in.data_ptr());
  char* o = static_cast<char*>(out.data_ptr());
  const int64_t es = int64_t(out.element_size());
  simd_chunks(out.numel(), [&](int64_t b, int64_t n) { fn(x + b * es, o + b * es, n, p); });
  return true;
}

// A binary op on contiguous operands, either of which may be a scalar or a one-element tensor.
bool simd_binary(int op, const Tensor& out, const Operand& a, const Operand& b) {
  const int row = simd_row(out.dtype());
  if (row < 0 || out.numel() < kSimdMinElements || !out.is_non_overlapping_and_dense())
    return false;
  const simd::BinaryFn fn = simd::table().binary[row][op];
  if (!fn) return false;
  const int64_t n = out.numel(), es = int64_t(out.element_size());
  double scalar_a = 0, scalar_b = 0;  // a float or a double, as the row says
  float scalar_af = 0, scalar_bf = 0;
  auto operand = [&](const Operand& v, double& sd, float& sf, bool& is_scalar) -> const char* {
    if (!v.tensor) {
      is_scalar = true;
      sd = v.scalar.to<double>();
      sf = v.scalar.to<float>();
      return row == 0 ? reinterpret_cast<const char*>(&sf) : reinterpret_cast<const char*>(&sd);
    }
    const Tensor& t = *v.tensor;
    if (t.numel() == 1 && n != 1) {
      is_scalar = true;
      return static_cast<const char*>(t.data_ptr());
    }
    is_scalar = false;
    return flat_like(t, out) ? static_cast<const char*>(t.data_ptr()) : nullptr;
  };
  bool a_scalar = false, b_scalar = false;
  const char* pa = operand(a, scalar_a, scalar_af, a_scalar);
  const char* pb = operand(b, scalar_b, scalar_bf, b_scalar);
  if (!pa || !pb || (a_scalar && b_scalar && n != 1)) return false;
  char* o = static_cast<char*>(out.data_ptr());
  simd_chunks(n, [&](int64_t lo, int64_t count) {
    fn(a_scalar ? pa : pa + lo * es, b_scalar ? pb : pb + lo * es, o + lo * es, count, a_scalar,
       b_scalar);
  });
  return true;
}

template <class F, DTypeSet Types, int Op>
void unary_kernel(const Tensor& out, const Tensor& in) {
  if (simd_unary(Op, out, in)) return;
  dispatch_dtype<Types>(out.dtype(), "unary kernel",
                        [&]<class T>() { run_unary<T, T>(out, in, F()); });
}

template <template <class> class F, DTypeSet Types, int Op>
void param_unary_kernel(const Tensor& out, const Tensor& in, const Scalar* p) {
  if (simd_param_unary(Op, out, in, p)) return;
  dispatch_dtype<Types>(out.dtype(), "unary kernel",
                        [&]<class T>() { run_unary<T, T>(out, in, F<opmath_t<T>>(p)); });
}

template <class F>
void predicate_kernel(const Tensor& out, const Tensor& in) {
  dispatch_dtype<kAllTypesAndComplex>(in.dtype(), "predicate kernel",
                                      [&]<class T>() { run_unary<bool, T>(out, in, F()); });
}

template <class F, DTypeSet Types, int Op = -1>
void binary_kernel(const Tensor& out, const Operand& a, const Operand& b) {
  if (Op >= 0 && simd_binary(Op, out, a, b)) return;
  const DType dt = a.tensor ? a.tensor->dtype() : b.tensor->dtype();
  dispatch_dtype<Types>(dt, "binary kernel", [&]<class T>() { run_binary<T>(out, a, b, F()); });
}

void where_kernel(const Tensor& out, const Tensor& cond, const Operand& a, const Operand& b) {
  dispatch_dtype<kAllTypesAndComplex>(out.dtype(), "where", [&]<class T>() {
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

// g * (lo < t < hi): the mask is a compare and an and, and the multiply keeps the bits of the
// composite expressions g * (t > lo) * ... (a NaN g stays NaN outside the band). run_binary's
// flat loop vectorises at -O3, so the gradient is one pass over g and t with no temporaries.
void masked_grad_kernel(const Tensor& out,
                        const Tensor& g,
                        const Tensor& t,
                        const Scalar& lo,
                        const Scalar& hi,
                        bool lo_closed,
                        bool hi_closed) {
  dispatch_dtype<kFloatingTypes>(out.dtype(), "masked_grad", [&]<class T>() {
    using A = opmath_t<T>;
    // Bounds in the op-math type, as the comparisons with a Scalar (t > lo) convert them.
    const A l = lo.to<A>(), h = hi.to<A>();
    auto run = [&](auto in_band) {
      run_binary<T>(out, g, t, [=](A gv, A tv) { return gv * A(in_band(tv)); });
    };
    // `&` rather than `&&`: no branch, so the loop vectorises.
    if (lo_closed && hi_closed) return run([=](A v) { return (v >= l) & (v <= h); });
    if (lo_closed) return run([=](A v) { return (v >= l) & (v < h); });
    if (hi_closed) return run([=](A v) { return (v > l) & (v <= h); });
    run([=](A v) { return (v > l) & (v < h); });
  });
}

// out[a * os + b] = in[a + b * is] for a < na, b < nb (strides in elements): a transpose, done in
// square tiles so that both the lines read and the lines written stay in cache. Element-wise it
// would read (or write) one element per cache line.
template <class T>
void transpose_tiles(T* out, const T* in, int64_t na, int64_t nb, int64_t os, int64_t is) {
  constexpr int64_t kTile = 64 / sizeof(T) * 2;
  for (int64_t a0 = 0; a0 < na; a0 += kTile) {
    const int64_t a1 = std::min(na, a0 + kTile);
    for (int64_t b0 = 0; b0 < nb; b0 += kTile) {
      const int64_t b1 = std::min(nb, b0 + kTile);
      for (int64_t a = a0; a < a1; ++a)
        for (int64_t b = b0; b < b1; ++b) out[a * os + b] = in[a + b * is];
    }
  }
}

// A same-dtype copy that is a batch of transposes (contiguous to channels-last and back, .t()
// made contiguous): the innermost dim is unit-stride in the output, and another dim is
// unit-stride in the input. False when the copy is not of that shape.
bool copy_transposed(const Tensor& dst, const Tensor& src) {
  ElementwiseIter it;
  it.add_output(dst);
  it.add_input(src);
  it.build();
  const int nd = it.ndim();
  const int64_t es = int64_t(dst.element_size());
  if (nd < 2 || it.inner_stride(0) != es || it.inner_stride(1) == es) return false;
  int j = -1;  // the dim the input walks with unit stride
  for (int d = 0; d < nd - 1; ++d)
    if (it.strides(1)[d] == es) j = d;
  if (j < 0) return false;
  const IntArrayRef sz = it.sizes();
  const int64_t na = sz[j], nb = sz[nd - 1];
  if (na < 8 || nb < 8) return false;  // thin: the plain loop is as good
  // The other dims (all but j and the innermost) index a batch of transposes.
  DimVector outer_sizes;
  DimVector outer_os, outer_is;
  for (int d = 0; d < nd - 1; ++d) {
    if (d == j) continue;
    outer_sizes.push_back(sz[d]);
    outer_os.push_back(it.strides(0)[d]);
    outer_is.push_back(it.strides(1)[d]);
  }
  int64_t batch = 1;
  for (int64_t s : outer_sizes) batch *= s;
  const int64_t os = it.strides(0)[j] / es, is = it.strides(1)[nd - 1] / es;
  // Work items: (batch entry, band of 64 values of a), in parallel.
  constexpr int64_t kBand = 64;
  const int64_t bands = (na + kBand - 1) / kBand;
  auto run = [&]<class T>() {
    parallel_for(0, batch * bands, std::max<int64_t>(1, kElementwiseGrain / (kBand * nb)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t w = lo; w < hi; ++w) {
                     int64_t rem = w / bands, ob = 0, ib = 0;
                     for (size_t d = outer_sizes.size(); d-- > 0;) {
                       const int64_t k = rem % outer_sizes[d];
                       rem /= outer_sizes[d];
                       ob += k * outer_os[d];
                       ib += k * outer_is[d];
                     }
                     const int64_t a0 = (w % bands) * kBand, n = std::min(kBand, na - a0);
                     T* o = reinterpret_cast<T*>(it.data(0) + ob) + a0 * os;
                     const T* i = reinterpret_cast<const T*>(it.data(1) + ib) + a0;
                     transpose_tiles(o, i, n, nb, os, is);
                   }
                 });
  };
  switch (es) {
    case 1:
      run.template operator()<uint8_t>();
      return true;
    case 2:
      run.template operator()<uint16_t>();
      return true;
    case 4:
      run.template operator()<uint32_t>();
      return true;
    case 8:
      run.template operator()<uint64_t>();
      return true;
    default:
      return false;
  }
}

void copy_kernel(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && all_flat(dst, {&src})) {
    const size_t nbytes = dst.nbytes();
    char* d = static_cast<char*>(dst.data_ptr());
    const char* s = static_cast<const char*>(src.data_ptr());
    parallel_for(0, int64_t(nbytes), int64_t(1) << 17,
                 [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, size_t(e - b)); });
    return;
  }
  if (dst.dtype() == src.dtype() && dst.numel() >= 4096 && copy_transposed(dst, src)) return;
  dispatch_dtype<kAllTypesAndComplex>(dst.dtype(), "copy", [&]<class D>() {
    dispatch_dtype<kAllTypesAndComplex>(src.dtype(), "copy", [&]<class S>() {
      run_unary<D, S>(dst, src, [](opmath_t<S> v) { return convert<D>(v); });
    });
  });
}

void fill_kernel(const Tensor& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  dispatch_dtype<kAllTypesAndComplex>(dst.dtype(), "fill", [&]<class T>() {
    const T v = value.to<T>();
    if (dst.is_non_overlapping_and_dense()) {
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
  t.elementwise.unary[int(UnaryOp::name)] = &unary_kernel<math::F, dtypes, int(UnaryOp::name)>;
  EMBER_UNARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F, dtypes, ...) \
  t.elementwise.binary[int(BinaryOp::name)] = &binary_kernel<math::F, dtypes, int(BinaryOp::name)>;
  EMBER_BINARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F)                 \
  t.elementwise.compare[int(CompareOp::name)] = \
      &binary_kernel<math::F, compare_dtypes(CompareOp::name)>;
  EMBER_COMPARE_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F, dtypes, ...)           \
  t.elementwise.param_unary[int(ParamUnaryOp::name)] = \
      &param_unary_kernel<math::F, dtypes, int(ParamUnaryOp::name)>;
  EMBER_PARAM_UNARY_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
#define EMBER_REGISTER(name, F, form) \
  t.elementwise.predicate[int(PredicateOp::name)] = &predicate_kernel<math::F>;
  EMBER_PREDICATE_OPS(EMBER_REGISTER)
#undef EMBER_REGISTER
  t.elementwise.where = &where_kernel;
  t.elementwise.copy = &copy_kernel;
  t.elementwise.fill = &fill_kernel;
  t.elementwise.masked_grad = &masked_grad_kernel;
}

}  // namespace ember::cpu
