#!/usr/bin/env bash
# The benchmarks' own environment, .bench-venv: ember (the wheel scripts/setup.sh builds) next to
# its peer, PyTorch from PyPI, so both run in one process. Prints the path of its Python.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh >&2
if [ ! -x .bench-venv/bin/python ]; then
  "${PYTHON:-python3}" -m venv .bench-venv
fi
if ! .bench-venv/bin/python -c "import torch" 2>/dev/null; then
  echo "benchmarks: installing PyTorch from PyPI into .bench-venv (large download)" >&2
  .bench-venv/bin/python -m pip install -q --disable-pip-version-check torch numpy >&2
fi
# The tests that compare with PyTorch run here too (tests/python/*_torch.py), and so does
# scripts/realworld.py's PyTorch side (makemore needs tensorboard for torch.utils.tensorboard);
# the op table's special-function references are SciPy's.
# mkl is ember's FFT runtime (the wheel's dependency; the wheel goes in with --no-deps).
if ! .bench-venv/bin/python -c "import pytest, xdist, tensorboard, scipy" 2>/dev/null ||
  [ ! -e .bench-venv/lib/libmkl_rt.so.3 ]; then
  .bench-venv/bin/python -m pip install -q --disable-pip-version-check \
    pytest pytest-xdist tensorboard scipy "mkl>=2025" >&2
fi
.bench-venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall \
  build/wheels/ember-*.whl >&2
echo "$(pwd)/.bench-venv/bin/python"
