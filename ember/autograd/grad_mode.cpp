#include "ember/autograd/grad_mode.h"

#include <atomic>

namespace ember {
namespace {
thread_local bool grad_enabled = true;
}

bool GradMode::is_enabled() { return grad_enabled; }
void GradMode::set_enabled(bool enabled) { grad_enabled = enabled; }

namespace {
std::atomic<bool> anomaly_enabled{false};
std::atomic<bool> anomaly_check_nan{true};
std::atomic<AnomalyMode::TraceProvider> trace_provider{nullptr};
}  // namespace

bool AnomalyMode::is_enabled() { return anomaly_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::check_nan() { return is_enabled() && anomaly_check_nan.load(); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  anomaly_check_nan = check_nan;
  anomaly_enabled = enabled;
}
void AnomalyMode::set_trace_provider(TraceProvider provider) { trace_provider = provider; }
std::string AnomalyMode::current_trace() {
  const TraceProvider provider = trace_provider.load();
  return provider ? provider() : std::string();
}

}  // namespace ember
