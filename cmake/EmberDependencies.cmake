# Third-party libraries, all from Debian packages (scripts/setup.sh installs them).

find_package(OpenMP REQUIRED COMPONENTS CXX)

# oneDNN: float32 matrix products (and, later, convolutions).
find_package(dnnl CONFIG REQUIRED)

# Highway: SIMD with run-time dispatch (the vectorised loops of backend/cpu/simd.cpp).
find_package(hwy CONFIG REQUIRED)

# nlohmann-json (header-only): the JSON headers of safetensors checkpoints (ember/io).
find_package(nlohmann_json 3 REQUIRED)

# zlib: the gzip'd IDX files of ember::data::MNIST (Debian's dataset-fashion-mnist ships them so).
find_package(ZLIB REQUIRED)

# Gloo: the CPU collectives of ember::distributed over TCP (docs/design/distributed.md). No
# ember header includes Gloo's, so consumers of the installed package do not need it.
find_package(Gloo CONFIG QUIET)
if(NOT Gloo_FOUND)
  message(FATAL_ERROR "Gloo not found: apt-get install libgloo-dev")
endif()
message(STATUS "ember: distributed backends: gloo (Gloo ${Gloo_VERSION}); nccl not built")

# OpenBLAS, the OpenMP build, so it shares ember's one thread pool (see docs/design/threads.md):
# float64 matrix products.
find_path(OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
find_library(OPENBLAS_LIBRARY NAMES openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp /usr/lib/aarch64-linux-gnu/openblas-openmp
  NO_DEFAULT_PATH)
if(NOT OPENBLAS_INCLUDE_DIR OR NOT OPENBLAS_LIBRARY)
  message(FATAL_ERROR "OpenBLAS (OpenMP build) not found: apt-get install libopenblas-openmp-dev")
endif()
add_library(ember_openblas INTERFACE)
target_include_directories(ember_openblas INTERFACE ${OPENBLAS_INCLUDE_DIR})
target_link_libraries(ember_openblas INTERFACE ${OPENBLAS_LIBRARY})

# oneMKL (PyPI's `mkl`): the Fourier transforms and small eigh, loaded at run time with dlopen
# and never linked (backend/cpu/mkl.h, docs/design/fft.md). When the project's Python environment
# has it (.venv, made by scripts/setup.sh) its lib directory goes on the build tree's RUNPATH, so
# the tests of this build find it; installed packages look beside themselves instead
# (python/CMakeLists.txt).
find_path(EMBER_MKL_LIBDIR NAMES libmkl_rt.so.3 libmkl_rt.so.2
  PATHS "${PROJECT_SOURCE_DIR}/.venv/lib" "$ENV{VIRTUAL_ENV}/lib" NO_DEFAULT_PATH)

# CUDA: built when a toolkit is found (or asked for), never required. nvcc is driven directly
# (ember/backend/cuda/CMakeLists.txt says why), so only the compiler and the runtime are needed.
set(EMBER_WITH_CUDA OFF)
if(NOT EMBER_CUDA STREQUAL "OFF")
  find_program(EMBER_NVCC nvcc HINTS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
  find_package(CUDAToolkit QUIET)
  if(EMBER_NVCC AND CUDAToolkit_FOUND)
    set(EMBER_WITH_CUDA ON)
    set(EMBER_CUDA_ARCHITECTURES "80;90" CACHE STRING "GPU architectures (sm_XX) to compile for")
  elseif(EMBER_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_CUDA=ON but no CUDA toolkit (nvcc and the runtime) was found")
  endif()
endif()
message(STATUS "ember: CUDA backend ${EMBER_WITH_CUDA}")
