"""Run a command in a child process so that a hard exit inside it still ends in the one error line.

Ray's C++ core ends its driver process at once (``_exit``, no Python cleanup, no message on the
terminal) when the driver loses its local raylet or object store: ``ray stop`` on the node running
the command, or that node leaving the cluster. Without a supervisor the command then stops
mid-run with exit status 1 and nothing said. Run under ``supervised``, the work happens in a
forked child that reports its exit status through a pipe; if the child ends without reporting,
the parent prints one ``microcoder-eval: error:`` line (the results already written are kept and
a rerun resumes) and returns 2.
"""
from __future__ import annotations

import os
import signal
import sys
from typing import Callable

ENV = "MICROCODER_SUPERVISE"  # "0" runs in-process (e.g. under a debugger)


def wanted(executor: str | None) -> bool:
    """Supervise Ray runs only, and only where forking is safe (Ray not yet started here)."""
    if executor != "ray" or os.environ.get(ENV, "1") == "0" or not hasattr(os, "fork"):
        return False
    ray = sys.modules.get("ray")
    return not (ray is not None and getattr(ray, "is_initialized", lambda: False)())


def supervised(work: Callable[[], int], what: str = "the command") -> int:
    """``work()`` in a forked child; its exit status, or 2 with one error line if it died without one."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        code = 1
        try:
            code = int(work() or 0)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 - print it as Python would, then report
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                os.write(write_fd, f"{code}\n".encode())
            finally:
                os._exit(code)
    os.close(write_fd)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child, which handles it
    try:
        chunks = []
        while True:
            chunk = os.read(read_fd, 64)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, old)
        os.close(read_fd)
    reported = b"".join(chunks).strip()
    if reported:
        return int(reported)
    how = (f"was killed by signal {signal.Signals(-os.waitstatus_to_exitcode(status)).name}"
           if os.WIFSIGNALED(status) else f"exited with status {os.waitstatus_to_exitcode(status)}")
    print(f"microcoder-eval: error: {what} ended abruptly: its process {how} without finishing (Ray ends "
          "its driver this way when the node it runs on loses its raylet or object store, e.g. `ray stop` "
          "or the node leaving the cluster; see the driver log under the Ray session's logs folder); the "
          "results already written are kept; rerun the same command to resume", file=sys.stderr)
    return 2
