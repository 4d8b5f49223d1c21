"""Evaluate (problem, code) pairs in parallel on warm sandbox workers; judge in this process."""
from __future__ import annotations

import functools
import json
import threading
import uuid
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterable, Iterator, Sequence

from microcoder_eval.compare import Comparison
from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import InfraError
from microcoder_eval.extraction import extract_code
from microcoder_eval.judge import checker_verdict, LcbJudge, judge_flex, judge_functional_batch, judge_lcb
from microcoder_eval.problem import Problem
from microcoder_eval.sandbox import run_flex
from microcoder_eval.sandbox.pool import SandboxPool, SandboxWorker
from microcoder_eval.verdict import SampleResult, Status, TestResult

Item = tuple[Problem, "str | None"]


class Evaluator:
    """Long-lived evaluator: start once, call ``evaluate`` many times (workers stay warm)."""

    def __init__(self, config: EvalConfig | None = None, hide_paths: Sequence[str] = ()) -> None:
        """``hide_paths``: directories (e.g. the one holding the problems file with expected
        outputs) that solutions see as empty, where the OS allows private mounts (root)."""
        self.config = config or EvalConfig()
        self.pool = SandboxPool(self.config.workers, self.config.sandbox_uid_base, self.config.isolate_network,
                                safe_hide_paths(hide_paths), self.config.memory_mb, self.config.max_processes)
        self._threads = ThreadPoolExecutor(max_workers=self.config.workers, thread_name_prefix="mc-eval")
        # --all-tests: one sample's tests are spread over idle workers (chunks borrow workers
        # from the same pool; the sample's own thread holds none while it waits, so no deadlock)
        self._chunks = ThreadPoolExecutor(max_workers=self.config.workers, thread_name_prefix="mc-chunk")
        self._closed = False
        self._lock = threading.Lock()

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> "Evaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._threads.shutdown(wait=True, cancel_futures=True)
        self._chunks.shutdown(wait=True, cancel_futures=True)
        self.pool.close()

    def warm_up(self) -> None:
        """Start all sandbox workers now (they otherwise start on first use)."""
        self.pool.start()

    # -------------------------------------------------------------- public API
    def evaluate(self, items: Sequence[Item], extract: bool = False,
                 sample_indices: Sequence[int] | None = None,
                 on_result: Callable[[int, SampleResult], None] | None = None) -> list[SampleResult]:
        """Judge every item; results come back in input order."""
        return in_input_order(self.evaluate_iter(items, extract, sample_indices), len(items), on_result)

    def evaluate_iter(self, items: Sequence[Item], extract: bool = False,
                      sample_indices: Sequence[int] | None = None) -> Iterator[tuple[int, SampleResult]]:
        """Yield ``(position, SampleResult)`` as samples finish (any order), bounded in flight."""
        indices = list(sample_indices) if sample_indices is not None else [0] * len(items)
        pending: set[Future[tuple[int, SampleResult]]] = set()
        limit = self.config.workers * 4
        it = iter(enumerate(items))
        exhausted = False
        while pending or not exhausted:
            while not exhausted and len(pending) < limit:
                try:
                    pos, (problem, text) = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending.add(self._threads.submit(self._one, pos, problem, text, extract, indices[pos]))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield fut.result()

    def evaluate_code(self, problem: Problem, code: str | None, sample_index: int = 0) -> SampleResult:
        """Judge one already-extracted program."""
        return self._one(0, problem, code, False, sample_index)[1]

    # -------------------------------------------------------------- internals
    def _one(self, pos: int, problem: Problem, text: str | None, extract: bool,
             sample_index: int) -> tuple[int, SampleResult]:
        """Judge one sample; whatever goes wrong while judging it becomes its own verdict."""
        try:
            return self._judge_one(pos, problem, text, extract, sample_index)
        except Exception as e:  # noqa: BLE001 - one sample must never cost the run or the batch
            res = SampleResult(problem.question_id, sample_index, Status.INFRA_ERROR, [], len(problem.tests), None)
            res.detail = f"judging failed: {type(e).__name__}: {e}"[:500]
            return pos, res

    def _judge_one(self, pos: int, problem: Problem, text: str | None, extract: bool,
                   sample_index: int) -> tuple[int, SampleResult]:
        code = extract_code(text, self.config.extract_mode) if extract else text
        tests = problem.tests
        base = SampleResult(problem.question_id, sample_index, Status.NO_CODE, [], len(tests), code)
        base.environment = self.environment(problem)
        if code is None or not code.strip():
            base.detail = "no code block found in the completion" if extract else "empty program"
            return pos, base
        if not tests:
            base.status = Status.INFRA_ERROR
            base.detail = "problem has no tests: refusing to pass it"
            return pos, base
        try:
            if self.config.mode == "lcb":
                results = self._run_lcb(problem, code)
            elif self.config.all_tests and len(tests) > 1 and self.config.workers > 1:
                results = self._run_flex_parallel(problem, code)
            else:
                results = self._run_flex(problem, code)
        except InfraError as e:
            base.status = Status.INFRA_ERROR
            base.detail = str(e)
            return pos, base
        base.tests = results
        failed = next((r for r in results if r.status is not Status.PASSED), None)
        if failed is not None:
            base.status = failed.status
            base.detail = f"test {failed.index}: {failed.detail}"
        elif len(results) == len(tests):
            base.status = Status.PASSED
        else:  # pragma: no cover - defensive
            base.status = Status.INFRA_ERROR
            base.detail = f"only {len(results)} of {len(tests)} tests ran"
        return pos, base

    def environment(self, problem: Problem) -> str:
        """Name of the environment a sample of ``problem`` runs in (recorded in its result)."""
        if self.config.mode == "lcb":
            return f"lcb@{self.config.lcb_version}"
        return run_flex.environment("functional" if problem.is_functional else "stdin")

    def _request(self, problem: Problem, code: str, style: str) -> dict[str, Any]:
        cfg = self.config
        timeout = problem.time_limit_s or cfg.timeout_s
        return {
            # a new token per sample: the sandbox gives each sample fresh scratch space
            "op": "run", "style": style, "code": code, "sample": uuid.uuid4().hex,
            "mode": "functional" if problem.is_functional else "stdin",
            "func_name": problem.func_name, "timeout_s": timeout,
            "wall_limit_s": timeout, "cpu_limit_s": timeout + 1,
            "memory_mb": cfg.memory_mb, "output_limit_bytes": cfg.output_limit_mb * 1024 * 1024,
            "max_processes": cfg.max_processes, "lcb_version": cfg.lcb_version,
        }

    def _call(self, worker: SandboxWorker, req: dict[str, Any],
              attempt: Callable[[SandboxWorker, dict[str, Any], float], dict[str, Any]] | None = None
              ) -> dict[str, Any]:
        """Send one request (through ``attempt``, default ``worker.run``), retrying on worker
        death; raises InfraError when retries run out."""
        last: Exception | None = None
        for _ in range(self.config.infra_retries + 1):
            try:
                deadline_s = float(req["wall_limit_s"]) + 30
                reply = attempt(worker, req, deadline_s) if attempt else worker.run(req, deadline_s)
            except InfraError as e:
                last = e
                continue
            if "infra_error" in reply:
                last = InfraError(reply["infra_error"])
                continue
            return reply
        raise InfraError(f"sandbox failed {self.config.infra_retries + 1} times: {last}")

    def _run_checker(self, worker: SandboxWorker, problem: Problem, test: Any, output: str) -> Comparison:
        """Run the problem's ``check(input, output, expected)`` in the sandbox (in a sample of its
        own: it comes from data, so it is contained like a solution and never sees one)."""
        cfg = self.config
        req = self._request(Problem(problem.question_id, func_name="check"), problem.checker or "", "flex")
        req.update(timeout_s=cfg.checker_timeout_s, wall_limit_s=cfg.checker_timeout_s,
                   cpu_limit_s=cfg.checker_timeout_s + 1,
                   input="\n".join(json.dumps(x) for x in (test.input, output, test.output)))
        return checker_verdict(self._call(worker, req))

    def _run_flex_parallel(self, problem: Problem, code: str) -> list[TestResult]:
        """All tests of one sample, in contiguous chunks on up to ``workers`` sandboxes."""
        n = len(problem.tests)
        k = min(n, self.config.workers)
        bounds = [(i * n // k, (i + 1) * n // k) for i in range(k)]
        futures = [self._chunks.submit(self._run_flex, problem, code, lo, hi) for lo, hi in bounds]
        results: list[TestResult] = []
        for fut in futures:
            results.extend(fut.result())
        return results

    def _budget_exhausted(self, indices: range) -> list[TestResult]:
        """Verdicts for tests the sample's time budget left no time for (the first, or all)."""
        out = [TestResult(i, Status.TIME_LIMIT, None, "sample time budget exhausted") for i in indices]
        return out if self.config.all_tests else out[:1]

    def _run_functional_batch(self, problem: Problem, code: str, lo: int, hi: int) -> list[TestResult]:
        """Functional tests ``lo..hi`` in as few processes as possible (a new one after a death)."""
        cfg = self.config
        tests = problem.tests
        results: list[TestResult] = []
        start = lo
        deadline = time.monotonic() + cfg.sample_budget_s if cfg.sample_budget_s else None
        with self.pool.worker() as worker:
            while start < hi:
                chunk = tests[start:hi]
                req = self._request(problem, code, "flex_batch")
                total = req["timeout_s"] * len(chunk) + 1
                if deadline is not None:
                    total = min(total, deadline - time.monotonic())
                    if total <= 0.01:
                        results.extend(self._budget_exhausted(range(start, hi)))
                        break
                req.update(inputs=[t.input for t in chunk], wall_limit_s=total, cpu_limit_s=total + 1)
                reply = self._call(worker, req)
                part, ended = judge_functional_batch(start, chunk, reply, problem.compare, cfg.memory_mb)
                results.extend(part)
                if not cfg.all_tests and any(r.status is not Status.PASSED for r in part):
                    first = next(k for k, r in enumerate(results) if r.status is not Status.PASSED)
                    return results[: first + 1]
                if not ended:
                    break
                start += len(part)
        return results

    def _run_flex(self, problem: Problem, code: str, lo: int = 0, hi: int | None = None) -> list[TestResult]:
        hi = len(problem.tests) if hi is None else hi
        if problem.is_functional and self.config.functional_batch:
            return self._run_functional_batch(problem, code, lo, hi)
        base_req = self._request(problem, code, "flex")
        results: list[TestResult] = []
        budget = self.config.sample_budget_s
        deadline = time.monotonic() + budget if budget else None
        with self.pool.worker() as worker:
            for i, test in enumerate(problem.tests[lo:hi], start=lo):
                req = dict(base_req, input=test.input)
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0.01:
                        results.extend(self._budget_exhausted(range(i, hi)))
                        break
                    req["wall_limit_s"] = min(req["wall_limit_s"], left)
                reply = self._call(worker, req)
                checker = None
                if problem.checker and not problem.is_functional:
                    checker = functools.partial(self._run_checker, worker, problem, test)
                res = judge_flex(i, test, reply, problem.is_functional, problem.compare, self.config.memory_mb,
                                 checker)
                results.append(res)
                if res.status is not Status.PASSED and not self.config.all_tests:
                    break
        return results

    def _run_lcb(self, problem: Problem, code: str) -> list[TestResult]:
        tests = problem.tests
        req = self._request(problem, code, "lcb")
        timeout = req["timeout_s"]
        # LiveCodeBench's global budget for a sample: (timeout + 1) * n_tests + 5 seconds
        req.update(inputs=[t.input for t in tests], wall_limit_s=(timeout + 1) * len(tests) + 5,
                   cpu_limit_s=(timeout + 1) * len(tests) + 5)
        with self.pool.worker() as worker:
            if self.config.all_tests or not hasattr(worker, "run_streaming"):
                reply = self._call(worker, req)
                return judge_lcb(tests, reply, problem.is_functional)
            return self._run_lcb_streaming(worker, req, tests, problem.is_functional)

    def _run_lcb_streaming(self, worker: Any, req: dict[str, Any], tests: list, functional: bool) -> list[TestResult]:
        """Stop at the first failing test, as LiveCodeBench does, with the comparison kept here:
        the worker hands over each result line as the child writes it, this judges it, and a
        mismatch stops the child (``on_line`` returns False). Needs the sandbox hook
        ``SandboxWorker.run_streaming(request, deadline_s, on_line)`` (see ``LcbJudge``)."""
        judges: list[LcbJudge] = []

        def attempt(w: SandboxWorker, r: dict[str, Any], deadline_s: float) -> dict[str, Any]:
            judge = LcbJudge(tests, functional)  # a fresh one for each (re)try
            judges.append(judge)

            def on_line(index: int, line: str) -> bool:
                if index != len(judge.results):  # lines arrive in order, once each
                    return False
                return judge.feed(line)

            return w.run_streaming(dict(r, stream=True), deadline_s, on_line)

        reply = self._call(worker, req, attempt)
        judge = judges[-1]
        if not judge.stopped:  # lines the worker did not stream (read after the child ended)
            lines = [ln for ln in reply.get("result", "").split("\n")[: len(tests) + 1] if ln.strip()]
            for line in lines[len(judge.results):]:
                if not judge.feed(line):
                    break
        results = judge.finish(reply)
        times = reply.get("times", [])
        for r in results:
            r.max_rss_mb = reply.get("max_rss_kb", 0) / 1024
            r.time_s = times[r.index] if r.index < len(times) else reply.get("time_s", 0.0)
        return results


def in_input_order(stream: Iterable[tuple[int, SampleResult]], n: int,
                   on_result: Callable[[int, SampleResult], None] | None = None) -> list[SampleResult]:
    """Collect ``(position, result)`` pairs arriving in any order into a list in input order."""
    out: list[SampleResult | None] = [None] * n
    for i, res in stream:
        out[i] = res
        if on_result:
            on_result(i, res)
    missing = [i for i, r in enumerate(out) if r is None]
    if missing:  # pragma: no cover - every executor yields each position exactly once
        raise InfraError(f"executor lost {len(missing)} results (first position {missing[0]})")
    return out  # type: ignore[return-value]


def safe_hide_paths(paths: Sequence[str]) -> list[str]:
    """Drop paths whose hiding would hide the interpreter or its import path."""
    import os
    import sys

    keep = []
    needed = [os.path.realpath(p) for p in [sys.prefix, sys.base_prefix, *sys.path] if p]
    for p in paths:
        rp = os.path.realpath(p)
        if os.path.isfile(rp) and not rp.endswith((".py", ".pth", ".so")):
            keep.append(rp)  # a data file (e.g. the problems file) can always be blanked
        elif os.path.isdir(rp) and rp != "/" and not any(n == rp or n.startswith(rp + os.sep) for n in needed):
            keep.append(rp)
    return keep


def evaluate(items: Iterable[Item], config: EvalConfig | None = None, extract: bool = False) -> list[SampleResult]:
    """One-shot helper: start an evaluator, judge ``items``, shut down."""
    with Evaluator(config) as ev:
        return ev.evaluate(list(items), extract=extract)
