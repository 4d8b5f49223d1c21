"""The Ray executor on a local (loopback-only) Ray instance: same verdicts as the local evaluator,
actors killed mid-run are retried and reported, the CLI routes --executor ray to it."""
import json
import logging
import re
import sys

import pytest

ray = pytest.importorskip("ray")

from microcoder_eval.cli import main  # noqa: E402
from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.errors import UserError  # noqa: E402
from microcoder_eval.executors import make_executor  # noqa: E402
from microcoder_eval.executors.ray_executor import RayExecutor, check_reachable, connect_ray  # noqa: E402
from microcoder_eval.executors.ray_options import RayExecutorOptions  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.samples import load_samples  # noqa: E402
from microcoder_eval.verdict import Status  # noqa: E402

from conftest import DATA  # noqa: E402

PROBLEMS = str(DATA / "lcb_sample_problems.jsonl")
SAMPLES = str(DATA / "lcb_sample_completions.jsonl")
CFG = dict(workers=2, timeout_s=2.0, memory_mb=1024, executor="ray")  # as the conftest evaluators
TWO_ACTORS = dict(num_actors=2, cpus_per_actor=1)


@pytest.fixture(scope="module")
def ray_session():
    """One loopback Ray instance for the whole file (start-up is the slow part)."""
    if ray.is_initialized():
        ray.shutdown()
    yield
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def local_ray(ray_session):
    if not ray.is_initialized():  # first use, or a test that ran its own instance stopped it
        assert connect_ray(None, num_cpus=2) is True
    return ray


@pytest.fixture(scope="module")
def items():
    pmap = {p.question_id: p for p in load_problems(PROBLEMS)}
    return [(pmap[s.question_id], s.text) for s in load_samples(SAMPLES)]


@pytest.fixture(scope="module")
def quick():
    """Positions of samples without a time-limit case (those cost a full timeout each)."""
    cats = [json.loads(line)["category"] for line in open(SAMPLES)]
    return [i for i, c in enumerate(cats) if c not in ("infinite_loop", "memory_hog")][:32]


@pytest.fixture(scope="module")
def quick_items(items, quick):
    return [items[i] for i in quick]


@pytest.fixture(scope="module")
def reference(evaluator, items):
    """Verdicts of the local evaluator (same settings) on the full sample set."""
    return evaluator.evaluate(items, extract=True)


@pytest.fixture(scope="module")
def quick_reference(reference, quick):
    return [reference[i] for i in quick]


def _addr(text):
    return re.sub(r" at 0x[0-9a-f]+", " at 0x?", text)  # object reprs in details differ per process


def key(r):
    """Everything a verdict consists of (timings, memory use and object addresses excluded)."""
    return (r.question_id, r.sample_index, r.status, _addr(r.detail), r.num_tests, r.code,
            [(t.index, t.status, t.rule, _addr(t.detail)) for t in r.tests])


def test_local_instance_is_loopback_only(local_ray):
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    nodes = [n for n in ray.nodes() if n["Alive"]]
    assert [n["NodeManagerAddress"] for n in nodes] == ["127.0.0.1"]
    assert ray.cluster_resources()["CPU"] == 2
    assert connect_ray(None, num_cpus=2) is False  # already initialised: reused, not owned


