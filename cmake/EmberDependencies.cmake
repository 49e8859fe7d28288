# Third-party libraries, all from Debian packages (scripts/setup.sh installs them).

find_package(OpenMP REQUIRED COMPONENTS CXX)

# oneDNN: float32 matrix products (and, later, convolutions).
find_package(dnnl CONFIG REQUIRED)

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

# CUDA: built when a toolkit is found (or asked for), never required.
set(EMBER_WITH_CUDA OFF)
if(NOT EMBER_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(EMBER_WITH_CUDA ON)
  elseif(EMBER_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "ember: CUDA backend ${EMBER_WITH_CUDA}")
