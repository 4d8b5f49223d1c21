#!/usr/bin/env bash
# Fresh-machine test run: make .venv, install the package with every CPU extra, run pytest.
# Usage: bash scripts/run_tests.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
# the sandbox's allow-list view is built with bubblewrap (Debian package "bubblewrap")
if ! command -v bwrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq bubblewrap) >/dev/null 2>&1 || echo "warning: could not install bubblewrap" >&2
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# torch first, pinned to the CPU build (a looser spec pulls a multi-GB CUDA build)
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[dev,dataset,train,ray]"
exec .venv/bin/python -m pytest -n 2 -q "$@"
