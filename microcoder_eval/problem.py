"""The one problem schema every loader and source reader normalises into."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, asdict
from typing import Any


class TestType(str, enum.Enum):
    __test__ = False  # not a pytest class
    """How a test is executed: a stdin/stdout program or a function call."""

    STDIN = "stdin"
    FUNCTIONAL = "functional"


@dataclass(frozen=True)
class TestCase:
    """One test.

    stdin: ``input`` is the program's stdin, ``output`` its expected stdout.
    functional: ``input`` holds one JSON value per line (the positional args),
    ``output`` is the JSON of the expected return value.
    """

    __test__ = False  # not a pytest class

    input: str
    output: str
    testtype: TestType = TestType.STDIN

    def to_dict(self) -> dict[str, str]:
        return {"input": self.input, "output": self.output, "testtype": self.testtype.value}


@dataclass(frozen=True)
class CompareOptions:
    """Per-problem comparison options (all off/default unless a problem asks)."""

    float_tol: float = 1e-6  # absolute OR relative tolerance for float tokens
    case_insensitive: bool = False
    unordered_lines: bool = False  # compare output lines as a multiset
    unordered_tokens: bool = False  # compare all tokens as a multiset

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "CompareOptions":
        if not d:
            return cls()
        known = {k: d[k] for k in ("float_tol", "case_insensitive", "unordered_lines", "unordered_tokens") if k in d}
        return cls(**known)


@dataclass
class Problem:
    """A normalised coding problem (LiveCodeBench ``code_generation_lite`` fields)."""

    question_id: str
    question_content: str = ""
    question_title: str = ""
    platform: str = "unknown"  # leetcode | atcoder | codeforces | ...
    contest_id: str = ""
    contest_date: str = ""  # ISO date string
    difficulty: str = "unknown"  # easy | medium | hard | unknown
    starter_code: str = ""
    public_tests: list[TestCase] = field(default_factory=list)
    private_tests: list[TestCase] = field(default_factory=list)
    func_name: str | None = None  # set => functional (LeetCode-style) tests
    compare: CompareOptions = field(default_factory=CompareOptions)
    time_limit_s: float | None = None  # per-test override
    # Python source defining ``check(input, output, expected) -> bool | float`` for problems that
    # accept any of several outputs; it comes from data, so it runs in the sandbox like a solution
    checker: str | None = None
    source: str = ""  # dataset/source name
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tests(self) -> list[TestCase]:
        """All tests: public first, then private (the order LiveCodeBench runs them)."""
        return [*self.public_tests, *self.private_tests]

    @property
    def is_functional(self) -> bool:
        return bool(self.func_name)

    def to_lcb_record(self) -> dict[str, Any]:
        """Serialise as a LiveCodeBench ``code_generation_lite`` record (JSON strings inside)."""
        import json

        meta: dict[str, Any] = {}
        if self.func_name:
            meta["func_name"] = self.func_name
        if self.compare != CompareOptions():
            meta["compare"] = asdict(self.compare)
        if self.time_limit_s is not None:
            meta["time_limit_s"] = self.time_limit_s
        if self.checker:
            meta["checker"] = self.checker
        return {
            "question_id": self.question_id,
            "question_title": self.question_title,
            "question_content": self.question_content,
            "platform": self.platform,
            "contest_id": self.contest_id,
            "contest_date": self.contest_date,
            "difficulty": self.difficulty,
            "starter_code": self.starter_code,
            "public_test_cases": json.dumps([t.to_dict() for t in self.public_tests]),
            "private_test_cases": json.dumps([t.to_dict() for t in self.private_tests]),
            "metadata": json.dumps(meta),
        }
