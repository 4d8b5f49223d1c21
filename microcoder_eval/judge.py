"""Turn what the sandbox reported for a test into a trusted ``TestResult``."""
from __future__ import annotations

import json
import signal
from typing import Any, Callable

from microcoder_eval.compare import (
    Comparison, compare_stdout, compare_stdout_lcb, compare_value, compare_value_lcb, decode_value,
)
from microcoder_eval.errors import InfraError
from microcoder_eval.problem import CompareOptions, TestCase
from microcoder_eval.verdict import Status, TestResult

EXIT_MEMORY = 201
EXIT_BAD_FUNC = 202


def parse_record(line: str) -> dict[str, Any] | None:
    """One result line from the sandbox (hostile input): a JSON object, or None."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError, MemoryError):
        return None
    return rec if isinstance(rec, dict) else None


def decode_returned(rec: dict[str, Any]) -> tuple[Any, str | None]:
    """The decoded ``value`` of a result record, or an error text (never raises)."""
    if "value" not in rec:
        return None, "result record without a value"
    try:
        return decode_value(rec["value"]), None
    except (RecursionError, MemoryError):
        return None, "return value nested too deeply"
    except Exception as e:  # noqa: BLE001 - malformed tags from the sandbox
        return None, f"unreadable return value: {type(e).__name__}"


def returned_value(reply: dict[str, Any]) -> tuple[Any, str | None]:
    """The value a single functional call returned (its last result line), or an error text."""
    raw = reply.get("result", "").strip()
    if not raw:
        return None, "no return value was produced"
    rec = parse_record(raw.rsplit("\n", 1)[-1])
    if rec is None:
        return None, "unreadable return value"
    return decode_returned(rec)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _from_comparison(index: int, cmp: Comparison, reply: dict[str, Any]) -> TestResult:
    status = Status.PASSED if cmp.ok else Status.WRONG_ANSWER
    return TestResult(index, status, cmp.rule, cmp.reason, reply.get("time_s", 0.0),
                      reply.get("max_rss_kb", 0) / 1024)


def judge_flex(index: int, test: TestCase, reply: dict[str, Any], functional: bool,
               opts: CompareOptions, memory_mb: int,
               checker: Callable[[str], Comparison] | None = None) -> TestResult:
    """Verdict of one flex-style run: limits first, then exit status, then the comparison."""
    t, rss = reply.get("time_s", 0.0), reply.get("max_rss_kb", 0) / 1024
    sig, code = reply.get("signal"), reply.get("exit")
    stderr = reply.get("stderr", "")
    if reply.get("timed_out") or sig == signal.SIGXCPU:
        return TestResult(index, Status.TIME_LIMIT, None, "time limit exceeded", t, rss)
    if reply.get("oom_killed"):
        return TestResult(index, Status.MEMORY_LIMIT, None,
                          f"memory limit ({memory_mb} MiB, all processes together) exceeded", t, rss)
    if reply.get("result_overflow"):
        return TestResult(index, Status.RUNTIME_ERROR, None, "output limit exceeded (result channel)", t, rss)
    if code == EXIT_MEMORY or (code != 0 and "MemoryError" in stderr):
        return TestResult(index, Status.MEMORY_LIMIT, None, f"memory limit ({memory_mb} MiB) exceeded", t, rss)
    if sig == signal.SIGXFSZ or reply.get("stdout_truncated") or (code != 0 and "[Errno 27]" in stderr):
        return TestResult(index, Status.RUNTIME_ERROR, None, "output limit exceeded", t, rss)
    if sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        hint = " (likely memory limit)" if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and \
            memory_mb and rss > 0.9 * memory_mb else ""
        return TestResult(index, Status.RUNTIME_ERROR, None, f"killed by {name}{hint}", t, rss)
    if code == EXIT_BAD_FUNC:
        return TestResult(index, Status.RUNTIME_ERROR, None, _last_line(stderr) or "function not found", t, rss)
    if code != 0:
        return TestResult(index, Status.RUNTIME_ERROR, None,
                          f"exit status {code}: {_last_line(stderr)}".rstrip(": "), t, rss)
    if functional:
        value, err = returned_value(reply)
        if err:
            return TestResult(index, Status.RUNTIME_ERROR, None, err, t, rss)
        return _from_comparison(index, compare_value(value, test.output, opts), reply)
    out = reply.get("stdout", "")
    if checker is not None and not reply.get("stdout_truncated"):
        return _from_comparison(index, checker(out), reply)
    return _from_comparison(index, compare_stdout(out, test.output, opts), reply)


def checker_verdict(reply: dict[str, Any]) -> Comparison:
    """What a problem's checker said (``check(...)`` returned True or a score >= 1: accepted).
    A checker that crashes, hangs or answers nonsense is the data's fault, not the solution's:
    InfraError, so the sample is not judged rather than judged wrongly."""
    if reply.get("timed_out") or reply.get("exit") != 0 or reply.get("signal") is not None:
        why = "timed out" if reply.get("timed_out") else f"exit {reply.get('exit')}, signal {reply.get('signal')}"
        raise InfraError(f"the problem's checker failed ({why}): {_last_line(reply.get('stderr', ''))}")
    value, err = returned_value(reply)
    if err or not isinstance(value, (bool, int, float)):
        raise InfraError(f"the problem's checker returned {err or type(value).__name__}, not a bool or score")
    if value is True or (not isinstance(value, bool) and value >= 1):
        return Comparison(True, "checker")
    return Comparison(False, None, f"the checker rejected the output (returned {value!r})")


class LcbJudge:
    """Judges a LiveCodeBench-style run one result line at a time, as the lines arrive, and says
    when to stop (LiveCodeBench stops at the first failing test). The comparison stays here, in
    the trusted parent; the sandbox only ever sees inputs."""

    def __init__(self, tests: list[TestCase], functional: bool) -> None:
        self.tests, self.functional = tests, functional
        self.results: list[TestResult] = []
        self.stopped = False  # a test failed: later lines are not judged

    def feed(self, line: str, t: float = 0.0) -> bool:
        """Judge the next test's result line; returns whether the run should go on."""
        i = len(self.results)
        if self.stopped or i >= len(self.tests):
            return False
        self.results.append(self._judge(i, line, t))
        if self.results[-1].status is not Status.PASSED:
            self.stopped = True
        return not self.stopped and len(self.results) < len(self.tests)

    def _judge(self, i: int, line: str, t: float) -> TestResult:
        rec = parse_record(line)
        if rec is None:
            return TestResult(i, Status.RUNTIME_ERROR, None, "unreadable runner output", t)
        if "error" in rec:
            status = Status.TIME_LIMIT if rec.get("code") == -3 else Status.RUNTIME_ERROR
            return TestResult(i, status, None, str(rec["error"])[:300], t)
        if self.functional:
            value, err = decode_returned(rec)
            if err:
                return TestResult(i, Status.RUNTIME_ERROR, None, err, t)
            cmp = compare_value_lcb(value, self.tests[i].output)
        else:
            out = rec.get("stdout", "")
            if not isinstance(out, str):
                return TestResult(i, Status.RUNTIME_ERROR, None, "unreadable runner output", t)
            cmp = compare_stdout_lcb(out, self.tests[i].output)
        return TestResult(i, Status.PASSED if cmp.ok else Status.WRONG_ANSWER, cmp.rule, cmp.reason, t)

    def finish(self, reply: dict[str, Any]) -> list[TestResult]:
        """All verdicts, once the run ended: a test that never reported gets the run's ending."""
        i = len(self.results)
        if not self.stopped and i < len(self.tests):
            t = reply.get("time_s", 0.0)
            if reply.get("oom_killed"):
                self.results.append(TestResult(i, Status.MEMORY_LIMIT, None, "memory limit exceeded", t))
            elif reply.get("timed_out"):
                self.results.append(TestResult(i, Status.TIME_LIMIT, None, "global timeout (-1)", t))
            else:
                self.results.append(TestResult(
                    i, Status.RUNTIME_ERROR, None,
                    f"runner died (exit {reply.get('exit')}, signal {reply.get('signal')})", t))
            self.stopped = True
        return self.results


