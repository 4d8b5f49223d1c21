"""Append-only JSONL results file that a rerun resumes from (finished samples are skipped)."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, TypeVar

from microcoder_eval.errors import UserError
from microcoder_eval.verdict import SampleResult, Status


T = TypeVar("T")


def read_appended_jsonl(path: Path, parse: Callable[[bytes, int], T]) -> list[T]:
    """Records of an append-only JSONL file written by an interrupted-or-finished run.

    ``parse(line, lineno)`` turns one complete line into a record; ``ValueError``/``KeyError``/
    ``TypeError`` from it end the good prefix (any other exception propagates). The file is cut
    back to that prefix, so a torn last line never precedes new appends.
    """
    out: list[T] = []
    good = 0
    with path.open("rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                break  # torn last line from an interrupted run
            try:
                out.append(parse(line, lineno))
            except (ValueError, KeyError, TypeError):
                break
            good += len(line)
    if good != path.stat().st_size:
        with path.open("r+b") as f:
            f.truncate(good)
    return out


def fingerprint(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


class ResultsStore:
    """``<out>`` holds one SampleResult per line; ``<out>.meta.json`` the settings it was made with."""

    def __init__(self, path: str | Path, settings: dict[str, Any], overwrite: bool = False) -> None:
        self.path = Path(path)
        self.meta_path = self.path.with_name(self.path.name + ".meta.json")
        self.settings = settings
        self.done: dict[tuple[str, int], SampleResult] = {}
        self.input_hashes: dict[tuple[str, int], str | None] = {}
        if self.path.is_dir():
            raise UserError(f"--out {str(self.path)!r} is a directory; give a file path such as {self.path}/results.jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if overwrite:
            self.path.unlink(missing_ok=True)
            self.meta_path.unlink(missing_ok=True)
        fp = fingerprint(settings)
        if self.path.exists() and self.path.stat().st_size:
            old = json.loads(self.meta_path.read_text()).get("fingerprint") if self.meta_path.exists() else None
            if old != fp:
                raise UserError(f"{self.path} holds results made with other settings; pass --overwrite "
                                "to start again or choose another --out")
            self._load()
        self.meta_path.write_text(json.dumps({"fingerprint": fp, "settings": settings}, indent=2, default=str))
        self._fh = self.path.open("a")

    def _load(self) -> None:
        def parse(line: bytes, lineno: int) -> tuple[SampleResult, str | None]:
            row = json.loads(line)
            return SampleResult.from_dict(row), row.get("input_hash")

        for r, digest in read_appended_jsonl(self.path, parse):
            if r.status is not Status.INFRA_ERROR:  # infrastructure failures are judged again
                self.done[(r.question_id, r.sample_index)] = r
                self.input_hashes[(r.question_id, r.sample_index)] = digest

    def is_done(self, key: tuple[str, int], input_hash: str) -> bool:
        """Finished with exactly this problem and completion (a changed input is judged again)."""
        return key in self.done and self.input_hashes.get(key) == input_hash

    def add(self, result: SampleResult, input_hash: str | None = None) -> None:
        row = result.to_dict()
        row["input_hash"] = input_hash
        self._fh.write(json.dumps(row) + "\n")
        self.input_hashes[(result.question_id, result.sample_index)] = input_hash
        self._fh.flush()
        if os.environ.get("MICROCODER_FSYNC"):
            os.fsync(self._fh.fileno())
        self.done[(result.question_id, result.sample_index)] = result

    def close(self) -> None:
        self._fh.close()
