"""Training curves (PNG) and a Markdown summary written to the output folder after training.

``write_training_report(log_history, out_dir)`` reads TRL's ``trainer.state.log_history`` (one entry
per logging step) and writes ``training_curves.png`` and ``training_summary.md``: reward, pass rate
(overall and by difficulty), response length, truncation and masked fractions, groups without
signal, diversity and temperature.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

CURVES_FILE = "training_curves.png"
SUMMARY_FILE = "training_summary.md"

# (panel title, [(log key or key prefix ending in '/', label)])
PANELS: list[tuple[str, list[tuple[str, str]]]] = [
    ("reward", [("reward", "mean reward")]),
    ("pass rate", [("verdict/pass_rate", "all"), ("microcoder/pass_rate/", "")]),
    ("response length (tokens)", [("microcoder/response_length", "mean")]),
    ("truncated / masked / no signal", [("microcoder/truncation_rate", "truncated"),
                                        ("microcoder/masked_fraction", "masked (advantage 0)"),
                                        ("microcoder/all_equal_groups", "all-equal groups"),
                                        ("microcoder/dynamic_sampling_fill_rate", "dynamic sampling fill")]),
    ("diversity", [("microcoder/diversity", "metric"), ("microcoder/distinct_ngrams", "distinct 4-grams")]),
    ("temperature", [("microcoder/temperature", "sampling temperature")]),
]


def _series(history: list[dict[str, Any]], key: str) -> tuple[list[int], list[float]]:
    steps, values = [], []
    for h in history:
        v = h.get(key)
        if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)) and "step" in h:
            steps.append(int(h["step"]))
            values.append(float(v))
    return steps, values


def _expand(history: list[dict[str, Any]], key: str, label: str) -> list[tuple[str, str]]:
    if not key.endswith("/"):
        return [(key, label)]
    names = sorted({k for h in history for k in h if k.startswith(key)})
    return [(k, k[len(key):]) for k in names]


def _train_history(log_history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [h for h in log_history if "reward" in h or "microcoder/temperature" in h]


def write_training_report(log_history: list[dict[str, Any]], out_dir: str | Path,
                          title: str = "MicroCoder-GRPO training") -> tuple[Path, Path] | None:
    """Write the PNG and Markdown; returns their paths (None when nothing was logged)."""
    history = _train_history(log_history)
    if not history:
        return None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png, md = out / CURVES_FILE, out / SUMMARY_FILE

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 8), constrained_layout=True)
    rows: list[tuple[str, int, float, float, float]] = []
    for ax, (panel, keys) in zip(axes.flat, PANELS):
        drawn = False
        for key, label in keys:
            for k, lab in _expand(history, key, label):
                steps, values = _series(history, k)
                if not values:
                    continue
                ax.plot(steps, values, marker="." if len(values) < 40 else None, label=lab or k)
                drawn = True
                q = max(1, len(values) // 4)
                rows.append((k, len(values), sum(values[:q]) / q, sum(values[-q:]) / q, values[-1]))
        ax.set_title(panel)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if drawn:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "not logged", ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(title)
    fig.savefig(png, dpi=90)
    plt.close(fig)

    last_step = max(int(h.get("step", 0)) for h in history)
    lines = [f"# {title}", "", f"{len(history)} logged steps (last step {last_step}). Curves: `{CURVES_FILE}`.", "",
             "First and last quarter: the mean of the first and last 25 % of the logged values.", "",
             "| metric | points | first quarter | last quarter | last |", "|---|---|---|---|---|"]
    lines += [f"| `{k}` | {n} | {a:.4g} | {b:.4g} | {c:.4g} |" for k, n, a, b, c in rows]
    zsteps, zero = _series(history, "microcoder/zero_advantage")
    if zero:
        rewards = dict(zip(*_series(history, "reward")))
        streaks: list[tuple[int, int]] = []  # (first index, length)
        start = None
        for i, z in enumerate([*zero, 0.0]):
            if z >= 1.0 and start is None:
                start = i
            elif z < 1.0 and start is not None:
                streaks.append((start, i - start))
                start = None
        lines += ["", f"Steps without any learning signal (every group's rewards equal, loss 0): "
                      f"{int(sum(z >= 1.0 for z in zero))} of {len(zero)}; longest streak "
                      f"{max((n for _, n in streaks), default=0)}."]
        for first, n in streaks:
            if n < 5:
                continue
            span = zsteps[first : first + n]
            mean = sum(rewards.get(s, float("nan")) for s in span) / n
            what = ("nothing solved: a collapse, or the task is out of reach" if mean == 0 else
                    "every completion scored alike (e.g. all solved)")
            lines.append(f"- steps {span[0]}-{span[-1]}: mean reward {mean:.3g}, {what}")
    _, rw = _series(history, "microcoder/reward_wait_s")
    _, st = _series(history, "step_time")
    if rw and st:
        lines += ["", f"Time waiting for the reward: {sum(rw) / max(sum(st), 1e-12):.1%} of the step time."]
    md.write_text("\n".join(lines) + "\n")
    return png, md
