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
    "microcoder_eval.dataset.cli",
    "microcoder_eval.generation.cli",
    "microcoder_eval.leaderboard.cli",
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


def one_line(e: BaseException) -> str:
    """An exception's message squeezed onto one line."""
    return " ".join(str(e).split()) or type(e).__name__


def log_detail(detail: str | None, argv: list[str] | None = None) -> str:
    """Write ``detail`` to a fresh log file; return the "; details in PATH" tail for the error line."""
    if not detail:
        return ""
    import os
    import tempfile
    import time

    folder = os.path.join(tempfile.gettempdir(), "microcoder-eval-logs")
    path = os.path.join(folder, time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{os.getpid()}.log")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "w") as f:
            f.write("command: microcoder-eval " + " ".join(sys.argv[1:] if argv is None else argv) + "\n\n")
            f.write(detail if detail.endswith("\n") else detail + "\n")
    except OSError as e:
        return f" (the details could not be written to {path}: {e.strerror or e})"
    return f"; details in {path}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from microcoder_eval import supervise

    if supervise.wanted(getattr(args, "executor", None)):  # Ray may end its driver with no word
        return supervise.supervised(lambda: _dispatch(args, argv), f"`microcoder-eval {args.command}`")
    return _dispatch(args, argv)


def _dispatch(args: argparse.Namespace, argv: list[str] | None) -> int:
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"microcoder-eval: error: {one_line(e)}{log_detail(e.detail, argv)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("microcoder-eval: interrupted; results so far are on disk (rerun to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
