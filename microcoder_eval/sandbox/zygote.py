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
        self.caps = {"pid_ns": False, "mount_ns": False, "ipc_ns": False, "net_ns": False, "proc": "shared",
                     "notes": []}
        self.pidns_fd = -1

    def probe(self) -> None:
        """Find out which namespaces may be created here (tried, never guessed)."""
        if self.hello.get("unshare_net"):  # bubblewrap did not already give us an empty one
            try:
                nsutil.unshare(nsutil.CLONE_NEWNET)
                self.caps["net_ns"] = True
            except OSError as e:
                self.caps["notes"].append(f"network not isolated: {e}")
        # as root: re-enter our own PID namespace after each unshare; otherwise (a user namespace
        # that does not own it): a nested user + PID namespace per sample
        if _works_in_child(_try_pidns_setns):
            self.caps["pid_ns"] = "setns"
            self.pidns_fd = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        elif _works_in_child(_try_pidns_userns):
            self.caps["pid_ns"] = "userns"
        else:
            self.caps["notes"].append("no PID namespace per sample: neither setns nor a nested user namespace")
        if self.caps["pid_ns"] != "setns":
            nsutil.prctl(nsutil.PR_SET_CHILD_SUBREAPER, 1)  # inits re-parent to us
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
                ok = _works_in_child(lambda: self._new_pidns_child(_try_proc_mount))
                self.caps["proc"] = "private" if ok else "shared"
                if not ok:
                    self.caps["notes"].append("a private /proc cannot be mounted here")

    def _new_pidns_child(self, fn) -> int:
        """Fork ``fn`` as pid 1 of a new PID namespace; returns its pid (as seen from here)."""
        if self.caps["pid_ns"] == "setns":
            nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)
            nsutil.unshare(nsutil.CLONE_NEWPID)
            try:
                pid = os.fork()
            except OSError:
                nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)
                raise
            if pid == 0:
                _run_and_exit(fn)
            nsutil.setns(self.pidns_fd, nsutil.CLONE_NEWPID)
            return pid
        if self.caps["pid_ns"] == "userns":
            r, w = os.pipe()
            mid = os.fork()
            if mid == 0:  # enters a nested user + PID namespace, forks the init, and leaves
                os.close(r)
                try:
                    _enter_nested_userns(nsutil.CLONE_NEWPID)
                    pid = os.fork()
                    if pid == 0:
                        os.close(w)
                        _run_and_exit(fn)
                    os.write(w, str(pid).encode())
                    os._exit(0)
                except BaseException:  # noqa: BLE001
                    os._exit(1)
            os.close(w)
            data = os.read(r, 64)
            os.close(r)
            os.waitpid(mid, 0)
            if not data:
                raise OSError("could not start a sample in a nested user namespace")
            return int(data)
        pid = os.fork()
        if pid == 0:
            _run_and_exit(fn)
        return pid

    def spawn_sample(self, fds: list[int]) -> None:
        """Fork the init of one sample; it serves test requests on the descriptor passed in."""
        def init() -> None:
            if self.pidns_fd >= 0:
                os.close(self.pidns_fd)
            self.sock.close()
            SampleInit(socket.socket(fileno=fds[0]), self.hello, self.caps).serve()

        pid = self._new_pidns_child(init)
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


def _run_and_exit(fn) -> None:
    code = 0
    try:
        fn()
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)


def _works_in_child(fn) -> bool:
    """Run ``fn`` in a forked child; True when it returned without raising."""
    pid = os.fork()
    if pid == 0:
        _run_and_exit(fn)
    return os.waitpid(pid, 0)[1] == 0


def _sigkill(pid: int) -> None:
    """SIGKILL a process and its process group, whichever still exists."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _kill_namespace() -> None:
    """From pid 1: SIGKILL every other process of the PID namespace."""
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def _enter_nested_userns(extra: int) -> None:
    """A new user namespace (plus ``extra`` namespaces) mapping only our own uid and gid."""
    uid, gid = os.getuid(), os.getgid()
    nsutil.prctl(nsutil.PR_SET_DUMPABLE, 1)  # /proc/self/*_map are writable only when dumpable
    nsutil.unshare(nsutil.CLONE_NEWUSER | extra)
    for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _try_pidns_setns() -> None:
    fd = os.open("/proc/self/ns/pid", os.O_RDONLY)
    nsutil.unshare(nsutil.CLONE_NEWPID)
    nsutil.setns(fd, nsutil.CLONE_NEWPID)
    nsutil.unshare(nsutil.CLONE_NEWPID)
    _fork_and_check()


def _try_pidns_userns() -> None:
    _enter_nested_userns(nsutil.CLONE_NEWPID)
    _fork_and_check()


def _try_proc_mount() -> None:
    nsutil.unshare(nsutil.CLONE_NEWNS)
    nsutil.mount(None, "/", None, nsutil.MS_REC | nsutil.MS_PRIVATE)
    nsutil.mount("proc", "/proc", "proc", _PROC_FLAGS)


def _fork_and_check() -> None:
    if not _works_in_child(lambda: None):
        raise OSError("a child in the new namespace failed")


class SampleInit:
    """Pid 1 of one sample's namespaces: forks, waits for and cleans up after each test."""

    def __init__(self, sock: socket.socket, hello: dict, caps: dict) -> None:
        self.sock = sock
        self.hello = hello
        self.caps = caps
        self.uid = hello.get("uid")
        self.own_ns = bool(caps["pid_ns"])

    def setup(self) -> None:
        # join the worker's cgroups once: every test process forked from here inherits them
        # (moving a process between v1 cgroups costs milliseconds; a fork costs nothing extra)
        child.join_cgroups(self.hello.get("cgroup_procs", []))
        try:  # inherited by every test: under memory pressure kill a solution, not the evaluator
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")
        except OSError:
            pass
        if self.caps["ipc_ns"]:
            nsutil.unshare(nsutil.CLONE_NEWIPC)
        if self.caps["mount_ns"]:
            nsutil.unshare(nsutil.CLONE_NEWNS)
            nsutil.mount(None, "/", None, nsutil.MS_REC | nsutil.MS_PRIVATE)
            size = int(self.hello.get("scratch_mb", 64))
            for path in SCRATCH_DIRS:
                if os.path.isdir(path):
                    # an interpreter or virtual environment living under /tmp stays visible
                    nsutil.cover_with_tmpfs(path, f"size={size}m,mode=1777", self.hello.get("keep_paths", []),
                                            read_only_keep=True)
            if self.caps.get("proc") == "private":
                nsutil.mount("proc", "/proc", "proc", _PROC_FLAGS)
        if not self.own_ns:
            nsutil.prctl(nsutil.PR_SET_CHILD_SUBREAPER, 1)
        # a test process of the same uid (no root) must not trace or read this init
        nsutil.prctl(nsutil.PR_SET_DUMPABLE, 0)

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
        _sigkill(pid)
        if self.own_ns:
            _kill_namespace()

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
                _kill_namespace()
            else:
                for pid in left or []:
                    _sigkill(pid)
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
            nsutil.warm()  # ctypes lookups done once here, not in every forked test process
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
