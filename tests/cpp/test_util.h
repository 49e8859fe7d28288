// Helpers shared by the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_test {

inline std::vector<int64_t> vec(ember::IntArrayRef a) { return a.vec(); }

// 0, 1, ..., n-1 as float32 in the given shape.
inline ember::Tensor iota(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return ember::arange(n, ember::kFloat32).view(shape);
}

// Byte distance between two tensors' first elements: where a view starts inside its base.
inline std::ptrdiff_t byte_offset(const ember::Tensor& view, const ember::Tensor& base) {
  return static_cast<const char*>(view.data_ptr()) - static_cast<const char*>(base.data_ptr());
}

// Every element of `got` (flattened; a complex tensor as its (re, im) pairs) within tol of want.
inline void expect_near(const ember::Tensor& got,
                        const std::vector<double>& want,
                        double tol = 1e-12) {
  const ember::Tensor real = ember::is_complex(got.dtype()) ? ember::view_as_real(got) : got;
  const std::vector<double> g = real.contiguous().to_vector<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], tol) << "element " << i;
}

// Restores the default dtype and thread count a test changes, even when an assertion fails.
class DefaultDTypeGuard {
 public:
  explicit DefaultDTypeGuard(ember::DType d) : prev_(ember::get_default_dtype()) {
    ember::set_default_dtype(d);
  }
  ~DefaultDTypeGuard() { ember::set_default_dtype(prev_); }

 private:
  ember::DType prev_;
};

class NumThreadsGuard {
 public:
  NumThreadsGuard() : prev_(ember::get_num_threads()) {}
  ~NumThreadsGuard() { ember::set_num_threads(prev_); }

 private:
  int prev_;
};

}  // namespace ember_test

// Runs `stmt` and checks that it throws ember::Error of `kind` whose message contains `substr`.
#define EXPECT_EMBER_ERROR(stmt, error_kind, substr)                                   \
  do {                                                                                 \
    try {                                                                              \
      stmt;                                                                            \
      ADD_FAILURE() << "expected ember::Error from: " #stmt;                           \
    } catch (const ember::Error& e) {                                                  \
      EXPECT_EQ(int(e.kind()), int(error_kind)) << "message: " << e.what();            \
      EXPECT_NE(std::string(e.what()).find(substr), std::string::npos)                 \
          << "message \"" << e.what() << "\" does not contain \"" << (substr) << "\""; \
    }                                                                                  \
  } while (0)
