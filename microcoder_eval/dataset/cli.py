"""``microcoder-eval build-dataset``: flags are the fields of ``BuildDatasetConfig``."""
from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from typing import Any

from microcoder_eval.dataset.config import BuildDatasetConfig
from microcoder_eval.evaluate_cli import add_dataclass_args

_LISTS = {"decontaminate_against"}


def add_config_args(p: argparse.ArgumentParser) -> None:
    """``BuildDatasetConfig`` fields as flags; inputs, --out-dir and list fields need their own form."""
    helps = {f.name: f.metadata.get("help", "") for f in fields(BuildDatasetConfig)}
    p.add_argument("inputs", nargs="+", metavar="INPUT", help=helps["inputs"])
    p.add_argument("--out-dir", "--out", dest="out_dir", required=True, metavar="DIR", help=helps["out_dir"])
    for name in sorted(_LISTS):
        p.add_argument("--" + name.replace("_", "-"), dest=name, action="append", default=None, metavar="PATH",
                       help=f"{helps[name]} Repeat the flag for several files.")
    add_dataclass_args(p, BuildDatasetConfig, skip=("inputs", "out_dir", *_LISTS))


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "build-dataset", help="Build a training set: read, verify, dedup, decontaminate, difficulty-filter.",
        description="Normalise training problems from LCB, TACO/APPS, DeepCoder/rllm, verl, CodeContests, "
                    "LeetCodeDataset or plain {question, tests} files; verify references with the evaluator; "
                    "remove exact/near duplicates and evaluation-set overlap; keep a pass-rate band; write "
                    "HF datasets, parquet, LCB JSONL and a manifest. Reruns resume finished stages.")
    add_config_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from microcoder_eval.dataset.build import build_dataset

    names = {f.name for f in fields(BuildDatasetConfig)}
    values = {k: v for k, v in vars(args).items() if k in names and v is not None}
    cfg = BuildDatasetConfig(**values)
    manifest = build_dataset(cfg)
    out = sys.stdout
    out.write(f"{'stage':<14} {'in':>7} {'out':>7}  dropped\n")
    for s in manifest["stages"]:
        if not s.get("enabled", True):
            out.write(f"{s['stage']:<14} {'-':>7} {'-':>7}  disabled ({s['why']})\n")
            continue
        drops = ", ".join(f"{k}={v}" for k, v in s["dropped"].items()) or "-"
        out.write(f"{s['stage']:<14} {s['input']:>7} {s['output']:>7}  {drops}\n")
    o = manifest["outputs"]
    out.write(f"{manifest['final_count']} problems -> {o['lcb_jsonl']}, {o['parquet']}, {o['hf_dataset']}\n")
    out.write(f"for trainers: verl {o['verl_parquet']}, TRL {o['trl_dataset']}\n")
    out.write(f"manifest: {o['manifest']}  report: {o['report_md']}\n")
    return 0
