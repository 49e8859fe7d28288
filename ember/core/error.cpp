#include "ember/core/error.h"

#include <cstdio>
#include <cstdlib>

namespace ember::detail {

void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, msg); }

void assert_fail(const char* cond, const char* file, int line, std::string msg) {
  throw Error(ErrorKind::Runtime,
              str("internal error in ember (please report it): ", cond, " failed at ", file, ":",
                  line, (msg.empty() ? "" : ": "), msg));
}

}  // namespace ember::detail
