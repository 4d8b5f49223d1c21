"""pass@k (unbiased estimator), per-difficulty / per-platform breakdowns, Markdown/JSON/PNG reports."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from microcoder_eval.problem import Problem
from microcoder_eval.verdict import SampleResult, Status


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of Chen et al. (2021): 1 - C(n-c, k) / C(n, k)."""
    import numpy as np  # here, not at import: numpy costs ~0.2 s of every command's start-up

    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def _group_pass_at_k(per_problem: dict[str, tuple[int, int]], ks: Iterable[int]) -> dict[str, float | None]:
    import numpy as np

    out: dict[str, float | None] = {}
    for k in ks:
        vals = [pass_at_k(n, c, k) for n, c in per_problem.values() if n >= k]
        out[f"pass@{k}"] = round(100 * float(np.mean(vals)), 2) if vals and len(vals) == len(per_problem) else None
    return out


UNJUDGED_LISTED = 50  # unjudged samples listed by name in the Markdown report (all are in the JSON)


def summarize(problems: list[Problem], results: list[SampleResult], ks: Iterable[int] = (1, 5, 10),
              window: dict[str, Any] | None = None) -> dict[str, Any]:
    """Aggregate results into the report dict (percentages, 0-100).

    Every score is computed over judged samples only: an ``infra_error`` sample was never judged
    (the sandbox or executor failed, not the solution), so it counts neither as a pass nor as a
    failure. Unjudged samples are counted and listed apart (``unjudged``); a problem none of whose
    samples was judged is left out of pass@k and named in ``unjudged_problems``.
    """
    ks = list(ks)
    pmap = {p.question_id: p for p in problems}
    results = [r for r in results if r.question_id in pmap]
    judged = [r for r in results if r.status is not Status.INFRA_ERROR]
    unjudged = [r for r in results if r.status is Status.INFRA_ERROR]
    by_qid: dict[str, list[SampleResult]] = defaultdict(list)
    for r in judged:
        by_qid[r.question_id].append(r)
    per_problem = {q: (len(rs), sum(r.passed for r in rs)) for q, rs in by_qid.items()}
    groups: dict[str, dict[str, dict[str, tuple[int, int]]]] = {"difficulty": defaultdict(dict),
                                                                 "platform": defaultdict(dict)}
    for q, nc in per_problem.items():
        groups["difficulty"][pmap[q].difficulty][q] = nc
        groups["platform"][pmap[q].platform][q] = nc
    rules: Counter[str] = Counter()
    for r in judged:
        rules.update(r.rules)
    status = Counter(r.status.value for r in results)
    summary: dict[str, Any] = {
        "window": window or {},
        "num_problems": len(per_problem),
        "num_samples": len(results),
        "num_judged": len(judged),
        "num_unjudged": len(unjudged),
        "overall": {**_group_pass_at_k(per_problem, ks), "problems": len(per_problem)},
        "by_difficulty": {d: {**_group_pass_at_k(v, ks), "problems": len(v)}
                          for d, v in sorted(groups["difficulty"].items(), key=lambda kv: _diff_order(kv[0]))},
        "by_platform": {p: {**_group_pass_at_k(v, ks), "problems": len(v)} for p, v in sorted(groups["platform"].items())},
        "status_counts": dict(status.most_common()),
        "accepted_by_rule": dict(rules.most_common()),
        "infra_errors": len(unjudged),
        "unjudged": [{"question_id": r.question_id, "sample_index": r.sample_index, "num_tests": r.num_tests,
                      "detail": r.detail[:300]}
                     for r in sorted(unjudged, key=lambda r: (r.question_id, r.sample_index))],
        "unjudged_problems": sorted({r.question_id for r in unjudged} - set(per_problem)),
    }
    return summary


def _diff_order(d: str) -> int:
    return {"easy": 0, "medium": 1, "hard": 2}.get(d, 3)


def agreement(results: list[SampleResult], truth: dict[tuple[str, int], bool], name: str) -> dict[str, Any]:
    """How often our verdicts match a reference (true labels, or LiveCodeBench's graded_list).

    Unjudged (``infra_error``) samples have no verdict to compare: they are counted apart."""
    pairs = [(r, truth[(r.question_id, r.sample_index)]) for r in results
             if (r.question_id, r.sample_index) in truth and r.status is not Status.INFRA_ERROR]
    unjudged = sum(1 for r in results if (r.question_id, r.sample_index) in truth
                   and r.status is Status.INFRA_ERROR)
    disagree = [{"question_id": r.question_id, "sample_index": r.sample_index, "ours": r.status.value,
                 name: ref, "detail": r.detail[:200]} for r, ref in pairs if r.passed != ref]
    return {"compared": len(pairs), "agree": len(pairs) - len(disagree), "unjudged": unjudged,
            "agreement_pct": round(100 * (len(pairs) - len(disagree)) / len(pairs), 2) if pairs else None,
            "disagreements": disagree}


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.1f}" if isinstance(v, float) else str(v)


