"""Judge wall time: microcoder flex, microcoder lcb mode, the floor and LiveCodeBench's own grader,
measured in one run, interleaved, on the same samples.

Judges (each stops a sample at its first failing test unless --all-tests):

* ``flex``  : ``Evaluator(mode="flex")`` (the default judge), workers started before timing;
* ``lcb``   : ``Evaluator(mode="lcb")`` (LiveCodeBench's grader reproduced in our sandbox);
* ``floor`` : the solutions' own cost: each test forked bare from a warm process (``workers``
  processes), no sandbox, no limits but the timeout, a whitespace-token check only to know where
  the first failure is (functional: the JSON value);
* ``LCB``   : LiveCodeBench's grader itself, run as its ``codegen_metrics`` runs it
  (``evaluate_generations``: a process pool of ``workers`` over problems, one
  ``multiprocessing.Manager`` + ``Process`` per sample, ``run_test`` with its SIGALRM timeouts),
  imported from a checkout given with ``--lcb-src`` (never vendored):

      git --git-dir=<LiveCodeBench git dir> archive --format=tar HEAD lcb_runner/evaluation \\
          lcb_runner/utils | tar -x -C /tmp/lcb_src

Sets: the floor runs first on every sample and splits them into samples *without* a time-limit
case (no test reaches the timeout bare) and *with* one; each judge is then timed on the
no-time-limit set and on all samples, judges interleaved (order rotated every round). Samples
expected to exhaust memory are left out (LiveCodeBench and the floor set no memory limit).

    python benchmarks/evaluator_bench.py --lcb-src /tmp/lcb_src            # shipped + real data
    python benchmarks/evaluator_bench.py --data real --limit 120 --rounds 2 --lcb-src /tmp/lcb_src
    python benchmarks/evaluator_bench.py --tiny                             # CI: well under a minute
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import select
import signal
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.evaluator import Evaluator  # noqa: E402
from microcoder_eval.extraction import extract_code  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.problem import Problem  # noqa: E402
from microcoder_eval.samples import load_samples  # noqa: E402

REAL_PROBLEMS = "lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl"
REAL_GENS = "lcb_generations/lcb_submissions_O1-Preview-2024-09-12_N1_codegeneration_1_0.2_eval_all.json"


@dataclass
class Item:
    problem: Problem
    code: str | None
    tl: bool = False  # the floor saw a test reach the timeout


def find_real() -> Path | None:
    """``../shared/real`` next to the checkout or next to any folder above it (git worktrees)."""
    for base in ROOT.parents:
        if (base / "shared" / "real" / REAL_GENS).exists():
            return base / "shared" / "real"
    return None


def load_items(dataset: str, limit: int) -> list[Item]:
    if dataset == "shipped":
        problems = {p.question_id: p for p in load_problems(ROOT / "data" / "lcb_sample_problems.jsonl")}
        recs = [json.loads(line) for line in open(ROOT / "data" / "lcb_sample_completions.jsonl")]
        samples = load_samples(ROOT / "data" / "lcb_sample_completions.jsonl")
        items = [Item(problems[s.question_id], extract_code(s.text))
                 for s, r in zip(samples, recs)
                 if s.question_id in problems and r.get("expect_status") != "memory_limit"]
    else:
        real = find_real()
        if real is None:
            return []
        problems = {p.question_id: p for p in load_problems(real / REAL_PROBLEMS)}
        items = [Item(problems[s.question_id], s.text if s.is_code else extract_code(s.text))
                 for s in load_samples(real / REAL_GENS) if s.question_id in problems]
    items = [it for it in items if it.code and it.code.strip() and it.problem.tests]
    return items[:limit] if limit else items


# ------------------------------------------------------------------------------------ floor
_LEETCODE_NS: dict = {}


def _floor_init() -> None:
    from microcoder_eval.sandbox import run_flex

    run_flex.prepare()  # the same warm imports our zygote has: the floor pays no import either
    _LEETCODE_NS.update(run_flex.LEETCODE_NS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _floor_child(code: str, problem_functional: bool, func_name: str | None, inp: str, out_fd: int) -> None:
    in_fd = os.memfd_create("in")
    os.write(in_fd, inp.encode())
    os.lseek(in_fd, 0, os.SEEK_SET)
    os.dup2(in_fd, 0)
    os.dup2(out_fd, 1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    sys.stdin = open(0, "r", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
    code_ok = 0
    try:
        if problem_functional:
            sys.setrecursionlimit(50000)
            ns = dict(_LEETCODE_NS, __name__="__main__", __builtins__=__builtins__)
            exec(compile(code, "solution.py", "exec"), ns)
            args = [json.loads(line) for line in inp.split("\n") if line.strip()]
            fn = getattr(ns["Solution"](), func_name) if "Solution" in ns else ns[func_name]
            res = fn(*args)
            sys.stdout.write(json.dumps(list(res) if isinstance(res, tuple) else res))
        else:
            exec(compile(code, "solution.py", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as e:
        code_ok = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001
        code_ok = 1
    try:
        if "threading" in sys.modules:  # as interpreter shutdown does: wait for non-daemon threads
            sys.modules["threading"]._shutdown()
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(code_ok & 0xFF)


def _tokens_match(got: list[str], want: list[str]) -> bool:
    """Where the first failure is, cheaply: equal tokens, or numbers within 1e-6 (as flex allows)."""
    if got == want:
        return True
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a != b:
            try:
                x, y = float(a), float(b)
            except ValueError:
                return False
            if not abs(x - y) <= 1e-6 * max(1.0, abs(y)):
                return False
    return True


def _floor_sample(args: tuple) -> tuple[int, bool, bool]:
    """One sample in this warm process: a bare fork per test. Returns (tests run, passed, TL)."""
    code, functional, func_name, tests, timeout, all_tests = args
    ran, ok, tl = 0, True, False
    for inp, expected in tests:
        out_fd = os.memfd_create("out")
        pid = os.fork()
        if pid == 0:
            _floor_child(code, functional, func_name, inp, out_fd)
        ran += 1
        pfd = os.pidfd_open(pid)
        timed_out = not select.select([pfd], [], [], timeout)[0]
        if timed_out:
            os.kill(pid, signal.SIGKILL)
            tl = True
        os.close(pfd)
        _, status = os.waitpid(pid, 0)
        os.lseek(out_fd, 0, os.SEEK_SET)  # read what is there (a 64 MiB read buffer alone costs ms)
        out = os.read(out_fd, min(os.fstat(out_fd).st_size, 1 << 26)).decode("utf-8", "replace")
        os.close(out_fd)
        good = not timed_out and status == 0
        if good:
            if functional:
                try:
                    good = json.loads(out) == json.loads(expected)
                except ValueError:
                    good = False
            else:
                good = _tokens_match(out.split(), expected.split())
        ok = ok and good
        if not good and not all_tests:
            break
    return ran, ok, tl


class Floor:
    def __init__(self, workers: int, timeout: float, all_tests: bool) -> None:
        self.pool = multiprocessing.get_context("fork").Pool(workers, initializer=_floor_init)
        self.timeout, self.all_tests = timeout, all_tests
        self.pool.map(time.sleep, [0.01] * workers)  # workers up and warm before timing

    def run(self, items: list[Item]) -> tuple[int, int, list[bool]]:
        jobs = [(it.code, it.problem.is_functional, it.problem.func_name,
                 [(t.input, t.output) for t in it.problem.tests], self.timeout, self.all_tests) for it in items]
        out = self.pool.map(_floor_sample, jobs, chunksize=1)
        return sum(r for r, _, _ in out), sum(ok for _, ok, _ in out), [tl for _, _, tl in out]

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()


# ------------------------------------------------------------------------------------ ours
class Ours:
    def __init__(self, mode: str, workers: int, timeout: float, all_tests: bool) -> None:
        t0 = time.perf_counter()
        self.ev = Evaluator(EvalConfig(workers=workers, timeout_s=timeout, mode=mode, all_tests=all_tests))
        self.ev.warm_up()
        self.start_s = time.perf_counter() - t0

    def run(self, items: list[Item]) -> tuple[int, int]:
        res = self.ev.evaluate([(it.problem, it.code) for it in items])
        return sum(len(r.tests) for r in res), sum(r.passed for r in res)

    def memory_kb(self) -> list[int]:
        """Proportional set size of each worker's process tree (bubblewrap, manager, zygote, spare init)."""
        return [_tree_pss_kb(w.proc.pid) for w in self.ev.pool.workers if w.proc is not None]

    def close(self) -> None:
        self.ev.close()


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _tree_pss_kb(pid: int) -> int:
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += _children(p)
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return total