def judge_lcb(tests: list[TestCase], reply: dict[str, Any], functional: bool) -> list[TestResult]:
    """Verdicts of one LiveCodeBench-style run of all tests (stops at the first failure)."""
    judge = LcbJudge(tests, functional)
    t = reply.get("time_s", 0.0)
    for line in [ln for ln in reply.get("result", "").split("\n")[: len(tests) + 1] if ln.strip()]:
        if not judge.feed(line, t):
            break
    results = judge.finish(reply)
    for r in results:
        r.max_rss_mb = reply.get("max_rss_kb", 0) / 1024
    return results


def judge_functional_batch(start: int, tests: list[TestCase], reply: dict[str, Any], opts: CompareOptions,
                           memory_mb: int) -> tuple[list[TestResult], bool]:
    """Verdicts of a batched functional run of ``tests`` (global indices from ``start``).

    Returns ``(results, process_ended_early)``; when the process died or timed out, the test it
    was running gets its verdict from the exit status and the tests after it were not run."""
    results: list[TestResult] = []
    rss = reply.get("max_rss_kb", 0) / 1024
    times = reply.get("times", [])
    for k, line in enumerate(reply.get("lines", [])):
        i = start + k
        t = times[k] if k < len(times) else 0.0
        rec = parse_record(line)
        if rec is None:
            results.append(TestResult(i, Status.RUNTIME_ERROR, None, "unreadable result line", t, rss))
            continue
        if rec.get("memory"):
            results.append(TestResult(i, Status.MEMORY_LIMIT, None, f"memory limit ({memory_mb} MiB) exceeded", t, rss))
        elif "error" in rec:
            results.append(TestResult(i, Status.RUNTIME_ERROR, None, str(rec["error"])[:300], t, rss))
        else:
            value, err = decode_returned(rec)
            if err:
                results.append(TestResult(i, Status.RUNTIME_ERROR, None, err, t, rss))
                continue
            cmp = compare_value(value, tests[k].output, opts)
            results.append(TestResult(i, Status.PASSED if cmp.ok else Status.WRONG_ANSWER, cmp.rule, cmp.reason, t, rss))
    done = len(results)
    if done < len(tests):
        # the process ended (or was killed) while running test ``start + done``
        synthetic = dict(reply, result="", stdout="")
        if not reply.get("timed_out") and reply.get("exit") == 0 and reply.get("signal") is None:
            synthetic["exit"] = 1  # exited without answering: os._exit(0) inside the function, say
            synthetic["stderr"] = (reply.get("stderr", "") + "\nprocess exited before returning").strip()
        res = judge_flex(start + done, tests[done], synthetic, True, opts, memory_mb)
        if res.status is Status.PASSED:  # pragma: no cover - defensive
            res = TestResult(start + done, Status.RUNTIME_ERROR, None, "no return value", 0.0, rss)
        results.append(res)
        return results, True
    return results, False
