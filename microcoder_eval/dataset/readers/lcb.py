"""LiveCodeBench ``code_generation_lite`` records (the lead's loader does the decoding)."""
from __future__ import annotations

from typing import Any

from microcoder_eval.dataset.readers.common import FIELDS, finish, scalar_fields
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.lcb import problem_from_lcb_record
from microcoder_eval.problem import Problem

_USED = {"question_id", "question_title", "question_content", "platform", "contest_id", "contest_date",
         "difficulty", "starter_code", "public_test_cases", "private_test_cases", "metadata", "source"}


def convert(rec: dict[str, Any], fallback_id: str) -> Problem:
    rec = dict(rec)
    rec.setdefault("question_id", fallback_id)
    if rec.get("question_id") in (None, ""):
        rec["question_id"] = fallback_id
    try:
        p = problem_from_lcb_record(rec)
    except ValueError as e:
        raise SkipRecord("bad_lcb_record", str(e)[:160]) from e
    p.extra[FIELDS] = scalar_fields(rec, _USED)
    return finish(p)
