// Errors: EMBER_CHECK for user errors (they become Python exceptions), EMBER_ASSERT for bugs.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace ember {

// The Python exception a user error maps to. The choice follows PyTorch for the same mistake:
// a dim out of range is an IndexError, a wrong argument type a TypeError, and so on.
// LinAlg: a matrix that a factorisation cannot handle (singular, not positive-definite), PyTorch's
// torch.linalg.LinAlgError, a RuntimeError.
enum class ErrorKind { Runtime, Value, Type, Index, NotImplemented, LinAlg };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& msg) : std::runtime_error(msg), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {

inline void append(std::ostringstream&) {}
template <class T, class... Rest>
void append(std::ostringstream& os, const T& first, const Rest&... rest) {
  os << first;
  append(os, rest...);
}

template <class... Args>
std::string str(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return {};
  } else {
    std::ostringstream os;
    append(os, args...);
    return os.str();
  }
}

[[noreturn]] void throw_error(ErrorKind kind, std::string msg);
[[noreturn]] void assert_fail(const char* cond, const char* file, int line, std::string msg);

}  // namespace detail
}  // namespace ember

// User error: `EMBER_CHECK(a.dim() == 2, "[mm] expected a 2-D matrix, got ", a.dim(), "-D")`.
#define EMBER_CHECK_KIND(kind, cond, ...)                                    \
  do {                                                                       \
    if (!(cond)) [[unlikely]]                                                \
      ::ember::detail::throw_error(kind, ::ember::detail::str(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Runtime, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Value, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Type, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_KIND(::ember::ErrorKind::Index, cond, __VA_ARGS__)
#define EMBER_FAIL(...) \
  ::ember::detail::throw_error(::ember::ErrorKind::Runtime, ::ember::detail::str(__VA_ARGS__))
#define EMBER_FAIL_KIND(kind, ...) \
  ::ember::detail::throw_error(kind, ::ember::detail::str(__VA_ARGS__))

// Internal invariant: a failure is a bug in ember, never the user's fault.
#define EMBER_ASSERT(cond, ...)                                                                   \
  do {                                                                                            \
    if (!(cond)) [[unlikely]]                                                                     \
      ::ember::detail::assert_fail(#cond, __FILE__, __LINE__, ::ember::detail::str(__VA_ARGS__)); \
  } while (0)
