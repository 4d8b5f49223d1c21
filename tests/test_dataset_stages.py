"""Dataset-builder stages without the sandbox: text helpers, store, dedup, decontamination, difficulty."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from microcoder_eval.dataset import decontaminate as dc
from microcoder_eval.dataset.config import BuildDatasetConfig
from microcoder_eval.dataset.dedup import find_duplicates
from microcoder_eval.dataset.difficulty import run_difficulty
from microcoder_eval.dataset.filters import run_min_tests
from microcoder_eval.dataset.store import RunCache, Stage, iter_problems, problem_from_row, problem_to_row
from microcoder_eval.dataset.text import func_name_from_code, normalize, split_prompt, word_ngrams
from microcoder_eval.errors import UserError
from microcoder_eval.problem import CompareOptions, Problem, TestCase, TestType
from microcoder_eval.verdict import SampleResult, Status

FIX = Path(__file__).resolve().parent / "fixtures" / "dataset"
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def text(k: int, n: int = 60, change: int = 0) -> str:
    """A deterministic pseudo-statement; ``change`` words replaced near the end."""
    words = [f"{WORDS[(i * 7 + k) % 26]}{(i * k) % 11}" for i in range(n)]
    for j in range(change):
        words[n - 1 - 3 * j] = "changed"
    return " ".join(words)


def prob(qid: str, statement: str, ntests: int = 1, **kw) -> Problem:
    return Problem(qid, question_content=statement,
                   private_tests=[TestCase(f"{i}\n", f"{i}\n") for i in range(ntests)], **kw)


# ---------------------------------------------------------------- text
def test_split_prompt_removes_known_wrappers():
    s, starter = split_prompt("You are an expert Python programmer. You will be given a question (problem specification) "
                              "and will generate a correct Python program that matches the specification and passes all "
                              "tests.\nAdd two numbers.### Format: You will use the following starter code\n```python\n"
                              "class Solution:\n    def add(self, a, b):\n        \n```\n\n```python\n# YOUR CODE HERE\n```")
    assert s == "Add two numbers." and starter.startswith("class Solution:") and func_name_from_code(starter) == "add"
    s, starter = split_prompt("Read n.\n### Format: Read the inputs from stdin\n```python\n# YOUR CODE HERE\n```")
    assert s == "Read n." and starter == ""
    assert split_prompt("QUESTION:\nJust the statement") == ("Just the statement", "")


def test_func_name_from_code():
    assert func_name_from_code("class Solution:\n    def __init__(self):\n        pass\n") is None
    assert func_name_from_code("def is_prime(n):\n\t") == "is_prime"
    assert func_name_from_code("") is None


def test_normalize_and_ngrams():
    assert normalize("Given $a_i$, PRINT the Sum!") == "given ai print the sum"
    assert word_ngrams("a b c".split(), 2) == {"a b", "b c"}
    assert word_ngrams(["a"], 5) == {"a"} and word_ngrams([], 3) == set()


# ---------------------------------------------------------------- store
def test_problem_row_round_trip():
    p = Problem("q1", question_content="s", public_tests=[TestCase("[1]", "2", TestType.FUNCTIONAL)],
                func_name="f", compare=CompareOptions(float_tol=1e-3), time_limit_s=2.0, source="src",
                extra={"solutions": ["def f(x): return 2"], "fields": {"rate": 0.5}})
    q = problem_from_row(json.loads(json.dumps(problem_to_row(p))))
    assert q == p


def test_stage_writer_accounts_for_every_input(tmp_path):
    stage = Stage(tmp_path, 1, "x", "key1")
    w = stage.writer()
    w.keep(prob("a", "s"))
    w.drop("b", "why", "detail")
    with pytest.raises(RuntimeError, match="lost"):
        w.close(3)
    w = stage.writer()
    w.keep(prob("a", "s"))
    stats = w.close(1)
    assert stats["output"] == 1 and stage.done()["key"] == "key1"
    assert [p.question_id for p in iter_problems(stage.problems_path)] == ["a"]
    assert Stage(tmp_path, 1, "x", "other").done() is None  # another key: not reusable


def test_run_cache_resumes_truncates_torn_lines_and_resets_on_new_settings(tmp_path):
    path = tmp_path / "runs.jsonl"
    c = RunCache(path, {"mode": "flex"})
    c.add("k1", SampleResult("q", 0, Status.PASSED, num_tests=1))
    c.close()
    with path.open("a") as f:
        f.write('{"k": "k2", "r": {"question_id"')  # interrupted write
    c = RunCache(path, {"mode": "flex"})
    assert c.get("k1").passed and c.get("k2") is None
    c.close()
    assert path.read_text().endswith("\n")
    c = RunCache(path, {"mode": "lcb"})
    assert c.get("k1") is None
    c.close()


# ---------------------------------------------------------------- min tests, dedup
def test_min_tests(tmp_path):
    w = Stage(tmp_path, 2, "min_tests", "k").writer()
    n = run_min_tests([prob("a", "x", 1), prob("b", "y", 3)], w, 2)
    stats = w.close(n)
    assert stats["output"] == 1 and stats["dropped"] == {"too_few_tests": 1}


def test_exact_and_near_duplicates_keep_the_copy_with_most_tests():
    items = [("a", text(1), 1), ("a_upper", text(1).upper() + " !!", 5), ("b", text(2), 2),
             ("b_near", text(2, change=1), 1), ("c", text(3), 1), ("d", text(2, change=12), 1)]
    dropped = find_duplicates(items, 0.8, 5, 128)
    assert dropped[0][:2] == ("exact_duplicate", "a_upper")
    assert dropped[3][:2] == ("near_duplicate", "b") and 0.8 <= dropped[3][2] < 1
    assert set(dropped) == {0, 3}  # c is different, d changed too much
    assert set(find_duplicates(items, 1.0, 5, 128)) == {0}  # threshold 1: exact only
    same_tests = [("few_refs", text(1), 2, 1), ("many_refs", text(1), 2, 9), ("more_tests", text(1), 3, 0)]
    assert {k: v[1] for k, v in find_duplicates(same_tests, 0.8, 5, 128).items()} == {0: "more_tests", 1: "more_tests"}
    assert set(find_duplicates(same_tests[:2], 0.8, 5, 128)) == {0}  # equal tests: more references win


# ---------------------------------------------------------------- decontamination
def _eval_file(tmp_path: Path) -> Path:
    rows = []
    for qid, day, k in (("ev_new", "2025-03-01T00:00:00", 4), ("ev_old", "2023-06-01T00:00:00", 5)):
        rows.append({"question_id": qid, "question_content": text(k), "contest_date": day,
                     "public_test_cases": json.dumps([{"input": " ".join(str(i) for i in range(k, k + 20)),
                                                       "output": "42", "testtype": "stdin"}]),
                     "private_test_cases": "[]", "metadata": "{}"})
    rows.append({"question_id": "ev_nodate", "question_content": text(6), "public_test_cases": json.dumps(
        [{"input": "1", "output": "1"}]), "metadata": "{}"})
    f = tmp_path / "eval.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f


def test_decontamination_statements_tests_and_window(tmp_path):
    ev = dc.load_eval_set([str(_eval_file(tmp_path))], "2025-01-01", None, None, 13, 13)
    assert ev.ids == ["ev_new"] and ev.summary["excluded_outside_window"] == 1
    assert ev.summary["excluded_without_date"] == 1
    copy_with_wrapper = prob("t1", "Solve this please: " + text(4)[:200])  # partial copy + wrapper
    same_tests = Problem("t2", question_content=text(9), private_tests=[
        TestCase(" ".join(str(i) for i in range(4, 24)), "42")])
    old_copy = prob("t3", text(5))  # only the out-of-window problem matches
    clean = prob("t4", text(7))
    w = Stage(tmp_path, 4, "decontaminate", "k").writer()
    n = dc.run_decontaminate([copy_with_wrapper, same_tests, old_copy, clean], w, ev, 13, 0.5, 13, 0.5, False)
    stats = w.close(n)
    assert stats["dropped"] == {"contaminated_statement": 1, "contaminated_tests": 1} and stats["output"] == 2
    dropped = [json.loads(line) for line in (w.stage.dir / "dropped.jsonl").read_text().splitlines()]
    assert {d["id"]: d["reason"] for d in dropped} == {"t1": "contaminated_statement", "t2": "contaminated_tests"}
    assert dropped[0]["statement_match"] == "ev_new"
    kept = [p.question_id for p in iter_problems(w.stage.problems_path)]
    assert kept == ["t3", "t4"]


def test_decontamination_release_window_and_empty_window(tmp_path):
    f = _eval_file(tmp_path)
    ev = dc.load_eval_set([str(f)], None, None, "release_v1", 13, 13)
    assert ev.ids == ["ev_old"]
    with pytest.raises(UserError, match="no problems in the window"):
        dc.load_eval_set([str(f)], "2030-01-01", None, None, 13, 13)


def test_short_tests_are_not_compared(tmp_path):
    ev = dc.load_eval_set([str(_eval_file(tmp_path))], None, None, None, 13, 13)
    assert ev.summary["without_comparable_tests"] == 1  # ev_nodate's test has 2 tokens
    w = Stage(tmp_path, 4, "d", "k").writer()
    n = dc.run_decontaminate([Problem("t", question_content=text(8), private_tests=[TestCase("1", "1")])],
                             w, ev, 13, 0.5, 13, 0.5, False)
    assert w.close(n)["output"] == 1


# ---------------------------------------------------------------- difficulty
def test_difficulty_from_a_pass_rate_column(tmp_path):
    ps = []
    for qid, v in (("easy", 1.0), ("hard", 0.0), ("mid", 0.5), ("edge", 0.05), ("pct", 50), ("missing", None),
                   ("text", "0.5")):
        p = prob(qid, qid, difficulty="medium")
        if v is not None:
            p.extra["fields"] = {"rate": v}
        ps.append(p)
    w = Stage(tmp_path, 6, "difficulty", "k").writer()
    n, rows = run_difficulty(ps, w, low=0.05, high=0.95, min_completions=1, column="rate", progress=False)
    stats = w.close(n)
    assert stats["dropped"] == {"too_easy": 1, "too_hard": 1, "bad_pass_rate": 2, "no_pass_rate": 1}
    assert [p.question_id for p in iter_problems(w.stage.problems_path)] == ["mid", "edge"]
    assert [r["kept"] for r in rows] == [False, False, True, True, False, False, False]


class FakeEvaluator:
    """Judges a completion by its text: 'pass' passes, 'infra' is an infrastructure error, else wrong."""

    def __init__(self):
        self.calls = 0

    def evaluate_iter(self, items, extract=False):
        for i, (p, text_) in enumerate(items):
            self.calls += 1
            status = Status.PASSED if "pass" in text_ else Status.INFRA_ERROR if "infra" in text_ else Status.WRONG_ANSWER
            yield i, SampleResult(p.question_id, 0, status, num_tests=len(p.tests))


def test_difficulty_from_completions_ignores_infra_errors(tmp_path):
    from microcoder_eval.samples import Sample

    samples = {"a": [Sample("a", k, t) for k, t in enumerate(["pass", "wrong", "infra", "pass 2"])],
               "b": [Sample("b", k, "pass") for k in range(3)] + [Sample("b", 3, "infra")],
               "c": [Sample("c", k, "pass" if k == 0 else f"w{k}") for k in range(5)],
               "ghost": [Sample("ghost", 0, "pass")]}
    ev = FakeEvaluator()
    cache = RunCache(tmp_path / "c.jsonl", {"m": 1})
    w = Stage(tmp_path, 6, "difficulty", "k").writer()
    n, rows = run_difficulty([prob("a", "a"), prob("b", "b"), prob("c", "c"), prob("none", "n")], w, low=0.1,
                             high=0.9, min_completions=3, samples=samples, evaluator=ev, cache=cache, progress=False)
    stats = w.close(n)
    kept = {p.question_id: p.extra["difficulty"] for p in iter_problems(w.stage.problems_path)}
    assert set(kept) == {"a", "c"} and kept["a"]["pass_rate"] == pytest.approx(2 / 3)
    assert kept["a"]["num_infra_errors"] == 1 and kept["c"]["pass_rate"] == 0.2
    assert stats["dropped"] == {"too_easy": 1, "too_few_completions": 1}
    assert stats["notes"]["completions_for_unknown_problems"] == 1 and stats["notes"]["infra_error_samples"] == 2
    # verdicts are cached by (tests, text): a, b and c have the same tests, so each distinct text runs once
    assert ev.calls == len({"pass", "wrong", "infra", "pass 2", "w1", "w2", "w3", "w4"})
    cache.close()
    ev2 = FakeEvaluator()
    cache = RunCache(tmp_path / "c.jsonl", {"m": 1})
    w = Stage(tmp_path, 6, "difficulty", "k2").writer()
    n, _ = run_difficulty([prob("a", "a")], w, low=0.1, high=0.9, min_completions=3, samples=samples,
                          evaluator=ev2, cache=cache, progress=False)
    w.close(n)
    cache.close()
    assert ev2.calls == 1  # resumed from the cache file; only the infra_error sample is judged again


# ---------------------------------------------------------------- config
@pytest.mark.parametrize("kw, msg", [
    ({"inputs": []}, "no inputs"),
    ({"format": "xml"}, "format"),
    ({"min_tests": 0}, "min_tests"),
    ({"near_dup_threshold": 0}, "near_dup_threshold"),
    ({"min_pass_rate": 0.8, "max_pass_rate": 0.2}, "band"),
    ({"max_pass_rate": 1.5}, "max_pass_rate"),
    ({"eval_start_date": "2025-01-01"}, "decontaminate-against"),
    ({"completions": "x.jsonl", "pass_rate_column": "r"}, "not both"),
    ({"completions": "/no/such.jsonl"}, "does not exist"),
    ({"eval_mode": "strict"}, "eval_mode"),
    ({"verify_runs": 0}, "verify_runs"),
    ({"timeout_s": 0}, "timeout_s"),
    ({"keep_solutions": 2, "max_references": 3}, "keep_solutions"),
])
def test_config_validation(tmp_path, kw, msg):
    base = {"inputs": [str(FIX / "plain.jsonl")], "out_dir": str(tmp_path / "o")}
    with pytest.raises(UserError, match=msg):
        BuildDatasetConfig(**{**base, **kw})


def test_config_dates_and_release(tmp_path):
    ev = str(FIX / "eval_lcb.jsonl")
    cfg = BuildDatasetConfig([str(FIX / "plain.jsonl")], str(tmp_path), decontaminate_against=[ev],
                             eval_start_date="2025-01-01T00:00:00", eval_release="release_v6")
    assert cfg.eval_start_date == "2025-01-01"
    with pytest.raises(UserError, match="not before"):
        BuildDatasetConfig([str(FIX / "plain.jsonl")], str(tmp_path), decontaminate_against=[ev],
                           eval_start_date="2025-02-01", eval_end_date="2025-01-01")
    with pytest.raises(UserError, match="release"):
        BuildDatasetConfig([str(FIX / "plain.jsonl")], str(tmp_path), decontaminate_against=[ev], eval_release="v9")
    assert all(BuildDatasetConfig.help().values())
