"""Build a ``Problem`` from the test formats RL datasets carry (LCB records, tests lists, ground truth)."""
from __future__ import annotations

import ast
import hashlib
import json
from typing import Any

from microcoder_eval.lcb import problem_from_lcb_record
from microcoder_eval.problem import Problem, TestCase, TestType


def _loads(value: Any) -> Any:
    """JSON string -> object; tolerates Python-literal strings (rllm files use single quotes)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError) as e:
            raise ValueError(f"tests are neither JSON nor a Python literal: {value[:80]!r}") from e


def _as_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "\n".join(_as_text(x) for x in v)
    return str(v)


def tests_from_value(value: Any, func_name: str | None = None) -> tuple[list[TestCase], str | None]:
    """Parse tests from a list of ``{input, output[, testtype]}``, ``{inputs, outputs[, fn_name]}``,
    or a ``{"tests": ...}`` wrapper (verl ground truth). Returns ``(tests, func_name)``."""
    value = _loads(value)
    if isinstance(value, dict) and "tests" in value and not {"inputs", "outputs"} <= value.keys():
        func_name = func_name or value.get("fn_name") or value.get("func_name")
        return tests_from_value(value["tests"], func_name)
    if isinstance(value, dict) and {"inputs", "outputs"} <= value.keys():
        fn = func_name or value.get("fn_name") or value.get("func_name")
        ins, outs = value["inputs"], value["outputs"]
        if len(ins) != len(outs):
            raise ValueError(f"{len(ins)} test inputs but {len(outs)} outputs")
        tests = []
        for i, o in zip(ins, outs):
            if fn:  # call-based: inputs are argument lists, output the JSON return value
                args = i if isinstance(i, list) else [i]
                tests.append(TestCase("\n".join(json.dumps(a) for a in args), json.dumps(o), TestType.FUNCTIONAL))
            else:
                tests.append(TestCase(_as_text(i), _as_text(o), TestType.STDIN))
        return tests, fn
    if isinstance(value, list):
        tests = []
        for t in value:
            if not isinstance(t, dict) or "input" not in t or "output" not in t:
                raise ValueError(f"test {str(t)[:80]!r} lacks input/output")
            kind = t.get("testtype") or t.get("type") or ("functional" if func_name else "stdin")
            kind = "stdin" if kind in ("stdin_stdout", "stdio") else kind
            tests.append(TestCase(_as_text(t["input"]), _as_text(t["output"]), TestType(kind)))
        return tests, func_name
    raise ValueError(f"unrecognised tests value of type {type(value).__name__}")


def problem_from_row(row: dict[str, Any]) -> Problem:
    """A problem from a dataset row: LCB record fields, or ``tests`` / ``ground_truth`` / ``reward_model``."""
    if "public_test_cases" in row or "private_test_cases" in row:
        rec = dict(row)
        rec.setdefault("question_id", _key(row))
        return problem_from_lcb_record(rec)
    meta = _loads(row.get("metadata")) if row.get("metadata") else {}
    func_name = row.get("func_name") or row.get("fn_name") or (meta.get("func_name") if isinstance(meta, dict) else None)
    source = None
    for key in ("tests", "ground_truth", "input_output", "test_cases"):
        if row.get(key) is not None:
            source = row[key]
            break
    if source is None and isinstance(row.get("reward_model"), dict):
        source = row["reward_model"].get("ground_truth")
    if source is None:
        raise ValueError("row has no tests: give LCB fields (public_test_cases/private_test_cases/metadata) "
                         "or a 'tests' / 'ground_truth' column")
    tests, func_name = tests_from_value(source, func_name)
    qid = str(row.get("question_id") or row.get("problem_id") or row.get("id") or _key(row))
    return Problem(question_id=qid, public_tests=tests, func_name=func_name or None,
                   difficulty=str(row.get("difficulty") or "unknown"), platform=str(row.get("platform") or "unknown"))


def _key(row: dict[str, Any]) -> str:
    blob = json.dumps({k: row.get(k) for k in sorted(row) if k not in ("prompt", "completion")}, default=str,
                      sort_keys=True)
    return "h" + hashlib.sha1(blob.encode()).hexdigest()[:12]
