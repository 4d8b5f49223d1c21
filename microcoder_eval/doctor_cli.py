"""`microcoder-eval doctor`: which isolation the sandbox has here, and probes that prove it."""
from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("doctor", help="Show which sandbox isolation is active here and why.",
                              description=__doc__)
    p.add_argument("--json", action="store_true", help="Print the report as JSON.")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from microcoder_eval.sandbox.doctor import diagnose, main_json, render

    report = diagnose()
    print(main_json(report) if args.json else render(report))
    return 0 if all(p["ok"] for p in report["probes"].values()) else 3
