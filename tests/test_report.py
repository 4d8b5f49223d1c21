"""pass@k estimator and report aggregation."""
import math

import pytest

from microcoder_eval.problem import Problem
from microcoder_eval.report import pass_at_k, summarize, to_markdown
from microcoder_eval.verdict import SampleResult, Status


def test_pass_at_k_matches_closed_form():
    for n, c, k in [(10, 3, 1), (10, 3, 5), (10, 0, 5), (10, 10, 1), (20, 7, 10)]:
        exact = 1.0 - math.comb(n - c, k) / math.comb(n, k)
        assert pass_at_k(n, c, k) == pytest.approx(exact)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 5)


def _res(qid, i, ok):
    return SampleResult(qid, i, Status.PASSED if ok else Status.WRONG_ANSWER, [], 1)


def test_summary_breakdowns_and_markdown():
    probs = [Problem("a", difficulty="easy", platform="atcoder"), Problem("b", difficulty="hard", platform="leetcode")]
    results = [_res("a", i, i < 2) for i in range(4)] + [_res("b", i, False) for i in range(4)]
    s = summarize(probs, results, ks=(1, 2, 10), window={"release": "release_v6", "start_date": "2025-02-01",
                                                          "end_date": "2025-05-01"})
    assert s["overall"]["pass@1"] == 25.0
    assert s["by_difficulty"]["easy"]["pass@1"] == 50.0 and s["by_difficulty"]["hard"]["pass@1"] == 0.0
    assert s["by_difficulty"]["easy"]["pass@2"] == pytest.approx(100 * (1 - 1 / 6), abs=0.01)
    assert s["overall"]["pass@10"] is None  # n=4 < 10
    md = to_markdown(s)
    assert "release `release_v6`" in md and "[2025-02-01, 2025-05-01)" in md
    assert "| pass@2 |" in md and "pass@10" not in md
