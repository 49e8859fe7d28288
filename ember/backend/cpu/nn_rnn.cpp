// CPU kernels of the neural-network ops: recurrent cells and sequences, scaled dot-product
// attention.
#include "ember/backend/cpu/register.h"
#include "ember/backend/kernels_rnn.h"

namespace ember::cpu {
namespace {

const RnnKernels kRnnKernels{};

}  // namespace

void register_nn_rnn(KernelTable& t) { t.rnn = &kRnnKernels; }

}  // namespace ember::cpu
