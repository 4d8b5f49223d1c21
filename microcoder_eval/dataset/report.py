"""Build report: stage counts, difficulty-label and pass-rate histograms before/after (Markdown + PNG)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

BIN_LABELS = ["0", *[f"({i / 10:.1f},{(i + 1) / 10:.1f}]" for i in range(9)], "(0.9,1)", "1"]


def rate_bin(rate: float) -> str:
    """Never-solved and always-solved get their own bins; the rest are tenths."""
    if rate <= 0:
        return "0"
    if rate >= 1:
        return "1"
    i = min(int((rate - 1e-12) * 10), 9)
    return BIN_LABELS[1 + i] if i < 9 else "(0.9,1)"


def histograms(rows: list[dict[str, Any]]) -> dict[str, Any]:
    before = [r for r in rows]
    after = [r for r in rows if r["kept"]]
    def rates(rs: list[dict[str, Any]]) -> Counter[str]:
        return Counter(rate_bin(r["pass_rate"]) if r["pass_rate"] is not None else "n/a" for r in rs)
    return {"pass_rate": {"before": dict(rates(before)), "after": dict(rates(after))},
            "difficulty": {"before": dict(Counter(r["difficulty"] for r in before)),
                           "after": dict(Counter(r["difficulty"] for r in after))}}


def _table(title: str, before: dict[str, int], after: dict[str, int], order: list[str]) -> list[str]:
    keys = [k for k in order if k in before or k in after] + sorted(k for k in {*before, *after} if k not in order)
    lines = [f"| {title} | before | after |", "|---|---:|---:|"]
    lines += [f"| {k} | {before.get(k, 0)} | {after.get(k, 0)} |" for k in keys]
    lines.append(f"| **total** | {sum(before.values())} | {sum(after.values())} |")
    return lines


def _diff_order(labels: set[str]) -> list[str]:
    known = ["easy", "introductory", "medium", "interview", "hard", "competition", "unknown"]
    return [k for k in known if k in labels] + sorted(labels - set(known))


def to_markdown(manifest: dict[str, Any], hist: dict[str, Any] | None, png: str | None) -> str:
    out = ["# Dataset build report", ""]
    out.append(f"Output: `{manifest['outputs']['lcb_jsonl']}` ({manifest['final_count']} problems). "
               f"Config hash `{manifest['config_hash']}`.")
    window = manifest.get("decontamination_window")
    if window:
        out.append(f"Decontaminated against {window['problems']} evaluation problems, contest_date window "
                   f"[{window['start'] or '-inf'}, {window['end'] or '+inf'})"
                   f"{' within ' + window['release'] if window.get('release') else ''}.")
    out += ["", "## Stages", "", "| stage | in | out | dropped (reason: count) | resumed |", "|---|---:|---:|---|---|"]
    for s in manifest["stages"]:
        if not s.get("enabled", True):
            out.append(f"| {s['stage']} | - | - | disabled | - |")
            continue
        drops = ", ".join(f"{k}: {v}" for k, v in s["dropped"].items()) or "-"
        out.append(f"| {s['stage']} | {s['input']} | {s['output']} | {drops} | {'yes' if s.get('reused') else 'no'} |")
    if hist is None:
        out += ["", "## Difficulty", "", "The difficulty filter was not enabled (no --completions or "
                "--pass-rate-column); labels of the final problems:", ""]
        labels = manifest.get("final_difficulty", {})
        out += _table("difficulty", labels, labels, _diff_order(set(labels)))
    else:
        d = hist["difficulty"]
        out += ["", "## Difficulty filter", "", f"Band: pass rate in [{manifest['band'][0]}, {manifest['band'][1]}].", ""]
        out += _table("difficulty label", d["before"], d["after"], _diff_order({*d["before"], *d["after"]}))
        pr = hist["pass_rate"]
        out += ["", *_table("pass rate", pr["before"], pr["after"], [*BIN_LABELS, "n/a"])]
        if png:
            out += ["", f"![pass-rate and difficulty histograms]({Path(png).name})"]
    return "\n".join(out) + "\n"


def write_png(hist: dict[str, Any], path: str | Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for ax, key, order, title in ((axes[0], "pass_rate", [*BIN_LABELS, "n/a"], "pass rate"),
                                  (axes[1], "difficulty", None, "difficulty label")):
        before, after = hist[key]["before"], hist[key]["after"]
        labels = order if order else _diff_order({*before, *after})
        labels = [k for k in labels if k in before or k in after or (order and k != "n/a")]
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], [before.get(k, 0) for k in labels], 0.4, label="before")
        ax.bar([x + 0.2 for x in xs], [after.get(k, 0) for k in labels], 0.4, label="after")
        ax.set_xticks(list(xs), labels, rotation=45, ha="right")
        ax.set_title(f"{title}: before / after the difficulty filter")
        ax.set_ylabel("problems")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
