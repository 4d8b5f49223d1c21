"""LiveCodeBench emulation: all tests of a sample in one process, as its ``testing_util.py`` runs
them (code wrapped in a function, stdin patched, ``open`` patched with mock_open, stdout captured
in a StringIO, ``SystemExit`` swallowed, per-test SIGALRM); one JSON line per test on the result
fd, written as soon as the test ends (so the parent can compare it and stop the run).

Two grader revisions differ in what ``sys.stdin`` is while a stdin test runs (``LCB_REVISIONS``);
everything else is the same in both."""
from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import signal
import sys
import types

from .run_flex import LCB_IMPORTS, _flush_and_exit, _write_result
from .values import encode_value


# LiveCodeBench grader revisions (commits of lcb_runner/evaluation/testing_util.py), newest first.
LCB_REVISIONS = {
    "16de2a1": "LiveCodeBench grader since 2025-05-23 (16de2a1 'fix: testing util and oai runner'): "
               "sys.stdin is a mock whose .read() always returns the whole input, .buffer.read() the "
               "whole input as bytes, .buffer.readline() always the first line; not iterable",
    "15808c7": "LiveCodeBench grader before 2025-05-23 (15808c7): sys.stdin is a plain StringIO, "
               "so sys.stdin.buffer raises AttributeError",
}
LCB_DEFAULT_REVISION = "16de2a1"


class _BufferFirstLine:
    """16de2a1's ``sys.stdin.buffer``: ``read`` gives all the input, ``readline`` its first line."""

    def __init__(self, text: str) -> None:
        self._data = text.encode("utf-8")

    def read(self, *args):
        return self._data

    def readline(self, *args):
        return self._data.split(b"\n", 1)[0] + b"\n"


class _StdinWithBuffer:
    """16de2a1's ``sys.stdin``: ``read``/``readlines`` from the whole text every time, ``readline``
    from a StringIO, ``buffer`` as above, any other attribute from that StringIO (special methods
    such as ``__iter__`` are not delegated, so ``for line in sys.stdin`` raises TypeError)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._io = io.StringIO(text)
        self.buffer = _BufferFirstLine(text)

    def read(self, *args):
        return self._text

    def readline(self, *args):
        return self._io.readline(*args)

    def readlines(self, *args):
        return self._text.split("\n")

    def __getattr__(self, name):
        return getattr(self._io, name)


def _fake_stdin(text: str, revision: str):
    return _StdinWithBuffer(text) if revision == "16de2a1" else io.StringIO(text)


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


def run(req: dict) -> None:
    """All tests of one sample, LiveCodeBench-style; one JSON line per test on RESULT_FD."""
    from unittest import mock

    signal.signal(signal.SIGALRM, _lcb_alarm)
    per_test = max(1, int(math.ceil(float(req["timeout_s"]))))
    functional = req["mode"] == "functional"
    code = req["code"]
    revision = req.get("lcb_version") or LCB_DEFAULT_REVISION
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
        fake_in = _fake_stdin(text, revision)
        old_out = sys.stdout
        err = None
        try:
            # LCB stacks these as decorators, so they are entered bottom-up: read/readlines/
            # readline are patched on the *real* stdin, then sys.stdin becomes the revision's fake
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
