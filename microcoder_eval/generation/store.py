"""Completions JSONL: appended one record per finished sample, resumed by (question_id, sample_index).

Record: ``{question_id, sample_index, completion, finish_reason, model, completion_tokens}``.
``<out>.meta.json`` keeps the generation settings; resuming with different settings is refused
(mixing them would make pass@k meaningless). A torn last line (interrupted write) is dropped.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.results_store import fingerprint, read_appended_jsonl

REQUIRED = ("question_id", "sample_index", "completion", "finish_reason", "model")


class CompletionStore:
    """Append-only completions file; ``done`` holds the keys already written."""

    def __init__(self, path: str | Path, settings: dict[str, Any], overwrite: bool = False) -> None:
        self.path = Path(path)
        self.meta_path = self.path.with_name(self.path.name + ".meta.json")
        self.done: set[tuple[str, int]] = set()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if overwrite:
            self.path.unlink(missing_ok=True)
            self.meta_path.unlink(missing_ok=True)
        fp = fingerprint(settings)
        if self.path.exists() and self.path.stat().st_size:
            old = self._old_meta()
            if old.get("fingerprint") != fp:
                diff = {k: (old.get("settings", {}).get(k), v) for k, v in settings.items()
                        if old.get("settings", {}).get(k) != v}
                first = next(iter(diff.items()), ("settings", ("?", "?")))
                raise UserError(f"{self.path} holds completions made with other settings ({first[0]}: "
                                f"{first[1][0]!r} there, {first[1][1]!r} now); pass --overwrite to start "
                                "again or choose another --out")
            self._load()
        self.meta_path.write_text(json.dumps({"fingerprint": fp, "settings": settings}, indent=2) + "\n")
        self._fh = self.path.open("a")

    def _old_meta(self) -> dict[str, Any]:
        if not self.meta_path.exists():
            raise UserError(f"{self.path} exists but {self.meta_path.name} (its settings) is missing, so it "
                            "cannot be resumed safely; pass --overwrite or choose another --out")
        try:
            return json.loads(self.meta_path.read_text())
        except json.JSONDecodeError as e:
            raise UserError(f"{self.meta_path}: not valid JSON ({e.msg}); delete it and pass --overwrite") from e

    def _load(self) -> None:
        def parse(line: bytes, lineno: int) -> tuple[str, int]:
            try:
                rec = json.loads(line)
                return (str(rec["question_id"]), int(rec["sample_index"]))
            except (ValueError, KeyError, TypeError) as e:  # a bad complete line is an error, not a tail
                raise UserError(f"{self.path}:{lineno}: not a completion record ({e}); fix or delete "
                                "that line, or pass --overwrite") from e

        self.done.update(read_appended_jsonl(self.path, parse))

    def add(self, record: dict[str, Any]) -> None:
        """Append one record and flush it (set MICROCODER_FSYNC=1 to fsync every line)."""
        missing = [k for k in REQUIRED if k not in record]
        if missing:
            raise ValueError(f"completion record lacks {missing}")
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()
        if os.environ.get("MICROCODER_FSYNC"):
            os.fsync(self._fh.fileno())
        self.done.add((str(record["question_id"]), int(record["sample_index"])))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> "CompletionStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_completions(path: str | Path) -> list[dict[str, Any]]:
    """All complete records of a completions file (a torn last line is ignored)."""
    out = []
    with Path(path).open() as f:
        for line in f:
            if line.endswith("\n") and line.strip():
                out.append(json.loads(line))
    return out
