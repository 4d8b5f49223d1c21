"""Final outputs, one built dataset for each consumer:

* ``problems.jsonl``: LiveCodeBench ``code_generation_lite`` records that LiveCodeBench's own
  ``CodeGenerationProblem(**record)`` accepts: exactly its 11 keys, ``platform``/``difficulty`` in
  its enums, an ISO ``contest_date``. Values outside the enums (``codechef``, ``unknown``, ...) are
  mapped (see ``lcb_loader_record``) and the originals kept in ``metadata["microcoder"]``, which
  our loader reads back.
* ``dataset.parquet`` and ``hf/`` (``datasets.load_from_disk``): every column, for analysis.
* ``verl/train.parquet``: verl's RL dataset layout (``data_source``, ``prompt`` chat messages,
  ``ability``, ``reward_model = {style, ground_truth}``, ``extra_info``); ``ground_truth`` is the LCB
  test fields as a JSON string, which ``microcoder_eval.reward.compute_score`` reads.
* ``trl/``: a ``datasets`` folder with ``prompt`` (chat messages) plus the LCB columns that
  ``EvaluatorReward`` reads: ``GRPOTrainer(train_dataset=load_from_disk(...), reward_funcs=[reward])``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from datetime import datetime

from microcoder_eval.dataset.difficulty import DIFFICULTY
from microcoder_eval.dataset.verify import VERIFICATION, VERIFIED_SOLUTION
from microcoder_eval.problem import Problem

LCB_COLUMNS = ("question_id", "question_title", "question_content", "platform", "contest_id", "contest_date",
               "difficulty", "starter_code", "public_test_cases", "private_test_cases", "metadata")
SCHEMA = pa.schema([*(pa.field(c, pa.large_string()) for c in LCB_COLUMNS),
                    pa.field("source", pa.string()), pa.field("num_tests", pa.int64()),
                    pa.field("verification", pa.string()), pa.field("verified_solution", pa.large_string()),
                    pa.field("pass_rate", pa.float64()), pa.field("extra", pa.large_string())])
MESSAGES = pa.list_(pa.struct([pa.field("role", pa.string()), pa.field("content", pa.large_string())]))
VERL_SCHEMA = pa.schema([pa.field("data_source", pa.string()), pa.field("prompt", MESSAGES),
                         pa.field("ability", pa.string()),
                         pa.field("reward_model", pa.struct([pa.field("style", pa.string()),
                                                             pa.field("ground_truth", pa.large_string())])),
                         pa.field("extra_info", pa.struct([pa.field("split", pa.string()), pa.field("index", pa.int64()),
                                                           pa.field("question_id", pa.string()),
                                                           pa.field("difficulty", pa.string()),
                                                           pa.field("platform", pa.string())]))])
TRL_SCHEMA = pa.schema([pa.field("prompt", MESSAGES), pa.field("question_id", pa.string()),
                        pa.field("public_test_cases", pa.large_string()), pa.field("private_test_cases", pa.large_string()),
                        pa.field("metadata", pa.large_string()), pa.field("difficulty", pa.string()),
                        pa.field("platform", pa.string()), pa.field("source", pa.string())])


LCB_PLATFORMS = ("leetcode", "codeforces", "atcoder")  # LiveCodeBench's Platform enum
LCB_DIFFICULTIES = ("easy", "medium", "hard")  # its Difficulty enum
DIFFICULTY_SYNONYMS = {"introductory": "easy", "interview": "medium", "competition": "hard",  # APPS/TACO
                       "harder": "hard", "hardest": "hard"}  # CodeContests
PLACEHOLDER_DIFFICULTY = "medium"  # LiveCodeBench needs a label; the original goes to metadata
PLACEHOLDER_DATE = "1970-01-01T00:00:00"  # no date known: before every evaluation window


def lcb_platform(p: Problem) -> str:
    """``p.platform`` if LiveCodeBench knows it, else ``leetcode`` for functional problems (called
    like LeetCode's) and ``codeforces`` for stdin programs (run like Codeforces')."""
    if p.platform in LCB_PLATFORMS:
        return p.platform
    return "leetcode" if p.is_functional else "codeforces"


def lcb_difficulty(p: Problem) -> str:
    d = DIFFICULTY_SYNONYMS.get(p.difficulty, p.difficulty)
    return d if d in LCB_DIFFICULTIES else PLACEHOLDER_DIFFICULTY


def lcb_contest_date(value: str) -> str | None:
    """``value`` as ``YYYY-MM-DDTHH:MM:SS`` (what every Python's ``datetime.fromisoformat`` parses),
    or ``None`` when it is not a date."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        d = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d.replace(tzinfo=None, microsecond=0).isoformat()


def lcb_loader_record(p: Problem) -> dict[str, Any]:
    """A record LiveCodeBench's ``CodeGenerationProblem(**record)`` loads; originals that had to be
    mapped onto its enums, and our source name, go to ``metadata["microcoder"]``."""
    rec = p.to_lcb_record()
    meta = json.loads(rec["metadata"])
    platform, difficulty, date = lcb_platform(p), lcb_difficulty(p), lcb_contest_date(p.contest_date)
    ours: dict[str, Any] = {}
    if p.source:
        ours["source"] = p.source
    if platform != p.platform:
        ours["platform"] = p.platform
    if difficulty != p.difficulty:
        ours["difficulty"] = p.difficulty
    if date is None:
        ours["contest_date"] = p.contest_date
    if ours:
        meta["microcoder"] = ours
    rec.update(platform=platform, difficulty=difficulty, contest_date=date or PLACEHOLDER_DATE,
               question_title=p.question_title or p.question_id, contest_id=p.contest_id or "",
               metadata=json.dumps(meta))
    return {k: rec[k] for k in LCB_COLUMNS}


def verl_row(p: Problem, index: int, prompt_style: str, split: str = "train") -> dict[str, Any]:
    """One row of verl's RL dataset (``data.train_files``)."""
    from microcoder_eval.generation.prompts import build_messages

    rec = p.to_lcb_record()
    truth = {"question_id": p.question_id, "public_test_cases": rec["public_test_cases"],
             "private_test_cases": rec["private_test_cases"], "metadata": rec["metadata"]}
    return {"data_source": f"microcoder/{p.source or 'unknown'}",
            "prompt": build_messages(p, prompt_style),
            "ability": "code",
            "reward_model": {"style": "rule", "ground_truth": json.dumps(truth)},
            "extra_info": {"split": split, "index": index, "question_id": p.question_id,
                           "difficulty": p.difficulty, "platform": p.platform}}


def trl_row(p: Problem, prompt_style: str) -> dict[str, Any]:
    """One row of the TRL ``GRPOTrainer`` dataset: the prompt and what ``EvaluatorReward`` reads."""
    from microcoder_eval.generation.prompts import build_messages

    rec = p.to_lcb_record()
    return {"prompt": build_messages(p, prompt_style), "question_id": p.question_id,
            "public_test_cases": rec["public_test_cases"], "private_test_cases": rec["private_test_cases"],
            "metadata": rec["metadata"], "difficulty": p.difficulty, "platform": p.platform,
            "source": p.source}


def dataset_row(p: Problem) -> dict[str, Any]:
    rec = p.to_lcb_record()
    extra = {k: v for k, v in p.extra.items() if k not in (VERIFIED_SOLUTION,)}
    return {**rec, "source": p.source, "num_tests": len(p.tests),
            "verification": str((p.extra.get(VERIFICATION) or {}).get("status", "not_run")),
            "verified_solution": str(p.extra.get(VERIFIED_SOLUTION) or ""),
            "pass_rate": (p.extra.get(DIFFICULTY) or {}).get("pass_rate"),
            "extra": json.dumps(extra, sort_keys=True)}


def export(problems: Iterable[Problem], out_dir: Path, batch_size: int = 256, progress: bool = True,
           prompt_style: str = "lcb") -> dict[str, Any]:
    """Write every output; returns their paths and the row count."""
    jsonl = out_dir / "problems.jsonl"
    parquet = out_dir / "dataset.parquet"
    hf_dir = out_dir / "hf"
    verl_parquet = out_dir / "verl" / "train.parquet"
    trl_parquet = out_dir / "trl.parquet.tmp"
    verl_parquet.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    tmp_jsonl, tmp_parquet = jsonl.with_suffix(".jsonl.tmp"), parquet.with_suffix(".parquet.tmp")
    tmp_verl = verl_parquet.with_suffix(".parquet.tmp")
    with tmp_jsonl.open("w") as fj, pq.ParquetWriter(tmp_parquet, SCHEMA) as writer, \
            pq.ParquetWriter(tmp_verl, VERL_SCHEMA) as vwriter, pq.ParquetWriter(trl_parquet, TRL_SCHEMA) as twriter:
        batch: list[dict[str, Any]] = []
        vbatch: list[dict[str, Any]] = []
        tbatch: list[dict[str, Any]] = []

        def flush(final: bool = False) -> None:
            for rows, w, schema in ((batch, writer, SCHEMA), (vbatch, vwriter, VERL_SCHEMA), (tbatch, twriter, TRL_SCHEMA)):
                if rows or (final and n == 0):
                    w.write_table(pa.Table.from_pylist(rows, schema=schema))
                rows.clear()

        for p in problems:
            fj.write(json.dumps(lcb_loader_record(p)) + "\n")
            batch.append(dataset_row(p))
            vbatch.append(verl_row(p, n, prompt_style))
            tbatch.append(trl_row(p, prompt_style))
            n += 1
            if len(batch) >= batch_size:
                flush()
        flush(final=True)
    tmp_jsonl.replace(jsonl)
    tmp_parquet.replace(parquet)
    tmp_verl.replace(verl_parquet)
    save_hf(parquet, hf_dir, out_dir / ".hf_cache", progress)
    save_hf(trl_parquet, out_dir / "trl", out_dir / ".hf_cache", progress)
    trl_parquet.unlink()
    return {"lcb_jsonl": str(jsonl), "parquet": str(parquet), "hf_dataset": str(hf_dir),
            "verl_parquet": str(verl_parquet), "trl_dataset": str(out_dir / "trl"), "rows": n}


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
