"""Where the milliseconds of one trivial stdin test go (``print(input())``, input ``1``).

Two measurements, one run:

1. Parent side, no tracer: the evaluator's own steps timed around the calls it makes
   (``Evaluator._request`` + per-test dict, ``encode_frame``, ``SandboxWorker.run``'s send and
   receive, ``judge_flex``), the manager's own ``time_s`` (request sent to the sample init ->
   status back), a test in the same sample vs a test that starts a new sample, and the floor
   (a bare fork of the same program from this process).
2. Inside the sandbox, ``strace -f -ttt -T`` attached to the worker's manager and zygote (new
   sample inits and test processes are followed): per test, the intervals between the
   manager's, the init's and the test process's syscalls. strace slows every syscall (tens of
   microseconds each), so this part gives *shares*; the table scales them to the untraced
   round trip measured in part 1.

    python benchmarks/profile_test.py [--tests 300] [--traced 40] [--no-strace]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.evaluator import Evaluator  # noqa: E402
from microcoder_eval.judge import judge_flex  # noqa: E402
from microcoder_eval.problem import Problem, TestCase  # noqa: E402
from microcoder_eval.sandbox.protocol import encode_frame  # noqa: E402

CODE = "print(input())\n"


def med(xs: list[float]) -> float:
    return statistics.median(xs) * 1000 if xs else float("nan")


def parent_side(ev: Evaluator, n: int) -> dict[str, float]:
    problem = Problem("p", public_tests=[TestCase("1\n", "1\n")])
    test = problem.tests[0]
    worker = ev.pool.workers[0]
    t: dict[str, list[float]] = defaultdict(list)
    # wrap this worker's send/receive (instance attributes: the sandbox code is unchanged)
    send, recv = worker._send, worker._recv

    def timed(name, fn):
        def inner(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                t[name].append(time.perf_counter() - t0)
        return inner

    worker._send, worker._recv = timed("send", send), timed("recv", recv)
    base = ev._request(problem, CODE, "flex")
    for new_sample in (False, True):
        key = "new sample" if new_sample else "same sample"
        for _ in range(n):
            t0 = time.perf_counter()
            req = dict(ev._request(problem, CODE, "flex") if new_sample else base, input=test.input)
            t1 = time.perf_counter()
            header = {k: v for k, v in req.items() if k not in ("input", "inputs")}
            header["limits"] = {k: req[k] for k in ("memory_mb", "cpu_limit_s", "output_limit_bytes",
                                                     "max_processes")}
            encode_frame(header, [req["input"].encode()])
            t2 = time.perf_counter()
            reply = worker.run(req, 30)
            t3 = time.perf_counter()
            res = judge_flex(0, test, reply, False, problem.compare, 0)
            t4 = time.perf_counter()
            assert res.status.value == "passed", (res, reply.get("stderr"))
            t[f"{key}: build request"].append(t1 - t0)
            t[f"{key}: encode frame"].append(t2 - t1)
            t[f"{key}: worker.run"].append(t3 - t2)
            t[f"{key}: manager time_s"].append(reply["time_s"])
            t[f"{key}: judge_flex"].append(t4 - t3)
        t[f"{key}: send"], t[f"{key}: recv"] = t.pop("send"), t.pop("recv")
    worker._send, worker._recv = send, recv
    return {k: med(v) for k, v in t.items()}


def floor(n: int) -> float:
    from microcoder_eval.sandbox import run_flex

    run_flex.prepare()
    out = []
    for _ in range(n):
        r, w = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            fd = os.memfd_create("in")
            os.write(fd, b"1\n")
            os.lseek(fd, 0, 0)
            os.dup2(fd, 0)
            os.dup2(w, 1)
            sys.stdin, sys.stdout = open(0), open(1, "w")  # noqa: SIM115
            exec(compile(CODE, "solution.py", "exec"), {"__name__": "__main__"})
            sys.stdout.flush()
            os._exit(0)
        os.close(w)
        os.waitpid(pid, 0)
        os.read(r, 100)
        os.close(r)
        out.append(time.perf_counter() - t0)
    return med(out)


def sandbox_child(n: int, ev: Evaluator) -> dict[str, float]:
    """The sandbox's own test process (``child.main``: set-up, limits, request, run_flex) forked
    bare from this process, without manager, init or namespaces: the child's share of a test."""
    import json

    from microcoder_eval.sandbox import child, run_flex

    run_flex.prepare()
    problem = Problem("p", public_tests=[TestCase("1\n", "1\n")])
    req = ev._request(problem, CODE, "flex")
    body = json.dumps(dict({k: req[k] for k in ("style", "mode", "func_name", "code", "timeout_s", "lcb_version")},
                           input="1\n")).encode()
    lim = {k: req[k] for k in ("memory_mb", "cpu_limit_s", "output_limit_bytes", "max_processes")}
    head = {"op": "test", "limits": lim, "uid": None, "drop_caps": False, "nproc_allowance": None,
            "workdir": tempfile.mkdtemp()}
    out: dict[str, list[float]] = defaultdict(list)

    def memfd(data: bytes = b"") -> int:
        fd = os.memfd_create("x")
        os.write(fd, data)
        os.lseek(fd, 0, 0)
        return fd

    for _ in range(n):
        fds = [memfd(body), memfd(b"1\n"), memfd(), memfd()]
        r, w = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            t1 = time.perf_counter()
            req_in = child.enter(head, fds + [w])  # closes every fd above 3: report on the result fd
            t2 = time.perf_counter()
            os.write(3, f"{t1} {t2}\n".encode())
            run_flex.run(req_in)  # exits
        os.close(w)
        os.waitpid(pid, 0)
        t3 = time.perf_counter()
        line = os.read(r, 4096).split(b"\n")[0].split()
        t1, t2 = float(line[0]), float(line[1])
        out["sandbox child, bare fork: fork -> child runs"].append(t1 - t0)
        out["sandbox child, bare fork: child.enter (set-up)"].append(t2 - t1)
        out["sandbox child, bare fork: run_flex.run + exit + wait"].append(t3 - t2)
        out["sandbox child, bare fork: total"].append(t3 - t0)
        for fd in fds + [r]:
            os.close(fd)
    return {k: med(v) for k, v in out.items()}


