// One core's float32 FMA peak, measured: independent chains of fused multiply-adds on full SIMD
// vectors of the best target Highway finds (AVX-512 here), enough chains to cover the FMA
// latency on every FMA port. bench_gemm prints ember's matmul as a fraction of it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/cpp/fma_peak.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <chrono>

HWY_BEFORE_NAMESPACE();
namespace bench::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Runs `iters` rounds of 12 independent FMA chains; returns float32 GFLOP/s and the target.
double FmaPeak(long iters, const char** target) {
  *target = hwy::TargetName(HWY_TARGET);
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.999999f), a = hn::Set(d, 1e-7f);
  // Distinct starting values, so that no two chains are the same computation (which the compiler
  // would do once).
  auto v0 = hn::Set(d, 1.00f), v1 = hn::Set(d, 1.01f), v2 = hn::Set(d, 1.02f);
  auto v3 = hn::Set(d, 1.03f), v4 = hn::Set(d, 1.04f), v5 = hn::Set(d, 1.05f);
  auto v6 = hn::Set(d, 1.06f), v7 = hn::Set(d, 1.07f), v8 = hn::Set(d, 1.08f);
  auto v9 = hn::Set(d, 1.09f), v10 = hn::Set(d, 1.10f), v11 = hn::Set(d, 1.11f);
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iters; ++i) {
    v0 = hn::MulAdd(v0, m, a), v1 = hn::MulAdd(v1, m, a), v2 = hn::MulAdd(v2, m, a);
    v3 = hn::MulAdd(v3, m, a), v4 = hn::MulAdd(v4, m, a), v5 = hn::MulAdd(v5, m, a);
    v6 = hn::MulAdd(v6, m, a), v7 = hn::MulAdd(v7, m, a), v8 = hn::MulAdd(v8, m, a);
    v9 = hn::MulAdd(v9, m, a), v10 = hn::MulAdd(v10, m, a), v11 = hn::MulAdd(v11, m, a);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Keep the results alive so the loop is not removed.
  const auto sum = hn::Add(hn::Add(hn::Add(v0, v1), hn::Add(v2, v3)),
                           hn::Add(hn::Add(hn::Add(v4, v5), hn::Add(v6, v7)),
                                   hn::Add(hn::Add(v8, v9), hn::Add(v10, v11))));
  volatile float sink = hn::GetLane(sum);
  (void)sink;
  return double(iters) * 12 * hn::Lanes(d) * 2 / s / 1e9;
}

}  // namespace bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bench {
HWY_EXPORT(FmaPeak);
double fma_peak_gflops(long iters, const char** target) {
  return HWY_DYNAMIC_DISPATCH(FmaPeak)(iters, target);
}
}  // namespace bench
#endif