def to_markdown(summary: dict[str, Any]) -> str:
    """The paper-style table: pass@k for All / Easy / Medium / Hard, then per platform."""
    w = summary.get("window") or {}
    unjudged = summary.get("num_unjudged", summary.get("infra_errors", 0))
    ks = [k for k in summary["overall"] if k.startswith("pass@") and (k == "pass@1" or summary["overall"][k] is not None)]
    lines = ["# Evaluation report", ""]
    if w:
        lines += [f"Window: release `{w.get('release') or 'any'}`, contest dates "
                  f"[{w.get('start_date') or 'start'}, {w.get('end_date') or 'end'}), mode `{w.get('mode', 'flex')}`", ""]
        if w.get("lcb_version"):
            lines += [f"LiveCodeBench grader revision: `{w['lcb_version']}`"
                      + (" (reproduced by this run)" if w.get("mode") == "lcb" else " (for --mode lcb)"), ""]
    lines += [f"Problems: {summary['num_problems']}, samples: {summary['num_samples']}"
              + (f" (judged {summary.get('num_judged', 0)}, unjudged {unjudged})" if unjudged else ""), ""]
    if unjudged:
        lines += [f"**{unjudged} sample(s) could not be judged** (`infra_error`: the sandbox or executor failed, "
                  "not the solution). Every score below is over judged samples only; rerun the same command "
                  "to judge them.", ""]
    cols = ["All"] + list(summary["by_difficulty"])
    lines.append("| metric | " + " | ".join(c.capitalize() if c != "All" else c for c in cols) + " |")
    lines.append("|---" * (len(cols) + 1) + "|")
    for k in ks:
        row = [summary["overall"][k]] + [summary["by_difficulty"][d][k] for d in cols[1:]]
        lines.append(f"| {k} | " + " | ".join(_fmt(v) for v in row) + " |")
    lines.append("| problems | " + " | ".join(str(summary["overall"]["problems"] if c == "All"
                                                    else summary["by_difficulty"][c]["problems"]) for c in cols) + " |")
    lines += ["", "| platform | problems | " + " | ".join(ks) + " |", "|---|---|" + "---|" * len(ks)]
    for p, v in summary["by_platform"].items():
        lines.append(f"| {p} | {v['problems']} | " + " | ".join(_fmt(v[k]) for k in ks) + " |")
    lines += ["", "Verdicts: " + ", ".join(f"{k} {v}" for k, v in summary["status_counts"].items()),
              "", "Tests accepted by rule: " + (", ".join(f"{k} {v}" for k, v in summary["accepted_by_rule"].items()) or "none")]
    for name, title in (("label_agreement", "Agreement with the true labels"),
                        ("lcb_agreement", "Agreement with LiveCodeBench's own verdicts")):
        a = summary.get(name)
        if a:
            lines += ["", f"{title}: {a['agree']}/{a['compared']} ({_fmt(a['agreement_pct'])} %)"
                      + (f", {a['unjudged']} unjudged not compared" if a.get("unjudged") else "")]
    if unjudged:
        listed = summary.get("unjudged") or []
        lines += ["", f"## Unjudged samples ({unjudged})", "", "| question_id | sample | reason |", "|---|---|---|"]
        for u in listed[:UNJUDGED_LISTED]:
            reason = " ".join(str(u.get("detail", "")).split())[:120].replace("|", "\\|")
            lines.append(f"| {u['question_id']} | {u['sample_index']} | {reason} |")
        if len(listed) > UNJUDGED_LISTED:
            lines.append(f"| … {len(listed) - UNJUDGED_LISTED} more (see the JSON summary) | | |")
        if summary.get("unjudged_problems"):
            lines += ["", "Problems with no judged sample (left out of pass@k): "
                      + ", ".join(summary["unjudged_problems"])]
    return "\n".join(lines) + "\n"


def write_png(summary: dict[str, Any], path: str | Path) -> None:
    """Bar chart of pass@1 overall, by difficulty and by platform."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names, vals = ["All"], [summary["overall"].get("pass@1") or 0.0]
    for group in ("by_difficulty", "by_platform"):
        for k, v in summary[group].items():
            names.append(k)
            vals.append(v.get("pass@1") or 0.0)
    fig, ax = plt.subplots(figsize=(max(4, 0.9 * len(names)), 3.2))
    bars = ax.bar(names, vals, color=["#333"] + ["#4c72b0"] * len(summary["by_difficulty"])
                  + ["#55a868"] * len(summary["by_platform"]))
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_ylabel("pass@1 (%)")
    ax.set_ylim(0, 105)
    w = summary.get("window") or {}
    title = f"pass@1 — {w.get('release') or 'all'} [{w.get('start_date') or '…'}, {w.get('end_date') or '…'})"
    unjudged = summary.get("num_unjudged", summary.get("infra_errors", 0))
    if unjudged:
        title += f"\njudged samples only: {summary.get('num_judged', 0)} of {summary['num_samples']}, {unjudged} unjudged (infra_error)"
    ax.set_title(title, fontsize=9, color="#b00" if unjudged else "black")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_reports(summary: dict[str, Any], stem: str | Path) -> dict[str, str]:
    """Write ``<stem>.summary.json``, ``.md`` and ``.png``; return their paths."""
    stem = str(stem)
    paths = {"json": f"{stem}.summary.json", "markdown": f"{stem}.summary.md", "png": f"{stem}.summary.png"}
    Path(paths["json"]).write_text(json.dumps(summary, indent=2) + "\n")
    Path(paths["markdown"]).write_text(to_markdown(summary))
    write_png(summary, paths["png"])
    return paths
