"""TACO / APPS rows (HF ``codeparrot/apps``, ``BAAI/TACO``) and the raw APPS folder layout.

``input_output`` is a JSON string ``{"inputs", "outputs", "fn_name"?}``. Stdin problems: inputs and
outputs are text (or lists of lines). Call-based problems (``fn_name``): each input is the list of
positional arguments and each output is the return value, usually wrapped in a one-element list;
see :func:`microcoder_eval.dataset.readers.common.call_based_tests` for how the wrap is resolved.
"""
from __future__ import annotations

from typing import Any

from microcoder_eval.dataset.readers.common import (
    FIELDS, checker_of, finish, first_key, loads_lenient, record_id, scalar_fields, solutions_from,
    tests_from_io, unlimited_int_digits,
)
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.dataset.text import split_prompt
from microcoder_eval.problem import Problem

_USED = {"question", "input_output", "solutions", "checker", "starter_code", "problem_id", "difficulty", "name"}


def convert(rec: dict[str, Any], fallback_id: str) -> Problem:
    raw_io = rec.get("input_output")
    if raw_io in (None, "", "{}"):
        raise SkipRecord("no_tests", "input_output is empty")
    with unlimited_int_digits():
        io = loads_lenient(raw_io, "input_output")
        if not isinstance(io, dict):
            raise SkipRecord("bad_tests", f"input_output is a {type(io).__name__}, expected an object")
        tests, fn, wrapped = tests_from_io(io, None)
    statement, starter = split_prompt(str(first_key(rec, ("question", "problem", "prompt")) or ""))
    starter = str(rec.get("starter_code") or starter or "")
    p = Problem(
        question_id=record_id(rec, fallback_id),
        question_content=statement,
        question_title=str(rec.get("name") or rec.get("title") or ""),
        platform=_platform(str(rec.get("url") or rec.get("source") or "")),
        difficulty=str(rec.get("difficulty") or "unknown").lower(),
        starter_code=starter,
        private_tests=tests,
        func_name=fn,
    )
    p.checker = checker_of(rec)
    p.extra[FIELDS] = scalar_fields(rec, _USED)
    return finish(p, solutions_from(rec.get("solutions")), wrapped)


def _platform(where: str) -> str:
    low = where.lower()
    for name in ("codeforces", "atcoder", "leetcode", "codewars", "codechef", "hackerrank", "kattis",
                 "aizu", "geeksforgeeks", "open.kattis"):
        if name in low:
            return name.split(".")[-1]
    return "unknown"
