"""The shipped sample data set: LCB record schema, decodable tests, consistent labels, and
expected outputs that the reference solutions in data/make_sample_data.py reproduce.

Nothing here uses the evaluator: the files must be valid on their own.
"""
from __future__ import annotations

import base64
import copy
import importlib.util
import io
import json
import pickle
import re
import subprocess
import sys
import zlib
from collections import Counter
from datetime import datetime
from functools import lru_cache

import pytest

from conftest import DATA

PROBLEMS = DATA / "lcb_sample_problems.jsonl"
COMPLETIONS = DATA / "lcb_sample_completions.jsonl"
RECORD_FIELDS = {"question_id", "question_title", "question_content", "platform", "contest_id",
                 "contest_date", "difficulty", "starter_code", "public_test_cases",
                 "private_test_cases", "metadata"}
COMPLETION_FIELDS = {"question_id", "category", "completion", "label", "expect_status",
                     "lcb_grader_verdict", "note"}
STATUSES = {"passed", "wrong_answer", "time_limit", "memory_limit", "runtime_error", "no_code"}


def _load_module(name: str):
    path = DATA / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=None)
def gen_data():
    return _load_module("make_sample_data")


@lru_cache(maxsize=None)
def gen_completions():
    return _load_module("make_sample_completions")


class _StrOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} in a test payload")


def decode_tests(raw: str) -> tuple[list[dict], bool]:
    """(tests, was_compressed) for a public/private_test_cases string."""
    try:
        return json.loads(raw), False
    except json.JSONDecodeError:
        payload = _StrOnly(io.BytesIO(zlib.decompress(base64.b64decode(raw)))).load()
        assert isinstance(payload, str), "compressed payload must be a pickled str"
        return json.loads(payload), True


def _records() -> list[dict]:
    return [json.loads(line) for line in PROBLEMS.read_text().splitlines() if line.strip()]


def _completions() -> list[dict]:
    return [json.loads(line) for line in COMPLETIONS.read_text().splitlines() if line.strip()]


RECORDS = _records()
BY_ID = {r["question_id"]: r for r in RECORDS}


def _is_functional(rec: dict) -> bool:
    return bool(json.loads(rec["metadata"]).get("func_name"))


# ------------------------------------------------------------------------------ problem records

def test_problem_set_size_and_mix():
    assert len(RECORDS) >= 24
    assert len(BY_ID) == len(RECORDS), "question_id must be unique"
    functional = [r for r in RECORDS if _is_functional(r)]
    stdin = [r for r in RECORDS if not _is_functional(r)]
    assert len(functional) >= 10 and len(stdin) >= 10
    assert {r["platform"] for r in stdin} == {"atcoder", "codeforces"}
    assert {r["platform"] for r in functional} == {"leetcode"}
    assert set(Counter(r["difficulty"] for r in RECORDS)) == {"easy", "medium", "hard"}
    months = {r["contest_date"][:7] for r in RECORDS}
    assert min(months) == "2024-08" and max(months) == "2025-05"
    assert len(months) >= 8


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["question_id"])
def test_record_schema(rec):
    assert set(rec) == RECORD_FIELDS
    for key in RECORD_FIELDS:
        assert isinstance(rec[key], str), key
    assert rec["question_title"] and rec["question_content"] and rec["contest_id"]
    assert rec["difficulty"] in {"easy", "medium", "hard"}
    assert rec["platform"] in {"leetcode", "atcoder", "codeforces"}
    assert datetime.fromisoformat(rec["contest_date"]).isoformat() == rec["contest_date"]
    assert "2024-08-01" <= rec["contest_date"][:10] <= "2025-05-31"
    meta = json.loads(rec["metadata"])
    assert isinstance(meta, dict)
    if rec["platform"] == "leetcode":
        name = meta["func_name"]
        assert rec["starter_code"].startswith("class Solution:\n    def " + name + "(self")
        assert rec["starter_code"].endswith(":\n        ")
    else:  # stdin problems carry nothing but, where several answers are accepted, a checker
        assert set(meta) <= {"checker"} and rec["starter_code"] == ""
        if meta:
            assert "def check(input, output, expected)" in meta["checker"]


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["question_id"])
def test_tests_decode_and_match_the_mode(rec):
    public, public_compressed = decode_tests(rec["public_test_cases"])
    private, _ = decode_tests(rec["private_test_cases"])
    assert not public_compressed
    assert 2 <= len(public) <= 4 and 3 <= len(private) <= 8
    functional = _is_functional(rec)
    n_params = rec["starter_code"].split("(self", 1)[-1].split(")")[0].count(":") if functional else 0
    for t in public + private:
        assert set(t) == {"input", "output", "testtype"}
        assert t["testtype"] == ("functional" if functional else "stdin")
        assert isinstance(t["input"], str) and isinstance(t["output"], str) and t["output"]
        if functional:
            args = [json.loads(line) for line in t["input"].split("\n")]
            assert len(args) == n_params
            json.loads(t["output"])
        else:
            assert t["input"].endswith("\n") and t["output"].endswith("\n")
    for t in public:  # examples in the statement are the public tests
        shown = t["output"].strip() if not functional else json.dumps(json.loads(t["output"]), separators=(",", ":"))
        assert shown in rec["question_content"]