# ------------------------------------------------------------------------------------ LiveCodeBench
class LiveCodeBench:
    def __init__(self, src: str, workers: int, timeout: float) -> None:
        sys.path.insert(0, os.path.abspath(src))
        from lcb_runner.evaluation import compute_code_generation_metrics as ccgm

        class _Quiet:  # LiveCodeBench's tqdm bar, silenced (no effect on its work)
            def __init__(self, *a, **k) -> None:
                pass

            def __enter__(self):
                return self

            def __exit__(self, *a) -> None:
                pass

            def update(self, *a) -> None:
                pass

        ccgm.tqdm = _Quiet
        self.ccgm, self.workers, self.timeout = ccgm, workers, max(1, int(round(timeout)))
        self.start_s = 0.0

    def run(self, items: list[Item]) -> tuple[int, int]:
        by_problem: dict[str, list] = {}
        for it in items:
            by_problem.setdefault(it.problem.question_id, [it.problem, []])[1].append(it.code)
        samples = [{"input_output": json.dumps({"inputs": [t.input for t in p.tests],
                                                "outputs": [t.output for t in p.tests],
                                                "fn_name": p.func_name if p.is_functional else None})}
                   for p, _ in by_problem.values()]
        gens = [codes for _, codes in by_problem.values()]
        devnull = os.open(os.devnull, os.O_WRONLY)
        saved = os.dup(1)
        os.dup2(devnull, 1)  # its run_test prints ("timeout occured: alarm went off")
        try:
            res, _ = self.ccgm.evaluate_generations(samples, gens, debug=False,
                                                    num_process_evaluate=self.workers, timeout=self.timeout)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            os.close(devnull)
        runs = [r for per_problem in res.values() for r in per_problem]
        return sum(len(r) for r in runs), sum(all(x is True for x in r) for r in runs)

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------------ driver
def time_judges(judges: dict, items: list[Item], rounds: int) -> dict[str, dict]:
    """Each judge on ``items``, ``rounds`` times, interleaved (order rotated every round)."""
    names = list(judges)
    walls: dict[str, list[float]] = {n: [] for n in names}
    info: dict[str, dict] = {}
    for r in range(rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for n in order:
            t0 = time.perf_counter()
            out = judges[n].run(items)
            walls[n].append(time.perf_counter() - t0)
            info[n] = {"tests": out[0], "passed": out[1]}
    for n in names:
        info[n]["wall"] = statistics.median(walls[n])
        info[n]["walls"] = walls[n]
    return info


def ratio(info: dict, a: str, b: str) -> str:
    if a not in info or b not in info or info[b]["wall"] <= 0:
        return "-"
    return f"{info[a]['wall'] / info[b]['wall']:.2f}x"


def print_bound(items: list[Item], info: dict, floor_no_tl: float | None, workers: int, timeout: float) -> None:
    """The issue's target for runs with time limits: each timed-out test costs the limit on one
    worker and nothing more, so wall <= (time-limit samples x limit / workers + floor)."""
    if floor_no_tl is None:
        return
    k = sum(it.tl for it in items)
    bound = k * timeout / workers + floor_no_tl
    print(f"time-limit bound: {k} x {timeout:g} s / {workers} workers + floor of the rest {floor_no_tl:.2f} s "
          f"= {bound:.2f} s; " + ", ".join(f"{n}/bound {info[n]['wall'] / bound:.2f}x" for n in info))


def print_table(title: str, items: list[Item], info: dict) -> None:
    n_tests = sum(len(it.problem.tests) for it in items)
    print(f"\n{title}: {len(items)} samples ({sum(it.tl for it in items)} with a time-limit case), {n_tests} tests")
    print(f"| judge | wall s (median) | walls | tests run | samples passed |")
    print("|---|---|---|---|---|")
    for n, d in info.items():
        print(f"| {n} | {d['wall']:.2f} | {' '.join(f'{w:.2f}' for w in d['walls'])} | {d['tests']} | {d['passed']} |")
    print("ratios: " + ", ".join(f"{a}/{b} {ratio(info, a, b)}" for a, b in
                                (("flex", "LCB"), ("flex", "floor"), ("lcb", "LCB"), ("lcb", "floor"),
                                 ("LCB", "floor"))))


def scaling(args, items: list[Item]) -> None:
    """flex on (up to --scaling-samples of) the no-time-limit set, every test run (a sample that
    stops at its first failure would not run its doubled tests): 1 vs N workers, samples x2,
    tests x2; memory (PSS) of each worker's process tree after the runs."""
    items = items[: args.scaling_samples]
    if not items:
        return
    doubled_tests = [replace(it, problem=replace(it.problem, public_tests=it.problem.public_tests * 2,
                                                 private_tests=it.problem.private_tests * 2)) for it in items]
    print(f"\nscaling (flex, all tests, {len(items)} samples without a time-limit case; rows interleaved, "
          f"median of {args.rounds}):")
    print("| workers | load | wall s | vs 1 worker x1 | PSS per worker MiB (after) |")
    print("|---|---|---|---|---|")
    judges = {w: Ours("flex", w, args.timeout, True) for w in sorted({1, args.workers})}
    loads = {"x1": items, "samples x2": items * 2, "tests x2": doubled_tests}
    walls: dict[tuple, list[float]] = {}
    mem: dict[int, list[int]] = {}
    try:
        for _ in range(args.rounds):
            for w, j in judges.items():
                for name, its in loads.items():
                    t0 = time.perf_counter()
                    j.run(its)
                    walls.setdefault((w, name), []).append(time.perf_counter() - t0)
        for w, j in judges.items():
            mem[w] = j.memory_kb()
    finally:
        for j in judges.values():
            j.close()
    base = statistics.median(walls[(1, "x1")])
    for (w, name), ws in walls.items():
        m = statistics.median(ws)
        print(f"| {w} | {name} | {m:.2f} | {m / base:.2f}x | {' '.join(f'{k / 1024:.0f}' for k in mem[w])} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="both", choices=["shipped", "real", "both"])
    ap.add_argument("--limit", type=int, default=0, help="first N samples of each data set (0 = all)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=6.0, help="per-test limit, seconds (LCB: 6)")
    ap.add_argument("--rounds", type=int, default=1, help="timed runs of each judge per set (median)")
    ap.add_argument("--all-tests", action="store_true", help="run every test (default: stop at the first failure)")
    ap.add_argument("--lcb-src", help="folder holding LiveCodeBench's lcb_runner (fetched, not vendored)")
    ap.add_argument("--judges", default="flex,lcb,floor,LCB")
    ap.add_argument("--no-tl-only", action="store_true", help="time only the set without time-limit cases")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--scaling-samples", type=int, default=120, help="samples in the scaling table")
    ap.add_argument("--tiny", action="store_true",
                    help="CI: 10 shipped samples, 1 s limit, no-time-limit set only, one round")
    args = ap.parse_args(argv)
    if args.tiny:
        args.data, args.limit, args.timeout, args.rounds, args.no_tl_only = "shipped", 10, 1.0, 1, True
    sets = ["shipped", "real"] if args.data == "both" else [args.data]
    wanted = args.judges.split(",")
    if "LCB" in wanted and not args.lcb_src:
        wanted.remove("LCB")
    print(f"workers {args.workers}, per-test limit {args.timeout:g} s, "
          f"{'all tests' if args.all_tests else 'stop at the first failure'}, cpus {os.cpu_count()}, "
          f"judges {', '.join(wanted)}{'' if args.lcb_src else ' (LCB: give --lcb-src)'}")
    floor = Floor(args.workers, args.timeout, args.all_tests)
    judges: dict = {}
    try:
        for name in wanted:
            if name in ("flex", "lcb"):
                judges[name] = Ours(name, args.workers, args.timeout, args.all_tests)
            elif name == "floor":
                judges[name] = floor
            elif name == "LCB":
                judges[name] = LiveCodeBench(args.lcb_src, args.workers, args.timeout)
        starts = ", ".join(f"{n} {j.start_s:.2f} s" for n, j in judges.items() if hasattr(j, "start_s"))
        print(f"start-up, not in the walls: {starts}")
        no_tl_all: list[Item] = []
        for ds in sets:
            items = load_items(ds, args.limit)
            if not items:
                print(f"\n{ds}: no data (real data lives in ../shared/real)")
                continue
            _, _, tls = floor.run(items)  # classify: which samples reach the limit bare
            for it, tl in zip(items, tls):
                it.tl = tl
            no_tl = [it for it in items if not it.tl]
            no_tl_all += no_tl
            info = time_judges(judges, no_tl, args.rounds)
            print_table(f"{ds}, samples without a time-limit case", no_tl, info)
            if not args.no_tl_only and len(no_tl) < len(items):
                every = time_judges(judges, items, args.rounds)
                print_table(f"{ds}, all samples", items, every)
                print_bound(items, every, info.get("floor", {}).get("wall"), args.workers, args.timeout)
    finally:
        for j in judges.values():
            j.close()
        floor.close()
    if not args.no_scaling:
        scaling(args, no_tl_all)


if __name__ == "__main__":
    main()
