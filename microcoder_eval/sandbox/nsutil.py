"""Thin libc wrappers for namespaces, mounts, capabilities and prctl (stdlib + ctypes only)."""
from __future__ import annotations

import ctypes
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
_LIBC = None


def libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def warm() -> None:
    """Resolve the libc functions a test process calls, so forks inherit the lookups."""
    lib = libc()
    for name in ("prctl", "capset", "unshare", "setns", "mount"):
        getattr(lib, name)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(libc().unshare(flags), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(libc().setns(fd, nstype), "setns")


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda x: None if x is None else x.encode())
    _check(libc().mount(enc(src), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def prctl(option: int, arg: int = 0) -> None:
    _check(libc().prctl(option, arg, 0, 0, 0), f"prctl {option}")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_all_capabilities() -> None:
    """Clear effective, permitted and inheritable capability sets of this process."""
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(libc().capset(ctypes.byref(header), data), "capset")


def cover_with_tmpfs(path: str, options: str, keep: list[str], read_only_keep: bool) -> list[str]:
    """Mount an empty tmpfs (nosuid, nodev) on ``path`` and bind back the folders of ``keep``
    that lie below it, taken through O_PATH descriptors opened before the cover; returns them."""
    inside = [k for k in keep if k.startswith(path.rstrip("/") + "/") and os.path.isdir(k)]
    fds = {k: os.open(k, os.O_PATH | os.O_CLOEXEC) for k in inside}
    try:
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options)
        for k, fd in fds.items():
            os.makedirs(k, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", k, None, MS_BIND | MS_REC)
            if read_only_keep:
                mount(None, k, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
    finally:
        for fd in fds.values():
            os.close(fd)
    return inside