def test_compressed_private_tests_present():
    compressed = [r["question_id"] for r in RECORDS if decode_tests(r["private_test_cases"])[1]]
    assert len(compressed) >= 2
    assert any(_is_functional(BY_ID[q]) for q in compressed)
    assert any(not _is_functional(BY_ID[q]) for q in compressed)


def test_required_output_shapes_present():
    def outputs(rec):
        return [t["output"] for raw in (rec["public_test_cases"], rec["private_test_cases"])
                for t in decode_tests(raw)[0]]

    stdin = [r for r in RECORDS if not _is_functional(r)]
    functional = [r for r in RECORDS if _is_functional(r)]
    fixed_decimals = re.compile(r"^-?\d+\.\d{6,}$")
    assert sum(all(fixed_decimals.match(o.strip()) for o in outputs(r)) for r in stdin) >= 3
    digits = [max(len(o.split("\n")[0]) for o in outputs(r)) for r in stdin]
    assert sum(d > 4300 for d in digits) >= 2 and max(digits) > 50000
    assert sum(any(o.strip().count("\n") >= 2 for o in outputs(r)) for r in stdin) >= 4
    assert any(set(o.strip() for o in outputs(r)) == {"Yes", "No"} for r in stdin)
    returned = [[json.loads(o) for o in outputs(r)] for r in functional]
    assert any(all(isinstance(v, list) for v in vals) for vals in returned)
    assert any(all(isinstance(v, float) for v in vals) for vals in returned)


# ------------------------------------------------------------------------------ reference solutions

