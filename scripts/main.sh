#!/usr/bin/env bash
# The main job: set everything up, then train (for now an MLP on synthetic data; the
# Fashion-MNIST example replaces it once it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/python examples/python/mlp_synthetic.py "$@"
