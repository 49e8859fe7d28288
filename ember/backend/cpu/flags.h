// Settings of the CPU backend that users may change (Python: ember.backends.cpu). They belong to
// the kernels, not to the ops: an op's result is defined by its arguments, and these only choose
// among kernels that compute it.
#pragma once

namespace ember {

// Whether float32 convolutions with a 3x3 kernel, stride 1, dilation 1 and no groups may use
// Winograd's algorithm (oneDNN's F(4x4, 3x3)) where oneDNN implements it and it is faster than
// the direct kernel: 1.5-2.3x over 14x14 to 56x56 images, with rounding errors about three times
// the direct kernel's. On by default, as PyTorch's GPU convolutions let cuDNN pick its Winograd
// algorithms by default (torch.backends.cudnn); PyTorch's CPU convolutions are direct. Python:
// ember.backends.cpu.allow_winograd. Turning it off gives the direct kernel's results.
void set_allow_winograd(bool allow);
bool allow_winograd();

}  // namespace ember
