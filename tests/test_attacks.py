"""Attack suite: every class of hostile completion from the sandbox trust-boundary issue.

Each attack is written as a solution paid to pass: when the boundary holds it fails (or, for
probes, passes only by reporting that it found nothing). Legitimate tricky programs still pass.
Root-only checks (a sandbox uid, cgroups) skip elsewhere; CI runs as root, so none skip there.
"""
from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import psutil
import pytest

from microcoder_eval.config import EvalConfig
from microcoder_eval.evaluator import Evaluator
from microcoder_eval.problem import Problem, TestCase, TestType
from microcoder_eval.verdict import Status

ROOT = os.geteuid() == 0
ADD = Problem("add", public_tests=[TestCase("1 2\n", "3\n"), TestCase("40 2\n", "42\n")])
CLEAN = Problem("clean", public_tests=[TestCase("", "clean\n")])  # probes print "clean" when they find nothing
FUNC = Problem("f", func_name="merge", public_tests=[
    TestCase("[1, 3]\n[2]", "[1, 2, 3]", TestType.FUNCTIONAL), TestCase("[]\n[5]", "[5]", TestType.FUNCTIONAL)])


def judge(ev, problem, code):
    return ev.evaluate_code(problem, textwrap.dedent(code))


@pytest.fixture(scope="module", params=["flex", "lcb"])
def ev(request):
    with Evaluator(EvalConfig(workers=2, timeout_s=3, memory_mb=768, mode=request.param)) as e:
        yield e


def _sandbox_processes(ev) -> list[psutil.Process]:
    """Processes running as one of the evaluator's sandbox uids (root only)."""
    uids = {w.uid for w in ev.pool.workers if w.uid is not None}
    return [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real in uids]


# ------------------------------------------------------------------ the result channel
@pytest.mark.parametrize("payload", [
    "os.write(3, b'7\\n')",
    "os.write(3, b'[' * 100000 + b'\\n')",
    "os.write(3, b'{\"value\": ' + b'[' * 100000 + b'}\\n')",
    "os.write(3, b'{\"value\": {\"$int\": [1]}}\\n')",
    "os.write(3, b'{\"value\": {\"$dict\": [[[1], 2]]}}\\n')",
    "os.write(3, b'\\n' * (512 * 1024))",
    "[os.write(3, b'x' * (1 << 20)) for _ in range(512)]",
])
def test_hostile_result_channel_costs_only_its_own_verdict(ev, payload):
    me = psutil.Process()
    rss0 = me.memory_info().rss
    code = f"import os\n{payload}\nos._exit(0)\nclass Solution:\n    def merge(self, a, b):\n        return sorted(a + b)"
    res = judge(ev, FUNC, code)
    assert res.status is not Status.PASSED
    assert res.status is not Status.INFRA_ERROR, res.detail
    assert me.memory_info().rss - rss0 < 400 << 20  # bounded by the output cap, not 15x the bytes
    assert judge(ev, ADD, "print(sum(map(int, input().split())))").status is Status.PASSED


@pytest.mark.parametrize("code", [
    "import sys\nsys.stdout.write('1 ' * (24 << 20))",
    "import sys\nsys.stdout.write('3' + '\\n' * (48 << 20))",
    "import sys\nsys.stdout.write('3 ' + ' 1' * (24 << 20))",
])
def test_output_floods_cost_the_judge_a_bounded_multiple(ev, code):
    """Millions of tokens or blank lines: judged without one object per token."""
    import gc

    gc.collect()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = judge(ev, ADD, code)
    assert res.status is not Status.PASSED
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base  # KiB of new peak
    assert grown < (1200 << 10), grown  # a one-object-per-token judge needs several GiB here


def test_result_lines_for_every_test_cannot_pass_a_wrong_function(ev):
    code = """
        import os
        class Solution:
            def merge(self, a, b):
                os.write(3, b'{"value": "forged"}\\n' * 50)
                return None
    """
    assert judge(ev, FUNC, code).status is not Status.PASSED


