"""Parent side of the sandbox: long-lived workers (each a manager + zygote inside bubblewrap)
and a pool that lends them out. Everything a worker sends back is treated as hostile input."""
from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from microcoder_eval.errors import InfraError
from microcoder_eval.sandbox import cgroups, launch
from microcoder_eval.sandbox.protocol import FrameError, encode_frame, header_length, parse_header

MAX_REPLY_HEADER = 16 << 20


class _Spawner:
    """One long-lived thread starts every worker: bubblewrap's --die-with-parent follows the
    *thread* that forked it, so a worker started from a short-lived thread would die with it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="mc-sandbox-spawner", daemon=True)
                self._thread.start()
        done: queue.SimpleQueue = queue.SimpleQueue()
        self._jobs.put((fn, done))
        ok, value = done.get()
        if not ok:
            raise value
        return value

    def _loop(self) -> None:
        while True:
            fn, done = self._jobs.get()
            try:
                done.put((True, fn()))
            except BaseException as e:  # noqa: BLE001 - handed back to the caller
                done.put((False, e))


SPAWNER = _Spawner()


class SandboxWorker:
    """One sandbox (manager + zygote); ``run`` sends a request and waits with a deadline."""

    def __init__(self, index: int, uid: int | None, isolate_network: bool = True,
                 hide_paths: list[str] | None = None, memory_mb: int = 0, max_processes: int = 64,
                 lock_fd: int | None = None, use_bwrap: bool = True) -> None:
        self.index = index
        self.uid = uid
        self.hide_paths = list(hide_paths or [])
        self.isolate_network = isolate_network
        self.memory_mb = memory_mb
        self.max_processes = max_processes
        self.lock_fd = lock_fd
        self.use_bwrap = use_bwrap
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: cgroups.WorkerCgroup | None = None
        self.isolation: dict[str, Any] = {}
        self._log: Any = None
        self.network_isolated = False
        self.restarts = 0

    # ------------------------------------------------------------ lifecycle
    def start(self) -> None:
        root = os.geteuid() == 0
        if root and self.cgroup is None:
            self.cgroup = cgroups.create(f"{cgroups.PREFIX}{self.uid}-{os.getpid()}-{self.index}",
                                         self.memory_mb, self.max_processes)
        p = launch.plan(root, self.cgroup.dirs if self.cgroup else [], self.hide_paths, self.use_bwrap,
                        self.isolate_network)
        pass_fds = (self.lock_fd,) if self.lock_fd is not None else ()
        if self._log is None:
            self._log = tempfile.TemporaryFile()  # the sandbox's own stderr, for error messages
        self.proc = SPAWNER.run(lambda: subprocess.Popen(
            p.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            env=p.env, start_new_session=True, close_fds=True, pass_fds=pass_fds, cwd="/"))
        hello = {"uid": self.uid, "hide_paths": self.hide_paths if not p.mode.startswith("bwrap") else [],
                 "reachable_mounts": p.reachable_mounts, "cgroup_procs": p.cgroup_procs,
                 "keep_paths": p.keep_paths,
                 "drop_caps": self.uid is None,
                 "unshare_net": self.isolate_network and not p.mode.startswith("bwrap"), "scratch_mb": max(64, self.memory_mb or 256),
                 "nproc_allowance": 0 if self.uid is not None else (4 if p.mode == "bwrap-userns" else None)}
        self._send(hello, [])
        ready, _ = self._recv(time.monotonic() + 60)
        caps = ready.get("caps", {})
        self.network_isolated = self.isolate_network and (p.mode.startswith("bwrap") or bool(caps.get("net_ns")))
        self.isolation = {
            "mode": p.mode, "uid": self.uid, "pid_ns_per_test": bool(caps.get("pid_ns")),
            "fresh_scratch_per_sample": bool(caps.get("mount_ns")), "ipc_ns_per_sample": bool(caps.get("ipc_ns")),
            "proc": "private" if p.mode.startswith("bwrap") else caps.get("proc", "shared"),
            "network_isolated": self.network_isolated,
            "cgroup": self.cgroup.version if self.cgroup else None,
            "aggregate_memory": "cgroup" if self.cgroup else "RLIMIT_AS x RLIMIT_NPROC",
            "notes": p.notes + list(caps.get("notes", [])),
        }

    def _send(self, header: dict[str, Any], blobs: list[bytes]) -> None:
        assert self.proc and self.proc.stdin
        try:
            self.proc.stdin.write(encode_frame(header, blobs))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
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
                raise InfraError(f"sandbox worker {self.index} exited unexpectedly{self._log_tail()}")
            buf += chunk
        return bytes(buf)

    def _recv(self, deadline: float, max_blob_bytes: int = 1 << 30) -> tuple[dict[str, Any], list[bytes]]:
        try:
            n = header_length(self._read(4, deadline), MAX_REPLY_HEADER)
            header, sizes = parse_header(self._read(n, deadline), max_blob_bytes)
        except FrameError as e:
            raise InfraError(f"sandbox worker {self.index} sent a malformed reply: {e}") from None
        return header, [self._read(s, deadline) for s in sizes]

    def run_streaming(self, request: dict[str, Any], deadline_s: float, on_line: Any) -> dict[str, Any]:
        """As ``run``, handing each result line to ``on_line(index, text)`` as the child writes it;
        when that returns False the child is stopped (the reply then says ``stopped``)."""
        return self.run(dict(request, stream=True), deadline_s, on_line=on_line)

    def run(self, request: dict[str, Any], deadline_s: float, inputs: list[str] | None = None,
            on_line: Any = None) -> dict[str, Any]:
        """Run one request; on any protocol failure the worker is killed and restarted later."""
        if self.proc is None or self.proc.poll() is not None:
            self.restarts += self.proc is not None
            self.kill()
            self.start()
        if inputs is None:
            inputs = request["inputs"] if "inputs" in request else [request.get("input", "")]
        header = {k: v for k, v in request.items() if k not in ("input", "inputs")}
        header["limits"] = {k: request[k] for k in ("memory_mb", "cpu_limit_s", "output_limit_bytes", "max_processes")}
        ooms = self.cgroup.oom_kills() if self.cgroup else 0
        try:
            self._send(header, [s.encode("utf-8", "surrogatepass") for s in inputs])
            cap = 3 * int(request["output_limit_bytes"]) + (1 << 20)
            deadline = time.monotonic() + deadline_s
            reply, blobs = self._recv(deadline, cap)
            stop_sent = False
            while "partial" in reply:
                line = (blobs + [b""])[0].decode("utf-8", "replace")
                if on_line is not None and not stop_sent and not on_line(reply["partial"], line):
                    self._send({"op": "stop"}, [])
                    stop_sent = True
                reply, blobs = self._recv(deadline, cap)
        except InfraError:
            self.kill()
            raise
        if "infra_error" in reply:
            return {"infra_error": str(reply["infra_error"])[:500]}
        stdout, stderr, result = (blobs + [b"", b"", b""])[:3]
        reply["stdout"] = stdout.decode("utf-8", "replace")
        reply["stderr"] = stderr.decode("utf-8", "replace")[-4000:]
        reply["result"] = result.decode("utf-8", "replace")
        if request["style"] == "flex_batch":
            # complete lines only: what follows the last newline is a torn line, no answer
            reply["lines"] = reply["result"].split("\n")[:-1][: len(inputs)]
        reply["oom_killed"] = bool(self.cgroup and self.cgroup.oom_kills() > ooms)
        return reply

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        try:
            self._log.seek(0, os.SEEK_END)
            size = self._log.tell()
            self._log.seek(max(0, size - 600))
            text = self._log.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f": {text.splitlines()[-1]}" if text else ""

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
                self._send({"op": "exit"}, [])
                self.proc.wait(timeout=5)
            except (InfraError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self.cgroup is not None:
            self.cgroup.close()
            self.cgroup = None
        if self._log is not None:
            self._log.close()
            self._log = None


UID_LOCK_DIR = "/run/microcoder-sandbox-uids" if os.path.isdir("/run") else "/tmp/microcoder-sandbox-uids"
UID_RANGE = 4096


def claim_uid(base: int) -> tuple[int, int]:
    """Reserve a sandbox uid no other evaluator on this machine uses.

    The flock is on a descriptor that the worker's whole sandbox inherits, so the uid stays
    reserved for as long as any process of that sandbox lives, even after the evaluator died.
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
                 hide_paths: list[str] | None = None, memory_mb: int = 0, max_processes: int = 64,
                 use_bwrap: bool = True) -> None:
        if os.geteuid() != 0:
            uid_base = None
        self._uid_locks: list[int] = []
        self.workers = []
        for i in range(size):
            uid = fd = None
            if uid_base is not None:
                uid, fd = claim_uid(uid_base)
                self._uid_locks.append(fd)
            self.workers.append(SandboxWorker(i, uid, isolate_network, hide_paths, memory_mb, max_processes,
                                              fd, use_bwrap))
        self._idle: queue.SimpleQueue[SandboxWorker] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        for w in self.workers:
            self._idle.put(w)

    @property
    def size(self) -> int:
        return len(self.workers)

    def isolation(self) -> dict[str, Any]:
        """What isolation the (started) workers have; starts one if none has started yet."""
        for w in self.workers:
            if w.isolation:
                return dict(w.isolation)
        with self.worker() as w:
            if w.proc is None:
                w.start()
            return dict(w.isolation)

    def start(self) -> None:
        """Start every worker now (otherwise each starts on first use, where a failure to start
        becomes that sample's infra error)."""
        def start(w: SandboxWorker) -> None:
            try:
                w.start()
            except InfraError:
                w.kill()

        threads = [threading.Thread(target=start, args=(w,)) for w in self.workers if w.proc is None]
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
            os.close(fd)  # releases the flock (the sandboxes' copies died with them)
        self._uid_locks.clear()