def test_results_identical_to_local_evaluator(local_ray, items, reference):
    indices = list(range(100, 100 + len(items)))
    streamed = []
    with RayExecutor(EvalConfig(**CFG), RayExecutorOptions(batch_size=5, **TWO_ACTORS)) as ex:
        assert len(ex.actors) == 2 and all(s.info["host"] for s in ex._slots)
        got = ex.evaluate(items, extract=True, sample_indices=indices, on_result=lambda i, r: streamed.append(i))
        assert ex.stats["batches"] == -(-len(items) // 5) and ex.stats["batch_failures"] == 0
    assert sorted(streamed) == list(range(len(items)))  # each position streamed once
    assert [key(r) for r in got] == [key(r)[:1] + (i,) + key(r)[2:] for r, i in zip(reference, indices)]
    assert {r.status for r in reference} >= {Status.PASSED, Status.WRONG_ANSWER, Status.RUNTIME_ERROR,
                                              Status.TIME_LIMIT, Status.MEMORY_LIMIT, Status.NO_CODE}


def test_lcb_mode_identical(local_ray, lcb_evaluator, quick_items):
    want = lcb_evaluator.evaluate(quick_items, extract=True)
    with RayExecutor(EvalConfig(**CFG, mode="lcb"), RayExecutorOptions(batch_size=8)) as ex:
        assert [s.cpus for s in ex._slots] == [2]  # default: one actor per node, all its CPUs
        got = ex.evaluate(quick_items, extract=True)
        one = ex.evaluate_code(quick_items[0][0], want[0].code, sample_index=7)
    assert [key(r) for r in got] == [key(r) for r in want]
    assert one.status is want[0].status and one.sample_index == 7


def test_actor_killed_mid_batch_is_retried_elsewhere(local_ray, quick_items, quick_reference, tmp_path, caplog):
    crash = tmp_path / "crash"
    crash.mkdir()
    (crash / "once").touch()
    with caplog.at_level(logging.WARNING, logger="microcoder_eval.ray"):
        with RayExecutor(EvalConfig(**CFG), RayExecutorOptions(batch_size=4, **TWO_ACTORS),
                         _crash_dir=str(crash)) as ex:
            got = ex.evaluate(quick_items, extract=True)
            stats = ex.stats.copy()
    assert not list(crash.iterdir())  # the one crash happened
    assert [key(r) for r in got] == [key(r) for r in quick_reference]  # complete and correct
    # one injected crash; a batch sent to that actor while Ray restarts it can fail too, so
    # under load the death may be counted twice (timing), never zero
    assert 1 <= stats["actor_failures"] <= 2
    assert 1 <= stats["batch_retries"] <= 4 and stats["infra_error_samples"] == 0
    assert any("failed on actor" in m and "retry 1 of 2" in m for m in caplog.messages)


def test_permanently_killed_actor_is_retired(local_ray, quick_items, quick_reference, caplog):
    opts = RayExecutorOptions(batch_size=2, actor_restarts=0, **TWO_ACTORS)
    with caplog.at_level(logging.WARNING, logger="microcoder_eval.ray"):
        with RayExecutor(EvalConfig(**CFG), opts) as ex:
            victim = ex.actors[0]
            got = {}
            for n, (pos, res) in enumerate(ex.evaluate_iter(quick_items[:16], extract=True)):
                got[pos] = res
                if n == 0:
                    ray.kill(victim, no_restart=True)  # while batches are queued on it
            assert len(ex.actors) == 1 and ex.stats["actor_failures"] == 1
            assert ex.stats["infra_error_samples"] == 0
    assert [key(got[i]) for i in range(16)] == [key(r) for r in quick_reference[:16]]
    assert any("retiring actor" in m for m in caplog.messages)


def test_retries_exhausted_give_infra_error_never_a_verdict(local_ray, quick_items, quick_reference, tmp_path):
    crash = tmp_path / "crash"
    crash.mkdir()
    (crash / "once").touch()
    opts = RayExecutorOptions(batch_size=4, max_batch_retries=0, **TWO_ACTORS)
    with RayExecutor(EvalConfig(**CFG), opts, _crash_dir=str(crash)) as ex:
        got = ex.evaluate(quick_items[:8], extract=True)
        assert ex.stats["infra_error_samples"] == 4 and ex.stats["batch_retries"] == 0
    lost = [r for r in got if r.status is Status.INFRA_ERROR]
    assert len(lost) == 4 and all("ray batch failed 1 times" in r.detail and not r.tests for r in lost)
    kept = [(g, w) for g, w in zip(got, quick_reference) if g.status is not Status.INFRA_ERROR]
    assert len(kept) == 4 and all(key(g) == key(w) for g, w in kept)


def test_cli_evaluate_with_ray_executor(local_ray, quick, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MICROCODER_RAY_BATCH_SIZE", "7")
    lines = open(SAMPLES).read().splitlines()
    expected = [json.loads(lines[i]) for i in quick]
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(e) + "\n" for e in expected))
    out = tmp_path / "results.jsonl"
    argv = ["evaluate", "--problems", PROBLEMS, "--samples", str(samples), "--out", str(out),
            "--no-progress", "--workers", "2", "--timeout-s", "2", "--executor", "ray"]
    assert main(argv) == 0
    assert "| pass@1 |" in capsys.readouterr().out
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    assert summary["label_agreement"]["compared"] == len(expected)
    assert summary["label_agreement"]["disagreements"] == []
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    got = {(r["question_id"], r["sample_index"]): r["status"] for r in rows}
    assert len(rows) == len(got) == len(expected)
    idx: dict[str, int] = {}
    for e in expected:
        k = idx.get(e["question_id"], 0)
        idx[e["question_id"]] = k + 1
        assert got[(e["question_id"], k)] == e["expect_status"], (e["question_id"], k, e.get("note"))
    before = out.read_text()
    assert main(argv) == 0  # a rerun resumes: nothing left to judge, file unchanged
    assert out.read_text() == before


def test_reward_plugin_offloads_to_ray(local_ray, quick, monkeypatch):
    from microcoder_eval.reward import EvaluatorReward, RewardConfig

    monkeypatch.setenv("MICROCODER_RAY_NUM_ACTORS", "2")
    records = {r["question_id"]: r for r in map(json.loads, open(PROBLEMS))}
    lines = open(SAMPLES).read().splitlines()
    batch = [json.loads(lines[i]) for i in quick[:16]]
    columns = {k: [records[s["question_id"]][k] for s in batch] for k in next(iter(records.values()))}
    reward = EvaluatorReward(RewardConfig(workers=2, timeout_s=2, sample_budget_s=4, executor="ray"))
    try:
        got = reward(prompts=["solve"] * len(batch), completions=[s["completion"] for s in batch], **columns)
        assert isinstance(reward.executor, RayExecutor) and len(reward.executor.actors) == 2
        assert reward.executor.stats["batches"] >= 1
    finally:
        reward.close()
    assert got == [1.0 if s["label"] == "pass" else 0.0 for s in batch]


