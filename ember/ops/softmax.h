// softmax and log_softmax along one dim (the softmax kernel), with their gradients.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// exp(x) / sum(exp(x)) along dim, computed stably; `dtype` converts the input first.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);

}  // namespace ember
