"""Stage 6: keep problems whose pass rate lies in ``[min_pass_rate, max_pass_rate]``.

The pass rate comes from sampled completions judged by the evaluator (passed / judged; samples
with an infrastructure error are not counted) or from a source column. Problems outside the band
are dropped as ``too_easy`` / ``too_hard``; those without enough judged samples as
``too_few_completions``; a missing or non-fraction column value as ``no_pass_rate`` / ``bad_pass_rate``.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any, Iterable

from tqdm import tqdm

from microcoder_eval.dataset.readers.common import FIELDS
from microcoder_eval.dataset.store import RunCache, StageWriter
from microcoder_eval.dataset.verify import EvaluatorLike, _chunks, evaluate_cached, problem_digest
from microcoder_eval.problem import Problem
from microcoder_eval.samples import Sample, load_samples
from microcoder_eval.verdict import Status

DIFFICULTY = "difficulty"


def load_completions(path: str) -> dict[str, list[Sample]]:
    by_id: dict[str, list[Sample]] = defaultdict(list)
    for s in load_samples(path):
        by_id[s.question_id].append(s)
    return dict(by_id)


def sample_key(p: Problem, s: Sample) -> str:
    text = s.text or ""
    return f"{problem_digest(p)}:{hashlib.sha256(text.encode()).hexdigest()[:20]}:{int(s.is_code)}"


def judge_completions(batch: list[Problem], samples: dict[str, list[Sample]], evaluator: EvaluatorLike,
                      cache: RunCache) -> dict[str, tuple[int, int, int]]:
    """``{question_id: (passed, judged, infra_errors)}`` for the problems of one batch."""
    raw, code = [], []
    for p in batch:
        for s in samples.get(p.question_id, []):
            (code if s.is_code else raw).append((sample_key(p, s), p, s.text))
    evaluate_cached(evaluator, cache, raw, extract=True)
    evaluate_cached(evaluator, cache, code, extract=False)
    out: dict[str, tuple[int, int, int]] = {}
    for p in batch:
        passed = judged = infra = 0
        for s in samples.get(p.question_id, []):
            r = cache.get(sample_key(p, s))
            if r is None or r.status is Status.INFRA_ERROR:
                infra += 1
                continue
            judged += 1
            passed += r.passed
        out[p.question_id] = (passed, judged, infra)
    return out


def column_rate(p: Problem, column: str) -> tuple[float | None, str]:
    fields = p.extra.get(FIELDS) or {}
    value = fields.get(column, p.extra.get(column))
    if value is None:
        return None, "no_pass_rate"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= float(value) <= 1:
        return None, "bad_pass_rate"
    return float(value), ""


def run_difficulty(problems: Iterable[Problem], out: StageWriter, *, low: float, high: float,
                   min_completions: int, column: str | None = None, samples: dict[str, list[Sample]] | None = None,
                   evaluator: EvaluatorLike | None = None, cache: RunCache | None = None,
                   progress: bool = True, total: int | None = None, chunk: int = 64) -> tuple[int, list[dict[str, Any]]]:
    """Returns ``(inputs, per-problem rows {id, difficulty, pass_rate, kept})`` for the report."""
    rows: list[dict[str, Any]] = []
    n = infra_total = 0
    seen_ids: set[str] = set()
    bar = tqdm(total=total, desc="difficulty", unit="prob", disable=not progress)
    for batch in _chunks(problems, chunk):
        counts = judge_completions(batch, samples or {}, evaluator, cache) if column is None else {}
        for p in batch:
            n += 1
            bar.update()
            seen_ids.add(p.question_id)
            rate: float | None
            if column is not None:
                rate, why = column_rate(p, column)
                info: dict[str, Any] = {"pass_rate": rate, "from": f"column:{column}"}
                if rate is None:
                    out.drop(p.question_id, why, f"column {column!r} is {(p.extra.get(FIELDS) or {}).get(column)!r}")
                    rows.append({"id": p.question_id, "difficulty": p.difficulty, "pass_rate": None, "kept": False})
                    continue
            else:
                passed, judged, infra = counts[p.question_id]
                infra_total += infra
                rate = passed / judged if judged else None
                info = {"pass_rate": rate, "num_passed": passed, "num_judged": judged, "num_infra_errors": infra,
                        "from": "completions"}
                if judged < min_completions:
                    out.drop(p.question_id, "too_few_completions",
                             f"{judged} judged completions < {min_completions}", **info)
                    rows.append({"id": p.question_id, "difficulty": p.difficulty, "pass_rate": None, "kept": False})
                    continue
            assert rate is not None
            kept = low <= rate <= high
            rows.append({"id": p.question_id, "difficulty": p.difficulty, "pass_rate": rate, "kept": kept})
            if rate > high:
                out.drop(p.question_id, "too_easy", f"pass rate {rate:.3f} > {high}", **info)
            elif rate < low:
                out.drop(p.question_id, "too_hard", f"pass rate {rate:.3f} < {low}", **info)
            else:
                p.extra[DIFFICULTY] = info
                out.keep(p)
    bar.close()
    out.notes.update(band=[low, high], min_completions=min_completions, source=f"column:{column}" if column else "completions")
    if samples is not None and column is None:
        out.notes["completions_for_unknown_problems"] = sum(len(v) for k, v in samples.items() if k not in seen_ids)
        out.notes["infra_error_samples"] = infra_total
    return n, rows
