"""Scaling of the Ray executor on one machine: samples/s with 1, 2 and 4 actors, per-sample overhead
of Ray against the local executor, and the driver's CPU per sample, all measured in one run.

For each actor count N the local executor with N sandbox workers and the Ray executor with N actors
of one worker each judge the same items (rounds alternate local/Ray so drifting machine load hits
both; verdicts are checked identical). Printed per N: samples/s of each, the ratio Ray/local
judging time, the extra wall time per sample Ray costs, and the CPU time the driver process spends
per sample (pickling batches, scheduling, collecting results). The last number bounds a cluster:
one driver can feed at most 1 / (driver CPU per sample) samples/s, whatever the number of nodes.

    python benchmarks/ray_scaling_bench.py                         # 1, 2, 4 actors, shipped samples
    python benchmarks/ray_scaling_bench.py --actors 1,2,4,8 --repeat 4 --batch-size 16 --rounds 2
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.evaluator import Evaluator  # noqa: E402
from microcoder_eval.executors.ray_executor import RayExecutor, connect_ray, import_ray  # noqa: E402
from microcoder_eval.executors.ray_options import RayExecutorOptions  # noqa: E402
from ray_overhead_bench import load_items, verdicts  # noqa: E402


def timed(ex, items) -> tuple[float, float, list]:
    """(wall s, driver CPU s, results) of judging ``items`` once."""
    w0, c0 = time.perf_counter(), time.process_time()
    res = ex.evaluate(items)
    return time.perf_counter() - w0, time.process_time() - c0, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default=str(ROOT / "data" / "lcb_sample_problems.jsonl"))
    ap.add_argument("--samples", default=str(ROOT / "data" / "lcb_sample_completions.jsonl"))
    ap.add_argument("--actors", default="1,2,4", help="comma-separated actor counts (one sandbox worker each)")
    ap.add_argument("--timeout", type=float, default=2.0, help="per-test time limit, seconds")
    ap.add_argument("--repeat", type=int, default=2, help="replicate the items this many times")
    ap.add_argument("--batch-size", type=int, default=8, help="samples per Ray task")
    ap.add_argument("--rounds", type=int, default=3, help="judging rounds per executor and actor count")
    ap.add_argument("--json", help="also write the measurements to this JSON file")
    args = ap.parse_args()
    counts = sorted({int(x) for x in args.actors.split(",") if x.strip()})

    items = load_items(args.problems, args.samples, True, args.repeat)
    n_tests = sum(len(p.tests) for p, _ in items)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"items: {len(items)} samples ({n_tests} tests, all run), per-test timeout {args.timeout}s, "
          f"ray batch size {args.batch_size}, {args.rounds} rounds, machine: {os.cpu_count()} CPUs")
    ray = import_ray()
    connect_ray(None, num_cpus=max(counts))
    rows = []
    try:
        for n in counts:
            cfg = EvalConfig(workers=n, timeout_s=args.timeout, all_tests=True)
            local = Evaluator(cfg)
            local.warm_up()
            t0 = time.perf_counter()
            remote = RayExecutor(dataclasses.replace(cfg, executor="ray"),
                                 RayExecutorOptions(batch_size=args.batch_size, num_actors=n, cpus_per_actor=1))
            start = time.perf_counter() - t0
            lw, rw, rc, same = [], [], [], True
            want = verdicts(local.evaluate(items))  # warm-up pass (page cache, imports), not timed
            try:
                for k in range(args.rounds):  # alternate who goes first, so load drift hits both
                    for name in (("local", "ray") if k % 2 == 0 else ("ray", "local")):
                        if name == "local":
                            w, _, res = timed(local, items)
                            lw.append(w)
                        else:
                            w, c, res = timed(remote, items)
                            rw.append(w)
                            rc.append(c)
                        same = same and verdicts(res) == want
            finally:
                remote.close()
                local.close()
            lt, rt, cpu = statistics.median(lw), statistics.median(rw), statistics.median(rc)
            rows.append({"actors": n, "local_s": lt, "ray_s": rt, "local_rounds_s": lw, "ray_rounds_s": rw, "local_sps": len(items) / lt,
                         "ray_sps": len(items) / rt, "ratio": rt / lt,
                         "overhead_ms_per_sample": 1000 * (rt - lt) / len(items),
                         "driver_cpu_ms_per_sample": 1000 * cpu / len(items), "actors_start_s": start,
                         "verdicts_identical": same})
    finally:
        if ray.is_initialized():
            ray.shutdown()

    base = rows[0]["ray_sps"]
    print("| actors (1 worker each) | local samples/s | Ray samples/s | Ray speed-up vs 1 actor | "
          "Ray / local time | Ray overhead ms/sample | driver CPU ms/sample | actors start s | same verdicts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['actors']} | {r['local_sps']:.1f} | {r['ray_sps']:.1f} | {r['ray_sps'] / base:.2f}x | "
              f"{r['ratio']:.2f}x | {r['overhead_ms_per_sample']:+.1f} | {r['driver_cpu_ms_per_sample']:.2f} | "
              f"{r['actors_start_s']:.2f} | {r['verdicts_identical']} |")
    for r in rows:
        print(f"actors {r['actors']}: local rounds {' '.join(f'{t:.2f}' for t in r['local_rounds_s'])} s, "
              f"ray rounds {' '.join(f'{t:.2f}' for t in r['ray_rounds_s'])} s (median used)")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    cpu = max(r["driver_cpu_ms_per_sample"] for r in rows)
    print(f"driver ceiling: 1 / {cpu:.2f} ms = about {1000 / cpu:.0f} samples/s for one driver "
          "(worst driver CPU per sample above)")
    if args.json:
        Path(args.json).write_text(json.dumps({"samples": len(items), "tests": n_tests,
                                               "batch_size": args.batch_size, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
