"""LeetCodeDataset rows (rllm ``tests.functional`` / HF ``test``): assertion-style check functions.

``def check(candidate): assert candidate(nums = [1, 2], k = 3) == 4`` becomes functional tests: the
keyword arguments are put in the order of the method's parameters (from the starter code or the
reference completion). Only literal arguments and ``==`` asserts convert; a problem with any other
check (``is_same_tree(...)``, ``abs(...) < eps``, helper calls) is skipped as ``unconvertible_check``
rather than tested on a subset. The HF ``input_output`` list (``"nums = [1, 2], k = 3"`` / ``"4"``)
is used when there is no check function.
"""
from __future__ import annotations

import ast
import json
import re
from typing import Any

from microcoder_eval.dataset.readers.common import (FIELDS, finish, first_key, record_id, scalar_fields,
                                                    solutions_from)
from microcoder_eval.dataset.records import SkipRecord
from microcoder_eval.dataset.text import func_name_from_code, split_prompt
from microcoder_eval.problem import Problem, TestCase, TestType

_USED = {"problem", "problem_description", "prompt", "completion", "tests", "test", "input_output",
         "starter_code", "entry_point", "query", "response", "difficulty", "question_id", "task_id"}


def parameters(code: str, func_name: str) -> list[str] | None:
    """Positional parameter names of ``Solution.<func_name>`` (``self`` dropped) in starter/completion code."""
    if not code:
        return None
    for attempt in (code, code.rstrip() + "\n        pass\n"):
        try:
            tree = ast.parse(attempt)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func_name:
                names = [a.arg for a in node.args.posonlyargs + node.args.args]
                return names[1:] if names and names[0] == "self" else names
    return None


def _literal(node: ast.AST, what: str) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as e:
        raise SkipRecord("unconvertible_check", f"{what} {ast.unparse(node)[:60]!r} is not a literal") from e
    try:
        json.dumps(value)
    except (TypeError, ValueError) as e:
        raise SkipRecord("unconvertible_check", f"{what} {ast.unparse(node)[:60]!r} is not JSON data") from e
    return value


def call_to_test(call: ast.Call, expected: ast.AST, params: list[str] | None) -> TestCase:
    args = [_literal(a, "argument") for a in call.args]
    if call.keywords:
        if params is None:
            raise SkipRecord("unconvertible_check", "keyword arguments but no method signature to order them")
        kw = {}
        for k in call.keywords:
            if k.arg is None or k.arg not in params:
                raise SkipRecord("unconvertible_check", f"keyword {k.arg!r} is not a parameter of the method")
            kw[k.arg] = _literal(k.value, "argument")
        rest = params[len(args):]
        if set(kw) != set(rest):
            raise SkipRecord("unconvertible_check", f"call gives {sorted(kw)} but the method takes {rest}")
        args += [kw[name] for name in rest]
    value = _literal(expected, "expected value")
    return TestCase("\n".join(json.dumps(a) for a in args), json.dumps(value), TestType.FUNCTIONAL)


def tests_from_check(src: str, params: list[str] | None) -> list[TestCase]:
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise SkipRecord("bad_tests", f"check function does not parse: {e.msg}") from e
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None or len(check.args.args) != 1:
        raise SkipRecord("bad_tests", "no 'def check(candidate)' in the tests")
    cand = check.args.args[0].arg
    tests = []
    for st in check.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue  # docstring
        ok = (isinstance(st, ast.Assert) and isinstance(st.test, ast.Compare) and len(st.test.ops) == 1
              and isinstance(st.test.ops[0], ast.Eq) and isinstance(st.test.left, ast.Call)
              and isinstance(st.test.left.func, ast.Name) and st.test.left.func.id == cand)
        if not ok:
            raise SkipRecord("unconvertible_check", f"check statement {ast.unparse(st)[:60]!r} is not "
                             "'assert candidate(...) == literal'")
        tests.append(call_to_test(st.test.left, st.test.comparators[0], params))
    return tests


def tests_from_examples(items: list[Any], params: list[str] | None) -> list[TestCase]:
    tests = []
    for it in items:
        if not isinstance(it, dict) or "input" not in it or "output" not in it:
            raise SkipRecord("bad_tests", f"input_output item {str(it)[:60]!r} lacks input/output")
        try:
            call = ast.parse(f"f({it['input']})", mode="eval").body
            expected = ast.parse(str(it["output"]), mode="eval").body
        except SyntaxError as e:
            raise SkipRecord("unconvertible_check", f"example {str(it['input'])[:60]!r} is not an argument list") from e
        assert isinstance(call, ast.Call)
        tests.append(call_to_test(call, expected, params))
    return tests


_ENTRY_RE = re.compile(r"check\(\s*Solution\(\)\.(\w+)\s*\)")


def convert(rec: dict[str, Any], fallback_id: str) -> Problem:
    statement, starter = split_prompt(str(first_key(rec, ("problem_description", "problem", "query", "prompt")) or ""))
    starter = str(rec.get("starter_code") or starter or "")
    tests_obj = rec.get("tests")
    check_src = tests_obj.get("functional") if isinstance(tests_obj, dict) else None
    check_src = check_src or rec.get("test") or (tests_obj if isinstance(tests_obj, str) else None)
    completion = str(rec.get("completion") or "")
    entry = str(rec.get("entry_point") or "")
    m = _ENTRY_RE.search(check_src or "")
    fn = (entry.rsplit(".", 1)[-1] if entry else None) or (m.group(1) if m else None) or func_name_from_code(starter)
    if not fn:
        raise SkipRecord("functional_without_func_name", "no entry_point, check(Solution().X) call or starter code")
    params = parameters(starter, fn) or parameters(completion, fn)
    if check_src:
        tests = tests_from_check(check_src, params)
    elif isinstance(rec.get("input_output"), list):
        tests = tests_from_examples(rec["input_output"], params)
    else:
        raise SkipRecord("no_tests", "no check function (tests.functional / test) and no input_output examples")
    p = Problem(
        question_id=record_id(rec, fallback_id),
        question_content=statement,
        question_title=str(rec.get("task_id") or ""),
        platform="leetcode",
        difficulty=str(rec.get("difficulty") or "unknown").lower(),
        starter_code=starter,
        private_tests=tests,
        func_name=fn,
    )
    p.extra[FIELDS] = scalar_fields(rec, _USED)
    return finish(p, solutions_from(completion) if completion else [])
