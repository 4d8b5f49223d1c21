"""Parent side of the sandbox: long-lived worker processes and a pool that lends them out."""
from __future__ import annotations

import json
import os
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from microcoder_eval.errors import InfraError

WORKER_SCRIPT = str(Path(__file__).with_name("worker.py"))
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "VIRTUAL_ENV", "SYSTEMROOT")


def _worker_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    # single-threaded numeric libraries: forking after BLAS threads start is unsafe
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    return env


class SandboxWorker:
    """One ``worker.py`` process; ``run`` sends a request and waits (with a deadline) for the reply."""

    def __init__(self, index: int, uid: int | None, isolate_network: bool = True,
                 hide_paths: list[str] | None = None) -> None:
        self.index = index
        self.hide_paths = list(hide_paths or [])
        self.mount_notes: list[str] = []
        self.uid = uid
        self.isolate_network = isolate_network
        self.proc: subprocess.Popen[bytes] | None = None
        self.network_isolated = False
        self.restarts = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", WORKER_SCRIPT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=_worker_env(), start_new_session=True, close_fds=True,
        )
        self._send({"op": "hello", "isolate_network": self.isolate_network,
                    "private_mounts": self.uid is not None, "hide_paths": self.hide_paths})
        hello = self._recv(deadline=time.monotonic() + 60)
        self.network_isolated = bool(hello.get("network_isolated"))
        self.mount_notes = list(hello.get("mounts", []))

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc and self.proc.stdin
        data = json.dumps(msg).encode()
        try:
            self.proc.stdin.write(struct.pack("!Q", len(data)) + data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise InfraError(f"sandbox worker {self.index} is gone: {e}") from e

    def _read(self, n: int, deadline: float) -> bytes:
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise InfraError(f"sandbox worker {self.index} did not answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise InfraError(f"sandbox worker {self.index} exited unexpectedly")
            buf += chunk
        return bytes(buf)

    def _recv(self, deadline: float) -> dict[str, Any]:
        (n,) = struct.unpack("!Q", self._read(8, deadline))
        return json.loads(self._read(n, deadline))

    def run(self, request: dict[str, Any], deadline_s: float) -> dict[str, Any]:
        """Run one request; on any protocol failure the worker is killed and restarted later."""
        if self.proc is None or self.proc.poll() is not None:
            self.restarts += self.proc is not None
            self.start()
        req = dict(request, uid=self.uid)
        try:
            self._send(req)
            return self._recv(time.monotonic() + deadline_s)
        except InfraError:
            self.kill()
            raise

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream and stream.close()
            except OSError:
                pass
        self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self._send({"op": "exit"})
                self.proc.wait(timeout=5)
            except (InfraError, subprocess.TimeoutExpired):
                pass
        self.kill()


UID_LOCK_DIR = "/run/microcoder-sandbox-uids" if os.path.isdir("/run") else "/tmp/microcoder-sandbox-uids"
UID_RANGE = 4096


def claim_uid(base: int) -> tuple[int, int]:
    """Reserve a sandbox uid no other evaluator on this machine uses (flock held while alive).

    Every worker kills all processes of its uid after each test, so two evaluators (other
    processes, pytest-xdist workers, or two pools in one process) must never share one.
    """
    import fcntl

    os.makedirs(UID_LOCK_DIR, mode=0o700, exist_ok=True)
    for uid in range(base, base + UID_RANGE):
        fd = os.open(os.path.join(UID_LOCK_DIR, f"{uid}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return uid, fd
        except BlockingIOError:
            os.close(fd)
    raise InfraError(f"all sandbox uids {base}..{base + UID_RANGE - 1} are in use")


class SandboxPool:
    """A fixed set of warm workers; ``with pool.worker() as w`` borrows one."""

    def __init__(self, size: int, uid_base: int | None = None, isolate_network: bool = True,
                 hide_paths: list[str] | None = None) -> None:
        if os.geteuid() != 0:
            uid_base = None
        self._uid_locks: list[int] = []
        uids: list[int | None] = []
        for _ in range(size):
            if uid_base is None:
                uids.append(None)
                continue
            uid, fd = claim_uid(uid_base)
            uids.append(uid)
            self._uid_locks.append(fd)
        self.workers = [SandboxWorker(i, uids[i], isolate_network, hide_paths) for i in range(size)]
        self._idle: queue.SimpleQueue[SandboxWorker] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        for w in self.workers:
            self._idle.put(w)

    @property
    def size(self) -> int:
        return len(self.workers)

    def start(self) -> None:
        """Start every worker now (otherwise each starts on first use)."""
        threads = [threading.Thread(target=w.start) for w in self.workers if w.proc is None]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    @contextmanager
    def worker(self) -> Iterator[SandboxWorker]:
        if self._closed:
            raise InfraError("sandbox pool is closed")
        w = self._idle.get()
        try:
            yield w
        finally:
            self._idle.put(w)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for w in self.workers:
            w.close()
        for fd in self._uid_locks:
            os.close(fd)  # releases the flock
        self._uid_locks.clear()
