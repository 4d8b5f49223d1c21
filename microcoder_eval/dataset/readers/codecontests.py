"""DeepMind CodeContests rows: ``public_tests`` / ``private_tests`` / ``generated_tests``, each
``{"input": [...], "output": [...]}``; ``solutions`` = ``{"language": [...], "solution": [...]}``
(language 3 = PYTHON3 is kept as a reference; PYTHON (2), C++ and Java are not runnable here).
"""
from __future__ import annotations

from typing import Any

from microcoder_eval.dataset.readers.common import (FIELDS, as_text, finish, first_key, loads_lenient,
                                                    record_id, scalar_fields)
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.dataset.text import split_prompt
from microcoder_eval.problem import Problem, TestCase

DIFFICULTY = {0: "unknown", 1: "easy", 2: "medium", 3: "hard", 4: "harder", 5: "hardest", 6: "external",
              **{7 + i: chr(ord("A") + i) for i in range(22)}}
SOURCE = {0: "unknown", 1: "codechef", 2: "codeforces", 3: "hackerearth", 4: "codejam", 5: "atcoder", 6: "aizu"}
PYTHON3 = (3, "PYTHON3", "python3")
SPLITS = ("public_tests", "private_tests", "generated_tests")
_USED = {"name", "description", "problem", *SPLITS, "solutions", "incorrect_solutions", "difficulty", "source",
         "untranslated_description"}


def split_tests(value: Any, split: str) -> list[TestCase]:
    value = loads_lenient(value, split)
    if value in (None, ""):
        return []
    if not isinstance(value, dict):
        raise SkipRecord("bad_tests", f"{split} is a {type(value).__name__}, expected {{input: [], output: []}}")
    ins, outs = value.get("input") or [], value.get("output") or []
    if not isinstance(ins, list) or not isinstance(outs, list):
        raise SkipRecord("bad_tests", f"{split}.input/output must be lists")
    if len(ins) != len(outs):
        raise SkipRecord("tests_mismatch", f"{split}: {len(ins)} inputs but {len(outs)} outputs")
    return [TestCase(as_text(i, "input"), as_text(o, "output")) for i, o in zip(ins, outs)]


def python3_solutions(value: Any) -> list[str]:
    value = loads_lenient(value, "solutions") if isinstance(value, str) else value
    if not isinstance(value, dict):
        return []
    langs, sols = value.get("language") or [], value.get("solution") or []
    return [s for lang, s in zip(langs, sols) if lang in PYTHON3 and isinstance(s, str) and s.strip()]


def convert(rec: dict[str, Any], fallback_id: str, include_generated: bool = True) -> Problem:
    public = split_tests(rec.get("public_tests"), "public_tests")
    private = split_tests(rec.get("private_tests"), "private_tests")
    if include_generated:
        private += split_tests(rec.get("generated_tests"), "generated_tests")
    statement, _ = split_prompt(str(first_key(rec, ("description", "problem", "question")) or ""))
    diff = rec.get("difficulty")
    src = rec.get("source")
    p = Problem(
        question_id=record_id(rec, fallback_id),
        question_content=statement,
        question_title=str(rec.get("name") or ""),
        platform=SOURCE.get(src, str(src)) if isinstance(src, int) else str(src or "unknown").lower(),
        difficulty=DIFFICULTY.get(diff, str(diff)) if isinstance(diff, int) else str(diff or "unknown").lower(),
        public_tests=public,
        private_tests=private,
    )
    fields = scalar_fields(rec, _USED)
    tl = rec.get("time_limit")
    if isinstance(tl, dict) and tl.get("seconds") is not None:
        fields["time_limit_s"] = float(tl.get("seconds") or 0) + float(tl.get("nanos") or 0) / 1e9
    p.extra[FIELDS] = fields
    return finish(p, python3_solutions(rec.get("solutions")))
