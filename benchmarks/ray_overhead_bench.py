"""Throughput of the local executor vs the Ray executor on one machine, measured in one run.

Both judge the same items with the same number of sandbox workers; Ray runs a loopback-only local
instance with that many CPUs (one actor holding them all, or --actors N of workers/N each).
Start-up (warm workers; Ray: instance + actors) is timed apart from judging, and the rounds
alternate local/Ray so drifting machine load hits both. The ratio printed is Ray time / local
time for judging (the executor's overhead: task batching, pickling, scheduling), and with
start-up included.

    python benchmarks/ray_overhead_bench.py                               # shipped sample data
    python benchmarks/ray_overhead_bench.py --workers 2 --repeat 5 --batch-size 16 --rounds 3
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.evaluator import Evaluator  # noqa: E402
from microcoder_eval.executors.ray_executor import RayExecutor, connect_ray, import_ray  # noqa: E402
from microcoder_eval.executors.ray_options import RayExecutorOptions  # noqa: E402
from microcoder_eval.extraction import extract_code  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.samples import load_samples  # noqa: E402


def load_items(problems_path: str, samples_path: str, skip_slow: bool, repeat: int) -> list:
    problems = {p.question_id: p for p in load_problems(problems_path)}
    slow = set()
    if skip_slow and samples_path.endswith(".jsonl"):
        seen: dict[str, int] = {}
        for line in open(samples_path):
            rec = json.loads(line)
            k = seen.get(rec["question_id"], 0)
            seen[rec["question_id"]] = k + 1
            if rec.get("expect_status") in ("time_limit", "memory_limit"):
                slow.add((rec["question_id"], k))
    items = [(problems[s.question_id], s.text if s.is_code else extract_code(s.text))
             for s in load_samples(samples_path) if s.question_id in problems and s.key not in slow]
    return items * repeat


def verdicts(results: list) -> list:
    return [(r.question_id, r.status, [(t.index, t.status, t.rule) for t in r.tests]) for r in results]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default=str(ROOT / "data" / "lcb_sample_problems.jsonl"))
    ap.add_argument("--samples", default=str(ROOT / "data" / "lcb_sample_completions.jsonl"))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="sandbox workers in both executors")
    ap.add_argument("--timeout", type=float, default=2.0, help="per-test time limit, seconds")
    ap.add_argument("--mode", default="flex", choices=("flex", "lcb"))
    ap.add_argument("--repeat", type=int, default=3, help="replicate the items this many times")
    ap.add_argument("--batch-size", type=int, default=16, help="samples per Ray task")
    ap.add_argument("--actors", type=int, default=0, help="Ray actors (0 = one holding all workers)")
    ap.add_argument("--rounds", type=int, default=2, help="judging rounds per executor (alternating)")
    ap.add_argument("--keep-slow", dest="skip_slow", action="store_false",
                    help="keep samples labelled time/memory limit (they measure the timeout, not the executor)")
    ap.add_argument("--json", help="also write the measurements to this JSON file")
    args = ap.parse_args()

    items = load_items(args.problems, args.samples, args.skip_slow, args.repeat)
    n_tests = sum(len(p.tests) for p, _ in items)
    cfg = EvalConfig(workers=args.workers, timeout_s=args.timeout, mode=args.mode, all_tests=True)
    print(f"items: {len(items)} samples ({n_tests} tests), workers {args.workers}, mode {args.mode}, "
          f"per-test timeout {args.timeout}s, all tests, ray batch size {args.batch_size}, "
          f"actors {args.actors or 1}, {args.rounds} rounds")

    t0 = time.perf_counter()
    local = Evaluator(cfg)
    local.warm_up()
    local_start = time.perf_counter() - t0

    ray = import_ray()
    t0 = time.perf_counter()
    connect_ray(None, num_cpus=args.workers)
    ray_init = time.perf_counter() - t0
    opts = RayExecutorOptions(batch_size=args.batch_size, num_actors=args.actors,
                              cpus_per_actor=args.workers // args.actors if args.actors else 0)
    t0 = time.perf_counter()
    remote = RayExecutor(dataclasses.replace(cfg, executor="ray"), opts)
    actors_start = time.perf_counter() - t0

    times: dict[str, list[float]] = {"local": [], "ray": []}
    same = True
    try:
        for _ in range(args.rounds):
            for name, ex in (("local", local), ("ray", remote)):
                t0 = time.perf_counter()
                res = ex.evaluate(items)
                times[name].append(time.perf_counter() - t0)
                if name == "local":
                    want = verdicts(res)
                else:
                    same = same and verdicts(res) == want
        stats = remote.describe_stats()
    finally:
        remote.close()
        local.close()
        if ray.is_initialized():
            ray.shutdown()

    lt, rt = statistics.median(times["local"]), statistics.median(times["ray"])
    print(f"{'executor':8} {'start s':>9} {'judge s (median)':>17} {'rounds':>24} {'samples/s':>10} {'tests/s':>9}")
    print(f"{'local':8} {local_start:9.2f} {lt:17.2f} {' '.join(f'{t:.2f}' for t in times['local']):>24} "
          f"{len(items) / lt:10.1f} {n_tests / lt:9.1f}")
    print(f"{'ray':8} {ray_init + actors_start:9.2f} {rt:17.2f} {' '.join(f'{t:.2f}' for t in times['ray']):>24} "
          f"{len(items) / rt:10.1f} {n_tests / rt:9.1f}")
    print(f"ray start-up: {ray_init:.2f}s instance + {actors_start:.2f}s actors; {stats}")
    print(f"verdicts identical: {same}")
    ratio = rt / lt
    total_ratio = (rt + ray_init + actors_start) / (lt + local_start)
    print(f"overhead ratio (ray / local judging time): {ratio:.3f}x")
    print(f"overhead ratio with start-up, one judging pass: {total_ratio:.3f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "samples": len(items), "tests": n_tests, "workers": args.workers, "batch_size": args.batch_size,
            "actors": args.actors or 1, "mode": args.mode, "local_start_s": local_start,
            "ray_init_s": ray_init, "ray_actors_start_s": actors_start, "local_judge_s": times["local"],
            "ray_judge_s": times["ray"], "overhead_ratio": ratio, "overhead_ratio_with_startup": total_ratio,
            "verdicts_identical": same}, indent=2))


if __name__ == "__main__":
    main()