# ------------------------------------------------------------------ reading other samples
def test_no_sample_finds_another_samples_code_in_memory(ev):
    token = uuid.uuid4().hex + uuid.uuid4().hex
    first, second = token[:32], token[32:]
    judge(ev, ADD, f"SECRET = {token!r}\nprint(sum(map(int, input().split())))")
    scan = f"""
        import re
        first = bytes.fromhex({first.encode().hex()!r})
        second = bytes.fromhex({second.encode().hex()!r})
        found = False
        with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:
            for line in maps:
                addr, perms = line.split()[:2]
                if 'r' not in perms or '[vvar]' in line or '[vsyscall]' in line:
                    continue
                lo, hi = (int(x, 16) for x in addr.split('-'))
                try:
                    mem.seek(lo)
                    chunk = mem.read(hi - lo)
                except (OSError, OverflowError, ValueError):
                    continue
                i = chunk.find(first)
                while i >= 0:
                    if chunk[i + len(first): i + len(first) + len(second)] == second:
                        found = True
                    i = chunk.find(first, i + 1)
        print('found' if found else 'clean')
    """
    res = judge(ev, CLEAN, scan)
    assert res.status is Status.PASSED, res.detail


def test_scratch_space_is_fresh_per_sample(ev):
    judge(ev, ADD, """
        import os
        for d in ('/tmp', '/var/tmp', '/dev/shm', '.'):
            try:
                p = os.path.join(d, 'left_behind')
                open(p, 'w').write('x')
                os.chmod(p, 0o4755)
            except OSError:
                pass
        print(sum(map(int, input().split())))
    """)
    res = judge(ev, CLEAN, """
        import os
        left = [d for d in ('/tmp', '/var/tmp', '/dev/shm', '.') if os.path.exists(os.path.join(d, 'left_behind'))]
        print('clean' if not left else left)
    """)
    assert res.status is Status.PASSED, res.detail
    for d in ("/tmp", "/var/tmp", "/dev/shm"):  # nothing reached the host's scratch folders either
        assert not os.path.exists(os.path.join(d, "left_behind"))


def test_host_processes_and_command_lines_are_invisible(ev):
    res = judge(ev, CLEAN, """
        import os
        pids = [p for p in os.listdir('/proc') if p.isdigit()]
        cmdlines = [open(f'/proc/{p}/cmdline', 'rb').read() for p in pids]
        print('clean' if len(pids) <= 3 and not any(b'pytest' in c for c in cmdlines) else (pids, cmdlines))
    """)
    assert res.status is Status.PASSED, res.detail


def test_data_files_are_unreachable_even_by_absolute_path(ev, tmp_path):
    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps({"question_id": "add", "output": "3\n"}) + "\n")
    code = f"""
        import json
        try:
            print(json.loads(open({str(data)!r}).readline())['output'], end='')
        except OSError:
            print('unreachable')
    """
    assert judge(ev, ADD, code).status is not Status.PASSED
    res = judge(ev, CLEAN, code.replace("'unreachable'", "'clean'"))
    if not ev.pool.isolation()["mode"].startswith("bwrap"):
        pytest.skip("host view without bubblewrap: only the run's own files are hidden")
    assert res.status is Status.PASSED, res.detail


