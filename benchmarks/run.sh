#!/usr/bin/env bash
# Runs one benchmark (overhead, ...) in the benchmarks' environment: benchmarks/run.sh overhead
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(benchmarks/setup.sh)
name=${1:?usage: benchmarks/run.sh NAME [args...]}
shift
exec "$python" "benchmarks/$name.py" "$@"
