// Whether ops record the backward graph on this thread (torch.is_grad_enabled).
#pragma once

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

}  // namespace ember
