"""Reference verification: scripted evaluator for the decision rules, the real sandbox for APPS wrapping."""
from __future__ import annotations

import json
from pathlib import Path

from microcoder_eval.dataset.readers import read_source
from microcoder_eval.dataset.readers.common import SOLUTIONS, WRAPPED
from microcoder_eval.dataset.store import RunCache, Stage, iter_problems
from microcoder_eval.dataset.verify import VERIFICATION, VERIFIED_SOLUTION, Verifier, run_verify
from microcoder_eval.problem import Problem, TestCase, TestType
from microcoder_eval import verdict
from microcoder_eval.verdict import SampleResult, Status

FIX = Path(__file__).resolve().parent / "fixtures" / "dataset"


class ScriptedEvaluator:
    """The code names its behaviour: ok, wrong, flaky (alternates), infra, wrapped (passes on [x] outputs)."""

    def __init__(self):
        self.calls = 0
        self.flaky_state = 0

    def verdict(self, p: Problem, code: str) -> Status:
        if code == "ok":
            return Status.PASSED
        if code == "flaky":
            self.flaky_state += 1
            return Status.PASSED if self.flaky_state % 2 else Status.TIME_LIMIT
        if code == "infra":
            return Status.INFRA_ERROR
        if code == "crash":
            return Status.RUNTIME_ERROR
        if code == "wrapped":
            return Status.PASSED if all(t.output.startswith("[") for t in p.tests) else Status.WRONG_ANSWER
        return Status.WRONG_ANSWER

    def evaluate_iter(self, items, extract=False):
        for i, (p, code) in enumerate(items):
            self.calls += 1
            st = self.verdict(p, code)
            tests = [verdict.TestResult(k, st) for k in range(len(p.tests))]
            yield i, SampleResult(p.question_id, 0, st, tests, len(p.tests), code, "scripted")


def prob(qid, refs, wrapped=None):
    p = Problem(qid, question_content="q", private_tests=[TestCase(json.dumps(qid), "2", TestType.FUNCTIONAL)], func_name="f")
    p.extra[SOLUTIONS] = refs
    if wrapped:
        p.extra[WRAPPED] = wrapped
    return p


def verify(tmp_path, problems, runs=2, refs=3, require=False, ev=None):
    ev = ev or ScriptedEvaluator()
    cache = RunCache(tmp_path / "runs.jsonl", {"s": 1})
    w = Stage(tmp_path, 5, "verify", "k").writer()
    n = run_verify(problems, w, Verifier(ev, cache, runs, refs), require, progress=False)
    stats = w.close(n)
    cache.close()
    kept = {p.question_id: p for p in iter_problems(w.stage.problems_path)}
    dropped = {d["id"]: d for d in map(json.loads, (w.stage.dir / "dropped.jsonl").read_text().splitlines())}
    return kept, dropped, stats, ev


def test_decision_rules(tmp_path):
    problems = [prob("first_ok", ["ok"]), prob("second_ok", ["wrong", "ok"]), prob("all_wrong", ["wrong", "wrong"]),
                prob("flaky_then_ok", ["flaky", "ok"]), prob("only_flaky", ["flaky"]), prob("infra", ["infra"]),
                prob("beyond_limit", ["wrong", "wrong", "wrong", "ok"]), prob("no_refs", []),
                prob("one_wrong", ["wrong"]), prob("wrong_and_crash", ["wrong", "crash"])]
    kept, dropped, stats, _ = verify(tmp_path, problems)
    assert set(kept) == {"first_ok", "second_ok", "flaky_then_ok", "no_refs"}
    assert kept["second_ok"].extra[VERIFICATION] == {"status": "verified", "reference": 1, "runs": 2, "outputs": "as_read"}
    assert kept["second_ok"].extra[VERIFIED_SOLUTION] == "ok"
    assert kept["no_refs"].extra[VERIFICATION] == {"status": "unverified"}
    # several references that all run cleanly and all disagree with the tests: a checker candidate
    assert {k: d["reason"] for k, d in dropped.items()} == {
        "all_wrong": "checker_candidate", "only_flaky": "flaky", "infra": "infra_error",
        "beyond_limit": "checker_candidate", "one_wrong": "reference_failed", "wrong_and_crash": "reference_failed"}
    assert "add a checker" in dropped["all_wrong"]["detail"]
    assert "verdicts differ" in dropped["only_flaky"]["detail"]
    assert stats["notes"]["verified"] == 3 and stats["notes"]["kept_unverified"] == 1


