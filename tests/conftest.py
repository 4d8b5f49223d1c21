"""Shared fixtures: one warm evaluator per test session, paths to shipped and real data."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def _find_real() -> Path:
    """``../shared/real`` next to the checkout, or next to any folder above it (git worktrees)."""
    for base in ROOT.parents:
        cand = base / "shared" / "real"
        if cand.is_dir():
            return cand
    return ROOT.parent / "shared" / "real"


REAL = _find_real()


@pytest.fixture(scope="session")
def evaluator():
    from microcoder_eval.config import EvalConfig
    from microcoder_eval.evaluator import Evaluator

    ev = Evaluator(EvalConfig(workers=2, timeout_s=2.0, memory_mb=1024))
    yield ev
    ev.close()


@pytest.fixture(scope="session")
def lcb_evaluator():
    from microcoder_eval.config import EvalConfig
    from microcoder_eval.evaluator import Evaluator

    ev = Evaluator(EvalConfig(workers=2, timeout_s=2.0, memory_mb=1024, mode="lcb"))
    yield ev
    ev.close()


def real(path: str) -> Path:
    p = REAL / path
    if not p.exists():
        pytest.skip(f"real data {p} not present (needs ../shared/real)")
    return p
