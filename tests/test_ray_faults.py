"""Fault tests on a multi-node Ray cluster simulated on one machine (``ray.cluster_utils.Cluster``:
a CPU-less head plus two 1-CPU worker nodes, each a real raylet with its own processes).

A node removed mid-run, an actor process killed mid-batch, and the reward plug-in losing a node:
every sample is judged exactly once, none lost, none duplicated, verdicts equal to a local run;
only samples whose retries ran out become ``infra_error`` (reward ``None``), and the CLI then exits
3 and a rerun of the same command judges just those. One cluster serves the whole module.
"""
import json
import logging
import os
import signal
import threading
import time

import pytest

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from microcoder_eval.cli import main  # noqa: E402
from microcoder_eval.config import EvalConfig  # noqa: E402
from microcoder_eval.executors.ray_executor import RayExecutor, _private_token  # noqa: E402
from microcoder_eval.executors.ray_options import RayExecutorOptions  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.samples import load_samples  # noqa: E402
from microcoder_eval.verdict import Status  # noqa: E402

from conftest import DATA  # noqa: E402
from test_ray_executor import key  # noqa: E402

PROBLEMS = str(DATA / "lcb_sample_problems.jsonl")
SAMPLES = str(DATA / "lcb_sample_completions.jsonl")
CFG = dict(workers=2, timeout_s=2.0, memory_mb=1024, executor="ray")
STORE = 80 * 1024 * 1024  # object store per node: Ray's minimum is about 75 MiB
NODE = dict(num_cpus=1, object_store_memory=STORE)


@pytest.fixture(scope="module")
def cluster():
    """Head (no CPU: it runs no sandbox) + two worker nodes; dead nodes are noticed within ~2 s."""
    if ray.is_initialized():
        ray.shutdown()
    _private_token()  # the nodes and this driver share a token of their own, not ~/.ray/auth_token
    c = cluster_utils.Cluster(initialize_head=True, head_node_args=dict(
        num_cpus=0, object_store_memory=STORE, include_dashboard=False,
        _system_config={"health_check_period_ms": 500, "health_check_failure_threshold": 4,
                        "health_check_initial_delay_ms": 0}))
    for _ in range(2):
        c.add_node(**NODE)
    ray.init(address=c.address, log_to_driver=False, logging_level=logging.WARNING)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture
def two_nodes(cluster):
    """Two live 1-CPU worker nodes (a node removed by an earlier test is replaced)."""
    while len(_alive_workers()) < 2:
        cluster.add_node(**NODE)
        cluster.wait_for_nodes()
    deadline = time.monotonic() + 60
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # actors of the previous test still releasing their CPUs
    return cluster


def _alive_workers():
    return [n for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) >= 1]


def _node_of(cluster, node_id):
    return next(n for n in cluster.worker_nodes if n.node_id == node_id)


def _lose(cluster, node):
    """The machine dies: SIGKILL every process its raylet started (workers, actors, sandboxes),
    then the node's own processes. (``remove_node`` alone leaves actor processes serving direct
    calls for a moment, so a test could finish before the loss shows.)"""
    import psutil

    raylet = node.all_processes["raylet"][0].process.pid
    try:
        procs = psutil.Process(raylet).children(recursive=True)
    except psutil.NoSuchProcess:
        procs = []
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    cluster.remove_node(node, allow_graceful=False)


@pytest.fixture(scope="module")
def quick():
    cats = [json.loads(line)["category"] for line in open(SAMPLES)]
    return [i for i, c in enumerate(cats) if c not in ("infinite_loop", "memory_hog")][:24]


@pytest.fixture(scope="module")
def quick_items(quick):
    pmap = {p.question_id: p for p in load_problems(PROBLEMS)}
    samples = load_samples(SAMPLES)
    return [(pmap[samples[i].question_id], samples[i].text) for i in quick]


@pytest.fixture(scope="module")
def quick_reference(evaluator, quick_items):
    """Verdicts of the local executor with the same settings."""
    return evaluator.evaluate(quick_items, extract=True)


def _judge_and_strike(ex, items, strike):
    """Run ``items``; call ``strike()`` once the first result is in (other batches still in flight)."""
    seen: dict[int, list] = {}
    for n, (pos, res) in enumerate(ex.evaluate_iter(items, extract=True)):
        seen.setdefault(pos, []).append(res)
        if n == 0:
            strike()
    return seen


