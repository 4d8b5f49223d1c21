"""Reward throughput for one GRPO batch of 64 completions (8 problems x 8), cold vs warm, one run.

cold  = a new EvaluatorReward (sandbox workers start) scoring the batch
warm  = the same reward object scoring a fresh batch of the same shape (workers already up,
        cache off, so every completion really runs)
cached = the warm object scoring the first batch again (every (problem, code) is a cache hit)

    python benchmarks/reward_bench.py [--workers N] [--policy binary|fraction]
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
    finally:
        reward.close()
    n = len(batch1[0])
    assert r1 == r3, "cache changed a reward"
    print(f"batch: {n} completions (8 problems x 8), policy {args.policy}, workers {args.workers}")
    print(f"{'call':8} {'wall s':>8} {'rewards/s':>10} {'vs cold':>8}")
    for name, t in (("cold", cold), ("warm", warm), ("cached", cached)):
        print(f"{name:8} {t:8.3f} {n / t:10.1f} {cold / t:7.2f}x")
    print(f"mean reward {sum(x for x in r1 if x is not None) / n:.3f}; None rewards: {sum(x is None for x in r1)}")


if __name__ == "__main__":
    main()