@pytest.mark.parametrize("qid", sorted(q for q, r in BY_ID.items() if not _is_functional(r)))
def test_stdin_reference_reproduces_expected_outputs(qid):
    spec = gen_data().spec_by_id()[qid]
    rec = BY_ID[qid]
    tests = decode_tests(rec["public_test_cases"])[0] + decode_tests(rec["private_test_cases"])[0]
    for i, t in enumerate(tests):
        proc = subprocess.run([sys.executable, "-c", spec.reference], input=t["input"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr[-300:]
        assert proc.stdout == t["output"], f"{qid} test {i}: reference output differs"


@pytest.mark.parametrize("qid", sorted(q for q, r in BY_ID.items() if _is_functional(r)))
def test_functional_reference_reproduces_expected_outputs(qid):
    gen = gen_data()
    spec = gen.spec_by_id()[qid]
    method = gen.load_functional_reference(spec)
    rec = BY_ID[qid]
    for t in decode_tests(rec["public_test_cases"])[0] + decode_tests(rec["private_test_cases"])[0]:
        args = [json.loads(line) for line in t["input"].split("\n")]
        assert json.dumps(method(*copy.deepcopy(args))) == t["output"]


def test_generator_covers_exactly_the_shipped_problems():
    gen = gen_data()
    assert set(gen.spec_by_id()) == set(BY_ID)
    for qid, spec in gen.spec_by_id().items():
        rec = BY_ID[qid]
        assert (rec["platform"], rec["difficulty"], rec["contest_date"][:10]) == (spec.platform, spec.difficulty, spec.date)
        assert decode_tests(rec["private_test_cases"])[1] == spec.compress_private


# ------------------------------------------------------------------------------ completions

COMPS = _completions()


def test_completion_file_is_what_the_generator_writes():
    assert gen_completions().render() == COMPLETIONS.read_text()


def test_completion_counts():
    assert len(COMPS) >= 80
    per_problem = Counter(c["question_id"] for c in COMPS)
    assert set(per_problem) == set(BY_ID), "every problem has completions, none for unknown ids"
    assert len(COMPS) / len(BY_ID) >= 3
    passing = Counter(c["question_id"] for c in COMPS if c["label"] == "pass")
    failing = Counter(c["question_id"] for c in COMPS if c["label"] == "fail")
    assert set(passing) == set(BY_ID), "each problem has at least one passing completion"
    assert len(failing) >= len(BY_ID) - 2


@pytest.mark.parametrize("i", range(len(COMPS)))
def test_completion_schema_and_label_consistency(i):
    c = COMPS[i]
    assert set(c) == COMPLETION_FIELDS
    assert c["question_id"] in BY_ID
    assert c["label"] in {"pass", "fail"}
    assert c["expect_status"] in STATUSES
    assert (c["label"] == "pass") == (c["expect_status"] == "passed")
    assert isinstance(c["lcb_grader_verdict"], bool)
    assert isinstance(c["note"], str) and c["note"]
    cats = gen_completions()
    assert c["category"] in cats.CATEGORIES
    assert (c["category"] in cats.PASS_CATEGORIES) == (c["label"] == "pass")
    text = c["completion"]
    fences = [line for line in text.split("\n") if line.strip().startswith("```")]
    if c["category"] == "no_code_fence":
        assert not fences and c["expect_status"] == "no_code"
    elif c["category"] == "no_code_truncated":
        assert len(fences) == 1 and c["expect_status"] == "no_code"
    else:
        assert "```python" in text and len(fences) >= 2


def test_status_implied_by_category():
    implied = {"infinite_loop": "time_limit", "memory_hog": "memory_limit", "syntax_error": "runtime_error",
               "crash_after_output": "runtime_error", "sys_exit_nonzero_after_output": "runtime_error",
               "crash_on_private": "runtime_error", "runtime_error": "runtime_error",
               "always_equal_object": "wrong_answer", "wrong_case": "wrong_answer",
               "output_prefix_only": "wrong_answer", "extra_output_line": "wrong_answer",
               "float_off_1e-3": "wrong_answer", "passes_public_fails_private": "wrong_answer",
               "no_code_fence": "no_code", "no_code_truncated": "no_code"}
    for c in COMPS:
        if c["category"] in implied:
            assert c["expect_status"] == implied[c["category"]], c["category"]


def test_every_category_present():
    assert {c["category"] for c in COMPS} == set(gen_completions().CATEGORIES)
    assert {c["expect_status"] for c in COMPS} == STATUSES


def test_lcb_false_negatives_and_false_positives_present():
    fn = {c["category"] for c in COMPS if c["label"] == "pass" and not c["lcb_grader_verdict"]}
    fp = {c["category"] for c in COMPS if c["label"] == "fail" and c["lcb_grader_verdict"]}
    assert {"stdout_buffer_write", "stdout_os_write", "global_in_function", "stdin_open0_read",
            "stdin_buffer_readline", "float_other_precision", "functional_float_within_tol",
            "bigint_over_50000_digits"} <= fn
    assert {"sys_exit_nonzero_after_output", "always_equal_object"} <= fp


def test_no_code_completions_have_no_complete_fence():
    for c in COMPS:
        if c["expect_status"] == "no_code":
            lines = c["completion"].split("\n")
            assert sum("```" in line for line in lines) < 2
