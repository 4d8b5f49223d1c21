"""Evaluator throughput: microcoder (flex and lcb modes) vs a naive baseline, measured in one run.

The naive baseline is what many RL codebases do: one fresh ``python3`` subprocess per test
(``subprocess.run`` with a timeout), output compared after ``strip()``, run on a thread pool
with the same worker count. All runs use every test (no early stop) unless --first-failure,
the same per-test timeout and the same items.

    python benchmarks/evaluator_bench.py                      # shipped sample data
    python benchmarks/evaluator_bench.py --problems P --samples S --workers 2 --timeout 6
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.evaluator import Evaluator  # noqa: E402
from microcoder_eval.extraction import extract_code  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.samples import load_samples  # noqa: E402

FUNC_HARNESS = """
import json, sys
from typing import *
exec(compile(open(sys.argv[1]).read(), 'solution.py', 'exec'))
args = [json.loads(l) for l in sys.stdin.read().split('\\n')]
fn = getattr(Solution(), sys.argv[2]) if 'Solution' in globals() else globals()[sys.argv[2]]
print(json.dumps(fn(*args)))
"""


def naive_run(items, workers: int, timeout: float, first_failure: bool) -> tuple[int, int]:
    """One python3 process per test; returns (tests run, samples passed)."""
    tmp = tempfile.mkdtemp(prefix="naive-bench-")
    harness = os.path.join(tmp, "harness.py")
    Path(harness).write_text(FUNC_HARNESS)

    def one(idx_item):
        idx, (problem, code) = idx_item
        if code is None:
            return 0, False
        path = os.path.join(tmp, f"s{idx}.py")
        Path(path).write_text(code)
        ran, ok = 0, True
        for t in problem.tests:
            cmd = [sys.executable, harness, path, problem.func_name] if problem.is_functional else [sys.executable, path]
            ran += 1
            try:
                p = subprocess.run(cmd, input=t.input, capture_output=True, text=True, timeout=timeout)
                passed = p.returncode == 0 and p.stdout.strip() == t.output.strip()
            except subprocess.TimeoutExpired:
                passed = False
            ok = ok and passed
            if not passed and first_failure:
                break
        return ran, ok

    with ThreadPoolExecutor(workers) as pool:
        out = list(pool.map(one, enumerate(items)))
    return sum(r for r, _ in out), sum(ok for _, ok in out)


def ours(items, workers: int, timeout: float, mode: str, first_failure: bool) -> tuple[int, int]:
    cfg = EvalConfig(workers=workers, timeout_s=timeout, mode=mode, all_tests=not first_failure)
    with Evaluator(cfg) as ev:
        ev.warm_up()
        results = ev.evaluate(items)
    return sum(len(r.tests) for r in results), sum(r.passed for r in results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default=str(ROOT / "data" / "lcb_sample_problems.jsonl"))
    ap.add_argument("--samples", default=str(ROOT / "data" / "lcb_sample_completions.jsonl"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3, help="replicate the items this many times")
    ap.add_argument("--first-failure", action="store_true", help="stop each sample at its first failing test")
    ap.add_argument("--skip-slow", action="store_true", default=True,
                    help="drop samples labelled time/memory limit (they measure the timeout, not the runner)")
    ap.add_argument("--keep-slow", dest="skip_slow", action="store_false")
    args = ap.parse_args()

    problems = {p.question_id: p for p in load_problems(args.problems)}
    slow = set()
    if args.skip_slow and args.samples.endswith(".jsonl"):
        import json

        seen: dict[str, int] = {}
        for line in open(args.samples):
            rec = json.loads(line)
            k = seen.get(rec["question_id"], 0)
            seen[rec["question_id"]] = k + 1
            if rec.get("expect_status") in ("time_limit", "memory_limit"):
                slow.add((rec["question_id"], k))
    items = []
    for s in load_samples(args.samples):
        if s.question_id not in problems or s.key in slow:
            continue
        items.append((problems[s.question_id], s.text if s.is_code else extract_code(s.text)))
    items = items * args.repeat
    print(f"items: {len(items)} samples, workers {args.workers}, per-test timeout {args.timeout}s, "
          f"{'first-failure' if args.first_failure else 'all tests'}")
    rows = []
    for name, fn in [("naive subprocess/test", lambda: naive_run(items, args.workers, args.timeout, args.first_failure)),
                     ("microcoder flex", lambda: ours(items, args.workers, args.timeout, "flex", args.first_failure)),
                     ("microcoder lcb-emulation", lambda: ours(items, args.workers, args.timeout, "lcb", args.first_failure))]:
        t0 = time.perf_counter()
        tests, passed = fn()
        wall = time.perf_counter() - t0
        rows.append((name, wall, tests, passed))
    base = rows[0][1]
    print(f"{'runner':28} {'wall s':>8} {'tests':>7} {'tests/s':>9} {'passed':>7} {'speed-up vs naive':>18}")
    for name, wall, tests, passed in rows:
        print(f"{name:28} {wall:8.2f} {tests:7d} {tests / wall:9.1f} {passed:7d} {base / wall:17.2f}x")


if __name__ == "__main__":
    main()
