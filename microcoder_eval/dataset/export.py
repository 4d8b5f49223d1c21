"""Final outputs: LCB-format JSONL, parquet and an HF ``datasets`` folder (``save_to_disk``)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from microcoder_eval.dataset.difficulty import DIFFICULTY
from microcoder_eval.dataset.verify import VERIFICATION, VERIFIED_SOLUTION
from microcoder_eval.problem import Problem

LCB_COLUMNS = ("question_id", "question_title", "question_content", "platform", "contest_id", "contest_date",
               "difficulty", "starter_code", "public_test_cases", "private_test_cases", "metadata")
SCHEMA = pa.schema([*(pa.field(c, pa.large_string()) for c in LCB_COLUMNS),
                    pa.field("source", pa.string()), pa.field("num_tests", pa.int64()),
                    pa.field("verification", pa.string()), pa.field("verified_solution", pa.large_string()),
                    pa.field("pass_rate", pa.float64()), pa.field("extra", pa.large_string())])


def dataset_row(p: Problem) -> dict[str, Any]:
    rec = p.to_lcb_record()
    extra = {k: v for k, v in p.extra.items() if k not in (VERIFIED_SOLUTION,)}
    return {**rec, "source": p.source, "num_tests": len(p.tests),
            "verification": str((p.extra.get(VERIFICATION) or {}).get("status", "not_run")),
            "verified_solution": str(p.extra.get(VERIFIED_SOLUTION) or ""),
            "pass_rate": (p.extra.get(DIFFICULTY) or {}).get("pass_rate"),
            "extra": json.dumps(extra, sort_keys=True)}


def export(problems: Iterable[Problem], out_dir: Path, batch_size: int = 256, progress: bool = True) -> dict[str, Any]:
    """Write the three outputs; returns their paths and the row count."""
    jsonl = out_dir / "problems.jsonl"
    parquet = out_dir / "dataset.parquet"
    hf_dir = out_dir / "hf"
    n = 0
    tmp_jsonl, tmp_parquet = jsonl.with_suffix(".jsonl.tmp"), parquet.with_suffix(".parquet.tmp")
    with tmp_jsonl.open("w") as fj, pq.ParquetWriter(tmp_parquet, SCHEMA) as writer:
        batch: list[dict[str, Any]] = []
        for p in problems:
            rec = p.to_lcb_record()
            rec["source"] = p.source
            fj.write(json.dumps(rec) + "\n")
            batch.append(dataset_row(p))
            n += 1
            if len(batch) >= batch_size:
                writer.write_table(pa.Table.from_pylist(batch, schema=SCHEMA))
                batch = []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=SCHEMA))
    tmp_jsonl.replace(jsonl)
    tmp_parquet.replace(parquet)
    save_hf(parquet, hf_dir, out_dir / ".hf_cache", progress)
    return {"lcb_jsonl": str(jsonl), "parquet": str(parquet), "hf_dataset": str(hf_dir), "rows": n}


def save_hf(parquet: Path, hf_dir: Path, cache_dir: Path, progress: bool = True) -> None:
    import datasets
    from datasets.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    if not progress:
        hf_logging.disable_progress_bar()
    try:
        ds = datasets.Dataset.from_parquet(str(parquet), cache_dir=str(cache_dir))  # memory-mapped
        if hf_dir.exists():
            shutil.rmtree(hf_dir)
        ds.save_to_disk(str(hf_dir))
    finally:
        if was_on:
            hf_logging.enable_progress_bar()
        shutil.rmtree(cache_dir, ignore_errors=True)