# ------------------------------------------------------------------------------------ strace
LINE = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(\d+\.\d+)\s+(.*)$")
DUR = re.compile(r"<(\d+\.\d+)>\s*$")


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()[:80]
    except OSError:
        return ""


def traced(ev: Evaluator, n: int, log: str) -> dict[str, float]:
    """Run ``n`` same-sample tests under strace; returns median interval lengths (ms, traced)."""
    problem = Problem("p", public_tests=[TestCase("1\n", "1\n")])
    worker = ev.pool.workers[0]
    req = dict(ev._request(problem, CODE, "flex"), input="1\n")
    worker.run(req, 30)  # the sample's init exists before the tracer attaches
    pids = [p for p in descendants(worker.proc.pid) if "python" in comm(p)]
    args = ["strace", "-f", "-ttt", "-T", "-qq", "-o", log]
    for p in pids:
        args += ["-p", str(p)]
    st = subprocess.Popen(args, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # attached
    for _ in range(n):
        worker.run(req, 30)
    time.sleep(0.3)
    st.send_signal(signal.SIGINT)
    st.wait()
    return parse(log)


def parse(log: str) -> dict[str, float]:
    events = []  # (start, end, pid, text)
    pending: dict[int, tuple[float, str]] = {}
    for line in open(log):
        m = LINE.match(line.strip())
        if not m:
            continue
        pid, ts, text = int(m.group(1)), float(m.group(2)), m.group(3)
        if text.endswith("<unfinished ...>"):
            pending[pid] = (ts, text)
            continue
        if text.startswith("<..."):
            start, first = pending.pop(pid, (ts, text))
            text = first.replace("<unfinished ...>", "") + text
        else:
            start = ts
        d = DUR.search(text)
        events.append((start, start + (float(d.group(1)) if d else 0.0), pid, text))
    events.sort()
    by_pid: dict[int, list] = defaultdict(list)
    for e in events:
        by_pid[e[2]].append(e)
    manager = next((p for _, _, p, x in events if x.startswith('memfd_create("request"')), None)
    children = {p for _, _, p, x in events if x.startswith("setsid(")}
    tests = [i for i, (_, _, p, x) in enumerate(events) if p == manager and x.startswith('memfd_create("request"')]
    iv: dict[str, list[float]] = defaultdict(list)
    for k, i in enumerate(tests):
        j = tests[k + 1] if k + 1 < len(tests) else len(events)
        win = events[i:j]
        # the request's arrival: the manager's last read before this memfd_create
        prev = [e for e in events[max(0, i - 40):i] if e[2] == manager and e[3].startswith("read(")]
        t_req = prev[-1][1] if prev else win[0][0]
        try:
            send = next(e for e in win if e[2] == manager and e[3].startswith("sendmsg("))
            clone = next(e for e in win if e[2] not in children and e[2] != manager
                         and e[3].startswith(("clone(", "clone3(")))
            init_pid = clone[2]
            # the init's recvmsg started (blocked) before this window: search its own events
            init = [e for e in by_pid[init_pid] if e[3].startswith("recvmsg(") and e[1] <= clone[0]][-1]
            child = next(e[2] for e in win if e[2] in children)
            c_ev = [e for e in win if e[2] == child]
            c_first = c_ev[0]
            c_chdir = next(e for e in c_ev if e[3].startswith("chdir("))
            c_exit = next(e for e in c_ev if e[3].startswith("exit_group("))
            reaped = next(e for e in win if e[2] == init_pid and e[3].startswith("wait4(") and e[0] >= c_exit[0])
            i_send = next(e for e in win if e[2] == init_pid and e[3].startswith(("sendto(", "sendmsg(", "write("))
                          and e[0] >= reaped[0])
            m_recv = next(e for e in win if e[2] == manager and e[3].startswith(("recvfrom(", "recvmsg(", "read("))
                          and e[1] >= i_send[1])
            m_last = [e for e in win if e[2] == manager and e[3].startswith("write(")][-1]
        except (StopIteration, IndexError):
            continue
        iv["manager: request read -> memfds, pipe, sendmsg to init"].append(send[1] - t_req)
        iv["init: message in -> fork (json, fds)"].append(clone[0] - init[1])
        iv["fork: init's clone -> child's first syscall"].append(c_first[0] - clone[0])
        iv["child set-up: setsid .. chdir (fds, limits, uid, request)"].append(c_chdir[1] - c_first[0])
        iv["solution: chdir -> exit_group (streams, exec, flush)"].append(c_exit[0] - c_chdir[1])
        iv["exit: exit_group -> init's wait4 returns"].append(reaped[1] - c_exit[0])
        iv["init: reaped -> status sent (cleanup, /proc children)"].append(i_send[1] - reaped[1])
        iv["manager: status in -> reply written (memfd reads, frame)"].append(m_last[1] - m_recv[1])
        iv["traced total: request read -> reply written"].append(m_last[1] - t_req)
    out = {k: med(v) for k, v in iv.items()}
    out["(tests parsed)"] = len(iv["traced total: request read -> reply written"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", type=int, default=300, help="untraced tests (each kind)")
    ap.add_argument("--traced", type=int, default=40, help="tests run under strace")
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--keep-log", help="copy the strace log here")
    args = ap.parse_args()
    with Evaluator(EvalConfig(workers=1, timeout_s=6)) as ev:
        ev.warm_up()
        parent = parent_side(ev, args.tests)
        inside = {}
        if not args.no_strace and shutil.which("strace"):
            with tempfile.TemporaryDirectory() as d:
                log = os.path.join(d, "strace.log")
                inside = traced(ev, args.traced, log)
                if args.keep_log:
                    shutil.copy(log, args.keep_log)
        bare_child = sandbox_child(args.tests, ev)
    fl = floor(args.tests)
    print(f"one trivial stdin test ({CODE.strip()!r}), medians of {args.tests}, 1 worker, ms")
    print("| step (parent side, untraced) | ms |")
    print("|---|---|")
    for k, v in parent.items():
        print(f"| {k} | {v:.3f} |")
    print(f"| floor: bare fork + run + exit + wait from a warm process | {fl:.3f} |")
    for k, v in bare_child.items():
        print(f"| {k} | {v:.3f} |")
    if inside:
        total = inside["traced total: request read -> reply written"]
        untraced = parent["same sample: manager time_s"]
        rt = parent["same sample: worker.run"]
        print(f"\ninside the sandbox under strace ({inside['(tests parsed)']} tests); share of the traced total, "
              f"and that share of the untraced worker.run ({rt:.2f} ms; manager time_s {untraced:.2f} ms)")
        print("| interval | traced ms | share | ~untraced ms |")
        print("|---|---|---|---|")
        for k, v in inside.items():
            if k.startswith("("):
                continue
            print(f"| {k} | {v:.3f} | {v / total:.0%} | {v / total * rt:.2f} |")


if __name__ == "__main__":
    main()
