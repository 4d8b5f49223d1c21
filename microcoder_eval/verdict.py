"""Typed, trusted results: every verdict is an enum plus the rule that decided it."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Status(str, enum.Enum):
    """Outcome of one test or one sample (a sample takes its first non-passing test's status)."""

    PASSED = "passed"
    WRONG_ANSWER = "wrong_answer"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    RUNTIME_ERROR = "runtime_error"
    NO_CODE = "no_code"
    INFRA_ERROR = "infra_error"


@dataclass
class TestResult:
    """Verdict of one test: ``rule`` names the comparison rule that accepted (or rejected) it."""

    index: int
    status: Status
    rule: str | None = None
    detail: str = ""
    time_s: float = 0.0
    max_rss_mb: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "status": self.status.value,
            "rule": self.rule,
            "detail": self.detail,
            "time_s": round(self.time_s, 4),
            "max_rss_mb": round(self.max_rss_mb, 1),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TestResult":
        return cls(d["index"], Status(d["status"]), d.get("rule"), d.get("detail", ""),
                   d.get("time_s", 0.0), d.get("max_rss_mb", 0.0))


@dataclass
class SampleResult:
    """Verdict of one sample (one completion) on one problem."""

    question_id: str
    sample_index: int
    status: Status
    tests: list[TestResult] = field(default_factory=list)
    num_tests: int = 0
    code: str | None = None
    detail: str = ""
    # the environment that ran it: flex 'script' / 'leetcode', or 'lcb@<grader revision>'
    environment: str = ""

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def num_passed(self) -> int:
        return sum(t.status is Status.PASSED for t in self.tests)

    @property
    def fraction_passed(self) -> float:
        return self.num_passed / self.num_tests if self.num_tests else 0.0

    @property
    def rules(self) -> dict[str, int]:
        """How many tests each comparison rule accepted."""
        out: dict[str, int] = {}
        for t in self.tests:
            if t.status is Status.PASSED and t.rule:
                out[t.rule] = out.get(t.rule, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "sample_index": self.sample_index,
            "status": self.status.value,
            "passed": self.passed,
            "num_tests": self.num_tests,
            "num_passed": self.num_passed,
            "rules": self.rules,
            "detail": self.detail,
            "tests": [t.to_dict() for t in self.tests],
            "code": self.code,
            "environment": self.environment,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SampleResult":
        return cls(d["question_id"], d["sample_index"], Status(d["status"]),
                   [TestResult.from_dict(t) for t in d.get("tests", [])], d.get("num_tests", 0),
                   d.get("code"), d.get("detail", ""), d.get("environment", ""))
