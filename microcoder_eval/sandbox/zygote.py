"""The zygote and the per-sample init: they fork every test process and never read a request.

The zygote is forked from the manager at start-up, before any request exists, and warms the
imports. For each sample it forks a *sample init*: pid 1 of a new PID namespace, in a fresh
mount and IPC namespace with its own ``/proc`` and empty tmpfs on /tmp, /var/tmp and /dev/shm
(nosuid, nodev). The init forks one process per test, waits for it, and then kills whatever
the test left behind (``kill(-1)`` from pid 1 reaches every process of the namespace). When
the init exits, the kernel ends everything in the namespace.

Neither ever holds code or test data: they pass on descriptors and small headers (limits,
identity); the test process reads its request from its own descriptor. So no test process can
find another sample's code, inputs or outputs in memory it inherited. Where a namespace is not
permitted the zygote says so (``caps``) and falls back (subreaper + uid-wide kill).
"""
from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import time

from . import child, nsutil, run_flex

SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
_PROC_FLAGS = nsutil.MS_NOSUID | nsutil.MS_NODEV | nsutil.MS_NOEXEC


def _send(sock: socket.socket, obj: dict) -> None:
    sock.send(json.dumps(obj).encode())


class Zygote:
    def __init__(self, sock: socket.socket, hello: dict) -> None:
        self.sock = sock
        self.hello = hello
        self.uid = hello.get("uid")
        self.caps = {"pid_ns": False, "mount_ns": False, "ipc_ns": False, "proc": "shared", "notes": []}
        self.pidns_fd = -1

    def probe(self) -> None:
        """Find out which namespaces may be created here (tried, never guessed)."""
        try:
            self.pidns_fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            nsutil.unshare(nsutil.CLONE_NEWPID)
            nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)
            self.caps["pid_ns"] = True
        except OSError as e:
            self.caps["notes"].append(f"no PID namespace per sample: {e}")
        try:
            nsutil.unshare(nsutil.CLONE_NEWNS)
            nsutil.mount(None, "/", None, nsutil.MS_REC | nsutil.MS_PRIVATE)
            self.caps["mount_ns"] = True
        except OSError as e:
            self.caps["notes"].append(f"no mount namespace per sample: {e}")
        try:
            nsutil.unshare(nsutil.CLONE_NEWIPC)
            self.caps["ipc_ns"] = True
        except OSError as e:
            self.caps["notes"].append(f"no IPC namespace per sample: {e}")
        if self.caps["mount_ns"]:
            if self.hello.get("reachable_mounts"):
                from .hostview import make_interpreter_reachable
                self.caps["notes"] += make_interpreter_reachable()
            for path in self.hello.get("hide_paths", []):
                try:
                    if os.path.isdir(path):
                        nsutil.mount("tmpfs", path, "tmpfs", nsutil.MS_NOSUID | nsutil.MS_NODEV, "size=64k,mode=0755")
                    elif os.path.exists(path):
                        nsutil.mount(os.devnull, path, None, nsutil.MS_BIND)
                except OSError as e:
                    self.caps["notes"].append(f"could not hide {path}: {e}")
            if self.caps["pid_ns"]:  # does a fresh /proc mount work here? (not in every user namespace)
                self._enter_new_pidns()
                pid = os.fork()
                if pid == 0:
                    try:
                        nsutil.unshare(nsutil.CLONE_NEWNS)
                        nsutil.mount("proc", "/proc", "proc", _PROC_FLAGS)
                        os._exit(0)
                    except BaseException:  # noqa: BLE001
                        os._exit(1)
                self._leave_new_pidns()
                _, status = os.waitpid(pid, 0)
                self.caps["proc"] = "private" if status == 0 else "shared"
                if status:
                    self.caps["notes"].append("a private /proc cannot be mounted here")
        if not self.caps["pid_ns"]:
            try:
                nsutil.prctl(nsutil.PR_SET_CHILD_SUBREAPER, 1)
            except OSError:
                pass

    def _enter_new_pidns(self) -> bool:
        if self.caps["pid_ns"]:
            nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)
            nsutil.unshare(nsutil.CLONE_NEWPID)
            return True
        return False

    def _leave_new_pidns(self) -> None:
        if self.caps["pid_ns"]:
            nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)

    def spawn_sample(self, fds: list[int]) -> None:
        """Fork the init of one sample; it serves test requests on the descriptor passed in."""
        self._enter_new_pidns()
        try:
            pid = os.fork()
        except OSError:
            self._leave_new_pidns()
            raise
        if pid == 0:
            code = 0
            try:
                if self.pidns_fd >= 0:
                    os.close(self.pidns_fd)
                self.sock.close()
                SampleInit(socket.socket(fileno=fds[0]), self.hello, self.caps).serve()
            except BaseException:  # noqa: BLE001
                code = 1
            os._exit(code)
        self._leave_new_pidns()
        for fd in fds:
            os.close(fd)
        _send(self.sock, {"pid": pid})

    def serve(self) -> None:
        while True:
            try:
                msg, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 4)
            except OSError:
                return
            while True:  # reap inits that have ended
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break
            if not msg or json.loads(msg).get("op") != "sample":
                return
            self.spawn_sample(fds)