def test_empty_input_and_closed_executor(local_ray):
    ex = RayExecutor(EvalConfig(**CFG), RayExecutorOptions(num_actors=1, cpus_per_actor=1))
    with ex:
        assert ex.evaluate([]) == []
    with pytest.raises(Exception, match="closed"):
        ex.evaluate([])
    assert ray.is_initialized()  # the executor did not own Ray, so it left it running


def test_unplaceable_actors_are_a_user_error(local_ray):
    with pytest.raises(UserError, match="no live node with resource 'eval_nodes'"):
        RayExecutor(EvalConfig(**CFG), RayExecutorOptions(actor_resource="eval_nodes"))
    with pytest.raises(UserError, match="did not start within 3s"):
        RayExecutor(EvalConfig(**CFG), RayExecutorOptions(num_actors=1, cpus_per_actor=3, start_timeout_s=3))


@pytest.mark.parametrize("kwargs,needle", [
    (dict(batch_size=0), "batch_size=0 must be >= 1"),
    (dict(inflight_per_actor=0), "inflight_per_actor=0"),
    (dict(max_batch_retries=-1), "max_batch_retries=-1"),
    (dict(start_timeout_s=0), "start_timeout_s=0"),
])
def test_option_validation(kwargs, needle):
    with pytest.raises(UserError, match=needle):
        RayExecutorOptions(**kwargs)


def test_options_from_env():
    env = {"MICROCODER_RAY_BATCH_SIZE": "32", "MICROCODER_RAY_SHIP_PACKAGE": "yes",
           "MICROCODER_RAY_BATCH_TIMEOUT_S": "90.5", "MICROCODER_RAY_ACTOR_RESOURCE": "eval"}
    o = RayExecutorOptions.from_env(env, num_actors=3)
    assert (o.batch_size, o.ship_package, o.batch_timeout_s, o.actor_resource, o.num_actors) == \
        (32, True, 90.5, "eval", 3)
    with pytest.raises(UserError, match="MICROCODER_RAY_BATCH_SIZE='many' is not a valid int"):
        RayExecutorOptions.from_env({"MICROCODER_RAY_BATCH_SIZE": "many"})
    with pytest.raises(UserError, match="MICROCODER_RAY_SHIP_PACKAGE"):
        RayExecutorOptions.from_env({"MICROCODER_RAY_SHIP_PACKAGE": "perhaps"})


def test_unreachable_address_fails_fast():
    import socket

    with socket.socket() as free:  # a loopback port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(UserError, match="nothing answers at Ray address"):
            check_reachable(address, timeout_s=2)
    check_reachable("auto")  # left to Ray


def test_missing_ray_is_a_one_line_user_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ModuleNotFoundError
    with pytest.raises(UserError, match=r"pip install 'microcoder\[ray\]'"):
        make_executor(EvalConfig(executor="ray"))


def test_own_local_instance_ships_the_package_and_shuts_down(local_ray, quick_items, quick_reference,
                                                             tmp_path, monkeypatch):
    with pytest.raises(UserError, match="already initialised"):
        RayExecutor(EvalConfig(**CFG), RayExecutorOptions(ship_package=True))
    ray.shutdown()
    monkeypatch.chdir(tmp_path)  # Ray puts the driver's cwd (the checkout) first on workers' sys.path
    with RayExecutor(EvalConfig(**CFG), RayExecutorOptions(ship_package=True, local_num_cpus=1)) as ex:
        assert ray.util.get_node_ip_address() == "127.0.0.1" and ray.cluster_resources()["CPU"] == 1
        assert "runtime_resources" in ex._slots[0].info["package"]  # the uploaded copy, not ours
        got = ex.evaluate(quick_items[:3], extract=True)
    assert [key(r) for r in got] == [key(r) for r in quick_reference[:3]]
    assert not ray.is_initialized()  # it started Ray, so it stopped it (the next test starts another)


def test_failed_connection_is_one_line_naming_a_log_and_leaves_no_files(tmp_path):
    import subprocess

    address = "http://127.0.0.1:8265"  # a dashboard address: Ray answers with a three-line message
    out = tmp_path / "sub" / "results.jsonl"
    proc = subprocess.run([sys.executable, "-m", "microcoder_eval.cli", "evaluate", "--problems", PROBLEMS,
                           "--samples", SAMPLES, "--out", str(out), "--no-progress", "--executor", "ray",
                           "--ray-address", address], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("microcoder-eval: error: cannot connect to the Ray cluster"), lines
    log = re.search(r"details in (\S+\.log)$", lines[0]).group(1)
    assert "Traceback" in open(log).read()
    __import__("os").unlink(log)
    assert list(tmp_path.iterdir()) == []  # no results file, no .meta.json, not even the --out folder
