"""The sandbox manager: the one process that talks to the evaluator.

Started by the evaluator (inside bubblewrap where available) as ``python -I`` with only this
folder importable. It reads framed requests on fd 0 and answers on fd 1. For each request it
writes the code and inputs into fresh memory files, asks the zygote for a new child, enforces
the wall-clock deadlines, reads the child's result channel as hostile input (bounded bytes,
linear line scanning, at most one timing per expected test) and frames back stdout, stderr and
result bytes. It never runs solution code and is not dumpable (no same-uid process can read its
memory), and children cannot name it: they live in their own PID namespaces.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import sys
import tempfile
import time

from . import limits, nsutil, zygote
from .protocol import recv_frame, send_frame, write_all

STDERR_TAIL = 1 << 16


def _memfd(name: str, data: bytes = b"") -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    if data:
        write_all(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_file(fd: int, limit: int, tail: bool = False) -> tuple[bytes, bool]:
    size = os.fstat(fd).st_size
    start = max(0, size - limit) if tail else 0
    want = min(size - start, limit)
    os.lseek(fd, start, os.SEEK_SET)
    chunks, got = [], 0
    while got < want:
        chunk = os.read(fd, min(1 << 20, want - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks), size > limit


class ResultChannel:
    """Bytes a child writes on its result descriptor: capped, line ends found in linear time."""

    def __init__(self, fd: int, limit: int, expected_lines: int, keep_lines: bool = False) -> None:
        self.fd, self.limit, self.expected = fd, limit, expected_lines
        self.keep_lines = keep_lines  # streaming: complete lines are also handed out one by one
        self.chunks: list[bytes] = []
        self.size = 0
        self.lines = 0
        self.times: list[float] = []
        self.overflow = False
        self.closed = False
        self.partial = bytearray()  # bytes of the line being written
        self.new_lines: list[bytes] = []  # complete lines not yet streamed to the parent

    def read(self, now: float, last: float) -> float:
        """Read what is there; returns the time of the latest completed line (or ``last``)."""
        try:
            chunk = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return last
        if not chunk:
            self.closed = True
            return last
        room = self.limit - self.size
        if len(chunk) > room:
            chunk, self.overflow = chunk[:max(0, room)], True
        self.chunks.append(chunk)
        self.size += len(chunk)
        start = 0
        pos = chunk.find(b"\n")
        while pos >= 0 and self.lines < self.expected:
            self.lines += 1
            self.times.append(now - last)
            last = now
            if self.keep_lines:
                self.new_lines.append(bytes(self.partial) + chunk[start:pos])
                self.partial.clear()
            start = pos + 1
            pos = chunk.find(b"\n", pos + 1)
        if self.keep_lines and self.lines < self.expected:
            self.partial += chunk[start:]
        return last

    def data(self) -> bytes:
        return b"".join(self.chunks)


class Manager:
    def __init__(self, proto_in: int, proto_out: int) -> None:
        self.proto_in, self.proto_out = proto_in, proto_out
        self.hello: dict = {}
        self.caps: dict = {}
        self.zpid = 0
        self.zsock: socket.socket | None = None
        self.sample: object = None
        self.init_sock: socket.socket | None = None
        self.init_pid = 0
        self.spare: socket.socket | None = None
        self.scratch_base = ""

    def start(self) -> None:
        capped = limits.reset_inherited_limits()
        try:
            nsutil.prctl(nsutil.PR_SET_DUMPABLE, 0)
        except OSError:
            pass
        self.hello, _ = recv_frame(self.proto_in)
        self.zpid, self.zsock, self.caps = zygote.start(self.hello)
        if not self.caps["mount_ns"]:
            self.scratch_base = tempfile.mkdtemp(prefix="mc-sbx-")
            os.chmod(self.scratch_base, 0o711)
        send_frame(self.proto_out, {"ready": True, "pid": os.getpid(), "caps": self.caps,
                                    "inherited_hard_limits": capped})

    def close(self) -> None:
        self._end_sample()
        if self.spare is not None:
            self.spare.close()
            self.spare = None
        if self.zsock is not None:
            self.zsock.close()
        if self.zpid:
            try:
                os.kill(self.zpid, signal.SIGKILL)
                os.waitpid(self.zpid, 0)
            except OSError:
                pass
        if self.scratch_base:
            shutil.rmtree(self.scratch_base, ignore_errors=True)

    # ------------------------------------------------------------ samples
    @staticmethod
    def _msg(sock: socket.socket, deadline: float | None, who: str) -> dict:
        if deadline is not None:
            ready, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise RuntimeError(f"{who} did not answer")
        data = sock.recv(1 << 16)
        if not data:
            raise RuntimeError(f"{who} exited")
        return json.loads(data)

    def _spawn_init(self) -> socket.socket:
        """Ask the zygote for a sample init; its pid reply is read later (``_init_pid``), so
        asking for the spare costs the current sample nothing."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            socket.send_fds(self.zsock, [b'{"op": "sample"}'], [theirs.fileno()])
        finally:
            theirs.close()
        return ours

    def _init_pid(self) -> int:
        return self._msg(self.zsock, time.monotonic() + 30, "zygote")["pid"]

    def _new_sample(self, token: object) -> None:
        """A fresh sample init (new PID, mount and IPC namespaces) from the zygote. The next one
        is asked for right away, so it sets itself up while this sample's tests run."""
        self._end_sample()
        sock = self.spare if self.spare is not None else self._spawn_init()
        self.spare = None
        try:
            pid = self._init_pid()  # the zygote answers in order: this is that init's pid
            self._msg(sock, time.monotonic() + 30, "sample init")
        except BaseException:
            sock.close()
            raise
        self.init_sock, self.init_pid = sock, pid
        self.sample = token
        self.spare = self._spawn_init()

    def _end_sample(self) -> None:
        """Closing its socket ends the init, and with it every process of its namespace."""
        if self.init_sock is not None:
            self.init_sock.close()
            self.init_sock = None
        self.sample = None

    def _abandon_sample(self) -> None:
        if self.init_pid:
            try:
                os.kill(self.init_pid, signal.SIGKILL)
            except OSError:
                pass
        self._end_sample()

    # ------------------------------------------------------------ one request
    def run(self, req: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        token = req.get("sample")
        if token is None or token != self.sample or self.init_sock is None:
            self._new_sample(token)
        try:
            return self._run(req, blobs)
        except BaseException:
            self._abandon_sample()
            raise

    def _run(self, req: dict, blobs: list[bytes]) -> tuple[dict, list[bytes]]:
        lim = req["limits"]
        out_limit = int(lim["output_limit_bytes"])
        inputs = [b.decode("utf-8", "replace") for b in blobs]
        batch = req["style"] in ("lcb", "flex_batch")
        body = {k: req.get(k) for k in ("style", "mode", "func_name", "code", "timeout_s",
                                      "lcb_version")}
        body["inputs" if batch else "input"] = inputs if batch else (inputs[0] if inputs else "")
        stdin = blobs[0] if (req["style"] == "flex" and req["mode"] == "stdin" and blobs) else b""
        fds = [_memfd("request", json.dumps(body).encode()), _memfd("stdin", stdin),
               _memfd("stdout"), _memfd("stderr")]
        res_r, res_w = os.pipe2(os.O_CLOEXEC)
        workdir = None
        if self.scratch_base:
            workdir = tempfile.mkdtemp(dir=self.scratch_base)
            if self.hello.get("uid") is not None:
                os.chown(workdir, self.hello["uid"], self.hello["uid"])
        head = {"op": "test", "limits": lim, "uid": self.hello.get("uid"),
                "drop_caps": self.hello.get("drop_caps", False),
                "nproc_allowance": self.hello.get("nproc_allowance"), "workdir": workdir}
        t0 = time.monotonic()
        try:
            socket.send_fds(self.init_sock, [json.dumps(head).encode()], fds[:4] + [res_w])
            os.close(res_w)
            res_w = -1
            chan = ResultChannel(res_r, out_limit, len(inputs) if batch else 1, bool(req.get("stream")))
            status, timed_out, stopped = self._wait(chan, req, t0)
            elapsed = time.monotonic() - t0
            stdout, truncated = _read_file(fds[2], out_limit)
            stderr, _ = _read_file(fds[3], STDERR_TAIL, tail=True)
        finally:
            for fd in fds + [res_r, res_w]:
                if fd >= 0:
                    os.close(fd)
            if workdir:
                shutil.rmtree(workdir, ignore_errors=True)
        st = status["status"]
        reply = {
            "exit": os.WEXITSTATUS(st) if os.WIFEXITED(st) else None,
            "signal": os.WTERMSIG(st) if os.WIFSIGNALED(st) else None,
            "timed_out": timed_out, "time_s": elapsed, "cpu_s": status["cpu_s"],
            "max_rss_kb": status["max_rss_kb"], "stdout_truncated": truncated,
            "result_overflow": chan.overflow, "times": chan.times,
            "stopped": stopped,
        }
        return reply, [stdout, stderr, chan.data()]

    def _wait(self, chan: ResultChannel, req: dict, t0: float) -> tuple[dict, bool, bool]:
        """Until the sample init reports the test's end; it kills at the deadline or on overflow."""
        sock = self.init_sock
        per_test = float(req["timeout_s"]) if req["style"] in ("lcb", "flex_batch") else None
        wall = float(req["wall_limit_s"])
        last = t0
        timed_out = False
        stream = bool(req.get("stream"))
        stopped = False
        os.set_blocking(chan.fd, False)
        while True:
            now = time.monotonic()
            deadline = t0 + wall
            if per_test is not None:
                deadline = min(deadline, last + per_test)
            if now >= deadline or chan.overflow:
                timed_out = not chan.overflow
                break
            watch = [sock] + ([chan.fd] if not chan.closed else []) + ([self.proto_in] if stream else [])
            ready, _, _ = select.select(watch, [], [], deadline - now)
            if chan.fd in ready:
                last = chan.read(time.monotonic(), last)
                if stream:
                    self._stream(chan)
            if stream and self.proto_in in ready:
                recv_frame(self.proto_in)  # the parent's {"op": "stop"}: a test failed
                stopped = True
                break
            if sock in ready:
                status = self._msg(sock, None, "sample init")
                self._drain(chan, last)
                return status, False, False
        sock.send(b"kill")
        status = self._msg(sock, time.monotonic() + 30, "sample init")
        self._drain(chan, last)
        return status, timed_out and not stopped, stopped

    def _stream(self, chan: ResultChannel) -> None:
        """Hand each complete result line to the parent as it arrives (``stream`` requests)."""
        lines, chan.new_lines = chan.new_lines, []
        first = chan.lines - len(lines)
        for k, line in enumerate(lines):
            send_frame(self.proto_out, {"partial": first + k}, [line])

    @staticmethod
    def _drain(chan: ResultChannel, last: float) -> None:
        while not chan.closed and not chan.overflow:
            if not select.select([chan.fd], [], [], 0)[0]:
                break
            last = chan.read(time.monotonic(), last)


def main() -> None:
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    m = Manager(proto_in, proto_out)
    m.start()
    try:
        while True:
            try:
                req, blobs = recv_frame(proto_in)
            except EOFError:
                break
            if req.get("op") == "exit":
                break
            if req.get("op") == "stop":
                continue  # a stop that crossed the reply of the run it was meant for
            try:
                reply, out = m.run(req, blobs)
            except Exception as e:  # noqa: BLE001 - harness failure, reported as infra error
                reply, out = {"infra_error": f"{type(e).__name__}: {e}"}, []
                if "zygote" in str(e):  # cannot make fresh samples any more: let the pool restart us
                    send_frame(proto_out, reply, out)
                    break
            send_frame(proto_out, reply, out)
    finally:
        m.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit("start with: python -I -c 'import sys; sys.path.insert(0, DIR); from PKG.manager import main; main()'")