class SampleInit:
    """Pid 1 of one sample's namespaces: forks, waits for and cleans up after each test."""

    def __init__(self, sock: socket.socket, hello: dict, caps: dict) -> None:
        self.sock = sock
        self.hello = hello
        self.caps = caps
        self.uid = hello.get("uid")
        self.own_ns = caps["pid_ns"]

    def setup(self) -> None:
        if self.caps["ipc_ns"]:
            nsutil.unshare(nsutil.CLONE_NEWIPC)
        if self.caps["mount_ns"]:
            nsutil.unshare(nsutil.CLONE_NEWNS)
            size = int(self.hello.get("scratch_mb", 64))
            for path in SCRATCH_DIRS:
                if os.path.isdir(path):
                    nsutil.mount("tmpfs", path, "tmpfs", nsutil.MS_NOSUID | nsutil.MS_NODEV,
                                 f"size={size}m,mode=1777")
            if self.caps.get("proc") == "private":
                nsutil.mount("proc", "/proc", "proc", _PROC_FLAGS)
        if not self.own_ns:
            nsutil.prctl(nsutil.PR_SET_CHILD_SUBREAPER, 1)

    def serve(self) -> None:
        self.setup()
        _send(self.sock, {"ready": True})
        while True:
            msg, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 8)
            if not msg:
                return
            head = json.loads(msg)
            if head.get("op") != "test":
                return
            self.run_test(head, fds)

    def run_test(self, head: dict, fds: list[int]) -> None:
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            child.main(head, fds)  # never returns
        for fd in fds:
            os.close(fd)
        pfd = os.pidfd_open(pid)
        try:
            while True:
                ready, _, _ = select.select([pfd, self.sock], [], [])
                if pfd in ready:
                    break
                msg = self.sock.recv(1 << 10)
                if not msg:  # the manager is gone
                    self._kill_all(pid)
                    os._exit(1)
                self._kill_all(pid)  # "kill": deadline passed
        finally:
            os.close(pfd)
        _, status, ru = os.wait4(pid, 0)
        self._cleanup()
        _send(self.sock, {"status": status, "cpu_s": ru.ru_utime + ru.ru_stime, "max_rss_kb": ru.ru_maxrss})

    def _kill_all(self, pid: int) -> None:
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.own_ns:
            try:
                os.kill(-1, signal.SIGKILL)  # from pid 1: every other process of the namespace
            except OSError:
                pass

    def _children(self) -> list[int] | None:
        try:
            with open(f"/proc/self/task/{os.getpid()}/children") as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return None

    def _cleanup(self) -> None:
        """Nothing a test started may outlive it."""
        left = self._children()
        if left is None or left:
            if self.own_ns:
                try:
                    os.kill(-1, signal.SIGKILL)
                except OSError:
                    pass
            else:
                for pid in left or []:
                    for kill in (os.killpg, os.kill):
                        try:
                            kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                if self.uid is not None:
                    self._kill_uid()
        deadline = time.monotonic() + 5
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                if not self._children() or time.monotonic() > deadline:
                    break
                time.sleep(0.001)

    def _kill_uid(self) -> None:
        pid = os.fork()
        if pid == 0:
            try:
                os.setgid(self.uid)
                os.setuid(self.uid)
                os.kill(-1, signal.SIGKILL)
            except BaseException:  # noqa: BLE001
                pass
            os._exit(0)
        os.waitpid(pid, 0)


def start(hello: dict) -> tuple[int, socket.socket, dict]:
    """Fork the zygote (from a manager that has read no request yet); returns pid, socket, caps."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        ours.close()
        code = 0
        try:
            z = Zygote(theirs, hello)
            run_flex.prepare()
            z.probe()
            gc.collect()
            gc.freeze()  # preloaded objects leave GC's view: children do not copy-on-write them
            _send(theirs, z.caps)
            z.serve()
        except BaseException as e:  # noqa: BLE001
            try:
                _send(theirs, {"error": f"zygote failed: {type(e).__name__}: {e}"})
            except OSError:
                pass
            code = 1
        os._exit(code)
    theirs.close()
    caps = json.loads(ours.recv(1 << 16) or b'{"error": "zygote exited"}')
    if "error" in caps:
        raise RuntimeError(caps["error"])
    return pid, ours, caps
