"""One test process, freshly forked from the zygote: enter its limits and identity, then run.

Order matters: join the sample's cgroups and set limits while still privileged, drop the uid
(or every capability), wire the file descriptors, and only then read the request (code and
test inputs) from its own descriptor: the zygote it came from never held any request.
"""
from __future__ import annotations

import json
import os
import signal
import sys

from . import limits, nsutil

RESULT_FD = 3
EXIT_SETUP = 203


def join_cgroups(procs_files: list[str]) -> None:
    """Move this process into each cgroup (``cgroup.procs`` paths)."""
    for path in procs_files:
        with open(path, "w") as f:
            f.write("0\n")


def enter(head: dict, fds: list[int]) -> dict:
    """Set up this process from the zygote's spawn message; returns the request to run."""
    req_fd, in_fd, out_fd, err_fd, res_fd = fds
    os.setsid()
    for src, dst in ((in_fd, 0), (out_fd, 1), (err_fd, 2), (res_fd, RESULT_FD)):
        os.dup2(src, dst)
    limits.apply_test_limits(head["limits"], head.get("nproc_allowance"))
    uid = head.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    elif head.get("drop_caps"):
        nsutil.drop_all_capabilities()
    try:
        nsutil.prctl(nsutil.PR_SET_NO_NEW_PRIVS, 1)
        nsutil.prctl(nsutil.PR_SET_DUMPABLE, 1)  # its own /proc entries stay its own
    except OSError:
        pass
    req = _read_request(req_fd)
    os.closerange(RESULT_FD + 1, 1 << 16)
    os.chdir(head.get("workdir") or "/tmp")
    sys.set_int_max_str_digits(50000 if req["style"] == "lcb" else 0)
    sys.stdin = open(0, "r", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.argv = ["solution.py"]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; we want the kill
    return req


def _read_request(fd: int) -> dict:
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0) if size else b""
    while len(data) < size:  # pread may return less on huge requests
        data += os.pread(fd, size - len(data), len(data))
    os.close(fd)
    return json.loads(data)


def main(head: dict, fds: list[int]) -> None:
    """Entry point in the forked child; never returns."""
    try:
        req = enter(head, fds)
    except BaseException as e:  # noqa: BLE001 - report set-up failures, as infra errors
        try:
            os.write(2, f"sandbox set-up failed: {type(e).__name__}: {e}\n".encode())
        except OSError:
            pass
        os._exit(EXIT_SETUP)
    try:
        if req["style"] == "lcb":
            from .run_lcb import run as run_style
        elif req["style"] == "flex_batch":
            from .run_flex import run_batch as run_style
        else:
            from .run_flex import run as run_style
        run_style(req)
    except BaseException:  # noqa: BLE001 - the runners exit themselves; this is a harness bug
        try:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
    os._exit(EXIT_SETUP)
