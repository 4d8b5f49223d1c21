"""Files shipped with the package: the sample problems and completions, the reference leaderboard.

In a source checkout (editable install, tests) they are read where they are edited, ``data/`` and
``leaderboards/`` at the repository root. A wheel carries copies under ``microcoder_eval/_shipped/``
(``setup.py`` puts them there at build time), so a non-editable ``pip install .`` finds them too.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SHIPPED_DIR = PACKAGE_DIR / "_shipped"
CHECKOUT_DIR = PACKAGE_DIR.parent

# what setup.py copies into the wheel: folder at the repository root -> files in it
SHIPPED = {
    "data": ("lcb_sample_problems.jsonl", "lcb_sample_completions.jsonl", "README.md"),
    "leaderboards": ("reference.json", "leaderboard.json", "README.md", "leaderboard.png"),
}


def in_checkout() -> bool:
    """True when running from a source tree (``pyproject.toml`` next to the package)."""
    return (CHECKOUT_DIR / "pyproject.toml").is_file() and (CHECKOUT_DIR / "data").is_dir()


def shipped_path(folder: str, name: str) -> Path:
    """Path of a shipped file: the checkout's copy when running from source, else the wheel's."""
    src = CHECKOUT_DIR / folder / name
    if in_checkout() and src.exists():
        return src
    return SHIPPED_DIR / folder / name


def sample_problems() -> str:
    return str(shipped_path("data", "lcb_sample_problems.jsonl"))


def sample_completions() -> str:
    return str(shipped_path("data", "lcb_sample_completions.jsonl"))


def reference_leaderboard() -> str:
    return str(shipped_path("leaderboards", "reference.json"))


def default_leaderboard_dir() -> str:
    """The checkout's ``leaderboards/``; installed, ``./leaderboards`` (our runs and the rendered
    outputs belong to the user, not to site-packages)."""
    if in_checkout():
        return str(CHECKOUT_DIR / "leaderboards")
    return "leaderboards"
