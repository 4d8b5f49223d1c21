"""Resource limits: reset what the sandbox inherited, then cap one test process."""
from __future__ import annotations

import math
import resource

_ALL = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK",
        "RLIMIT_DATA", "RLIMIT_RSS", "RLIMIT_MEMLOCK")


def set_limit(kind: int, value: int) -> None:
    """Soft and hard limit to ``value`` (never above an inherited hard limit)."""
    try:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or value > hard):
            value = hard
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):
        pass


def reset_inherited_limits() -> list[str]:
    """Raise every soft limit to its hard limit (an inherited ``ulimit -f`` must not turn the
    evaluator's own writes into errors); returns the limits whose hard cap stays below infinity."""
    capped = []
    for name in _ALL:
        kind = getattr(resource, name, None)
        if kind is None:
            continue
        try:
            soft, hard = resource.getrlimit(kind)
            if soft != hard:
                resource.setrlimit(kind, (hard, hard))
            if hard != resource.RLIM_INFINITY and name in ("RLIMIT_FSIZE", "RLIMIT_CPU"):
                capped.append(f"{name}={hard}")
        except (ValueError, OSError):
            pass
    return capped


def apply_test_limits(lim: dict, nproc_allowance: int | None) -> None:
    """Caps of one test process: memory, stack, CPU, file size, files, processes, no core."""
    mem = int(lim["memory_mb"]) * 1024 * 1024
    if mem > 0:
        set_limit(resource.RLIMIT_AS, mem)
        set_limit(resource.RLIMIT_STACK, min(mem // 2, 1 << 30))
    set_limit(resource.RLIMIT_CPU, max(1, int(math.ceil(float(lim["cpu_limit_s"])))))
    set_limit(resource.RLIMIT_FSIZE, int(lim["output_limit_bytes"]))
    set_limit(resource.RLIMIT_NOFILE, 256)
    set_limit(resource.RLIMIT_CORE, 0)
    # RLIMIT_NPROC counts per uid: exact with the sandbox's own uid (allowance 0); in a user
    # namespace it also counts the sandbox's manager and zygote; None: the uid is shared with
    # the host user, so the count would include unrelated processes (cgroup pids.max caps then)
    if nproc_allowance is not None:
        set_limit(resource.RLIMIT_NPROC, int(lim["max_processes"]) + nproc_allowance)
