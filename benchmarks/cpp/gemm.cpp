// float32 matrix products: oneDNN's sgemm, OpenBLAS's sgemm and ember::mm, one thread, the
// three alternating round by round, and ember::mm as a fraction of one core's FMA peak
// (measured first by fma_peak.cpp). It is why ember sends float32 matmul to oneDNN: on this
// machine the environment sets OPENBLAS_CORETYPE=Haswell, which keeps OpenBLAS on its AVX2
// kernels (run with `env -u OPENBLAS_CORETYPE` to see its AVX-512 ones).
//
//   build/release/benchmarks/cpp/bench_gemm [rounds]
#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ember/ember.h"

namespace {

double seconds(auto&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

namespace bench {
double fma_peak_gflops(long iters, const char** target);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  ember::set_num_threads(1);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("1 thread, median of %d rounds, OPENBLAS_CORETYPE=%s\n", rounds,
              coretype ? coretype : "(unset)");
  const char* target = "";
  std::vector<double> peaks;
  for (int r = 0; r < rounds; ++r) peaks.push_back(bench::fma_peak_gflops(200'000'000, &target));
  const double peak = median(peaks);
  std::printf("FMA peak (%s, 12 chains): %.1f GFLOP/s\n", target, peak);
  std::printf("%6s %12s %12s %12s %12s  GFLOP/s\n", "n", "oneDNN", "OpenBLAS", "ember::mm",
              "mm/peak");
  for (int n : {64, 256, 1024, 2048}) {
    const ember::Tensor a = ember::rand({n, n}), b = ember::rand({n, n});
    ember::Tensor c = ember::empty({n, n});
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    float* pc = c.data_ptr<float>();
    auto dnnl = [&] { dnnl_sgemm('N', 'N', n, n, n, 1.f, pa, n, pb, n, 0.f, pc, n); };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, pa, n, pb, n, 0.f, pc,
                  n);
    };
    auto mm = [&] { ember::mm(a, b); };
    std::vector<double> td, tb, te;
    const int reps = n <= 256 ? 50 : 2;
    dnnl(), blas(), mm();  // warm up
    for (int r = 0; r < rounds; ++r) {
      td.push_back(seconds([&] {
                     for (int i = 0; i < reps; ++i) dnnl();
                   }) /
                   reps);
      tb.push_back(seconds([&] {
                     for (int i = 0; i < reps; ++i) blas();
                   }) /
                   reps);
      te.push_back(seconds([&] {
                     for (int i = 0; i < reps; ++i) mm();
                   }) /
                   reps);
    }
    const double flop = 2.0 * n * n * n;
    const double ember_gflops = flop / median(te) / 1e9;
    std::printf("%6d %12.1f %12.1f %12.1f %11.0f%%\n", n, flop / median(td) / 1e9,
                flop / median(tb) / 1e9, ember_gflops, 100 * ember_gflops / peak);
  }
}