def test_node_removed_mid_run_every_sample_judged_once(two_nodes, quick_items, quick_reference, caplog):
    with caplog.at_level(logging.WARNING, logger="microcoder_eval.ray"):
        with RayExecutor(EvalConfig(**CFG), RayExecutorOptions(batch_size=2)) as ex:
            assert len(ex.actors) == 2 and len({s.info["node"] for s in ex._slots}) == 2  # one per node
            victim = _node_of(two_nodes, ex._slots[0].info["node"])
            seen = _judge_and_strike(ex, quick_items, lambda: _lose(two_nodes, victim))
            stats = ex.stats.copy()
    assert sorted(seen) == list(range(len(quick_items)))  # none lost
    assert all(len(v) == 1 for v in seen.values())  # none duplicated
    assert [key(seen[i][0]) for i in range(len(quick_items))] == [key(r) for r in quick_reference]
    assert stats["actor_failures"] >= 1 and stats["batch_retries"] >= 1 and stats["infra_error_samples"] == 0
    assert any("failed on actor" in m for m in caplog.messages)


def test_actor_process_killed_mid_batch(two_nodes, quick_items, quick_reference):
    """SIGKILL of an actor's process (as the OOM killer does): Ray restarts it, its batch is retried."""
    with RayExecutor(EvalConfig(**CFG), RayExecutorOptions(batch_size=3)) as ex:
        pid = ex._slots[1].info["pid"]
        seen = _judge_and_strike(ex, quick_items, lambda: os.kill(pid, signal.SIGKILL))
        stats = ex.stats.copy()
        assert len(ex.actors) == 2  # restarted, not retired
    assert sorted(seen) == list(range(len(quick_items))) and all(len(v) == 1 for v in seen.values())
    assert [key(seen[i][0]) for i in range(len(quick_items))] == [key(r) for r in quick_reference]
    assert stats["actor_failures"] >= 1 and stats["infra_error_samples"] == 0


class _StrikeAfterFirst:
    """Executor wrapper for the reward plug-in: runs ``strike`` once the first result of a call is in."""

    def __init__(self, ex, strike):
        self.ex, self.strike, self.done = ex, strike, False

    def evaluate(self, items, extract=False):
        def hook(pos, res):
            if not self.done:
                self.done = True
                self.strike()
        return self.ex.evaluate(items, extract, on_result=hook)


def _reward_batch(quick):
    records = {r["question_id"]: r for r in map(json.loads, open(PROBLEMS))}
    lines = open(SAMPLES).read().splitlines()
    batch = [json.loads(lines[i]) for i in quick[:16]]
    columns = {k: [records[s["question_id"]][k] for s in batch] for k in next(iter(records.values()))}
    return batch, columns


@pytest.mark.parametrize("retries", [0, 2])
def test_reward_plugin_losing_a_node(two_nodes, quick, retries):
    """Retries on: every reward is right. Retries off: ``None`` exactly for the items whose batch
    was lost, the right reward for every other one; never a zeroed batch."""
    from microcoder_eval.reward import EvaluatorReward, RewardConfig

    batch, columns = _reward_batch(quick)
    rcfg = RewardConfig(workers=2, timeout_s=2, sample_budget_s=4, executor="ray", cache_size=0)
    ex = RayExecutor(rcfg.eval_config(), RayExecutorOptions(batch_size=2, max_batch_retries=retries))
    try:
        victim = _node_of(two_nodes, ex._slots[0].info["node"])
        reward = EvaluatorReward(rcfg, executor=_StrikeAfterFirst(
            ex, lambda: _lose(two_nodes, victim)))
        got = reward(prompts=["solve"] * len(batch), completions=[s["completion"] for s in batch], **columns)
        stats = ex.stats.copy()
    finally:
        ex.close()
    want = [1.0 if s["label"] == "pass" else 0.0 for s in batch]
    lost = [i for i, g in enumerate(got) if g is None]
    assert [g for g in got if g is not None] == [w for i, w in enumerate(want) if i not in lost]
    assert stats["actor_failures"] >= 1
    if retries:
        assert lost == [] and stats["infra_error_samples"] == 0
    else:
        assert 1 <= len(lost) < len(batch) and len(lost) == stats["infra_error_samples"]
        assert all(reward.last_results[i].status is Status.INFRA_ERROR for i in lost)
        assert all("ray batch failed 1 times" in reward.last_results[i].detail for i in lost)


