// Print options for Tensor::repr, as torch.set_printoptions.
#pragma once

#include <cstdint>
#include <optional>

namespace ember {

struct PrintOptions {
  int precision = 4;         // digits after the point
  int64_t threshold = 1000;  // more elements than this are summarised
  int64_t edgeitems = 3;     // items shown at each end of a summarised dim
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;  // force scientific notation on or off
};

PrintOptions& print_options();

}  // namespace ember
