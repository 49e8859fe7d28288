#!/usr/bin/env bash
# The main job: set everything up, then train a CNN on Fashion-MNIST
# (examples/fashion_mnist.py; its flags pass through: ./scripts/main.sh --epochs 1 --threads 2).
set -euo pipefail
cd "$(dirname "$0")/.."

# The data: Debian's package puts the four IDX files in /usr/share/datasets/fashion-mnist.
if ! dpkg-query -W -f='${Status}' dataset-fashion-mnist 2>/dev/null | grep -q "ok installed"; then
  echo "main: installing dataset-fashion-mnist"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    dataset-fashion-mnist >/dev/null
fi

./scripts/setup.sh
# The example plots its curves with matplotlib (optional: without it, no plot).
.venv/bin/python -c "import matplotlib" 2>/dev/null ||
  .venv/bin/python -m pip install -q --disable-pip-version-check matplotlib
exec .venv/bin/python examples/fashion_mnist.py "$@"
