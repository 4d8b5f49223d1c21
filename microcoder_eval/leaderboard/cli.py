"""``microcoder-eval leaderboard``: rebuild leaderboards/README.md, leaderboard.json and leaderboard.png."""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from microcoder_eval import resources
from microcoder_eval.errors import UserError
from microcoder_eval.evaluate_cli import add_dataclass_args, dataclass_from_args

DEFAULT_DIR = resources.default_leaderboard_dir()  # installed: ./leaderboards


@dataclass
class LeaderboardConfig:
    """Where the leaderboard inputs live and where its outputs go."""

    dir: str = field(default=DEFAULT_DIR, metadata={"help": "Leaderboard folder: reads reference.json and "
                                                              "runs/*.json, writes README.md, leaderboard.json, leaderboard.png."})
    reference: str = field(default="", metadata={"help": "Reference numbers file (default: <dir>/reference.json; for the "
                                                                  "default dir without one, the numbers shipped with the package)."})
    runs: str = field(default="", metadata={"help": "Folder of our run entries (default: <dir>/runs)."})
    out_dir: str = field(default="", metadata={"help": "Where to write the outputs (default: <dir>)."})

    def __post_init__(self) -> None:
        base = Path(self.dir)
        if not self.reference:
            own = base / "reference.json"
            # the default folder (./leaderboards when installed) starts from the shipped references;
            # a folder the user names must hold its own
            use_shipped = not own.is_file() and self.dir == DEFAULT_DIR
            self.reference = resources.reference_leaderboard() if use_shipped else str(own)
        self.runs = self.runs or str(base / "runs")
        self.out_dir = self.out_dir or str(base)
        if not Path(self.reference).is_file():
            raise UserError(f"reference file {self.reference!r} does not exist; pass --dir or --reference")


def build_leaderboard(config: LeaderboardConfig) -> tuple[dict[str, Any], dict[str, str]]:
    """Load, validate, group and write; returns (board, output paths)."""
    from microcoder_eval.leaderboard.entries import load_reference, load_runs
    from microcoder_eval.leaderboard.render import build, write_all

    board = build(load_reference(config.reference) + load_runs(config.runs))
    return board, write_all(board, config.out_dir)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("leaderboard", help="Rebuild the leaderboard (Markdown, JSON, PNG) from "
                              "reference numbers and our runs.", description=__doc__)
    add_dataclass_args(p, LeaderboardConfig)
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    config = dataclass_from_args(LeaderboardConfig, args)
    board, paths = build_leaderboard(config)
    n = sum(len(g["entries"]) for g in board["groups"])
    print(f"{n} entries in {len(board['groups'])} windows -> " + ", ".join(paths.values()))
    return 0
