#!/usr/bin/env bash
# Fresh-machine test run: make .venv, install the package with every CPU extra, run pytest.
# Usage: bash scripts/run_tests.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# torch first, pinned to the CPU build (a looser spec pulls a multi-GB CUDA build)
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[dev,dataset,train,ray]"
exec .venv/bin/python -m pytest -n 2 -q "$@"
