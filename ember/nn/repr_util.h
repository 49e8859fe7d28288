// Helpers for the layers' extra_repr: Python's spelling of bools, tuples and floats, so that a
// printed C++ model reads as the same model printed by PyTorch.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ember::nn::detail {

inline std::string py_bool(bool b) { return b ? "True" : "False"; }

// (3, 3) for a tuple, 3 for one value when `scalar_if_one` (pooling layers keep what was given).
inline std::string py_tuple(const std::vector<int64_t>& v, bool scalar_if_one = false) {
  if (scalar_if_one && v.size() == 1) return std::to_string(v[0]);
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// %g matches Python's repr for the usual hyperparameters (0.1, 1e-05, 0.5).
inline std::string py_float(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ember::nn::detail
