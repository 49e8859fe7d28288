// Whether ops record the backward graph on this thread (torch.is_grad_enabled), and anomaly
// detection (torch.autograd.detect_anomaly).
#pragma once

#include <string>

namespace ember {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// RAII: sets grad mode for a scope and restores the previous mode after it.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// `NoGradGuard g;` is `with torch.no_grad():` for the rest of the scope.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

// Anomaly detection, process-wide as in PyTorch: while it is on, every node remembers where its
// forward op was called (AnomalyMode::current_trace), and with check_nan the engine fails at the
// first node whose backward returns a NaN, naming the node and that place (engine.cpp).
struct AnomalyMode {
  static bool is_enabled();
  static bool check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
  // A front end's way to describe the current call (Python's traceback); empty without one.
  using TraceProvider = std::string (*)();
  static void set_trace_provider(TraceProvider provider);
  static std::string current_trace();
};

}  // namespace ember
