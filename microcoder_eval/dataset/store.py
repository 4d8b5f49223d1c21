"""On-disk stage outputs: problems as JSONL rows, drop lists, stats, and a resumable run cache."""
from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from microcoder_eval.lcb import problem_from_lcb_record
from microcoder_eval.problem import Problem
from microcoder_eval.results_store import read_appended_jsonl
from microcoder_eval.verdict import SampleResult, Status

EXAMPLES_PER_REASON = 5


def problem_to_row(p: Problem) -> dict[str, Any]:
    """LCB record plus ``source`` and ``extra`` (JSON text) so a stage file round-trips a Problem."""
    row = p.to_lcb_record()
    row["source"] = p.source
    row["extra"] = json.dumps(p.extra, sort_keys=True)
    return row


def problem_from_row(row: dict[str, Any]) -> Problem:
    p = problem_from_lcb_record(row)
    p.source = str(row.get("source") or "")
    p.extra = json.loads(row.get("extra") or "{}")
    return p


def iter_problems(path: Path) -> Iterator[Problem]:
    with path.open() as f:
        for line in f:
            if line.strip():
                yield problem_from_row(json.loads(line))


class StageWriter:
    """Streams one stage's kept problems and drops; ``close`` checks every input was accounted for."""

    def __init__(self, stage: "Stage") -> None:
        self.stage = stage
        stage.dir.mkdir(parents=True, exist_ok=True)
        self._kept = (stage.dir / "problems.jsonl.tmp").open("w")
        self._dropped = (stage.dir / "dropped.jsonl.tmp").open("w")
        self.kept = 0
        self.reasons: Counter[str] = Counter()
        self.examples: dict[str, list[dict[str, Any]]] = {}
        self.notes: dict[str, Any] = {}
        self.started = time.monotonic()

    def keep(self, p: Problem) -> None:
        self._kept.write(json.dumps(problem_to_row(p)) + "\n")
        self.kept += 1

    def drop(self, ident: str, reason: str, detail: str = "", **info: Any) -> None:
        entry = {"id": ident, "reason": reason, "detail": detail, **info}
        self._dropped.write(json.dumps(entry, default=str) + "\n")
        self.reasons[reason] += 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < EXAMPLES_PER_REASON:
            ex.append({k: v for k, v in entry.items() if k != "reason"})

    def close(self, n_input: int) -> dict[str, Any]:
        self._kept.close()
        self._dropped.close()
        accounted = self.kept + sum(self.reasons.values())
        if accounted != n_input:
            raise RuntimeError(f"stage {self.stage.name}: {n_input} inputs but {self.kept} kept + "
                               f"{accounted - self.kept} dropped (a record was lost: this is a bug)")
        os.replace(self.stage.dir / "problems.jsonl.tmp", self.stage.problems_path)
        os.replace(self.stage.dir / "dropped.jsonl.tmp", self.stage.dir / "dropped.jsonl")
        stats = {"stage": self.stage.name, "key": self.stage.key, "input": n_input, "output": self.kept,
                 "dropped": dict(sorted(self.reasons.items())), "examples": self.examples,
                 "notes": self.notes, "seconds": round(time.monotonic() - self.started, 2),
                 "files": {"problems": str(self.stage.problems_path),
                           "dropped": str(self.stage.dir / "dropped.jsonl")}}
        tmp = self.stage.dir / "stats.json.tmp"
        tmp.write_text(json.dumps(stats, indent=2, default=str))
        os.replace(tmp, self.stage.stats_path)
        return stats


class Stage:
    """``<out>/stages/<NN>_<name>/``: done when stats.json carries this stage's key."""

    def __init__(self, root: Path, index: int, name: str, key: str) -> None:
        self.name = name
        self.key = key
        self.dir = root / "stages" / f"{index:02d}_{name}"
        self.problems_path = self.dir / "problems.jsonl"
        self.stats_path = self.dir / "stats.json"

    def done(self) -> dict[str, Any] | None:
        """The saved stats when this stage already ran with the same key, else None."""
        if not (self.stats_path.exists() and self.problems_path.exists()):
            return None
        try:
            stats = json.loads(self.stats_path.read_text())
        except json.JSONDecodeError:
            return None
        return stats if stats.get("key") == self.key else None

    def writer(self) -> StageWriter:
        if self.dir.exists():
            shutil.rmtree(self.dir)
        return StageWriter(self)

    def problems(self) -> Iterator[Problem]:
        return iter_problems(self.problems_path)


class RunCache:
    """Append-only JSONL of evaluator results by key; results made with other settings are discarded."""

    def __init__(self, path: Path, settings: dict[str, Any]) -> None:
        self.path = path
        self.meta = path.with_name(path.name + ".meta.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        fp = json.dumps(settings, sort_keys=True, default=str)
        old = self.meta.read_text() if self.meta.exists() else None
        self.results: dict[str, SampleResult] = {}
        if old != fp:
            path.unlink(missing_ok=True)
            self.meta.write_text(fp)
        elif path.exists():
            self._load()
        self._fh = path.open("a")

    def _load(self) -> None:
        def parse(line: bytes, lineno: int) -> tuple[str, SampleResult]:
            d = json.loads(line)
            return d["k"], SampleResult.from_dict(d["r"])

        self.results.update(read_appended_jsonl(self.path, parse))

    def get(self, key: str) -> SampleResult | None:
        return self.results.get(key)

    def add(self, key: str, result: SampleResult) -> None:
        """Remember a verdict; infrastructure errors are kept for this run only (a rerun retries them)."""
        self.results[key] = result
        if result.status is Status.INFRA_ERROR:
            return
        d = result.to_dict()
        d["code"] = None  # the code is in the problem/completions already
        self._fh.write(json.dumps({"k": key, "r": d}) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()
