"""verl RL parquet rows: ``prompt`` chat messages, ``reward_model.ground_truth`` holding the tests.

``ground_truth`` is JSON: ``{"tests": "[{input, output, testtype}]"}`` (rllm) or APPS-style
``{"inputs", "outputs", "fn_name"?}`` (verl prime_code); the starter code (and so the function
name) comes from the LiveCodeBench prompt's ``### Format`` fence.
"""
from __future__ import annotations

from typing import Any

from microcoder_eval.dataset.readers import generic
from microcoder_eval.dataset.readers.common import FIELDS, scalar_fields
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.problem import Problem


def convert(rec: dict[str, Any], fallback_id: str) -> Problem:
    rm = rec.get("reward_model")
    if not isinstance(rm, dict) or rm.get("ground_truth") in (None, ""):
        raise SkipRecord("no_tests", "reward_model.ground_truth is missing")
    info = rec.get("extra_info") if isinstance(rec.get("extra_info"), dict) else {}
    row: dict[str, Any] = {"prompt": rec.get("prompt"), "ground_truth": rm["ground_truth"]}
    for k in ("question_id", "starter_code", "fn_name", "func_name", "difficulty", "platform"):
        if info.get(k) not in (None, ""):
            row[k] = info[k]
    if info.get("index") is not None and "question_id" not in row:
        row["question_id"] = f"{rec.get('data_source') or 'verl'}-{info.get('split', '')}-{info['index']}".replace("--", "-")
    if "question_id" not in row:
        row["question_id"] = fallback_id
    p = generic.convert(row, fallback_id)
    p.source = str(rec.get("data_source") or "")
    p.extra[FIELDS] = {**scalar_fields(rec, {"prompt", "reward_model", "extra_info"}),
                       **scalar_fields(info, set())}
    return p