def test_host_sockets_are_unreachable(ev, tmp_path):
    path = str(tmp_path / "host.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = "\0mc-test-" + uuid.uuid4().hex
    abstract.bind(name)
    abstract.listen(1)
    try:
        res = judge(ev, CLEAN, f"""
            import socket
            reached = []
            for addr in ({path!r}, {name!r}):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(addr)
                    reached.append(addr)
                except OSError:
                    pass
            try:
                socket.create_connection(('127.0.0.1', 22), timeout=1)
                reached.append('tcp')
            except OSError:
                pass
            print('clean' if not reached else reached)
        """)
    finally:
        srv.close()
        abstract.close()
    if not ev.pool.isolation()["mode"].startswith("bwrap"):
        pytest.skip("host view without bubblewrap: host unix sockets stay reachable by path")
    assert res.status is Status.PASSED, res.detail


def test_environment_is_scrubbed(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with Evaluator(EvalConfig(workers=1, timeout_s=3)) as e:
        res = judge(e, CLEAN, """
            import os
            leaked = [k for k, v in os.environ.items() if 'secret' in v]
            print('clean' if not leaked else leaked)
        """)
    assert res.status is Status.PASSED, res.detail


# ------------------------------------------------------------------ limits across processes
def test_memory_cap_holds_across_all_processes_of_a_sample():
    with Evaluator(EvalConfig(workers=1, timeout_s=10, memory_mb=512)) as e:
        if not e.pool.isolation()["cgroup"]:
            pytest.skip("no writable cgroup here (needs root): the cap is RLIMIT_AS per process")
        res = judge(e, ADD, """
            import os, time
            kids = []
            for _ in range(5):
                pid = os.fork()
                if pid == 0:
                    block = bytearray(300 << 20)
                    for i in range(0, len(block), 4096):
                        block[i] = 1
                    time.sleep(1)
                    os._exit(0)
                kids.append(pid)
            ok = all(os.waitpid(p, 0)[1] == 0 for p in kids)
            if ok:
                print(sum(map(int, input().split())))
        """)
        assert res.status is not Status.PASSED, res.detail


def test_lcb_mode_has_the_same_memory_cap(ev):
    res = judge(ev, ADD, """
        import mmap
        m = mmap.mmap(-1, 16 << 30)
        print(sum(map(int, input().split())))
    """)
    assert res.status is not Status.PASSED


def test_fork_bomb_and_kill_everything_cost_only_their_own_verdict(ev):
    items = [(ADD, "import os\nos.kill(-1, 9)"),
             (ADD, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
             (ADD, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nos.kill(1, signal.SIGKILL)")]
    items += [(ADD, "print(sum(map(int, input().split())))")] * 6
    results = ev.evaluate(items)
    assert [r.status for r in results[3:]] == [Status.PASSED] * 6
    assert all(r.status not in (Status.PASSED, Status.INFRA_ERROR) for r in results[:3]), \
        [(r.status, r.detail) for r in results[:3]]


def test_no_process_outlives_its_test(ev):
    if not ROOT:
        pytest.skip("a sandbox uid to look for needs root")
    res = judge(ev, ADD, """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(120)
            os._exit(0)
        print(sum(map(int, input().split())))
    """)
    assert res.status is Status.PASSED
    deadline = time.monotonic() + 5
    while _sandbox_processes(ev) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _sandbox_processes(ev)


# ------------------------------------------------------------------ legitimate tricky programs
@pytest.mark.parametrize("code", [
    "import threading\ndef main():\n    print(sum(map(int, input().split())))\nt = threading.Thread(target=main)\nt.start()\nt.join()",
    "import sys\na, b = map(int, sys.stdin.buffer.read().split())\nsys.stdout.buffer.write(b'%d\\n' % (a + b))",
    "import tempfile, os\np = os.path.join(tempfile.gettempdir(), 'scratch.txt')\nopen(p, 'w').write(input())\n"
    "print(sum(map(int, open(p).read().split())))",
    "import sys\nsys.setrecursionlimit(300000)\ndef d(n):\n    return 0 if n == 0 else 1 + d(n - 1)\n"
    "a, b = map(int, input().split())\nprint(a + b + d(100000) - 100000)",
    "import os, sys\na, b = map(int, input().split())\nsys.stdout.close()\nos.write(1, f'{a + b}\\n'.encode())",
])
def test_legitimate_tricky_solutions_still_pass(evaluator, code):
    res = judge(evaluator, ADD, code)
    assert res.status is Status.PASSED, res.detail


# ------------------------------------------------------------------ whole runs
def _write_run(tmp_path, completions):
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps(ADD.to_lcb_record()) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"question_id": "add", "code": c}) + "\n" for c in completions))
    return problems, samples


def _cli(tmp_path, problems, samples, *extra, preexec=None, **kw):
    out = tmp_path / "results.jsonl"
    cmd = [sys.executable, "-m", "microcoder_eval.cli", "evaluate", "--problems", str(problems),
           "--samples", str(samples), "--out", str(out), "--no-progress", "--workers", "2", "--timeout-s", "3", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, preexec_fn=preexec, **kw), out


@pytest.mark.parametrize("mode", ["flex", "lcb"])
def test_cli_survives_every_attack_and_keeps_one_row_each(tmp_path, mode):
    replay = ("import json,glob,os\nfor p in glob.glob('/**/*.jsonl', recursive=True):\n    try:\n"
              "        for l in open(p):\n            r = json.loads(l)\n"
              "            if r.get('status') == 'passed' and r.get('code'):\n"
              "                exec(r['code']); raise SystemExit\n    except (OSError, ValueError):\n        pass")
    attacks = [
        "import os\nos.write(3, b'7\\n')",
        "import os\nos.write(3, b'[' * 100000 + b'\\n')",
        "import os\n[os.write(3, b'x' * (1 << 20)) for _ in range(256)]",
        "print(sum(map(int, input().split())))",  # a passing row for the replay attack to find
        replay,
        "import os\nos.kill(-1, 9)",
    ]
    problems, samples = _write_run(tmp_path, attacks)
    proc, out = _cli(tmp_path, problems, samples, "--mode", mode)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(rows) == len(attacks)
    status = {r["sample_index"]: r["status"] for r in rows}
    assert status[3] == "passed"
    assert all(status[i] != "passed" for i in (0, 1, 2, 4, 5)), status
    assert "infra_error" not in status.values(), status


def test_inherited_file_size_limit_does_not_turn_rows_into_infra_errors(tmp_path):
    problems, samples = _write_run(tmp_path, ["print(sum(map(int, input().split())))"] * 3)

    def small_fsize():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, resource.RLIM_INFINITY))

    proc, out = _cli(tmp_path, problems, samples, preexec=small_fsize)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert {json.loads(l)["status"] for l in out.read_text().splitlines()} == {"passed"}


