"""Flex execution: each program runs in the environment of the platform it was written for.

* stdin programs (AtCoder, Codeforces): the plain script, as ``python3 solution.py`` runs it:
  nothing injected, CPython's default recursion limit (1000); the stack is large (see
  ``limits``), so a program that raises the limit itself recurses as deep as on the platform.
* functional solutions (LeetCode): ``Solution().<func>(*args)`` with LeetCode's automatic imports
  and the return value serialised for the trusted parent.

Each rule is written once, below, and named by ``ENVIRONMENTS``; results record the name.
"""
from __future__ import annotations

import builtins
import json
import os
import sys
import traceback
import types

from .values import encode_value

# LiveCodeBench's prelude (lcb_runner/evaluation/testing_util.py ``import_string``): used only by
# the lcb style (run_lcb), which reproduces LiveCodeBench's grader, never by flex.
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

# LeetCode's Python 3 judge. Its documentation ("What are the environments for the programming
# languages?", https://support.leetcode.com/hc/en-us/articles/360011833974) says: "Most libraries
# are already imported automatically for your convenience, such as array, bisect, collections. If
# you need more libraries, you can import it yourself." The modules below are the ones LeetCode's
# starter code relies on without importing them (``List``/``Optional`` from typing, ``deque``,
# ``Counter``, ``heappush``, ``bisect_left``, ``gcd``, ``inf``, ``accumulate``, ``cache`` ...), each
# bound as a module and star-imported, except that a star-import never hides a builtin
# (``pow(a, b, m)`` stays the builtin, not ``math.pow``). Nothing else: no ``sys``, ``io``, ``json``.
LEETCODE_MODULES = ("array", "bisect", "collections", "copy", "functools", "heapq", "itertools", "math",
                    "operator", "random", "re", "string", "typing")
LEETCODE_STAR = ("bisect", "collections", "copy", "functools", "heapq", "itertools", "math", "operator",
                 "random", "re", "string", "typing")
LEETCODE_IMPORTS = "".join(f"from {m} import *\n" for m in LEETCODE_STAR) + \
    "".join(f"import {m}\n" for m in LEETCODE_MODULES)
# LeetCode does not document its recursion limit, and its accepted recursive solutions recurse far
# deeper than CPython's default 1000 allows (trees and graphs of 10^4..10^5 nodes); we keep the
# depth LiveCodeBench gives functional solutions so such solutions are not failed here.
LEETCODE_RECURSION_LIMIT = 50000
DEFAULT_RECURSION_LIMIT = 1000  # CPython's; what ``python3 solution.py`` on AtCoder/Codeforces gets

# the name each result records for the environment that ran it
ENV_SCRIPT = "script"  # stdin program as a plain script
ENV_LEETCODE = "leetcode"  # functional solution with LeetCode's automatic imports
ENVIRONMENTS = {
    ENV_SCRIPT: "plain python3 script (AtCoder, Codeforces): nothing injected, recursion limit 1000",
    ENV_LEETCODE: "LeetCode Python 3: automatic imports of " + ", ".join(LEETCODE_MODULES),
}


def environment(mode: str) -> str:
    """The flex environment for a test mode ('stdin' or 'functional')."""
    return ENV_LEETCODE if mode == "functional" else ENV_SCRIPT


PRELOAD = ("decimal", "fractions", "cmath", "array", "dataclasses", "enum", "queue", "threading",
           "numbers", "struct", "textwrap", "unicodedata", "graphlib", "hashlib", "encodings.idna",
           "subprocess", "socket", "time", "pprint", "contextlib", "weakref", "abc", "types",
           "sortedcontainers")
LEETCODE_NS: dict = {}  # LEETCODE_IMPORTS, executed once in the zygote
EXIT_MEMORY = 201  # child's own exit code for MemoryError
EXIT_BAD_FUNC = 202  # functional test: function not found / bad input
RESULT_FD = 3


def prepare() -> None:
    """In the zygote, before any request: warm imports that forked solutions get for free."""
    LEETCODE_NS.update({"__builtins__": builtins})
    exec(compile(LEETCODE_IMPORTS, "<leetcode prelude>", "exec"), LEETCODE_NS)
    LEETCODE_NS.pop("__builtins__", None)
    for name in [n for n in LEETCODE_NS if hasattr(builtins, n) and n not in LEETCODE_MODULES]:
        del LEETCODE_NS[name]  # math.pow, operator.abs, re.compile ... would hide the builtins
    exec(compile(LCB_IMPORTS, "<lcb prelude>", "exec"), {"__builtins__": builtins})  # warm its modules
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
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


def _enter_environment(g: dict, mode: str) -> dict:
    """Give the fresh ``__main__`` namespace ``g`` its platform's environment; returns what was
    injected (a name found there is not the solution's own)."""
    if environment(mode) == ENV_LEETCODE:
        g.update(LEETCODE_NS)
        sys.setrecursionlimit(LEETCODE_RECURSION_LIMIT)
    else:
        sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    return dict(g)


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
        prelude = _enter_environment(g, req["mode"])
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
        prelude = _enter_environment(g, "functional")
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
