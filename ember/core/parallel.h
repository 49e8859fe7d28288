// One thread pool (OpenMP) for every kernel, with a grain size so small work stays on the calling
// thread: waking threads costs microseconds, more than a tiny op takes.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ember {

int get_num_threads();
// Like torch.set_num_threads; also governs oneDNN and OpenBLAS, which share the OpenMP pool.
void set_num_threads(int n);
bool in_parallel_region();
// Gives the calling thread's OpenMP setting the process-wide thread count, before a call into a
// library that sizes its own parallel regions by it (oneDNN, OpenBLAS).
void sync_library_threads();

namespace detail {
// Runs f(chunk_begin, chunk_end) over [0, nchunks) chunk indices on the pool.
void parallel_run(int64_t nchunks, void (*fn)(void*, int64_t, int64_t), void* ctx);
}  // namespace detail

// Calls f(b, e) on disjoint subranges covering [begin, end). Subranges hold at least `grain`
// elements; with less work than 2 * grain, or inside another parallel region, it runs inline.
// The split depends only on (begin, end, grain, thread count), never on timing.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = get_num_threads();
  if (threads <= 1 || n < 2 * grain || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, n / std::max<int64_t>(grain, 1));
  struct Ctx {
    const F* f;
    int64_t begin, n, chunks;
  } ctx{&f, begin, n, chunks};
  detail::parallel_run(
      chunks,
      [](void* p, int64_t c0, int64_t c1) {
        auto* c = static_cast<Ctx*>(p);
        for (int64_t c_i = c0; c_i < c1; ++c_i) {
          const int64_t b = c->begin + c->n * c_i / c->chunks;
          const int64_t e = c->begin + c->n * (c_i + 1) / c->chunks;
          (*c->f)(b, e);
        }
      },
      &ctx);
}

}  // namespace ember
