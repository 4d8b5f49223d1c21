"""Flex execution: the program as a plain script with real file descriptors, or LeetCode-style
calls of ``Solution().<func>(*args)`` with the return value serialised for the trusted parent."""
from __future__ import annotations

import builtins
import json
import os
import sys
import traceback
import types

from .values import encode_value

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
PRELOAD = ("decimal", "fractions", "cmath", "array", "dataclasses", "enum", "queue", "threading",
           "numbers", "struct", "textwrap", "unicodedata", "graphlib", "hashlib", "encodings.idna",
           "subprocess", "socket", "time", "pprint", "contextlib", "weakref", "abc", "types",
           "sortedcontainers")
PRELUDE_NS: dict = {}
EXIT_MEMORY = 201  # child's own exit code for MemoryError
EXIT_BAD_FUNC = 202  # functional test: function not found / bad input
RESULT_FD = 3


def prepare() -> None:
    """In the zygote, before any request: warm imports that forked solutions get for free."""
    PRELUDE_NS.update({"__builtins__": builtins})
    exec(compile(LCB_IMPORTS, "<prelude>", "exec"), PRELUDE_NS)
    PRELUDE_NS.pop("__builtins__", None)
    sys.setrecursionlimit(1000)
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - optional modules
            pass
    import unittest.mock  # noqa: F401  (the lcb style patches stdin with it)

    from . import run_lcb  # noqa: F401  (imported before any privilege drop)


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


def run(req: dict) -> None:
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


def run_batch(req: dict) -> None:
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
