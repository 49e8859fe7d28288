// oneMKL's runtime (libmkl_rt), loaded once at first use with dlopen, not linked: ember builds and
// runs without it. The FFT needs it (backend/cpu/fft.cpp: DFTI); the symmetric eigensolver takes
// its LAPACK when it is there, faster than reference LAPACK's (backend/cpu/linalg_factor.cpp).
//
// RTLD_LOCAL keeps MKL's BLAS and LAPACK symbols (sgemm_, dgetrf_, ...) from interposing on
// OpenBLAS's, which the rest of ember calls; its entry points are found with mkl_symbol. The
// library is looked for at $EMBER_MKL_RT, then by the dynamic loader's search, then in the
// directories of libember's RUNPATH: the lib directory of a Python environment, where pip's `mkl`
// puts libmkl_rt. MKL runs its threads on the GNU OpenMP runtime ember already uses (its "GNU
// threading layer"), so one pool serves both; called inside one of ember's parallel regions, or
// after omp_set_num_threads(1), a routine runs on one thread.
#pragma once

#include <string>

namespace ember::cpu {

struct MklRuntime {
  void* lib = nullptr;
  std::string error;  // why loading failed (with how to install it); empty when lib is set
};

// The runtime, loaded by the first call (thread-safe).
const MklRuntime& mkl_runtime();

// The entry point `name` of the runtime, or nullptr when it is not loaded or lacks the name.
void* mkl_symbol(const char* name);

}  // namespace ember::cpu
