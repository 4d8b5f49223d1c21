"""``microcoder-eval evaluate``: judge a samples file against LCB problems, stream, resume, report."""
from __future__ import annotations

import argparse
import sys
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from microcoder_eval import resources
from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import UserError

DEFAULT_PROBLEMS = resources.sample_problems()  # the checkout's data/, or the wheel's package data
DEFAULT_SAMPLES = resources.sample_completions()


@dataclass
class EvaluateJob:
    """Inputs and outputs of one evaluation run (the evaluator itself is configured by EvalConfig)."""

    problems: str = field(default=DEFAULT_PROBLEMS, metadata={"help": "LCB problems: .jsonl/.json/.parquet path or HF dataset name."})
    samples: str = field(default=DEFAULT_SAMPLES, metadata={"help": "Samples: JSONL {question_id, completion} or LCB JSON [{question_id, code_list}]."})
    out: str = field(default="results.jsonl", metadata={"help": "Per-sample results JSONL (streamed; a rerun resumes)."})
    release: str | None = field(default=None, metadata={"help": "LCB release, e.g. release_v6 (limits contest dates / picks HF version)."})
    start_date: str | None = field(default=None, metadata={"help": "Keep problems with contest_date >= this (YYYY-MM-DD)."})
    end_date: str | None = field(default=None, metadata={"help": "Keep problems with contest_date < this (YYYY-MM-DD)."})
    platform: str | None = field(default=None, metadata={"help": "Comma-separated platforms to keep (leetcode,atcoder,codeforces)."})
    difficulty: str | None = field(default=None, metadata={"help": "Comma-separated difficulties to keep (easy,medium,hard)."})
    use_raw_output: bool = field(default=False, metadata={"help": "For LCB files: re-extract code from output_list instead of using code_list."})
    skip_missing: bool = field(default=False, metadata={"help": "Ignore samples whose question_id is not among the (filtered) problems instead of failing."})
    overwrite: bool = field(default=False, metadata={"help": "Discard an existing --out file instead of resuming it."})
    ks: str = field(default="1,5,10", metadata={"help": "Comma-separated k values for pass@k."})
    progress: bool = field(default=True, metadata={"help": "Show a progress bar."})

    def __post_init__(self) -> None:
        try:
            self.k_values = sorted({int(k) for k in str(self.ks).split(",") if k.strip()})
        except ValueError as e:
            raise UserError(f"--ks {self.ks!r} must be comma-separated integers, e.g. 1,5,10") from e
        if not self.k_values or min(self.k_values) < 1:
            raise UserError(f"--ks {self.ks!r} needs positive integers, e.g. 1,5,10")


def _field_groups(cls: type) -> dict[str, str]:
    """Field name -> section title, from ``# ---- title`` comments in the dataclass body (if any)."""
    import inspect
    import re

    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    out: dict[str, str] = {}
    title = ""
    for line in source.splitlines():
        m = re.match(r"\s*# -{2,}\s*(.+?)\s*$", line)
        if m:
            title = m.group(1)
            continue
        m = re.match(r"\s{4}(\w+)\s*:", line)
        if m and title:
            out[m.group(1)] = title
    return out


def add_dataclass_args(parser: argparse.ArgumentParser, cls: type, skip: tuple[str, ...] = ()) -> None:
    """Expose a config dataclass's fields as ``--kebab-case`` flags with their help text.

    One argument group per dataclass (titled by its docstring), or per ``# ---- title`` section of
    its body; the field's ``choices`` (metadata) as the metavar; the default in every help line. The
    ``--snake_case`` spelling of each flag is accepted too (hidden from help), for scripts written
    against TRL-style flags.
    """
    doc = (cls.__doc__ or cls.__name__).strip().splitlines()[0].rstrip(".")
    sections = _field_groups(cls)
    groups: dict[str, Any] = {}

    def group_for(name: str) -> Any:
        title = f"{doc}: {sections[name]}" if name in sections else doc
        if title not in groups:
            groups[title] = parser.add_argument_group(title)
        return groups[title]

    for f in fields(cls):
        if f.name in skip or not f.init:
            continue
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not MISSING else None
        helptext = f.metadata.get("help", "")
        choices = f.metadata.get("choices") or ()
        typ = str(getattr(f.type, "__name__", f.type))
        target = group_for(f.name)
        alias = ["--" + f.name] if "_" in f.name else []
        if typ == "bool":
            target.add_argument(flag, dest=f.name, action=argparse.BooleanOptionalAction, default=default, help=helptext)
            for a in alias:
                target.add_argument(a, dest=f.name, action=argparse.BooleanOptionalAction,
                                    default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        else:  # "int | None" converts as int, "float | None" as float
            conv = int if typ.startswith("int") else float if typ.startswith("float") else str
            shown = "none" if default is None or default == "" else default
            # choices are shown, and checked by the dataclass (one-line error that names the fix)
            metavar = "{" + ",".join(c for c in choices if c) + "}" if choices else None
            target.add_argument(flag, dest=f.name, type=conv, default=default, metavar=metavar,
                                help=f"{helptext} (default: {shown})")
            for a in alias:
                target.add_argument(a, dest=f.name, type=conv, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def dataclass_from_args(cls: type, args: argparse.Namespace) -> Any:
    names = {f.name for f in fields(cls) if f.init}
    return cls(**{k: v for k, v in vars(args).items() if k in names})


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("evaluate", help="Judge samples against problems (streams results, resumes).",
                              description=__doc__)
    add_dataclass_args(p, EvaluateJob)
    add_dataclass_args(p, EvalConfig)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from microcoder_eval.evaluation_job import run_evaluation

    job = dataclass_from_args(EvaluateJob, args)
    config = dataclass_from_args(EvalConfig, args)
    summary = run_evaluation(job, config)
    from microcoder_eval.report import to_markdown

    sys.stdout.write(to_markdown(summary))
    return finish_status(summary)


EXIT_UNJUDGED = 3  # the run finished but some samples are infra_error (2 = bad input or a failed run)


def finish_status(summary: dict[str, Any]) -> int:
    """0 when every sample was judged; else one line on stderr and ``EXIT_UNJUDGED``."""
    n = summary.get("num_unjudged", summary.get("infra_errors", 0))
    if not n:
        return 0
    no_tests = sum(1 for u in summary.get("unjudged") or [] if u.get("num_tests") == 0)
    tail = (f"; {no_tests} of them belong to problems with no tests, which no rerun can judge: fix the "
            "problems file" if no_tests else "")
    print(f"microcoder-eval: {n} of {summary['num_samples']} samples could not be judged (infra_error: the "
          "sandbox or executor failed, not the solution) and are left out of every score; rerun the same "
          f"command to judge them{tail} (exit status {EXIT_UNJUDGED})", file=sys.stderr)
    return EXIT_UNJUDGED
