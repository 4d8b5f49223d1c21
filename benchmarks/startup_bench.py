"""Start-up cost of the command line: ``microcoder-eval --help`` and a one-sample ``evaluate``
until its first test request goes to a sandbox worker ("before judging starts").

Each run is a fresh interpreter (``python -m microcoder_eval.cli``); the clock starts just
before the process is spawned, so interpreter start-up is included. Runs of the two commands
are interleaved; medians are printed. ``--importtime`` also prints the slowest top-level imports
of each command (``python -X importtime``).

    python benchmarks/startup_bench.py [--runs 7] [--importtime]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# run inside the measured process: note the time of the first test request, then stop
PROBE = r"""
import os, sys, time
T0 = float(os.environ["MC_T0"])
from microcoder_eval.sandbox import pool
_send = pool.SandboxWorker._send
def _first(self, header, blobs):
    if header.get("op") == "run":
        os.write(2, ("FIRST_REQUEST %.4f\n" % (time.time() - T0)).encode())
        os._exit(0)
    return _send(self, header, blobs)
pool.SandboxWorker._send = _first
from microcoder_eval.cli import main
sys.exit(main(sys.argv[1:]))
"""


def run(argv: list[str], env: dict) -> float:
    env = dict(env, MC_T0=repr(time.time()))
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    for line in p.stderr.splitlines():
        if line.startswith("FIRST_REQUEST "):
            return float(line.split()[1])
    if p.returncode != 0:
        raise SystemExit(f"{argv} failed: {p.stderr[-1000:]}")
    return wall


def importtime(argv: list[str], env: dict, top: int) -> None:
    p = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], env=dict(env, MC_T0=repr(time.time())),
                       capture_output=True, text=True, cwd=ROOT)
    rows = []
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cum, name = line[len("import time:"):].split("|")
        if not name.startswith("  "):  # top level (one space after the bar)
            rows.append((int(cum), name.strip()))
    print(f"  top-level imports: {sum(c for c, _ in rows) / 1000:.0f} ms in all; slowest:")
    for c, n in sorted(rows, reverse=True)[:top]:
        print(f"    {c / 1000:6.1f} ms  {n}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--importtime", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    tmp = tempfile.mkdtemp(prefix="mc-startup-")
    prob = json.loads(open(ROOT / "data" / "lcb_sample_problems.jsonl").readline())
    comp = next(c for c in map(json.loads, open(ROOT / "data" / "lcb_sample_completions.jsonl"))
                if c["question_id"] == prob["question_id"])
    Path(tmp, "p.jsonl").write_text(json.dumps(prob) + "\n")
    Path(tmp, "s.jsonl").write_text(json.dumps(comp) + "\n")
    py = sys.executable
    cmds = {
        "python -c pass (interpreter alone)": [py, "-c", "pass"],
        "microcoder-eval --help": [py, "-m", "microcoder_eval.cli", "--help"],
        "evaluate, 1 sample: start -> first test request": [
            py, "-c", PROBE, "evaluate", "--problems", f"{tmp}/p.jsonl", "--samples", f"{tmp}/s.jsonl",
            "--out", f"{tmp}/out.jsonl", "--overwrite", "--no-progress", "--workers", "1"],
    }
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(args.runs):
        for k, argv in cmds.items():
            times[k].append(run(argv, env))
    print(f"start-up, median of {args.runs} fresh processes, interleaved (s)")
    print("| command | median s | min s |")
    print("|---|---|---|")
    for k, ts in times.items():
        print(f"| {k} | {statistics.median(ts):.3f} | {min(ts):.3f} |")
    if args.importtime:
        for k, argv in list(cmds.items())[1:]:
            print(f"\n{k}:")
            importtime(argv, env, args.top)


if __name__ == "__main__":
    main()
