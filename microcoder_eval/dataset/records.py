"""Iterate raw records of one source (JSONL, JSON, parquet or an APPS directory), never crashing.

A record that cannot be read (a malformed JSON line, a broken APPS problem folder) comes out as a
:class:`Malformed` value so the caller counts it; only an unreadable *file* raises ``UserError``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from microcoder_eval.errors import UserError


class SkipRecord(Exception):
    """A record that is skipped: ``reason`` is a short counted code, ``detail`` says why."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class Malformed:
    """Placeholder for a record that could not even be parsed."""

    reason: str
    detail: str


def is_apps_problem_dir(p: Path) -> bool:
    return p.is_dir() and (p / "question.txt").exists()


def is_apps_root(p: Path) -> bool:
    return p.is_dir() and any(is_apps_problem_dir(c) for c in p.iterdir())


def iter_records(path: str | Path) -> Iterator[tuple[str, Any]]:
    """Yield ``(where, record_or_Malformed)``; ``where`` is ``line N``, ``record N`` or a folder name."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"input {str(p)!r} does not exist; pass existing .jsonl/.json/.parquet files or APPS folders")
    if p.is_dir():
        if is_apps_problem_dir(p):
            yield p.name, read_apps_problem_dir(p)
            return
        dirs = sorted(c for c in p.iterdir() if c.is_dir())
        if not dirs:
            raise UserError(f"{p} is a folder without problem sub-folders; pass a file or an APPS split folder "
                            "(NNNN/question.txt, input_output.json, solutions.json, metadata.json)")
        for c in dirs:
            yield c.name, read_apps_problem_dir(c)
        return
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet(p)
    elif suffix == ".json":
        yield from _json(p)
    elif suffix in (".jsonl", ".ndjson"):
        yield from _jsonl(p)
    else:
        raise UserError(f"{p}: unknown file type {suffix!r}; use .jsonl, .json, .parquet or an APPS folder")


def _jsonl(p: Path) -> Iterator[tuple[str, Any]]:
    with p.open("rb") as f:
        for lineno, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                yield f"line {lineno}", json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                yield f"line {lineno}", Malformed("malformed_json", str(e)[:120])
            except ValueError as e:  # e.g. an integer beyond Python's digit limit
                from microcoder_eval.intdigits import unlimited_int_digits

                try:
                    with unlimited_int_digits():
                        yield f"line {lineno}", json.loads(raw)
                except ValueError:
                    yield f"line {lineno}", Malformed("malformed_json", str(e)[:120])


def _json(p: Path) -> Iterator[tuple[str, Any]]:
    from microcoder_eval.intdigits import unlimited_int_digits

    try:
        with unlimited_int_digits():
            data = json.loads(p.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{p}: not valid JSON ({str(e)[:100]}); fix the file or convert it to JSONL, "
                        "where a bad line is skipped and counted") from e
    if isinstance(data, dict):
        for key in ("data", "problems", "rows"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if isinstance(data, dict):
        values = list(data.values())
        if values and all(isinstance(v, dict) for v in values) and not _looks_like_record(data):
            for k, v in data.items():  # {id: record}
                yield f"key {k}", {"_key": str(k), **v}
            return
        yield "record 0", data
        return
    if not isinstance(data, list):
        raise UserError(f"{p}: top-level JSON is a {type(data).__name__}; expected a list of records or an object")
    for i, rec in enumerate(data):
        yield f"record {i}", rec


def _looks_like_record(d: dict[str, Any]) -> bool:
    keys = set(d)
    return bool(keys & {"question", "problem", "question_content", "description", "prompt", "tests",
                        "input_output", "public_tests", "reward_model"})


def _parquet(p: Path) -> Iterator[tuple[str, Any]]:
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(p)
    except Exception as e:  # noqa: BLE001 - any pyarrow failure means an unreadable file
        raise UserError(f"{p}: not a readable parquet file ({type(e).__name__}: {str(e)[:100]})") from e
    i = 0
    for batch in f.iter_batches(batch_size=256):
        for rec in batch.to_pylist():
            yield f"row {i}", rec
            i += 1


def _read_text(p: Path) -> str | None:
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return p.read_text(encoding="utf-8", errors="replace")


def read_apps_problem_dir(d: Path) -> dict[str, Any] | Malformed:
    """One raw APPS problem folder as an APPS/TACO row (``input_output``/``solutions`` stay JSON strings)."""
    question = _read_text(d / "question.txt")
    if question is None:
        return Malformed("missing_file", f"{d.name}/question.txt is missing")
    io = _read_text(d / "input_output.json")
    if io is None:
        return Malformed("missing_file", f"{d.name}/input_output.json is missing (APPS test problems "
                         "without tests cannot be used)")
    rec: dict[str, Any] = {"problem_id": d.name, "question": question, "input_output": io}
    sols = _read_text(d / "solutions.json")
    if sols is not None:
        rec["solutions"] = sols
    starter = _read_text(d / "starter_code.py")
    if starter is not None:
        rec["starter_code"] = starter
    meta = _read_text(d / "metadata.json")
    if meta:
        try:
            m = json.loads(meta)
        except json.JSONDecodeError as e:
            return Malformed("malformed_json", f"{d.name}/metadata.json: {e}")
        if isinstance(m, dict):
            rec.update({k: v for k, v in m.items() if k in ("difficulty", "url")})
    return rec
