// CPU kernels of the complex ops: |z|, arg(z) and conj(z), through the elementwise loops.
#include <cmath>
#include <complex>
#include <numbers>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/cpu/register.h"

namespace ember::cpu {
namespace {

void abs_kernel(const Tensor& out, const Tensor& in) {
  dispatch_dtype<kComplexTypes>(in.dtype(), "abs", [&]<class C>() {
    using R = typename C::value_type;
    run_unary<R, C>(out, in, [](C z) { return std::abs(z); });
  });
}

void angle_kernel(const Tensor& out, const Tensor& in) {
  if (is_complex(in.dtype())) {
    dispatch_dtype<kComplexTypes>(in.dtype(), "angle", [&]<class C>() {
      using R = typename C::value_type;
      run_unary<R, C>(out, in, [](C z) { return std::arg(z); });
    });
    return;
  }
  dispatch_dtype<kFloatingTypes>(in.dtype(), "angle", [&]<class T>() {
    using A = opmath_t<T>;
    run_unary<T, T>(out, in, [](A x) {
      return x != x ? x : x < A(0) ? A(std::numbers::pi) : A(0);
    });
  });
}

void conj_kernel(const Tensor& out, const Tensor& in) {
  dispatch_dtype<kComplexTypes>(in.dtype(), "conj", [&]<class C>() {
    run_unary<C, C>(out, in, [](C z) { return std::conj(z); });
  });
}

}  // namespace

void register_complex(KernelTable& t) {
  t.complex.abs = &abs_kernel;
  t.complex.angle = &angle_kernel;
  t.complex.conj = &conj_kernel;
}

}  // namespace ember::cpu
