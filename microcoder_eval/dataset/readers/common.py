"""Helpers every source reader shares: lenient JSON, test parsing, ids, references, final checks."""
from __future__ import annotations

import ast
import json
from typing import Any

from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.dataset.text import func_name_from_code
from microcoder_eval.intdigits import unlimited_int_digits  # noqa: F401  (re-exported to the readers)
from microcoder_eval.problem import Problem, TestCase, TestType

# extra["..."] keys the pipeline uses
SOLUTIONS = "solutions"  # list[str]: candidate reference programs, tried in order
WRAPPED = "wrapped_outputs"  # list[str]: alternative expected outputs (APPS 1-element-list wrapping)
ORIGIN = "origin"  # {"file", "where", "format"}
FIELDS = "fields"  # small scalar columns of the source record (e.g. a pass-rate column)


def loads_lenient(value: Any, what: str) -> Any:
    """JSON text -> object; python-literal text (single quotes, rllm files) is accepted too."""
    if not isinstance(value, (str, bytes)):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(value if isinstance(value, str) else value.decode())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as e:
        raise SkipRecord("bad_tests", f"{what} is neither JSON nor a Python literal: {str(value)[:60]!r}") from e


def as_text(v: Any, what: str) -> str:
    """A stdin/stdout test value: a string, or a list of lines (APPS/TACO sometimes store lists)."""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
        return "\n".join(str(x) for x in v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return str(v)
    raise SkipRecord("bad_tests", f"{what} {str(v)[:60]!r} is not text")


def args_to_input(args: Any) -> str:
    """Positional arguments -> the functional input format (one JSON value per line)."""
    if not isinstance(args, list):
        args = [args]
    return "\n".join(json.dumps(a) for a in args)


def _all_single_lists(outputs: list[Any]) -> bool:
    return bool(outputs) and all(isinstance(o, list) and len(o) == 1 for o in outputs)


def call_based_tests(inputs: list[Any], outputs: list[Any]) -> tuple[list[TestCase], list[str] | None]:
    """APPS/TACO call-based tests. Inputs are argument lists; outputs are often wrapped in a one-element
    list (``[true]`` for a function returning ``True``; APPS's grader accepts ``out == o or out == o[0]``).

    When every output of the problem is a one-element list we unwrap them and return the wrapped
    JSON as the alternative; verification keeps whichever form the reference solution returns.
    """
    unwrap = _all_single_lists(outputs)
    tests = [TestCase(args_to_input(i), json.dumps(o[0] if unwrap else o), TestType.FUNCTIONAL)
             for i, o in zip(inputs, outputs)]
    return tests, ([json.dumps(o) for o in outputs] if unwrap else None)


def tests_from_io(io: dict[str, Any], func_name: str | None) -> tuple[list[TestCase], str | None, list[str] | None]:
    """``{"inputs": [...], "outputs": [...], "fn_name"?}`` (APPS, TACO, DeepCoder, verl prime)."""
    ins, outs = io.get("inputs"), io.get("outputs")
    if not isinstance(ins, list) or not isinstance(outs, list):
        raise SkipRecord("bad_tests", "inputs/outputs must both be lists")
    if len(ins) != len(outs):
        raise SkipRecord("tests_mismatch", f"{len(ins)} inputs but {len(outs)} outputs")
    fn = io.get("fn_name") or io.get("func_name") or func_name
    if fn:
        tests, alt = call_based_tests(ins, outs)
        return tests, str(fn), alt
    return [TestCase(as_text(i, "input"), as_text(o, "output")) for i, o in zip(ins, outs)], None, None


_KINDS = {"stdin": TestType.STDIN, "stdin_stdout": TestType.STDIN, "stdio": TestType.STDIN,
          "functional": TestType.FUNCTIONAL, "function_call": TestType.FUNCTIONAL, "call": TestType.FUNCTIONAL}


def tests_from_list(items: list[Any], func_name: str | None) -> tuple[list[TestCase], str | None, list[str] | None]:
    """``[{"input", "output", "testtype"|"type"?, "fn_name"?}]`` (LCB, rllm, PrimeIntellect, Codeforces)."""
    tests: list[TestCase] = []
    calls_in: list[Any] = []
    calls_out: list[Any] = []
    fn = func_name
    for t in items:
        if not isinstance(t, dict) or "input" not in t or "output" not in t:
            raise SkipRecord("bad_tests", f"test {str(t)[:60]!r} lacks input/output")
        raw_kind = str(t.get("testtype") or t.get("type") or ("functional" if fn else "stdin")).lower()
        kind = _KINDS.get(raw_kind)
        if kind is None:
            raise SkipRecord("bad_testtype", f"test type {raw_kind!r} is not stdin or functional")
        fn = fn or t.get("fn_name") or t.get("func_name")
        if kind is TestType.FUNCTIONAL and not isinstance(t["input"], str):
            calls_in.append(t["input"])  # argument list (PrimeIntellect function_call)
            calls_out.append(t["output"])
            continue
        if kind is TestType.FUNCTIONAL:
            out = t["output"] if isinstance(t["output"], str) else json.dumps(t["output"])
            tests.append(TestCase(t["input"], out, kind))
        else:
            tests.append(TestCase(as_text(t["input"], "input"), as_text(t["output"], "output"), kind))
    alt = None
    if calls_in:
        if tests:
            raise SkipRecord("mixed_testtypes", "argument-list tests mixed with text tests")
        tests, alt = call_based_tests(calls_in, calls_out)
    return tests, (str(fn) if fn else None), alt


def parse_tests(value: Any, func_name: str | None) -> tuple[list[TestCase], str | None, list[str] | None]:
    """Any test container: list of dicts, ``{inputs, outputs}``, ``{"tests": ...}`` wrapper, or text of those."""
    value = loads_lenient(value, "tests")
    if isinstance(value, dict) and {"inputs", "outputs"} <= value.keys():
        return tests_from_io(value, func_name)
    if isinstance(value, dict) and ("tests" in value or "test_cases" in value):
        fn = func_name or value.get("fn_name") or value.get("func_name")
        return parse_tests(value.get("tests", value.get("test_cases")), fn)
    if isinstance(value, dict) and {"input", "output"} <= value.keys() and isinstance(value["input"], list):
        ins, outs = value["input"], value["output"]  # CodeContests-style split
        if not isinstance(outs, list) or len(ins) != len(outs):
            raise SkipRecord("tests_mismatch", "input/output lists differ in length")
        return [TestCase(as_text(i, "input"), as_text(o, "output")) for i, o in zip(ins, outs)], func_name, None
    if isinstance(value, dict) and ("fname" in value or "md5" in value):
        raise SkipRecord("external_tests", f"tests are a pointer to an external file ({str(value)[:60]})")
    if isinstance(value, list):
        return tests_from_list(value, func_name)
    if value is None or value == "":
        raise SkipRecord("no_tests", "the record has an empty tests field")
    raise SkipRecord("bad_tests", f"unrecognised tests value of type {type(value).__name__}")


def first_key(rec: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        v = rec.get(k)
        if v not in (None, ""):
            return v
    return None


def record_id(rec: dict[str, Any], fallback: str) -> str:
    v = first_key(rec, ("question_id", "problem_id", "task_id", "id", "name", "_key"))
    return str(v) if v is not None else fallback


def func_name_of(rec: dict[str, Any], starter_code: str) -> str | None:
    """``fn_name``/``func_name`` columns, ``metadata.func_name``, else the starter code's function."""
    fn = first_key(rec, ("fn_name", "func_name"))
    if fn:
        return str(fn)
    meta = rec.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError:
            meta = None
    if isinstance(meta, dict) and meta.get("func_name"):
        return str(meta["func_name"])
    return None


def solutions_from(value: Any) -> list[str]:
    """Reference programs from a JSON/list column; fenced answers are reduced to their code."""
    from microcoder_eval.extraction import extract_code

    if value in (None, ""):
        return []
    if isinstance(value, str):
        s = value.lstrip()
        if s.startswith("["):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                value = [value]
        else:
            value = [value]
    if not isinstance(value, list):
        return []
    out = []
    for v in value:
        if not isinstance(v, str) or not v.strip():
            continue
        code = extract_code(v) if "```" in v else v
        if code and code.strip():
            out.append(code)
    return out


def scalar_fields(rec: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    """Small scalar columns (ints, floats, bools, short strings) kept for --pass-rate-column and reports."""
    out: dict[str, Any] = {}
    for k, v in rec.items():
        if k in skip or k.startswith("_"):
            continue
        if isinstance(v, (bool, int, float)) or (isinstance(v, str) and len(v) <= 200):
            out[k] = v
    return out


def check_functional(tests: list[TestCase]) -> None:
    """Every functional input line and output must be JSON, or the evaluator could never pass them."""
    for k, t in enumerate(tests):
        if t.testtype is not TestType.FUNCTIONAL:
            continue
        try:
            json.loads(t.output)
            for line in t.input.split("\n"):
                json.loads(line)
        except ValueError as e:
            raise SkipRecord("bad_functional_test", f"test {k}: {str(e)[:80]}") from e


def checker_of(rec: dict[str, Any]) -> str | None:
    """A ``checker`` column (or ``metadata.checker``): Python source defining ``check(input, output,
    expected)``, kept so "print any valid answer" problems are judged by it. Public dumps of TACO,
    APPS and CodeContests carry none; sets that add one (a column or the metadata) keep it."""
    meta = rec.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    value = rec.get("checker") or (meta.get("checker") if isinstance(meta, dict) else None)
    if value is None:
        return None
    if not isinstance(value, str) or "def check(" not in value:
        raise SkipRecord("bad_checker", "the checker must be Python source defining check(input, output, expected)")
    return value


def finish(p: Problem, solutions: list[str] | None = None, wrapped: list[str] | None = None) -> Problem:
    """Final checks every reader applies (statement, tests, one test type, functional => func_name)."""
    p.question_content = (p.question_content or "").strip()
    if not p.question_content:
        raise SkipRecord("no_statement", "the record has no problem statement")
    if not p.tests:
        raise SkipRecord("no_tests", "the record has no tests")
    kinds = {t.testtype for t in p.tests}
    if len(kinds) > 1:
        raise SkipRecord("mixed_testtypes", "stdin and functional tests in one problem")
    if TestType.FUNCTIONAL in kinds:
        p.func_name = p.func_name or func_name_from_code(p.starter_code)
        if not p.func_name:
            raise SkipRecord("functional_without_func_name",
                             "functional tests but no fn_name/func_name and no starter code to take it from")
        with unlimited_int_digits():
            check_functional(p.tests)
    elif p.func_name:
        p.func_name = None  # stdin tests: a func_name would switch the evaluator to call mode
    if solutions:
        p.extra[SOLUTIONS] = solutions
    if wrapped:
        if len(wrapped) != len(p.tests):
            raise SkipRecord("tests_mismatch", "wrapped alternative does not match the tests")
        p.extra[WRAPPED] = wrapped
    return p
