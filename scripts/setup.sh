#!/usr/bin/env bash
# Sets up ember on a Debian machine: the system packages it builds against (apt-get), a virtual
# environment in .venv with the Python build and test tools (pip), and ember itself built as a
# wheel (build/wheels) and installed into it. Safe to run again: it installs only what is missing,
# and the build is incremental (build/python, ccache).
set -euo pipefail
cd "$(dirname "$0")/.."

# Installed with --no-install-recommends, so every package the build's CMake configs pull in is
# named here: Debian's dnnl-config.cmake does find_package(OpenCL REQUIRED) (its oneDNN is built
# with the OpenCL GPU runtime) while libdnnl-dev only recommends ocl-icd-opencl-dev.
packages=(
  build-essential cmake ninja-build ccache git pkg-config clang-format
  python3 python3-venv python3-dev
  libdnnl-dev ocl-icd-opencl-dev libopenblas-openmp-dev libhwy-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev zlib1g-dev libgloo-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
# mkl: oneMKL's runtime, which ember loads for its Fourier transforms (docs/design/fft.md); it is
# also the wheel's own dependency, but the wheel is installed below with --no-deps.
.venv/bin/python -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "nanobind>=2.4" numpy pytest pytest-xdist ruff safetensors scipy \
  "mkl>=2025"

# Developers may keep symlinks to a CMake build in python/ember; they must not enter the wheel.
find python/ember -maxdepth 1 -name '*.so*' -type l -delete
echo "setup: building ember"
rm -rf build/wheels
# Warnings are errors in ember's own builds (not in a plain `pip install .` elsewhere, where another
# compiler may warn differently).
.venv/bin/python -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -C cmake.define.EMBER_WERROR=ON -w build/wheels .
# The same wheel goes into .venv here and into the benchmarks' environment (benchmarks/setup.sh).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall \
  build/wheels/ember-*.whl