def test_cli_run_losing_a_node_exits_3_and_the_rerun_completes_it(two_nodes, quick, tmp_path, monkeypatch, capsys):
    """The issue's scenario end to end: a node dies mid-run with retries off; the run says how many
    samples are unjudged and exits 3; the same command again judges just those, leaving one row
    per sample with the labels' verdicts."""
    monkeypatch.setenv("MICROCODER_RAY_MAX_BATCH_RETRIES", "0")
    monkeypatch.setenv("MICROCODER_RAY_BATCH_SIZE", "2")
    lines = open(SAMPLES).read().splitlines()
    expected = [json.loads(lines[i]) for i in quick]
    samples = tmp_path / "s.jsonl"
    samples.write_text("".join(json.dumps(e) + "\n" for e in expected))
    out = tmp_path / "r.jsonl"
    argv = ["evaluate", "--problems", PROBLEMS, "--samples", str(samples), "--out", str(out), "--no-progress",
            "--workers", "2", "--timeout-s", "2", "--executor", "ray"]
    victim = _node_of(two_nodes, _alive_workers()[0]["NodeID"])

    def strike():  # remove a node as soon as the first verdicts are on disk
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out.exists() and out.stat().st_size):
            time.sleep(0.05)
        _lose(two_nodes, victim)

    t = threading.Thread(target=strike)
    t.start()
    status = main(argv)
    t.join()
    err = capsys.readouterr().err
    first = json.loads((tmp_path / "r.summary.json").read_text())
    if status == 0:  # the victim had finished all its batches before it died: nothing to show
        pytest.skip("the node died after its last batch; nothing was lost")
    assert status == 3, err
    n = first["num_unjudged"]
    assert n >= 1 and f"{n} of {len(expected)} samples could not be judged" in err
    assert "rerun the same command" in err

    capsys.readouterr()
    assert main(argv) == 0  # rerun: the lost samples are judged on the surviving node
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    got = {(r["question_id"], r["sample_index"]): r["status"] for r in rows}
    assert len(rows) == len(got) == len(expected)  # one row per sample after compaction
    idx: dict[str, int] = {}
    for e in expected:
        k = idx.get(e["question_id"], 0)
        idx[e["question_id"]] = k + 1
        assert got[(e["question_id"], k)] == e["expect_status"], (e["question_id"], k)
    assert json.loads((tmp_path / "r.summary.json").read_text())["num_unjudged"] == 0


def test_cli_run_losing_every_node_reports_the_rest_unjudged(two_nodes, quick, tmp_path, capsys):
    """Like `ray stop` on the workers mid-run: what was judged stays, the rest is infra_error (not a
    failure), the run exits 3; nothing is judged twice or lost."""
    lines = open(SAMPLES).read().splitlines()
    expected = [json.loads(lines[i]) for i in quick]
    samples = tmp_path / "s.jsonl"
    samples.write_text("".join(json.dumps(e) + "\n" for e in expected))
    out = tmp_path / "r.jsonl"
    victims = [_node_of(two_nodes, n["NodeID"]) for n in _alive_workers()]

    def strike():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out.exists() and out.stat().st_size):
            time.sleep(0.05)
        for v in victims:
            _lose(two_nodes, v)

    t = threading.Thread(target=strike)
    t.start()
    status = main(["evaluate", "--problems", PROBLEMS, "--samples", str(samples), "--out", str(out),
                   "--no-progress", "--workers", "2", "--timeout-s", "2", "--executor", "ray"])
    t.join()
    summary = json.loads((tmp_path / "r.summary.json").read_text())
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len({(r["question_id"], r["sample_index"]) for r in rows}) == len(expected)
    if status == 0:
        pytest.skip("every batch finished before the nodes died")
    assert status == 3 and summary["num_unjudged"] >= 1
    assert summary["num_judged"] + summary["num_unjudged"] == len(expected)
    unjudged = [r for r in rows if r["status"] == "infra_error"]
    assert len(unjudged) == summary["num_unjudged"]
    assert f"{len(unjudged)} of {len(expected)} samples could not be judged" in capsys.readouterr().err
    # what was judged before the loss is right
    idx: dict[str, int] = {}
    want = {}
    for e in expected:
        k = idx.get(e["question_id"], 0)
        idx[e["question_id"]] = k + 1
        want[(e["question_id"], k)] = e["expect_status"]
    assert all(r["status"] == want[(r["question_id"], r["sample_index"])] for r in rows if r["status"] != "infra_error")
