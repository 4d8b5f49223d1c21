"""`microcoder-eval` command line: one subcommand per job; bad input -> one line, exit 2.

Feature packages register their subcommands through a ``register(subparsers)`` function in
their ``cli`` module; each subparser sets ``func=callable(args) -> int``.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Any

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
# each command, the module that registers it and its line in ``microcoder-eval --help``: a command
# line imports only the module of the command it names (the reward server, the dataset builder
# and the generation configs cost tens of milliseconds each); tests/test_cli_conventions.py checks
# that these lines match what the modules register
COMMANDS = {
    "evaluate": ("microcoder_eval.evaluate_cli", "Judge samples against problems (streams results, resumes)."),
    "doctor": ("microcoder_eval.doctor_cli", "Show which sandbox isolation is active here and why."),
    "build-dataset": ("microcoder_eval.dataset.cli",
                      "Build a training set: read, verify, dedup, decontaminate, difficulty-filter."),
    "generate": ("microcoder_eval.generation.cli",
                 "Sample a model on LCB problems; writes completions JSONL (resumes)."),
    "run": ("microcoder_eval.generation.cli", "generate + evaluate + pass@k report for a release and date window."),
    "leaderboard": ("microcoder_eval.leaderboard.cli",
                    "Rebuild the leaderboard (Markdown, JSON, PNG) from reference numbers and our runs."),
    "serve-reward": ("microcoder_eval.reward_server",
                     "Serve the evaluator reward over HTTP (OpenRLHF /get_reward, native /score)."),
}


def version() -> str:
    try:
        from importlib.metadata import version as dist_version

        return dist_version("microcoder")
    except Exception:  # noqa: BLE001 - running from a checkout that is not installed
        return "0+unknown"


def _add_output_flags(p: argparse.ArgumentParser, default: Any) -> None:
    """``-q/--quiet`` and ``-v/--verbose``, accepted before or after the subcommand."""
    out = p.add_argument_group("output")
    out.add_argument("-q", "--quiet", action="store_true", default=default,
                     help="Less on stderr: no progress bars, only errors logged.")
    out.add_argument("-v", "--verbose", action="count", default=default,
                     help="More on stderr: -v info messages, -vv debug.")


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (importlib.metadata costs tens of ms)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        sys.stdout.write(f"{parser.prog} {version()}\n")  # where argparse's own version action writes
        parser.exit()


def _register(sub: Any, module: str) -> None:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            return
        raise
    mod.register(sub)


def _command_in(argv: list[str]) -> str | None:
    """The command an argument list names: its first argument that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The full parser; given ``argv``, only the module of the command it names is imported (the
    other commands are listed by name and help line, enough for ``--help``)."""
    parser = argparse.ArgumentParser(prog="microcoder-eval", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction)
    _add_output_flags(parser, None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if argv is None:
        for module in SUBCOMMAND_MODULES:
            _register(sub, module)
    else:
        wanted = COMMANDS.get(_command_in(argv) or "", (None, None))[0]
        for name, (module, help_line) in COMMANDS.items():
            if module == wanted:
                if name not in sub.choices:
                    _register(sub, module)
            else:
                sub.add_parser(name, help=help_line)
    for p in sub.choices.values():  # after the subcommand too, without overriding a flag given before it
        _add_output_flags(p, argparse.SUPPRESS)
    return parser


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time (tests swap it)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def configure_output(args: argparse.Namespace) -> None:
    """Level of the ``microcoder_eval`` loggers from -q/-v (default: warnings); --quiet also turns
    progress bars off where a command has them. The root logger is left alone."""
    verbose = getattr(args, "verbose", None) or 0
    level = logging.ERROR if getattr(args, "quiet", None) else (
        logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    log = logging.getLogger("microcoder_eval")
    log.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in log.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("microcoder-eval: %(levelname)s: %(message)s"))
        log.addHandler(handler)
    if getattr(args, "quiet", None) and hasattr(args, "progress"):
        args.progress = False


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
    from microcoder_eval.sandbox.limits import reset_inherited_limits

    reset_inherited_limits()  # an inherited `ulimit -f` must not break writing results
    argv_list = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv_list)
    args = parser.parse_args(argv_list)
    configure_output(args)
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
