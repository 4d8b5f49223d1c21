"""Source readers: one module per training-set format, all normalising into ``Problem``.

:func:`read_source` autodetects the format of a file (or takes it explicitly) and yields one
:class:`ReadOutcome` per record: a problem, or a skip with a counted reason (never an exception).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator

from microcoder_eval.dataset.readers import apps, codecontests, generic, lcb, leetcode, verl
from microcoder_eval.dataset.readers.common import ORIGIN
from microcoder_eval.dataset.records import Malformed, SkipRecord, is_apps_problem_dir, is_apps_root, iter_records
from microcoder_eval.errors import UserError
from microcoder_eval.problem import Problem

Converter = Callable[[dict[str, Any], str], Problem]

FORMATS: dict[str, str] = {
    "lcb": "LiveCodeBench code_generation_lite records (public/private_test_cases, metadata.func_name)",
    "apps": "TACO/APPS rows (input_output JSON with optional fn_name; solutions) or a raw APPS folder",
    "codecontests": "CodeContests rows (public/private/generated_tests {input: [], output: []})",
    "deepcoder": "rllm/DeepCoder/PrimeIntellect rows (problem + tests list, {inputs, outputs}, or a string of them)",
    "plain": "plain JSONL {question, tests} (read like deepcoder)",
    "verl": "verl RL parquet rows (prompt messages + reward_model.ground_truth)",
    "leetcodedataset": "LeetCodeDataset rows (check(candidate) asserts, entry_point, completion)",
}
DETECT_SAMPLE = 50


@dataclass
class ReadOutcome:
    """One source record: ``problem`` set, or ``reason``/``detail`` saying why it was skipped."""

    where: str
    problem: Problem | None = None
    reason: str = ""
    detail: str = ""


def converter(fmt: str, include_generated_tests: bool = True) -> Converter:
    table: dict[str, Converter] = {
        "lcb": lcb.convert, "apps": apps.convert, "deepcoder": generic.convert, "plain": generic.convert,
        "verl": verl.convert, "leetcodedataset": leetcode.convert,
        "codecontests": partial(codecontests.convert, include_generated=include_generated_tests),
    }
    return table[fmt]


def detect_record(rec: dict[str, Any]) -> str | None:
    """Format of one record from its keys, or None."""
    keys = set(rec)
    if keys & {"public_test_cases", "private_test_cases"}:
        return "lcb"
    if "reward_model" in keys:
        return "verl"
    tests = rec.get("tests")
    if (isinstance(tests, dict) and "functional" in tests) or "entry_point" in keys or \
            (isinstance(rec.get("test"), str) and "def check(" in rec["test"]):
        return "leetcodedataset"
    if "input_output" in keys:
        return "leetcodedataset" if isinstance(rec["input_output"], list) else "apps"
    if any(isinstance(rec.get(k), (dict, str)) and k in keys for k in codecontests.SPLITS) and \
            not (keys & {"tests", "test_cases"}):
        return "codecontests"
    if keys & set(generic.TEST_KEYS):
        return "plain" if "question" in keys and "problem" not in keys else "deepcoder"
    return None


def detect_format(path: Path, records: list[Any]) -> str:
    if path.is_dir():
        if is_apps_problem_dir(path) or is_apps_root(path):
            return "apps"
        raise UserError(f"{path}: folder is not in the APPS layout (NNNN/question.txt, input_output.json); "
                        "pass files, or the APPS split folder")
    seen: set[str] = set()
    for rec in records:
        if isinstance(rec, dict):
            fmt = detect_record(rec)
            if fmt:
                return fmt
            seen |= set(rec)
    hint = ""
    if "test_code" in seen:
        hint = " (pytest-style test_code, e.g. KodCode, has no input/output tests and is not supported)"
    raise UserError(f"{path}: cannot detect the source format from the first {len(records)} records "
                    f"(keys: {', '.join(sorted(seen)[:15]) or 'none'}){hint}; pass --format one of "
                    f"{', '.join(FORMATS)}")


def read_source(path: str | Path, fmt: str = "auto", include_generated_tests: bool = True
                ) -> tuple[str, Iterator[ReadOutcome]]:
    """``(format, outcomes)`` for one input; raises ``UserError`` only for an unreadable file."""
    p = Path(path)
    it = iter_records(p)
    head: list[tuple[str, Any]] = []
    if fmt == "auto":
        for item in it:
            head.append(item)
            if len(head) >= DETECT_SAMPLE:
                break
        fmt = detect_format(p, [r for _, r in head])
    elif fmt not in FORMATS:
        raise UserError(f"format {fmt!r} is unknown; choose auto or one of {', '.join(FORMATS)}")
    convert = converter(fmt, include_generated_tests)
    stem = p.stem if p.is_file() else p.name

    def outcomes() -> Iterator[ReadOutcome]:
        import itertools

        for n, (where, rec) in enumerate(itertools.chain(head, it)):
            if isinstance(rec, Malformed):
                yield ReadOutcome(where, reason=rec.reason, detail=rec.detail)
                continue
            if not isinstance(rec, dict):
                yield ReadOutcome(where, reason="not_an_object", detail=f"record is a {type(rec).__name__}")
                continue
            try:
                prob = convert(rec, f"{stem}-{n}")
            except SkipRecord as e:
                yield ReadOutcome(where, reason=e.reason, detail=e.detail)
                continue
            except Exception as e:  # noqa: BLE001 - a reader bug must not lose the run; it is counted
                yield ReadOutcome(where, reason="reader_error", detail=f"{type(e).__name__}: {str(e)[:120]}")
                continue
            prob.source = prob.source or stem
            prob.extra[ORIGIN] = {"file": str(p), "where": where, "format": fmt}
            yield ReadOutcome(where, problem=prob)

    return fmt, outcomes()
