"""Sandbox worker: a long-lived process that forks one resource-limited child per test.

Runs as ``python -I worker.py`` (stdlib only, no project imports). It reads length-prefixed
JSON requests on fd 0 and answers on fd 1. Each test runs in a forked child that starts its own
session, drops to an unprivileged uid when the worker is root, gets rlimits (address space, CPU,
file size, process count, open files), a private empty working directory, a real stdin (an
unlinked file) and a real stdout (an unlinked file, capped by RLIMIT_FSIZE). The worker only
ever sees test *inputs*; expected outputs stay in the trusted parent, which compares.

Two execution styles:
* ``flex``: the code runs as ``__main__`` with real file descriptors (``sys.stdin.buffer``,
  ``open(0)``, ``os.write(1, ...)`` all work); functional tests call
  ``Solution().<func>(*args)`` (or a module-level ``<func>``) and return the value serialised.
* ``lcb``: reproduces LiveCodeBench's runner inside one child for all tests of a sample (code
  wrapped in a function, stdin patched with StringIO/mock_open, stdout captured in a StringIO,
  ``SystemExit`` swallowed, per-test SIGALRM timeout), so strict mode gets LCB's verdicts.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import ctypes
import io
import json
import math
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
import types

# LiveCodeBench prepends these imports to every solution; preloaded here so forks are cheap.
LCB_IMPORTS = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n"
    "from random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\n"
    "from operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\n"
    "from builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n"
    "import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\n"
    "import statistics\nimport itertools\nimport functools\nimport operator\nimport io\nimport sys\n"
    "import json\nsys.setrecursionlimit(50000)\n"
)
# imported once in the worker so forked solutions get them for free
PRELOAD = ("decimal", "fractions", "cmath", "array", "dataclasses", "enum", "queue", "threading",
           "numbers", "struct", "textwrap", "unicodedata", "graphlib", "hashlib", "encodings.idna",
           "subprocess", "socket", "time", "pprint", "contextlib", "weakref", "abc", "types",
           "sortedcontainers")
PRELUDE_NS: dict = {}
EXIT_MEMORY = 201  # child's own exit code for MemoryError
EXIT_BAD_FUNC = 202  # functional test: function not found / bad input
RESULT_FD = 3
CLONE_NEWNET = 0x40000000


# ---------------------------------------------------------------- protocol
def _read_exact(fd: int, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def recv(fd: int) -> dict:
    (n,) = struct.unpack("!Q", _read_exact(fd, 8))
    return json.loads(_read_exact(fd, n))


def send(fd: int, msg: dict) -> None:
    data = json.dumps(msg).encode()
    data = struct.pack("!Q", len(data)) + data
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# ---------------------------------------------------------------- value serialisation
def encode_value(v, depth: int = 0):
    """Tagged JSON that keeps tuple/set/dict/float specials apart from lists (parent decodes)."""
    if depth > 200:
        return {"$opaque": "nesting too deep"}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**53 else {"$int": str(v)}
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return {"$float": repr(v)}
        return v
    t = type(v)
    if t is list:
        return [encode_value(x, depth + 1) for x in v]
    if t is tuple:
        return {"$tuple": [encode_value(x, depth + 1) for x in v]}
    if t in (set, frozenset):
        return {"$set": [encode_value(x, depth + 1) for x in v]}
    if t is dict:
        return {"$dict": [[encode_value(k, depth + 1), encode_value(x, depth + 1)] for k, x in v.items()]}
    mod = getattr(t, "__module__", "") or ""
    if mod.startswith("numpy"):
        if hasattr(v, "tolist"):
            return encode_value(v.tolist(), depth + 1)
    if mod == "collections" or isinstance(v, (list, tuple, dict, set)):
        # deque/Counter/defaultdict/OrderedDict/namedtuple: report the plain container
        if isinstance(v, dict):
            return {"$dict": [[encode_value(k, depth + 1), encode_value(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, tuple):
            return {"$tuple": [encode_value(x, depth + 1) for x in v]}
        return [encode_value(x, depth + 1) for x in v]
    # anything else (custom classes, hostile __eq__): opaque, never equal to an expected value
    try:
        r = object.__repr__(v)
    except Exception:  # noqa: BLE001
        r = "<unrepresentable>"
    return {"$opaque": f"{t.__name__}: {r[:200]}"}


# ---------------------------------------------------------------- child setup
def _limit(kind: int, value: int) -> None:
    try:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY and value > hard:
            value = hard
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):
        pass


def _enter_child(req: dict, in_fd: int, out_fd: int, err_fd: int, res_fd: int, workdir: str) -> None:
    """In the forked child: fds, session, limits, user. Never returns on failure (exits 203)."""
    os.setsid()
    os.dup2(in_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.dup2(res_fd, RESULT_FD)
    os.closerange(RESULT_FD + 1, 1 << 16)
    os.chdir(workdir)
    try:  # under memory pressure the kernel should kill a solution, not the evaluator
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    mem = int(req["memory_mb"]) * 1024 * 1024
    if mem > 0:
        _limit(resource.RLIMIT_AS, mem)
        _limit(resource.RLIMIT_STACK, min(mem // 2, 1 << 30))
    cpu = int(math.ceil(float(req["cpu_limit_s"])))
    _limit(resource.RLIMIT_CPU, max(1, cpu))
    _limit(resource.RLIMIT_FSIZE, int(req["output_limit_bytes"]))
    _limit(resource.RLIMIT_NOFILE, 256)
    _limit(resource.RLIMIT_CORE, 0)
    uid = req.get("uid")
    if uid is not None:
        _limit(resource.RLIMIT_NPROC, int(req["max_processes"]))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    # LiveCodeBench's grader raises the int->str limit to 50000 digits; flex mode lifts it
    sys.set_int_max_str_digits(50000 if req["style"] == "lcb" else 0)
    sys.stdin = open(0, "r", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.argv = ["solution.py"]
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; we want the kill


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code & 0xFF
    try:
        sys.stderr.write(f"{e.code}\n")
    except BaseException:  # noqa: BLE001
        pass
    return 1


def _new_main() -> dict:
    mod = types.ModuleType("__main__")
    mod.__dict__["__builtins__"] = builtins
    mod.__dict__["__file__"] = "solution.py"
    sys.modules["__main__"] = mod
    return mod.__dict__


def _write_result(obj) -> None:
    data = (json.dumps(obj) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(RESULT_FD, view):]


def run_flex_child(req: dict) -> None:
    """Execute one test flex-style; exit status tells the worker how it ended."""
    g = _new_main()
    code = req["code"]
    try:
        g.update(PRELUDE_NS)  # the LCB imports, executed once in the worker
        sys.setrecursionlimit(50000)
        prelude = dict(g)
        compiled = compile(code, "solution.py", "exec")
        exec(compiled, g)
        if req["mode"] == "functional":
            fn = _find_function(g, req["func_name"], prelude)
            if fn is None:
                sys.stderr.write(f"no function {req['func_name']!r} (class Solution or module level)\n")
                _flush_and_exit(EXIT_BAD_FUNC)
            try:
                args = [json.loads(line) for line in req["input"].split("\n")]
            except ValueError as e:
                sys.stderr.write(f"test input is not one JSON value per line: {e}\n")
                _flush_and_exit(EXIT_BAD_FUNC)
            value = fn(*args)
            _write_result({"value": encode_value(value)})
        _join_threads()
        rc = 0
    except SystemExit as e:
        rc = _exit_code(e)
    except MemoryError:
        rc = EXIT_MEMORY
    except BaseException:  # noqa: BLE001 - any solution error is a runtime error
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
        rc = 1
    _flush_and_exit(rc)


def run_flex_batch_child(req: dict) -> None:
    """All functional tests of one sample in this process, as LeetCode's judge runs them:
    module state persists, a fresh ``Solution()`` per test; one JSON line per test on RESULT_FD."""
    g = _new_main()
    try:
        g.update(PRELUDE_NS)
        sys.setrecursionlimit(50000)
        prelude = dict(g)
        exec(compile(req["code"], "solution.py", "exec"), g)
    except SystemExit as e:
        _flush_and_exit(_exit_code(e) or 1)
    except MemoryError:
        _flush_and_exit(EXIT_MEMORY)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        _flush_and_exit(1)
    name = req["func_name"]
    for i, text in enumerate(req["inputs"]):
        fn = _find_function(g, name, prelude)
        if fn is None:
            _write_result({"i": i, "error": f"no function {name!r} (class Solution or module level)"})
            continue
        try:
            args = [json.loads(line) for line in text.split("\n")]
        except ValueError as e:
            _write_result({"i": i, "error": f"test input is not one JSON value per line: {e}"})
            continue
        try:
            value = fn(*args)
            _write_result({"i": i, "value": encode_value(value)})
        except MemoryError:
            _write_result({"i": i, "memory": True})
        except SystemExit as e:
            _write_result({"i": i, "error": f"SystemExit({e.code!r}) inside the function"})
        except BaseException as e:  # noqa: BLE001
            _write_result({"i": i, "error": f"{type(e).__name__}: {e}"[:300]})
    _join_threads()
    _flush_and_exit(0)


def _join_threads() -> None:
    """Wait for non-daemon threads, as interpreter shutdown would (``Thread(target=main)`` idiom)."""
    import threading

    me = threading.current_thread()
    while True:
        alive = [t for t in threading.enumerate() if t is not me and not t.daemon and t.is_alive()]
        if not alive:
            return
        for t in alive:
            t.join()


def _find_function(g: dict, name: str, prelude: dict):
    """``Solution().<name>``, else a module-level ``<name>`` the solution itself defined."""
    sol = g.get("Solution")
    if isinstance(sol, type):
        try:
            inst = sol()
        except Exception:  # noqa: BLE001
            inst = None
        if inst is not None and callable(getattr(inst, name, None)):
            return getattr(inst, name)
    fn = g.get(name)
    if fn is None or (name in prelude and prelude[name] is fn):
        return None  # e.g. operator.add from the preloaded imports is not the answer
    return fn if callable(fn) else None


# ---------------------------------------------------------------- LiveCodeBench emulation
class _LcbTimeout(Exception):
    pass


def _lcb_alarm(signum, frame):
    raise _LcbTimeout("TimeoutException")


def _lcb_inline_main_guard(code: str) -> str:
    """LCB: if the last statement is ``if __name__ == '__main__':``, inline its body."""
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            return ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:  # noqa: BLE001
        pass
    return code


def _lcb_wrap(code: str) -> str:
    """LCB: hoist imports, put every other top-level statement in ``wrapped_function``."""
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(
            name="wrapped_function",
            args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=rest, decorator_list=[], lineno=-1,
        )
        return LCB_IMPORTS + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:  # noqa: BLE001
        return code


def run_lcb_child(req: dict) -> None:
    """All tests of one sample, LiveCodeBench-style; one JSON line per test on RESULT_FD."""
    from unittest import mock

    signal.signal(signal.SIGALRM, _lcb_alarm)
    per_test = max(1, int(math.ceil(float(req["timeout_s"]))))
    functional = req["mode"] == "functional"
    code = req["code"]
    try:
        signal.alarm(per_test)
        if functional:
            src = LCB_IMPORTS + "\n\n" + code
        else:
            src = _lcb_wrap(_lcb_inline_main_guard(code))
        mod = types.ModuleType("tmp_sol", "")
        exec(src, mod.__dict__)
        if functional:
            target = mod.Solution() if "class Solution" in src else mod
            method = getattr(target, req["func_name"])
        else:
            method = getattr(mod, "wrapped_function")
        signal.alarm(0)
    except BaseException as e:  # noqa: BLE001
        signal.alarm(0)
        _write_result({"error": f"compile: {e!r}"[:500], "code": -4})
        _flush_and_exit(0)
    for text in req["inputs"]:
        if functional:
            try:
                args = [json.loads(line) for line in text.split("\n")]
            except ValueError as e:
                _write_result({"error": repr(e)[:500], "code": -4})
                break
            try:
                signal.alarm(per_test)
                value = method(*args)
                signal.alarm(0)
                if isinstance(value, tuple):
                    value = list(value)
                _write_result({"value": encode_value(value)})
            except BaseException as e:  # noqa: BLE001
                signal.alarm(0)
                code_ = -3 if "timeoutexception" in repr(e).lower() else -4
                _write_result({"error": repr(e)[:500], "code": code_})
                break
            continue
        captured = io.StringIO()
        captured.close = lambda *a: 1
        lines = iter(text.split("\n"))
        fake_in = io.StringIO(text)
        old_out = sys.stdout
        err = None
        try:
            # LCB stacks these as decorators, so they are entered bottom-up: read/readlines/
            # readline are patched on the *real* stdin, then sys.stdin becomes a plain StringIO
            with contextlib.ExitStack() as patches:
                patches.enter_context(mock.patch("sys.stdin.read", lambda *a: text))
                patches.enter_context(mock.patch("sys.stdin.readlines", lambda *a: text.split("\n")))
                patches.enter_context(mock.patch("sys.stdin.readline", lambda *a: next(lines)))
                patches.enter_context(mock.patch("sys.stdin", fake_in))
                patches.enter_context(mock.patch("builtins.open", mock.mock_open(read_data=text)))
                sys.stdout = captured
                signal.alarm(per_test)
                try:
                    method()
                except SystemExit:
                    pass
                finally:
                    signal.alarm(0)
        except BaseException as e:  # noqa: BLE001
            signal.alarm(0)
            err = e
        finally:
            sys.stdout = old_out
        if err is not None:
            code_ = -3 if "timeoutexception" in repr(err).lower() else -4
            _write_result({"error": repr(err)[:500], "code": code_})
            break
        _write_result({"stdout": captured.getvalue()})
    _flush_and_exit(0)


# ---------------------------------------------------------------- worker side
def _pidfd_wait(pid: int, timeout: float) -> tuple[int, object, bool]:
    """Wait up to ``timeout`` s for ``pid``; kill its process group on timeout."""
    timed_out = False
    try:
        pfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pfd = None
    if pfd is not None:
        try:
            ready, _, _ = select.select([pfd], [], [], max(0.0, timeout))
            timed_out = not ready
        finally:
            os.close(pfd)
    else:  # pragma: no cover - old kernels
        deadline = time.monotonic() + timeout
        while True:
            wpid, status, ru = os.wait4(pid, os.WNOHANG)
            if wpid:
                return status, ru, False
            if time.monotonic() > deadline:
                timed_out = True
                break
            time.sleep(0.002)
    if timed_out:
        _kill_group(pid)
    _, status, ru = os.wait4(pid, 0)
    return status, ru, timed_out


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_uid(uid: int | None) -> None:
    """Kill every process of the sandbox uid (escaped daemons included)."""
    if uid is None:
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)
    os.waitpid(pid, 0)


PR_SET_CHILD_SUBREAPER = 36
_CHILDREN_FILE: str | None = None


def _become_subreaper() -> None:
    """Orphaned descendants of a test child are re-parented to this worker, so after the
    child exits, an empty children list proves nothing it started survived."""
    global _CHILDREN_FILE
    try:
        if _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
            path = f"/proc/self/task/{os.getpid()}/children"
            if os.path.exists(path):
                _CHILDREN_FILE = path
    except Exception:  # noqa: BLE001
        _CHILDREN_FILE = None


def _survivors() -> bool:
    if _CHILDREN_FILE is None:
        return True  # cannot tell: assume the worst
    try:
        with open(_CHILDREN_FILE) as f:
            return bool(f.read().strip())
    except OSError:
        return True


def _cleanup_descendants(uid: int | None) -> None:
    """Kill whatever a test left running (escaped daemons included) and reap it."""
    if _survivors():
        for pid in _children_pids():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _kill_uid(uid)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if not _survivors():
                break
            time.sleep(0.001)


def _children_pids() -> list[int]:
    if _CHILDREN_FILE is None:
        return []
    try:
        with open(_CHILDREN_FILE) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _tmpfile(base: str, data: bytes | None = None) -> int:
    fd, path = tempfile.mkstemp(dir=base)
    os.unlink(path)
    if data:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_fd(fd: int, limit: int) -> tuple[bytes, bool]:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    data = b"".join(chunks)
    return data[:limit], len(data) > limit


def _wait_batch(pid: int, res_r: int, per_test: float, total: float, n: int) -> tuple[int, object, bool, list, list]:
    """Read per-test result lines as they arrive; a test gets ``per_test`` seconds from the
    previous line (and the whole batch ``total``); on a miss the process group is killed."""
    lines: list[bytes] = []
    times: list[float] = []
    buf = b""
    start = last = time.monotonic()

    def take(chunk: bytes) -> None:
        nonlocal buf, last
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            t = time.monotonic()
            lines.append(line)
            times.append(t - last)
            last = t

    pfd = os.pidfd_open(pid)
    timed_out = False
    try:
        while True:
            left = min(last + per_test, start + total) - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([res_r, pfd], [], [], left)
            if res_r in ready:
                chunk = os.read(res_r, 1 << 20)
                if not chunk:
                    break  # writer closed: the child is exiting
                take(chunk)
            elif pfd in ready:
                break
    finally:
        os.close(pfd)
    if timed_out:
        _kill_group(pid)
    _, status, ru = os.wait4(pid, 0)
    while select.select([res_r], [], [], 0)[0]:  # drain what was written before exit
        chunk = os.read(res_r, 1 << 20)
        if not chunk:
            break
        take(chunk)
    return status, ru, timed_out, lines[:n], times[:n]


def run_batch_request(req: dict, base: str) -> dict:
    """Functional tests of one sample in one child (see ``run_flex_batch_child``)."""
    uid = req.get("uid")
    workdir = tempfile.mkdtemp(dir=base)
    if uid is not None:
        os.chown(workdir, uid, uid)
    in_fd = _tmpfile(base, b"")
    out_fd, err_fd = _tmpfile(base), _tmpfile(base)
    res_r, res_w = os.pipe()
    t0 = time.monotonic()
    try:
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.close(res_r)
                _enter_child(req, in_fd, out_fd, err_fd, res_w, workdir)
                run_flex_batch_child(req)
            except BaseException:  # noqa: BLE001
                pass
            os._exit(203)
        os.close(res_w)
        res_w = -1
        status, ru, timed_out, lines, times = _wait_batch(
            pid, res_r, float(req["timeout_s"]), float(req["wall_limit_s"]), len(req["inputs"]))
        elapsed = time.monotonic() - t0
        _kill_group(pid)
        _cleanup_descendants(uid)
        stdout, out_trunc = _read_fd(out_fd, int(req["output_limit_bytes"]))
        stderr, _ = _read_fd(err_fd, 1 << 16)
        return {
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": timed_out, "time_s": elapsed, "cpu_s": ru.ru_utime + ru.ru_stime,
            "max_rss_kb": ru.ru_maxrss, "stdout_truncated": out_trunc,
            "stderr": stderr.decode("utf-8", "replace")[-4000:],
            "lines": [ln.decode("utf-8", "replace") for ln in lines], "times": times,
        }
    finally:
        for fd in (in_fd, out_fd, err_fd, res_r, res_w):
            if fd >= 0:
                os.close(fd)
        shutil.rmtree(workdir, ignore_errors=True)


def run_request(req: dict, base: str) -> dict:
    """Fork a child for one request, wait with a deadline, collect what it produced."""
    if req["style"] == "flex_batch":
        return run_batch_request(req, base)
    uid = req.get("uid")
    workdir = tempfile.mkdtemp(dir=base)
    if uid is not None:
        os.chown(workdir, uid, uid)
    stdin_text = req.get("input", "") if req["style"] == "flex" and req["mode"] == "stdin" else ""
    in_fd = _tmpfile(base, stdin_text.encode())
    out_fd, err_fd, res_fd = _tmpfile(base), _tmpfile(base), _tmpfile(base)
    t0 = time.monotonic()
    try:
        pid = os.fork()
        if pid == 0:  # child
            try:
                _enter_child(req, in_fd, out_fd, err_fd, res_fd, workdir)
                (run_lcb_child if req["style"] == "lcb" else run_flex_child)(req)
            except BaseException:  # noqa: BLE001
                pass
            os._exit(203)
        status, ru, timed_out = _pidfd_wait(pid, float(req["wall_limit_s"]))
        elapsed = time.monotonic() - t0
        _kill_group(pid)
        _cleanup_descendants(uid)
        out_limit = int(req["output_limit_bytes"])
        stdout, out_trunc = _read_fd(out_fd, out_limit)
        stderr, _ = _read_fd(err_fd, 1 << 16)
        result, _ = _read_fd(res_fd, out_limit)
        return {
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": timed_out,
            "time_s": elapsed,
            "cpu_s": ru.ru_utime + ru.ru_stime,
            "max_rss_kb": ru.ru_maxrss,
            "stdout": stdout.decode("utf-8", "replace"),
            "stdout_truncated": out_trunc,
            "stderr": stderr.decode("utf-8", "replace")[-4000:],
            "result": result.decode("utf-8", "replace"),
        }
    finally:
        for fd in (in_fd, out_fd, err_fd, res_fd):
            os.close(fd)
        shutil.rmtree(workdir, ignore_errors=True)


CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE, MNT_DETACH = 4096, 16384, 1 << 18, 2


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _mount(src, target, fstype, flags, data) -> None:
    enc = (lambda x: None if x is None else str(x).encode())
    if _libc().mount(enc(src), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise OSError(ctypes.get_errno(), f"mount {target}: {os.strerror(ctypes.get_errno())}")


def _blocked_ancestors(paths: list[str]) -> dict[str, set[str]]:
    """Directories others cannot traverse on the way to ``paths`` -> the child names needed."""
    blocked: dict[str, set[str]] = {}
    for path in paths:
        parts = os.path.realpath(path).split(os.sep)
        for i in range(2, len(parts)):
            parent = os.sep.join(parts[:i]) or os.sep
            try:
                mode = os.stat(parent).st_mode
            except OSError:
                break
            if not mode & 0o001:
                blocked.setdefault(parent, set()).add(parts[i])
    return blocked


def _private_mounts(hide: list[str]) -> list[str]:
    """In a private mount namespace: make the interpreter reachable for the sandbox uid (a
    0755 tmpfs over each untraversable ancestor, e.g. /root, with only the needed entries
    bound back) and hide ``hide`` directories (e.g. the one holding expected outputs)."""
    notes = []
    if _libc().unshare(CLONE_NEWNS) != 0:
        return ["no mount namespace"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    needed = [sys.executable, sys.prefix, sys.base_prefix] + [p for p in sys.path if p and os.path.exists(p)]
    blocked = _blocked_ancestors(needed)
    for parent in sorted(blocked, key=lambda p: p.count(os.sep)):
        stash = tempfile.mkdtemp(prefix="mc-stash-")
        names = sorted(blocked[parent])
        for name in names:
            os.mkdir(os.path.join(stash, name)) if os.path.isdir(os.path.join(parent, name)) else None
            if os.path.isdir(os.path.join(parent, name)):
                _mount(os.path.join(parent, name), os.path.join(stash, name), None, MS_BIND | MS_REC, None)
        _mount("tmpfs", parent, "tmpfs", 0, "mode=0755,size=1m")
        for name in names:
            if os.path.isdir(os.path.join(stash, name)):
                os.mkdir(os.path.join(parent, name))
                _mount(os.path.join(stash, name), os.path.join(parent, name), None, MS_BIND | MS_REC, None)
        notes.append(f"reachable: {parent}/{{{','.join(names)}}}")
    for path in hide:  # files first: a hidden folder would make the file unreachable anyway
        if os.path.isfile(path):
            _mount(os.devnull, path, None, MS_BIND, None)
            notes.append(f"blanked: {path}")
    for path in hide:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", 0, "mode=0755,size=1m")
            notes.append(f"hidden: {path}")
    return notes


def _isolate(network: bool, mounts: bool, hide: list[str]) -> dict:
    """Namespaces for the worker and so for every child: empty network, private mounts."""
    out = {"network_isolated": False, "mounts": []}
    try:
        if network:
            out["network_isolated"] = _libc().unshare(CLONE_NEWNET) == 0
        if mounts and os.geteuid() == 0:
            out["mounts"] = _private_mounts(hide)
    except Exception as e:  # noqa: BLE001 - isolation is best effort; report what happened
        out["mounts"].append(f"mount setup failed: {e}")
    return out


def main() -> None:
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    PRELUDE_NS.update({"__builtins__": builtins})
    exec(compile(LCB_IMPORTS, "<prelude>", "exec"), PRELUDE_NS)  # warm imports, reused by children
    PRELUDE_NS.pop("__builtins__", None)
    sys.setrecursionlimit(1000)
    import unittest.mock  # noqa: F401  (lcb style)
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - optional modules
            pass
    _become_subreaper()
    import gc

    gc.collect()
    gc.freeze()  # preloaded objects leave GC's view: forked children do not copy-on-write them
    hello = recv(proto_in)
    iso = _isolate(hello.get("isolate_network", True), hello.get("private_mounts", True), hello.get("hide_paths", []))
    base = tempfile.mkdtemp(prefix="mc-sbx-")
    os.chmod(base, 0o711)
    send(proto_out, {"ready": True, "pid": os.getpid(), **iso})
    try:
        while True:
            try:
                req = recv(proto_in)
            except EOFError:
                break
            if req.get("op") == "exit":
                break
            try:
                reply = run_request(req, base)
            except Exception as e:  # noqa: BLE001 - harness failure, reported as infra error
                reply = {"infra_error": f"{type(e).__name__}: {e}"}
            send(proto_out, reply)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
