"""rllm / DeepCoder style rows and the plain ``{question, tests}`` JSONL (one converter).

Statement: ``problem`` | ``question`` | ``question_content`` | ``prompt`` (known prompt wrappers are
stripped). Tests: ``tests`` | ``test_cases`` | ``input_output`` | ``ground_truth``, each a list of
``{input, output, testtype|type}``, an ``{inputs, outputs, fn_name?}`` object, a ``{"tests": ...}``
wrapper, or a JSON / python-literal string of those (rllm files use single quotes). Functional tests
take the function name from ``fn_name``/``func_name``/``metadata`` or the starter code.
"""
from __future__ import annotations

from typing import Any

from microcoder_eval.dataset.readers.common import (
    FIELDS, checker_of, finish, first_key, func_name_of, parse_tests, record_id, scalar_fields,
    solutions_from, unlimited_int_digits,
)
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.dataset.text import func_name_from_code, split_prompt
from microcoder_eval.problem import Problem

STATEMENT_KEYS = ("problem", "question", "question_content", "description", "prompt")
TEST_KEYS = ("tests", "test_cases", "input_output", "ground_truth")
_USED = {*STATEMENT_KEYS, *TEST_KEYS, "checker", "starter_code", "solutions", "solution", "completion", "metadata",
         "fn_name", "func_name", "difficulty", "platform", "question_id", "problem_id", "id"}


def statement_of(rec: dict[str, Any]) -> tuple[str, str]:
    value = first_key(rec, STATEMENT_KEYS)
    if isinstance(value, list):  # chat messages
        value = next((m.get("content") for m in value if isinstance(m, dict) and m.get("role") == "user"), None)
    if not isinstance(value, str):
        return "", ""
    return split_prompt(value)


def convert(rec: dict[str, Any], fallback_id: str) -> Problem:
    statement, starter_in_prompt = statement_of(rec)
    starter = str(rec.get("starter_code") or starter_in_prompt or "")
    fn = func_name_of(rec, starter)
    raw = first_key(rec, TEST_KEYS)
    if raw is None:
        raise SkipRecord("no_tests", f"none of the columns {', '.join(TEST_KEYS)} is present")
    with unlimited_int_digits():
        tests, fn, wrapped = parse_tests(raw, fn)
    p = Problem(
        question_id=record_id(rec, fallback_id),
        question_content=statement,
        question_title=str(rec.get("question_title") or rec.get("title") or ""),
        platform=str(rec.get("platform") or "unknown").lower(),
        difficulty=str(rec.get("difficulty") or "unknown").lower(),
        starter_code=starter,
        private_tests=tests,
        func_name=fn or func_name_from_code(starter),
    )
    p.checker = checker_of(rec)
    p.extra[FIELDS] = scalar_fields(rec, _USED)
    sols = solutions_from(first_key(rec, ("solutions", "solution", "completion")))
    return finish(p, sols, wrapped)
