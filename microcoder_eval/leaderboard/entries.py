"""Leaderboard entries: published reference numbers and our own runs, validated on load.

Entry schema (JSON object)::

    {"model": "Qwen3-1.7B", "method": "MicroCoder-GRPO", "kind": "reference" | "ours",
     "benchmark": "LiveCodeBench v6",
     "window": {"label": "...", "start_date": "2025-02-01" | null, "end_date": "2025-05-01" | null,
                "release": "release_v6" | null},
     "scores": {"pass@1": {"all": 24.0, "easy": null, "medium": null, "hard": null}},
     "grader": "reported" | "flex" | "lcb",
     "source": {"title": "...", "url": "https://..." | null, "locator": "table / row"},
     "settings": {...}, "notes": "..."}

Every reference entry must name its source and window: numbers nobody can cite do not belong here.
"""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from microcoder_eval.errors import UserError

SUBSETS = ("all", "easy", "medium", "hard")
KINDS = ("reference", "ours")


def _score(v: Any, where: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
        raise UserError(f"{where}: score {v!r} must be a percentage in [0, 100] or null")
    return float(v)


def validate(entry: Any, where: str) -> dict[str, Any]:
    """Check one entry; returns it with defaults filled in, or raises UserError naming the field."""
    if not isinstance(entry, dict):
        raise UserError(f"{where}: an entry must be a JSON object, got {type(entry).__name__}")
    for key in ("model", "benchmark"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise UserError(f"{where}: missing '{key}' (a non-empty string)")
    kind = entry.get("kind", "reference")
    if kind not in KINDS:
        raise UserError(f"{where}: kind {kind!r} must be one of {', '.join(KINDS)}")
    window = entry.get("window")
    if not isinstance(window, dict) or not (window.get("label") or window.get("start_date")):
        raise UserError(f"{where}: 'window' must be an object with a 'label' or 'start_date'/'end_date' "
                        "(a score without its date window cannot be compared)")
    for k in ("start_date", "end_date"):
        if window.get(k) is not None:
            try:
                date.fromisoformat(str(window[k]))
            except ValueError as e:
                raise UserError(f"{where}: window {k} {window[k]!r} is not YYYY-MM-DD") from e
    source = entry.get("source")
    if not isinstance(source, dict) or not source.get("title"):
        raise UserError(f"{where}: 'source' must be an object with a 'title' (and a 'url' for published numbers)")
    if kind == "reference" and not source.get("url"):
        raise UserError(f"{where}: a reference entry needs source.url so the number can be checked")
    scores = entry.get("scores")
    if not isinstance(scores, dict) or "pass@1" not in scores or not isinstance(scores["pass@1"], dict):
        raise UserError(f"{where}: 'scores' must hold 'pass@1': {{'all': ..., 'easy': ..., ...}}")
    clean: dict[str, dict[str, float | None]] = {}
    for metric, table in scores.items():
        if not isinstance(table, dict):
            raise UserError(f"{where}: scores[{metric!r}] must be an object of subset -> percentage")
        clean[metric] = {s: _score(table.get(s), f"{where} {metric} {s}") for s in SUBSETS}
    if clean["pass@1"]["all"] is None:
        raise UserError(f"{where}: scores.pass@1.all is required")
    out = dict(entry)
    out.update(kind=kind, scores=clean, method=entry.get("method") or "as released",
               grader=entry.get("grader") or ("reported" if kind == "reference" else "flex"),
               window={"label": window.get("label") or "", "start_date": window.get("start_date"),
                       "end_date": window.get("end_date"), "release": window.get("release")})
    return out


def load_reference(path: str | Path) -> list[dict[str, Any]]:
    """Entries of a reference file ``{"entries": [...]}`` (or a bare list)."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"reference file {str(p)!r} does not exist; pass --reference PATH")
    try:
        data = json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise UserError(f"{p}: not valid JSON ({e.msg} at line {e.lineno})") from e
    items = data.get("entries") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise UserError(f"{p}: expected {{'entries': [...]}} or a list of entries")
    return [validate(e, f"{p} entry {i}") for i, e in enumerate(items)]


def load_runs(runs_dir: str | Path) -> list[dict[str, Any]]:
    """Our run entries: one JSON object per ``runs/*.json`` file (sorted by name)."""
    d = Path(runs_dir)
    if not d.exists():
        return []
    out = []
    for f in sorted(d.glob("*.json")):
        try:
            entry = json.loads(f.read_text())
        except json.JSONDecodeError as e:
            raise UserError(f"{f}: not valid JSON ({e.msg} at line {e.lineno}); fix or delete it") from e
        if isinstance(entry, dict):
            entry.setdefault("kind", "ours")
        out.append(validate(entry, str(f)))
    return out


def window_label(start: str | None, end: str | None, release: str | None) -> str:
    """Human text for a contest-date window ``[start, end)``."""
    span = f"{start or 'start'} – {end or 'end'} (end exclusive)"
    return f"{release}, {span}" if release else span


def run_entry(summary: dict[str, Any], name: str) -> dict[str, Any]:
    """A leaderboard entry from a ``run`` report (see microcoder_eval.report.summarize)."""
    w = summary.get("window") or {}
    g = summary.get("generation") or {}
    metrics = [k for k in summary["overall"] if k.startswith("pass@")]
    scores = {}
    for m in metrics:
        scores[m] = {"all": summary["overall"].get(m)}
        for s in SUBSETS[1:]:
            scores[m][s] = (summary["by_difficulty"].get(s) or {}).get(m)
    problems = str(g.get("problems") or "")
    if problems and Path(problems).exists():
        problems = Path(problems).name  # a local file: its name, not this machine's path
    entry = {
        "name": name,
        "model": str(g.get("model") or name),
        "method": g.get("method") or "as released",
        "kind": "ours",
        "benchmark": problems or "LiveCodeBench",
        "window": {"label": window_label(w.get("start_date"), w.get("end_date"), w.get("release")),
                   "start_date": w.get("start_date"), "end_date": w.get("end_date"), "release": w.get("release")},
        "scores": scores,
        "grader": w.get("mode") or "flex",
        "source": {"title": f"microcoder-eval run {name}", "url": None,
                   "locator": str(g.get("completions") or "")},
        "settings": {k: g.get(k) for k in ("backend", "n", "temperature", "top_p", "max_tokens", "prompt_style",
                                           "thinking", "enable_thinking", "seed")},
        "num_problems": summary.get("num_problems"),
        "num_samples": summary.get("num_samples"),
        "infra_errors": summary.get("infra_errors", 0),
        "date": date.today().isoformat(),
    }
    return validate(entry, f"run {name}")


def write_run(entry: dict[str, Any], leaderboard_dir: str | Path) -> Path:
    """Save a run entry as ``<dir>/runs/<name>.json``."""
    runs = Path(leaderboard_dir) / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / f"{entry.get('name') or entry['model'].replace('/', '_')}.json"
    path.write_text(json.dumps(entry, indent=2) + "\n")
    return path
