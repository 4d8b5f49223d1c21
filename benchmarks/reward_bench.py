"""Reward throughput for one GRPO batch of 64 completions (8 problems x 8), cold vs warm, one run.

cold  = a new EvaluatorReward (sandbox workers start) scoring the batch
warm  = the same reward object scoring a fresh batch of the same shape (workers already up,
        cache off, so every completion really runs)
cached = the warm object scoring the first batch again (every (problem, code) is a cache hit)

    python benchmarks/reward_bench.py [--workers N] [--policy binary|fraction] [--breakdown]

``--breakdown`` then splits a third fresh batch's warm call into its steps (rows -> problems,
extraction, the executor's judging) and times the floor (evaluator_bench's bare fork per test
from warm processes, same workers) on the same (problem, code) pairs, interleaved.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.reward import EvaluatorReward, RewardConfig  # noqa: E402


def build_batch(records: dict, completions: list[dict], variant: int) -> tuple[list[str], dict]:
    """8 problems x 8 completions drawn from the shipped sample set (no TLE/MLE cases)."""
    by_q: dict[str, list[str]] = {}
    for c in completions:
        if c["expect_status"] in ("time_limit", "memory_limit"):
            continue
        by_q.setdefault(c["question_id"], []).append(c["completion"])
    qids = [q for q in by_q if q in records][:8]
    texts, rows = [], []
    for q in qids:
        pool = by_q[q]
        for j in range(8):
            # a trailing comment makes each variant's code distinct, so nothing is cached
            texts.append(pool[j % len(pool)].replace("```python\n", f"```python\n# v{variant}.{j}\n", 1))
            rows.append(records[q])
    cols = {k: [r[k] for r in rows] for k in rows[0]}
    return texts, cols


def call(reward: EvaluatorReward, texts: list[str], cols: dict) -> tuple[float, list]:
    t0 = time.perf_counter()
    out = reward(prompts=["p"] * len(texts), completions=texts, completion_ids=[[0]] * len(texts),
                 trainer_state=None, **cols)
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--policy", default="binary", choices=["binary", "fraction"])
    ap.add_argument("--timeout", type=float, default=6.0)
    ap.add_argument("--breakdown", action="store_true", help="split a warm call into its steps, with the floor")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the breakdown")
    args = ap.parse_args()
    records = {r["question_id"]: r for r in map(json.loads, open(ROOT / "data" / "lcb_sample_problems.jsonl"))}
    completions = [json.loads(l) for l in open(ROOT / "data" / "lcb_sample_completions.jsonl")]
    batch1, batch2 = build_batch(records, completions, 1), build_batch(records, completions, 2)
    cfg = RewardConfig(policy=args.policy, workers=args.workers, timeout_s=args.timeout)
    reward = EvaluatorReward(cfg)
    try:
        cold, r1 = call(reward, *batch1)
        warm, r2 = call(reward, *batch2)
        cached, r3 = call(reward, *batch1)
        steps = breakdown(reward, build_batch(records, completions, 3), args) if args.breakdown else None
    finally:
        reward.close()
    n = len(batch1[0])
    assert r1 == r3, "cache changed a reward"
    print(f"batch: {n} completions (8 problems x 8), policy {args.policy}, workers {args.workers}")
    print(f"{'call':8} {'wall s':>8} {'rewards/s':>10} {'vs cold':>8}")
    for name, t in (("cold", cold), ("warm", warm), ("cached", cached)):
        print(f"{name:8} {t:8.3f} {n / t:10.1f} {cold / t:7.2f}x")
    print(f"mean reward {sum(x for x in r1 if x is not None) / n:.3f}; None rewards: {sum(x is None for x in r1)}")
    if steps:
        print("\nwarm call, split (ms, median of rounds; floor on the same pairs):")
        for k, v in steps.items():
            print(f"  {k:52} {v}")


def breakdown(reward: EvaluatorReward, batch: tuple[list[str], dict], args) -> dict:
    """Steps of a warm call on fresh code, and the floor for the same (problem, code) pairs."""
    import statistics

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from evaluator_bench import Floor, Item  # noqa: E402

    from microcoder_eval.extraction import extract_code

    texts, cols = batch
    rows = [{k: cols[k][i] for k in cols} for i in range(len(texts))]
    t: dict[str, list[float]] = {}

    def timed(name, fn):
        t0 = time.perf_counter()
        out = fn()
        t.setdefault(name, []).append(time.perf_counter() - t0)
        return out

    floor = Floor(args.workers, args.timeout, reward.config.policy == "fraction")
    try:
        for r in range(args.rounds):
            problems = timed("rows -> problems (problem_for, memoised)", lambda: [reward.problem_for(x) for x in rows])
            codes = timed("extract_code x64", lambda: [extract_code(x, reward.eval_config.extract_mode) for x in texts])
            uniq = list({(id(p), c): (p, c) for p, c in zip(problems, codes) if c}.values())
            # a new variant comment per round: nothing cached, every pair really runs
            items = [(p, f"# round {r}\n{c}") for p, c in uniq]
            res = timed("executor.evaluate (sandbox + judging)", lambda: reward.executor.evaluate(items))
            timed("floor: bare fork per test, same pairs", lambda: floor.run([Item(p, c) for p, c in items]))
    finally:
        floor.close()
    out = {k: f"{statistics.median(v) * 1000:8.1f}" for k, v in t.items()}
    tests = sum(len(x.tests) for x in res)
    out["pairs judged / tests run (last round)"] = f"{len(items)} / {tests}"
    out["sum of per-test time_s in the sandbox (s)"] = f"{sum(x.time_s or 0 for r in res for x in r.tests):.3f}"
    return out


if __name__ == "__main__":
    main()
