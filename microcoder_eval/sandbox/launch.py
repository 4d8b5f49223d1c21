"""How a sandbox worker is started: the bubblewrap command that builds its allow-list view.

With ``bwrap`` (Debian package ``bubblewrap``) a worker sees only: the system's ``/usr`` and
library folders, the interpreter's prefixes and site-packages (read-only), the sandbox code
itself (read-only, at ``/run/microcoder/mc_sandbox``), a fresh ``/proc`` and minimal ``/dev``,
and empty tmpfs scratch space; it has no network, its own PID, IPC and UTS namespaces, a
scrubbed environment, and dies with the evaluator. As root the worker runs without a user
namespace so it can drop each test process to its own unprivileged uid; otherwise it uses an
unprivileged user namespace and test processes drop every capability instead.
Without bubblewrap the worker runs on the host view (weaker; reported, never silent).
"""
from __future__ import annotations

import os
import shutil
import site
import sys
from dataclasses import dataclass, field
from pathlib import Path

SANDBOX_DIR = str(Path(__file__).resolve().parent)
INSIDE_DIR = "/run/microcoder/mc_sandbox"
CGROUP_INSIDE = "/run/microcoder/cgroup"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf")
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
       "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8",
       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_BOOT = ("import importlib.util as u, sys\n"
         "s = u.spec_from_file_location('mc_sandbox', {d!r} + '/__init__.py', submodule_search_locations=[{d!r}])\n"
         "m = u.module_from_spec(s); sys.modules['mc_sandbox'] = m; s.loader.exec_module(m)\n"
         "from mc_sandbox.manager import main; main()\n")


def bwrap_binary() -> str | None:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)
    return None if os.environ.get("MICROCODER_NO_BWRAP") else path


def python_dirs() -> list[str]:
    """The interpreter's own folders: prefixes and site-packages (nothing else from sys.path)."""
    dirs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    dirs.add(os.path.dirname(os.path.realpath(sys.executable)))
    sites = list(site.getsitepackages()) + [site.getusersitepackages()]
    dirs.update(os.path.realpath(p) for p in sites if os.path.isdir(p))
    if sys.executable != os.path.realpath(sys.executable):
        dirs.add(os.path.dirname(os.path.abspath(sys.executable)))
    # keep only the outermost folders
    out: list[str] = []
    for d in sorted(dirs, key=len):
        if os.path.isdir(d) and not any(d == o or d.startswith(o.rstrip("/") + "/") for o in out):
            out.append(d)
    return out


def package_dirs_to_hide(bound: list[str]) -> list[str]:
    """Installed copies of this project under a bound folder (they ship sample data with
    expected outputs): covered with an empty tmpfs inside the sandbox."""
    here = str(Path(SANDBOX_DIR).parent)
    out = []
    for d in bound:
        for name in ("microcoder_eval", "microcoder_train"):
            for sp in site.getsitepackages():
                cand = os.path.join(sp, name)
                if os.path.isdir(cand) and cand.startswith(d.rstrip("/") + "/"):
                    out.append(cand)
        if here.startswith(d.rstrip("/") + "/"):
            out.append(here)
    return sorted(set(out))


def _ancestors(paths: list[str]) -> list[str]:
    out: set[str] = set()
    for p in paths:
        parts = p.rstrip("/").split("/")
        out.update("/".join(parts[:i]) for i in range(2, len(parts)))
    system = set(SYSTEM_DIRS)
    return sorted((d for d in out if d and d not in system and not any(d.startswith(s + "/") for s in system)),
                  key=lambda d: d.count("/"))


@dataclass
class LaunchPlan:
    """The command that starts one worker and what it isolates."""

    argv: list[str]
    env: dict[str, str]
    mode: str  # "bwrap-root" | "bwrap-userns" | "host-root" | "host"
    notes: list[str] = field(default_factory=list)
    reachable_mounts: bool = False
    cgroup_procs: list[str] = field(default_factory=list)
    keep_paths: list[str] = field(default_factory=list)  # re-bound over per-sample scratch tmpfs


def plan(root: bool, cgroup_dirs: list[str], hide_paths: list[str], use_bwrap: bool = True,
         isolate_network: bool = True) -> LaunchPlan:
    bwrap = bwrap_binary() if use_bwrap else None
    if bwrap is None:
        boot = _BOOT.format(d=SANDBOX_DIR)
        env = dict(ENV)  # the evaluator's environment (tokens, keys) never reaches a solution
        mode = "host-root" if root else "host"
        note = "bubblewrap not found: host filesystem view (install the 'bubblewrap' package)" \
            if use_bwrap else "bubblewrap disabled"
        return LaunchPlan([sys.executable, "-I", "-c", boot], env, mode, [note], reachable_mounts=root,
                          cgroup_procs=[os.path.join(d, "cgroup.procs") for d in cgroup_dirs],
                          keep_paths=python_dirs() + [SANDBOX_DIR])
    argv = [bwrap]
    if root:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        argv += ["--unshare-net"] if isolate_network else []
    else:
        argv += ["--unshare-all"] + ([] if isolate_network else ["--share-net"])
    argv += ["--die-with-parent", "--new-session"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            argv += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            argv += ["--ro-bind", d, d]
    for f in ETC_FILES:
        argv += ["--ro-bind-try", f, f]
    # scratch first: an interpreter that lives under /tmp is bound on top of it, not hidden by it
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/dev/shm"]
    bound = python_dirs()
    targets = bound + [INSIDE_DIR] + [f"{CGROUP_INSIDE}/{i}" for i in range(len(cgroup_dirs))]
    for parent in _ancestors(targets):  # traversable by the sandbox uid (bwrap makes them 0700)
        argv += ["--perms", "0755", "--dir", parent]
    for d in bound:
        argv += ["--ro-bind", d, d]
    argv += ["--ro-bind", SANDBOX_DIR, INSIDE_DIR]
    procs = []
    for i, d in enumerate(cgroup_dirs):
        inside = f"{CGROUP_INSIDE}/{i}"
        argv += ["--bind", d, inside]
        procs.append(f"{inside}/cgroup.procs")
    covered = package_dirs_to_hide(bound)
    for p in covered:
        argv += ["--tmpfs", p]
    for p in hide_paths:
        if any(p == d or p.startswith(d.rstrip("/") + "/") for d in bound) and p not in covered:
            argv += (["--tmpfs", p] if os.path.isdir(p) else ["--ro-bind", "/dev/null", p])
    caps = "CAP_SYS_ADMIN,CAP_SETUID,CAP_SETGID,CAP_KILL" if root else "CAP_SYS_ADMIN"
    for cap in caps.split(","):
        argv += ["--cap-add", cap]
    argv += ["--remount-ro", "/", "--chdir", "/tmp", "--", sys.executable, "-I", "-c", _BOOT.format(d=INSIDE_DIR)]
    return LaunchPlan(argv, dict(ENV), "bwrap-root" if root else "bwrap-userns", [],
                      reachable_mounts=False, cgroup_procs=procs, keep_paths=bound)
