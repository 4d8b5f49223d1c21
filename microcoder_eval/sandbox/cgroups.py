"""Aggregate caps for everything one test starts: a memory and a pids cgroup per sandbox worker.

cgroup v2 where the evaluator's own cgroup delegates ``memory`` and ``pids``, else cgroup v1
(``memory`` + ``pids`` hierarchies, writable by root). Each test process joins the worker's
cgroup before it drops privileges, so the memory of all its processes, threads, pipes and tmpfs
files is charged together and capped; the kernel's OOM kills inside it are counted, which tells a
memory-limit death from any other SIGKILL. Where neither is writable: ``None`` (the caller then
reports the weaker per-process RLIMIT_AS x RLIMIT_NPROC bound).
"""
from __future__ import annotations

import os
import time


def _own_cgroup_paths() -> dict[str, str]:
    """controller (or '' for v2) -> this process's cgroup path, from /proc/self/cgroup."""
    out = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                for c in ctrls.split(",") if ctrls else [""]:
                    out[c] = path
    except OSError:
        pass
    return out


def _mounts() -> dict[str, str]:
    """'v2' or v1 controller name -> mount point."""
    out = {}
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fstype, _, opts = (right.split() + ["", ""])[:3]
                mnt = left.split()[4]
                if fstype == "cgroup2":
                    out.setdefault("v2", mnt)
                elif fstype == "cgroup":
                    for opt in opts.split(","):
                        if opt in ("memory", "pids"):
                            out.setdefault(opt, mnt)
    except OSError:
        pass
    return out


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class WorkerCgroup:
    """The cgroup(s) one sandbox worker's test processes join."""

    def __init__(self, version: str, dirs: list[str]) -> None:
        self.version = version
        self.dirs = dirs

    @property
    def procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self.dirs]

    def oom_kills(self) -> int:
        """Kernel OOM kills inside this cgroup so far."""
        name = "memory.events" if self.version == "v2" else "memory.oom_control"
        try:
            with open(os.path.join(self.dirs[0], name)) as f:
                for line in f:
                    key, _, val = line.partition(" ")
                    if key == "oom_kill":
                        return int(val)
        except (OSError, ValueError):
            pass
        return 0

    def close(self) -> None:
        for d in reversed(self.dirs):
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)  # the last killed process is still being torn down


def _remove_stale(base: str) -> None:
    """Cgroups left by evaluators that were killed (``PREFIX<uid>-<pid>-<index>``, pid gone)."""
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return
    for n in names:
        try:
            owner = int(n[len(PREFIX):].split("-")[1])
        except (IndexError, ValueError):
            continue
        if owner == os.getpid() or os.path.exists(f"/proc/{owner}"):
            continue
        try:
            os.rmdir(os.path.join(base, n))
        except OSError:
            pass


PREFIX = "microcoder-"


def create(name: str, memory_mb: int, max_processes: int) -> WorkerCgroup | None:
    """Create ``name`` under this process's own cgroup with the caps set; None if not permitted."""
    mounts, own = _mounts(), _own_cgroup_paths()
    if "v2" in mounts and "" in own:
        base = os.path.join(mounts["v2"], own[""].lstrip("/"))
        try:
            with open(os.path.join(base, "cgroup.subtree_control")) as f:
                enabled = f.read().split()
            if {"memory", "pids"} <= set(enabled):
                _remove_stale(base)
                d = os.path.join(base, name)
                os.makedirs(d, exist_ok=True)
                if memory_mb:
                    _write(os.path.join(d, "memory.max"), str(memory_mb << 20))
                    _write(os.path.join(d, "memory.swap.max"), "0")
                _write(os.path.join(d, "pids.max"), str(max_processes))
                return WorkerCgroup("v2", [d])
        except OSError:
            pass
    if "memory" in mounts and "pids" in mounts:
        dirs: list[str] = []
        try:
            for ctrl in ("memory", "pids"):
                base = os.path.join(mounts[ctrl], own.get(ctrl, "/").lstrip("/"))
                _remove_stale(base)
                d = os.path.join(base, name)
                os.makedirs(d, exist_ok=True)
                dirs.append(d)
            if memory_mb:
                _write(os.path.join(dirs[0], "memory.limit_in_bytes"), str(memory_mb << 20))
                try:
                    _write(os.path.join(dirs[0], "memory.memsw.limit_in_bytes"), str(memory_mb << 20))
                except OSError:
                    pass  # no swap accounting
            _write(os.path.join(dirs[1], "pids.max"), str(max_processes))
            return WorkerCgroup("v1", dirs)
        except OSError:
            WorkerCgroup("v1", dirs).close()
    return None