def test_killing_the_cli_leaves_no_sandbox_behind(tmp_path):
    problems, samples = _write_run(tmp_path, ["import time\ntime.sleep(60)"] * 4)
    cmd = [sys.executable, "-m", "microcoder_eval.cli", "evaluate", "--problems", str(problems),
           "--samples", str(samples), "--out", str(tmp_path / "r.jsonl"), "--no-progress", "--workers", "2",
           "--timeout-s", "60"]
    cli = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        sandboxed = []
        while time.monotonic() < deadline and len(sandboxed) < 2:
            sandboxed = [c for c in psutil.Process(cli.pid).children(recursive=True)]
            time.sleep(0.2)
        assert sandboxed
        time.sleep(1.0)  # the solutions are sleeping now
        every = psutil.Process(cli.pid).children(recursive=True)
    finally:
        cli.kill()
        cli.wait()
    gone, alive = psutil.wait_procs(every, timeout=10)
    assert not alive, [p.info if hasattr(p, "info") else p.pid for p in alive]


# ------------------------------------------------------------------ through the reward plug-in
def test_reward_plugin_scores_every_other_item_of_a_hostile_batch(tmp_path):
    from microcoder_eval.reward import EvaluatorReward, RewardConfig

    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps(ADD.to_lcb_record()) + "\n")
    fence = "```python\n{}\n```"
    good = fence.format("print(sum(map(int, input().split())))")
    hostile = [
        "import os\nos.write(3, b'[' * 100000 + b'\\n')",
        "import os\n[os.write(3, b'x' * (1 << 20)) for _ in range(128)]",
        f"import json\nfor l in open({str(data)!r}):\n    print(json.loads(json.loads(l)['public_test_cases'])[0]['output'])",
        "import os\nos.kill(-1, 9)",
        "import glob\nprint(glob.glob('/proc/*/cmdline'))",
    ]
    completions = [good] * 4 + [fence.format(h) for h in hostile] + [good] * 4
    record = ADD.to_lcb_record()
    cols = {k: [record[k]] * len(completions) for k in record}
    r = EvaluatorReward(RewardConfig(workers=2, timeout_s=3, sample_budget_s=6))
    try:
        rewards = r(prompts=["p"] * len(completions), completions=completions, **cols)
    finally:
        r.close()
    assert rewards[:4] == [1.0] * 4 and rewards[-4:] == [1.0] * 4
    assert all(x in (0.0, None) for x in rewards[4:-4]), rewards


def test_doctor_reports_the_isolation_and_every_probe_holds(capsys):
    from microcoder_eval.cli import main
    from microcoder_eval.sandbox.launch import bwrap_binary

    code = main(["doctor", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["isolation"]["pid_ns_per_test"] and report["isolation"]["fresh_scratch_per_sample"]
    if bwrap_binary() is None:
        assert report["isolation"]["mode"].startswith("host")
        return
    assert report["isolation"]["mode"].startswith("bwrap")
    assert code == 0 and all(p["ok"] for p in report["probes"].values()), report["probes"]


def test_host_view_fallback_without_bubblewrap_still_judges_and_says_so(monkeypatch):
    monkeypatch.setenv("MICROCODER_NO_BWRAP", "1")
    with Evaluator(EvalConfig(workers=1, timeout_s=3)) as e:
        iso = e.pool.isolation()
        assert iso["mode"].startswith("host") and any("bubblewrap" in n for n in iso["notes"])
        assert judge(e, ADD, "print(sum(map(int, input().split())))").status is Status.PASSED
        assert judge(e, ADD, "import os\nos.kill(-1, 9)").status is not Status.PASSED
        if ROOT:  # namespaces and a separate uid are still there as root
            assert iso["pid_ns_per_test"] and iso["network_isolated"]
            res = judge(e, CLEAN, "import os\npids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
                                  "print('clean' if len(pids) <= 3 else pids)")
            assert res.status is Status.PASSED, res.detail
