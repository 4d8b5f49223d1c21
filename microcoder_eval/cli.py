"""`microcoder-eval` command line: one subcommand per job; bad input -> one line, exit 2.

Feature packages register their subcommands through a ``register(subparsers)`` function in
their ``cli`` module; each subparser sets ``func=callable(args) -> int``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from microcoder_eval.errors import UserError

# modules that expose register(subparsers); missing optional ones are skipped
SUBCOMMAND_MODULES = (
    "microcoder_eval.evaluate_cli",
    "microcoder_eval.doctor_cli",
    "microcoder_eval.dataset.cli",
    "microcoder_eval.generation.cli",
    "microcoder_eval.leaderboard.cli",
    "microcoder_eval.reward_server",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="microcoder-eval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name and name.startswith(e.name):
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from microcoder_eval.sandbox.limits import reset_inherited_limits

    reset_inherited_limits()  # an inherited `ulimit -f` must not break writing results
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"microcoder-eval: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("microcoder-eval: interrupted; results so far are on disk (rerun to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
