"""Stage 1: read every input with its reader; every skipped record is counted with its reason."""
from __future__ import annotations

from collections import Counter
from typing import Any

from tqdm import tqdm

from microcoder_eval.dataset.config import BuildDatasetConfig
from microcoder_eval.dataset.readers import read_source
from microcoder_eval.dataset.readers.common import SOLUTIONS
from microcoder_eval.dataset.store import StageWriter
from microcoder_eval.lcb import dedupe_id


def run_read(cfg: BuildDatasetConfig, out: StageWriter) -> int:
    """Normalise all inputs into ``out``; returns the number of source records seen."""
    seen_ids: set[str] = set()
    per_file: dict[str, Any] = {}
    renamed = truncated = 0
    total = 0
    bar = tqdm(desc="read", unit="rec", disable=not cfg.progress)
    for path in cfg.inputs:
        fmt, outcomes = read_source(path, cfg.format, cfg.include_generated_tests)
        reasons: Counter[str] = Counter()
        n = kept = 0
        for o in outcomes:
            n += 1
            bar.update()
            if o.problem is None:
                reasons[o.reason] += 1
                out.drop(f"{path}:{o.where}", o.reason, o.detail, file=path, where=o.where)
                continue
            sols = o.problem.extra.get(SOLUTIONS)
            if sols and cfg.keep_solutions and len(sols) > cfg.keep_solutions:
                o.problem.extra[SOLUTIONS] = sols[: cfg.keep_solutions]
                truncated += 1
            qid = dedupe_id(o.problem.question_id, seen_ids)
            if qid != o.problem.question_id:
                renamed += 1
                o.problem.question_id = qid
            out.keep(o.problem)
            kept += 1
        per_file[path] = {"format": fmt, "records": n, "problems": kept, "skipped": dict(sorted(reasons.items()))}
        total += n
    bar.close()
    out.notes["inputs"] = per_file
    out.notes["renamed_duplicate_ids"] = renamed
    out.notes["solutions_truncated"] = {"problems": truncated, "kept_per_problem": cfg.keep_solutions}
    return total
