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
# verl's reward loading and reward managers, next to [train] (whose transformers verl's metadata
# excludes): --no-deps, so nothing replaces torch or transformers (README "verl")
.venv/bin/python -m pip install -q --no-deps "verl==0.9.1" "tensordict==0.10.0" "codetiming==1.4.0" \
  "hydra-core==1.3.8" "omegaconf==2.4.0" "antlr4-python3-runtime==4.9.3" "pyvers==0.2.3" "cloudpickle>=3"
exec .venv/bin/python -m pytest -n 2 -q "$@"
