"""Read model samples: JSONL ``{question_id, completion}`` or LiveCodeBench ``[{question_id, code_list}]``."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.lcb import dedupe_id


@dataclass
class Sample:
    """One completion (raw text) or one already-extracted program for a problem."""

    question_id: str
    sample_index: int
    text: str | None
    is_code: bool = False  # True: ``text`` is extracted code (LCB code_list), not a raw completion
    label: bool | None = None  # known true verdict, if the file carries one
    reference_verdict: bool | None = None  # LiveCodeBench's own verdict (graded_list), if present

    @property
    def key(self) -> tuple[str, int]:
        return (self.question_id, self.sample_index)


def _maybe_json_list(value: Any, what: str, where: str) -> list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise UserError(f"{where}: {what} is a string but not a JSON list ({e.msg})") from e
    if not isinstance(value, list):
        raise UserError(f"{where}: {what} must be a list, got {type(value).__name__}")
    return value


def _label(value: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"pass", "passed", "true", "correct", "1"}:
        return True
    if isinstance(value, str) and value.lower() in {"fail", "failed", "false", "incorrect", "0"}:
        return False
    return None


def load_samples(path: str | Path, use_raw_output: bool = False) -> list[Sample]:
    """Load samples; raises ``UserError`` naming the file and record on malformed input.

    LCB files: ``code_list`` (already extracted) is used unless ``use_raw_output`` asks for
    ``output_list`` (raw completions, extracted again by our extractor).
    """
    p = Path(path)
    if not p.exists():
        raise UserError(f"samples file {str(p)!r} does not exist")
    if not p.is_file():
        raise UserError(f"samples path {str(p)!r} is not a file")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{p}: not UTF-8 text ({e.reason} at byte {e.start}); convert the file to UTF-8") from e
    stripped = text.lstrip()
    records: list[tuple[str, Any]]
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise UserError(f"{p}: not valid JSON ({e.msg} at line {e.lineno})") from e
        records = [(f"{p} record {i}", r) for i, r in enumerate(data)]
    else:
        records = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((f"{p}:{lineno}", json.loads(line)))
            except json.JSONDecodeError as e:
                raise UserError(f"{p}:{lineno}: malformed JSON ({e.msg}); fix or delete that line") from e
    samples: list[Sample] = []
    seen_lcb: set[str] = set()
    next_index: dict[str, int] = {}
    for where, rec in records:
        if not isinstance(rec, dict):
            raise UserError(f"{where}: expected a JSON object, got {type(rec).__name__}")
        qid = rec.get("question_id")
        if qid in (None, ""):
            raise UserError(f"{where}: missing question_id")
        qid = str(qid)
        if "code_list" in rec or "output_list" in rec:  # LiveCodeBench generations / eval_all
            qid = dedupe_id(qid, seen_lcb)
            field = "output_list" if use_raw_output or "code_list" not in rec else "code_list"
            items = _maybe_json_list(rec[field], field, where)
            graded = _maybe_json_list(rec["graded_list"], "graded_list", where) if "graded_list" in rec else []
            for k, item in enumerate(items):
                samples.append(Sample(qid, k, None if item is None else str(item), field == "code_list",
                                      reference_verdict=bool(graded[k]) if k < len(graded) else None))
            continue
        if "completions" in rec:
            texts = _maybe_json_list(rec["completions"], "completions", where)
        elif "completion" in rec or "code" in rec:
            texts = [rec.get("completion", rec.get("code"))]
        else:
            raise UserError(f"{where}: record needs 'completion', 'code', 'completions' or 'code_list'")
        for t in texts:
            if t is not None and not isinstance(t, str):
                raise UserError(f"{where}: completion must be a string, got {type(t).__name__}")
            idx = rec.get("sample_index")
            if idx is None or len(texts) > 1:
                idx = next_index.get(qid, 0)
            if not isinstance(idx, int) or idx < 0:
                raise UserError(f"{where}: sample_index must be a non-negative integer, got {idx!r}")
            next_index[qid] = max(next_index.get(qid, 0), idx + 1)
            samples.append(Sample(qid, idx, t, "code" in rec and "completion" not in rec,
                                  label=_label(rec.get("label")),
                                  reference_verdict=_label(rec.get("lcb_grader_verdict"))))
    keys = set()
    for s in samples:
        if s.key in keys:
            raise UserError(f"{p}: duplicate sample ({s.question_id}, sample_index {s.sample_index})")
        keys.add(s.key)
    return samples
