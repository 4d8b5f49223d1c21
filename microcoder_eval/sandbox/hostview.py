"""Without bubblewrap, as root: make the interpreter reachable for the sandbox uid.

The interpreter may live under a folder other users cannot traverse (``/root/.pyenv``). In the
zygote's private mount namespace each such folder is covered by a small read-only tmpfs with
only the needed entries bound back, taken through ``O_PATH`` descriptors (no stash folders are
left anywhere on the host).
"""
from __future__ import annotations

import os
import sys

from . import nsutil


def _blocked_ancestors(paths: list[str]) -> dict[str, set[str]]:
    """Directories others cannot traverse on the way to ``paths`` -> the child names needed."""
    blocked: dict[str, set[str]] = {}
    for path in paths:
        parts = os.path.realpath(path).split(os.sep)
        for i in range(2, len(parts)):
            parent = os.sep.join(parts[:i]) or os.sep
            try:
                mode = os.stat(parent).st_mode
            except OSError:
                break
            if not mode & 0o001:
                blocked.setdefault(parent, set()).add(parts[i])
    return blocked


def make_interpreter_reachable() -> list[str]:
    needed = [sys.executable, sys.prefix, sys.base_prefix] + [p for p in sys.path if p and os.path.exists(p)]
    notes = []
    for parent, names in sorted(_blocked_ancestors(needed).items(), key=lambda kv: kv[0].count(os.sep)):
        kept = nsutil.cover_with_tmpfs(parent, "mode=0755,size=64k",
                                       [os.path.join(parent, n) for n in sorted(names)], read_only_keep=False)
        notes.append(f"reachable: {parent}/{{{','.join(os.path.basename(k) for k in kept)}}}")
    return notes