def test_single_run_cannot_see_flakiness_and_require_reference(tmp_path):
    kept, dropped, _, _ = verify(tmp_path / "a", [prob("only_flaky", ["flaky"]), prob("none", [])], runs=1,
                                 require=True)
    assert set(kept) == {"only_flaky"} and dropped["none"]["reason"] == "no_reference"


def test_wrapped_outputs_are_chosen_when_the_reference_returns_them(tmp_path):
    kept, _, stats, _ = verify(tmp_path, [prob("w", ["wrapped"], wrapped=["[2]"]), prob("u", ["ok"], wrapped=["[2]"])])
    assert kept["w"].tests[0].output == "[2]" and kept["w"].extra[VERIFICATION]["outputs"] == "wrapped"
    assert kept["u"].tests[0].output == "2" and WRAPPED not in kept["u"].extra
    assert stats["notes"]["wrapped_outputs"] == 1


def test_verdicts_are_cached_across_runs(tmp_path):
    problems = [prob("a", ["wrong", "ok"]), prob("b", ["ok"])]
    _, _, _, ev = verify(tmp_path, problems)
    assert ev.calls == 2 * 3  # two runs each of a/ref0, a/ref1, b/ref0
    _, _, _, ev = verify(tmp_path, [prob("a", ["wrong", "ok"]), prob("b", ["ok"])])
    assert ev.calls == 0


def test_real_sandbox_resolves_apps_wrapping(tmp_path, evaluator):
    """APPS 0001 returns a one-element list (wrapped outputs win); TACO row 11 returns ints (unwrapped win)."""
    _, outs = read_source(FIX / "apps_dir")
    apps = [o.problem for o in outs if o.problem]
    _, outs = read_source(FIX / "taco.jsonl")
    taco = [o.problem for o in outs if o.problem and o.problem.question_id in ("10", "11", "12")]
    bad = Problem("bad", question_content="q", private_tests=[TestCase("1 2\n", "4\n")],
                  extra={SOLUTIONS: ["a, b = map(int, input().split())\nprint(a + b)\n"]})
    kept, dropped, stats, _ = verify(tmp_path, [*apps, *taco, bad], ev=evaluator)
    assert set(kept) == {"0000", "0001", "10", "11", "12"}
    assert [t.output for t in kept["0001"].tests] == ["[4]", "[9]"]
    assert [t.output for t in kept["11"].tests] == ["2", "0"]
    assert dropped["bad"]["reason"] == "reference_failed" and "wrong_answer" in dropped["bad"]["detail"]
    assert stats["notes"]["wrapped_outputs"] == 1


class Interrupting(ScriptedEvaluator):
    def __init__(self, after):
        super().__init__()
        self.after = after

    def evaluate_iter(self, items, extract=False):
        for n, item in enumerate(super().evaluate_iter(items, extract)):
            if n == self.after:
                raise KeyboardInterrupt
            yield item


def test_an_interrupted_verification_resumes_from_its_cache(tmp_path):
    import pytest

    problems = lambda: [prob(f"p{k}", ["ok"]) for k in range(5)]  # noqa: E731
    with pytest.raises(KeyboardInterrupt):
        verify(tmp_path, problems(), ev=Interrupting(after=4))
    kept, _, _, ev = verify(tmp_path, problems())
    assert len(kept) == 5 and ev.calls == 10 - 4  # the 4 finished evaluations are not repeated
