#include "ember/core/scalar.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return os << (s.to_bool() ? "True" : "False");
    case Scalar::Kind::Int:
      return os << s.to_int();
    case Scalar::Kind::Float:
      return os << s.to_double();
    case Scalar::Kind::Complex:
      return os << '(' << s.to_double() << (s.imag() < 0 ? "" : "+") << s.imag() << "j)";
  }
  return os;
}

}  // namespace ember
