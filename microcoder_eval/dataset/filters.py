"""Stage 2: drop problems with too few tests."""
from __future__ import annotations

from typing import Iterable

from microcoder_eval.dataset.store import StageWriter
from microcoder_eval.problem import Problem


def run_min_tests(problems: Iterable[Problem], out: StageWriter, min_tests: int) -> int:
    n = 0
    for p in problems:
        n += 1
        if len(p.tests) < min_tests:
            out.drop(p.question_id, "too_few_tests", f"{len(p.tests)} < {min_tests}", num_tests=len(p.tests))
        else:
            out.keep(p)
    out.notes["min_tests"] = min_tests
    return n
