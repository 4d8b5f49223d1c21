"""``microcoder-eval generate`` (sample a model on LCB problems) and ``run`` (generate + evaluate + report)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from microcoder_eval.config import EvalConfig
from microcoder_eval.evaluate_cli import add_dataclass_args, dataclass_from_args
from microcoder_eval.generation.config import GenerateConfig, RunConfig

EXAMPLE = """example (LiveCodeBench v6 window of the Qwen3-2507 model cards, a model served by `vllm serve`):
  microcoder-eval run --problems livecodebench/code_generation_lite --release release_v6 \\
      --start-date 2025-02-01 --end-date 2025-05-01 --backend openai --model Qwen/Qwen3-1.7B \\
      --base-url http://127.0.0.1:8000/v1 -n 10 --temperature 0.2 --max-tokens 8192 --out qwen3.jsonl
"""


def _add_generate_args(p: argparse.ArgumentParser) -> None:
    add_dataclass_args(p, GenerateConfig, skip=("n",))
    p.add_argument("-n", "--n", dest="n", type=int, default=10,
                   help=GenerateConfig.help()["n"] + " (default: 10)")


def register(subparsers: Any) -> None:
    g = subparsers.add_parser("generate", help="Sample a model on LCB problems; writes completions JSONL (resumes).",
                              description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_generate_args(g)
    g.set_defaults(func=generate_command)
    r = subparsers.add_parser("run", help="generate + evaluate + pass@k report for a release and date window.",
                              description=__doc__, epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_generate_args(r)
    add_dataclass_args(r, RunConfig)
    add_dataclass_args(r, EvalConfig)
    r.set_defaults(func=run_command)


def generate_command(args: argparse.Namespace) -> int:
    from microcoder_eval.generation.runner import generate

    config = dataclass_from_args(GenerateConfig, args)
    summary = generate(config)
    print(summary.line())
    return 0


def run_command(args: argparse.Namespace) -> int:
    from microcoder_eval.generation.run import header, run_pipeline
    from microcoder_eval.report import to_markdown

    gen = dataclass_from_args(GenerateConfig, args)
    run = dataclass_from_args(RunConfig, args)
    evalcfg = dataclass_from_args(EvalConfig, args)
    summary = run_pipeline(gen, run, evalcfg)
    sys.stdout.write(header(summary) + to_markdown(summary))
    reports = summary.get("reports") or {}
    if reports:
        print("\nReports: " + ", ".join(reports.values()))
    if summary.get("leaderboard_run"):
        print(f"Leaderboard entry: {summary['leaderboard_run']} (rebuild with `microcoder-eval leaderboard`)")
    from microcoder_eval.evaluate_cli import finish_status

    return finish_status(summary)
