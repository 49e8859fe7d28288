#!/usr/bin/env bash
# Sets everything up and runs every test: lint, the C++ suite built with AddressSanitizer and
# UndefinedBehaviorSanitizer (including a separate project that finds ember with
# find_package), and the Python suite against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
jobs=${EMBER_JOBS:-$(nproc)}

./scripts/setup.sh

echo "== lint"
.venv/bin/ruff check --quiet python tests examples benchmarks
git ls-files '*.h' '*.cpp' '*.cu' | xargs clang-format --dry-run -Werror

echo "== C++ tests (ASan + UBSan)"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
  -DEMBER_SANITIZE=ON -DEMBER_WERROR=ON -DEMBER_CUDA=OFF >/dev/null
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs"

echo "== Python tests"
.venv/bin/python -m pytest -q -n "$jobs" tests/python

echo "== all tests passed in $(( $(date +%s) - start )) s"
