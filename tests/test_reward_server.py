"""The reward server on loopback: OpenRLHF's /get_reward, the native /score, health, metrics,
back-pressure (503) and bad requests; the same evaluator and sandbox as the in-process reward."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

from microcoder_eval.reward import EvaluatorReward, RewardConfig
from microcoder_eval.reward_server import RewardService, ServerConfig, make_server

ADD = "```python\nprint(sum(map(int, input().split())))\n```"
SUB = "```python\na, b = map(int, input().split())\nprint(a - b)\n```"
LOOP = "```python\nwhile True:\n    pass\n```"
TESTS = json.dumps({"inputs": ["2 3\n", "10 5\n"], "outputs": ["5\n", "15\n"]})
FN = json.dumps({"fn_name": "add", "inputs": [[1, 2], [3, 4]], "outputs": [3, 7]})


@pytest.fixture(scope="module")
def server():
    reward = EvaluatorReward(RewardConfig(workers=2, timeout_s=1, sample_budget_s=2))
    srv = make_server(reward=reward, server_config=ServerConfig(host="127.0.0.1", port=0, max_batch=16,
                                                                batch_wait_ms=2, max_queue=64))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.close()
    reward.close()


def post(srv, path, body, raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(srv.url + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def get(srv, path):
    with urllib.request.urlopen(srv.url + path, timeout=30) as r:
        return r.status, r.read().decode()


def test_openrlhf_get_reward(server):
    prompt = "<|im_start|>user\nAdd two numbers; answer in ```python``` fences.<|im_end|>\n<|im_start|>assistant\n"
    body = {"query": [prompt + ADD, prompt + SUB, prompt + "no code at all", prompt + ADD],
            "prompts": [prompt] * 4, "labels": [TESTS, TESTS, TESTS, "not tests"]}
    code, out = post(server, "/get_reward", body)
    assert code == 200
    assert out["rewards"] == [1.0, 0.0, 0.0, 0.0]  # the prompt's own fence is not taken as the answer
    assert out["extra_logs"]["valid"] == [1.0, 1.0, 1.0, 0.0]
    assert out["extra_logs"]["pass"] == [1.0, 0.0, 0.0, 0.0]


def test_native_score_returns_typed_verdicts(server):
    items = [{"completion": ADD, "ground_truth": TESTS},
             {"completion": "```python\ndef add(a, b):\n    return a + b\n```", "ground_truth": FN},
             {"completion": LOOP, "ground_truth": TESTS},
             {"completion": "```python\nprint(\n```", "ground_truth": TESTS},
             {"completion": ADD, "ground_truth": {"nothing": 1}}]
    code, out = post(server, "/score", {"items": items})
    assert code == 200
    res = out["results"]
    assert [r["status"] for r in res] == ["passed", "passed", "time_limit", "runtime_error", "bad_ground_truth"]
    assert [r["reward"] for r in res] == [1.0, 1.0, 0.0, 0.0, None]
    assert res[0]["num_passed"] == res[0]["num_tests"] == 2
    assert res[0]["tests"][0]["status"] == "passed" and res[0]["tests"][0]["rule"]


def test_health_metrics_and_bad_requests(server):
    code, text = get(server, "/health")
    assert code == 200 and json.loads(text)["status"] == "ok"
    assert post(server, "/get_reward", None, raw=b"{not json")[0] == 400
    assert post(server, "/get_reward", {"query": ["a"], "labels": []})[0] == 400
    assert post(server, "/score", {"items": "x"})[0] == 400
    assert post(server, "/nope", {})[0] == 404
    code, text = get(server, "/metrics")
    assert "microcoder_reward_items_total" in text and 'microcoder_reward_verdicts_total{status="passed"}' in text
    assert 'code="400"' in text


class _GatedReward:
    """Stands in for EvaluatorReward: every batch waits for ``gate``; judges every item as passed."""

    def __init__(self):
        self.config = RewardConfig(workers=1)
        self.eval_config = self.config.eval_config()
        self.gate = threading.Event()
        self.calls: list[int] = []

    def evaluate(self, problems, texts):
        self.gate.wait(30)
        self.calls.append(len(problems))
        from microcoder_eval.verdict import SampleResult, Status
        return [SampleResult(p.question_id, 0, Status.PASSED, [], 0) for p in problems]

    def problem_for(self, row):
        from microcoder_eval.test_formats import problem_from_row
        return problem_from_row(row)

    def score_results(self, results):
        return [1.0 if r is not None else None for r in results]


def _wait_for(pred):
    for _ in range(3000):
        if pred():
            return
        threading.Event().wait(0.01)
    raise AssertionError("condition not reached")


def test_full_queue_answers_503_and_an_oversized_request_413():
    fake = _GatedReward()
    srv = make_server(reward=fake, server_config=ServerConfig(port=0, max_batch=1, batch_concurrency=1, max_queue=10))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    item = {"completion": ADD, "ground_truth": TESTS}
    try:
        code, out = post(srv, "/score", {"items": [item] * 11})
        assert code == 413 and "--max-queue" in out["error"]  # can never fit: not an endless 503
        waiting = [threading.Thread(target=post, args=(srv, "/score", {"items": [item]}))]
        waiting[0].start()
        _wait_for(lambda: srv.service.state()["in_flight"] == 1)  # the only batch slot is busy
        waiting.append(threading.Thread(target=post, args=(srv, "/score", {"items": [item] * 10})))
        waiting[1].start()
        _wait_for(lambda: srv.service.state()["queued"] == 10)  # the queue is full
        code, out = post(srv, "/get_reward", {"query": [ADD], "prompts": [""], "labels": [TESTS]})
        assert code == 503 and "busy" in out["error"]
        assert srv.service.state()["queued"] == 10  # nothing of the refused request was queued
        fake.gate.set()
        for t in waiting:
            t.join(30)
        assert sum(fake.calls) == 11
        _, text = get(srv, "/metrics")
        assert "microcoder_reward_rejected_items_total 1" in text and 'code="503"' in text
    finally:
        fake.gate.set()
        srv.close()


def test_service_batches_items_of_concurrent_requests():
    class Recording:
        """Stands in for EvaluatorReward: records batch sizes, judges nothing."""

        config = RewardConfig(workers=1)
        calls: list[int] = []
        gate = threading.Event()

        def evaluate(self, problems, texts):
            self.gate.wait(10)
            self.calls.append(len(problems))
            from microcoder_eval.verdict import SampleResult, Status
            return [SampleResult(p.question_id, 0, Status.PASSED, [], 0) for p in problems]

        def problem_for(self, row):
            from microcoder_eval.test_formats import problem_from_row
            return problem_from_row(row)

    rec = Recording()
    svc = RewardService(rec, ServerConfig(max_batch=100, batch_wait_ms=0, batch_concurrency=1, max_queue=1000))
    try:
        first = svc.submit([svc.problem(TESTS)], ["x"])  # occupies the only batch slot
        for _ in range(1000):  # wait until the dispatcher has taken it
            if svc.state()["in_flight"] == 1:
                break
            threading.Event().wait(0.01)
        futs = [svc.submit([svc.problem(TESTS)] * 8, ["x"] * 8) for _ in range(5)]
        rec.gate.set()
        for f in [*first, *[x for fs in futs for x in fs]]:
            assert f.result(10) is not None
        assert rec.calls == [1, 40]  # the five waiting requests went to the evaluator as one batch
    finally:
        svc.close()


def test_cli_serves_until_interrupted(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ}
    proc = subprocess.Popen([sys.executable, "-m", "microcoder_eval.cli", "serve-reward", "--port", "0",
                             "--workers", "1", "--timeout-s", "1"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
        assert "reward server on http://127.0.0.1:" in line, line
        url = line.split(" on ")[1].split()[0]
        with urllib.request.urlopen(url + "/health", timeout=30) as r:
            assert json.loads(r.read())["status"] == "ok"
        req = urllib.request.Request(url + "/get_reward", data=json.dumps(
            {"query": [ADD], "prompts": [""], "labels": [TESTS]}).encode())
        with urllib.request.urlopen(req, timeout=60) as r:
            assert json.loads(r.read())["rewards"] == [1.0]
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
