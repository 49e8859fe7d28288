// Dropout ops: dropout, feature (channel-wise) dropout, alpha dropout and feature alpha dropout,
// with their in-place forms. Names, arguments and semantics follow PyTorch (torch.dropout,
// torch.feature_dropout, torch.alpha_dropout, ...); docs/design/nn_norm.md.
#pragma once

#include "ember/core/tensor.h"

namespace ember {

// Dropout (training only; p = 0, train false or an empty input return the input itself): each
// element is zeroed with probability p and the others scaled by 1 / (1 - p); p = 1 gives input * 0.
// Random bits from the default generator (ember::manual_seed), the mask regenerated in backward.
// p outside [0, 1] is an error.
Tensor dropout(const Tensor& input, double p, bool train);
Tensor& dropout_(Tensor& self, double p, bool train);
// Channel-wise dropout: whole (sample, channel) planes of an input of at least 2 dims. With
// batched false the input has no batch dim and dim 0 holds the channels (dropout1d / dropout3d
// on unbatched input).
Tensor feature_dropout(const Tensor& input, double p, bool train, bool batched = true);
Tensor& feature_dropout_(Tensor& self, double p, bool train, bool batched = true);
// Alpha dropout (for SELU networks): dropped elements become -alpha' = -1.7580993408473766, then
// an affine map a * x + b keeps the mean and variance (torch.alpha_dropout).
Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor& alpha_dropout_(Tensor& self, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train, bool batched = true);
Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train, bool batched = true);

}  // namespace ember
