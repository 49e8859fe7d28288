#!/usr/bin/env bash
# Sets everything up and runs every test: lint, the C++ suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer (including a separate project that finds ember with
# find_package), a build of the CUDA backend where a CUDA toolkit is installed, and the Python
# suite against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
jobs=${EMBER_JOBS:-$(nproc)}

./scripts/setup.sh

echo "== lint"
.venv/bin/ruff check --quiet python tests examples benchmarks scripts
.venv/bin/ruff format --check --quiet python tests examples benchmarks scripts
git ls-files '*.h' '*.cpp' '*.cu' | xargs clang-format --dry-run -Werror

echo "== C++ tests (ASan + UBSan)"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
  -DEMBER_SANITIZE=ON -DEMBER_WERROR=ON -DEMBER_CUDA=OFF >/dev/null
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs"

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  # The CUDA backend cannot run here (no GPU), but it must keep compiling and linking.
  echo "== CUDA backend builds"
  # Unoptimised (-O0, kernels too): this build only checks that the code compiles and links.
  cmake -S . -B build/cuda -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DEMBER_FAST_KERNELS=OFF -DEMBER_CUDA=ON -DEMBER_WERROR=ON \
    -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build build/cuda -j "$jobs"
fi

echo "== Python tests"
# pyproject.toml's addopts already has -q; a second -q would also drop pytest's closing
# "N passed, M skipped" line. -rs lists why each skipped test was skipped.
.venv/bin/python -m pytest -n "$jobs" -rs tests/python

echo "== all tests passed in $(( $(date +%s) - start )) s"
