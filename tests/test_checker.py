"""Problems that accept any of several outputs carry a checker: run in the sandbox, named in the verdict."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from microcoder_eval.config import EvalConfig
from microcoder_eval.evaluator import Evaluator
from microcoder_eval.lcb import problem_from_lcb_record
from microcoder_eval.problem import Problem, TestCase
from microcoder_eval.verdict import Status

CHECK = """
def check(input, output, expected):
    n = int(input.split()[0])
    t = output.split()
    if len(t) != 2 or not all(x.isdigit() for x in t):
        return False
    a, b = map(int, t)
    return a > 0 and b > 0 and a + b == n
"""
PAIR = Problem("pair", public_tests=[TestCase("5\n", "1 4\n"), TestCase("10\n", "3 7\n")], checker=CHECK)
OTHER_ANSWER = "n = int(input())\nprint(n - 1, 1)"
WRONG = "n = int(input())\nprint(0, n)"


@pytest.fixture(scope="module")
def ev():
    with Evaluator(EvalConfig(workers=1, timeout_s=3, checker_timeout_s=3)) as e:
        yield e


def test_any_valid_answer_passes_by_the_checker_rule(ev):
    res = ev.evaluate_code(PAIR, OTHER_ANSWER)
    assert res.status is Status.PASSED, res.detail
    assert {t.rule for t in res.tests} == {"checker"}
    bad = ev.evaluate_code(PAIR, WRONG)
    assert bad.status is Status.WRONG_ANSWER and "checker rejected" in bad.detail


def test_checker_rides_in_lcb_records():
    p = problem_from_lcb_record(PAIR.to_lcb_record())
    assert p.checker == PAIR.checker
    with pytest.raises(ValueError, match="checker"):
        problem_from_lcb_record(dict(PAIR.to_lcb_record(), metadata=json.dumps({"checker": 7})))


@pytest.mark.parametrize("checker", [
    "import os\nos.kill(-1, 9)\ndef check(i, o, e):\n    return True",
    "def check(i, o, e):\n    while True:\n        pass",
    "def check(i, o, e):\n    return 'yes'",
    "def check(i, o, e):\n    raise ValueError('broken checker')",
])
def test_a_broken_or_hostile_checker_is_contained_and_judges_nothing(ev, checker):
    p = Problem("pair", public_tests=PAIR.public_tests, checker=checker)
    res = ev.evaluate_code(p, OTHER_ANSWER)
    assert res.status is Status.INFRA_ERROR and "checker" in res.detail, res.detail
    assert ev.evaluate_code(PAIR, OTHER_ANSWER).status is Status.PASSED  # the sandbox is fine


def test_lcb_mode_has_no_checkers_as_livecodebench():
    with Evaluator(EvalConfig(workers=1, timeout_s=3, mode="lcb")) as e:
        assert e.evaluate_code(PAIR, OTHER_ANSWER).status is Status.WRONG_ANSWER


def test_checker_problem_through_the_cli_and_the_reward(tmp_path):
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps(PAIR.to_lcb_record()) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"question_id": "pair", "code": c}) + "\n" for c in (OTHER_ANSWER, WRONG)))
    out = tmp_path / "r.jsonl"
    proc = subprocess.run([sys.executable, "-m", "microcoder_eval.cli", "evaluate", "--problems", str(problems),
                           "--samples", str(samples), "--out", str(out), "--no-progress", "--workers", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-1500:]
    rows = sorted((json.loads(l) for l in out.read_text().splitlines()), key=lambda r: r["sample_index"])
    assert [r["status"] for r in rows] == ["passed", "wrong_answer"]
    assert rows[0]["tests"][0]["rule"] == "checker"

    from microcoder_eval.reward import EvaluatorReward, RewardConfig

    record = PAIR.to_lcb_record()
    fence = "```python\n{}\n```"
    completions = [fence.format(OTHER_ANSWER), fence.format(WRONG)]
    r = EvaluatorReward(RewardConfig(workers=1, timeout_s=3))
    try:
        rewards = r(prompts=["p", "p"], completions=completions, **{k: [v, v] for k, v in record.items()})
    finally:
        r.close()
    assert rewards == [1.0, 0.0]


def test_shipped_checker_problem_through_the_dataset_builder(tmp_path):
    """build-dataset measures pass rates with the evaluator: the checker's verdicts count, and
    the problem keeps its checker in every export."""
    from conftest import DATA

    out = tmp_path / "ds"
    proc = subprocess.run([sys.executable, "-m", "microcoder_eval.cli", "build-dataset",
                           str(DATA / "lcb_sample_problems.jsonl"), "--out-dir", str(out), "--completions",
                           str(DATA / "lcb_sample_completions.jsonl"), "--min-completions", "3", "--no-progress"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-1500:]
    rates = {r["id"]: r for r in map(json.loads, (out / "stages" / "06_difficulty" / "rates.jsonl").read_text().splitlines())}
    assert rates["mccf05_a"]["pass_rate"] == pytest.approx(2 / 3)  # the other valid answer passes by the checker
    kept = {r["question_id"]: r for r in map(json.loads, (out / "problems.jsonl").read_text().splitlines())}
    assert "def check(" in problem_from_lcb_record(kept["mccf05_a"]).checker


@pytest.mark.parametrize("fmt,row", [
    ("plain", {"problem": "Split n into two positive parts.", "tests": [{"input": "5\n", "output": "1 4\n"}]}),
    ("apps", {"question": "Split n into two positive parts.",
              "input_output": json.dumps({"inputs": ["5\n"], "outputs": ["1 4\n"]})}),
])
def test_dataset_readers_keep_a_checker_column(tmp_path, fmt, row):
    from microcoder_eval.dataset.readers import read_source

    rows = [dict(row, question_id="ok", checker=CHECK), dict(row, question_id="bad", checker="print(1)")]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, outcomes = read_source(path, fmt)
    got = {o.problem.question_id if o.problem else o.where: o for o in outcomes}
    assert got["ok"].problem.checker == CHECK
    assert [o.reason for o in got.values() if o.problem is None] == ["bad_checker"]
