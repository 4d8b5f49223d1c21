"""The reward plug-in, called exactly as TRL 1.16's GRPOTrainer and verl call reward functions."""
import json
import time

import pytest

from microcoder_eval.reward import EvaluatorReward, RewardConfig, compute_score, compute_score_batch
from microcoder_eval.errors import UserError

from conftest import DATA

RECORDS = {r["question_id"]: r for r in map(json.loads, open(DATA / "lcb_sample_problems.jsonl"))}
SAMPLES = [json.loads(l) for l in open(DATA / "lcb_sample_completions.jsonl")]


@pytest.fixture(scope="module")
def reward():
    r = EvaluatorReward(RewardConfig(workers=2, timeout_s=2, sample_budget_s=4))
    yield r
    r.close()


def _batch(samples):
    """Dataset columns repeated per completion, as TRL's _calculate_rewards builds reward_kwargs."""
    keys = [k for k in next(iter(RECORDS.values()))]
    cols = {k: [RECORDS[s["question_id"]][k] for s in samples] for k in keys}
    return cols


def _trl_call(reward, samples, conversational=False, logs=None):
    logs = logs if logs is not None else {}
    completions = [[{"role": "assistant", "content": s["completion"]}] if conversational else s["completion"]
                   for s in samples]
    prompts = [[{"role": "user", "content": "solve"}] if conversational else "solve" for _ in samples]
    return reward(prompts=prompts, completions=completions, completion_ids=[[1, 2, 3]] * len(samples),
                  trainer_state=object(), log_extra=lambda k, v: logs.setdefault("extra", {}).update({k: v}),
                  log_metric=lambda k, v: logs.setdefault("metric", {}).update({k: v}), **_batch(samples))


def test_trl_call_binary_rewards_match_labels(reward):
    batch = [s for s in SAMPLES if s["expect_status"] not in ("time_limit", "memory_limit")][:24]
    logs = {}
    rewards = _trl_call(reward, batch, logs=logs)
    assert rewards == [1.0 if s["label"] == "pass" else 0.0 for s in batch]
    assert len(logs["extra"]["verdict"]) == len(batch)
    assert 0.0 < logs["metric"]["verdict/pass_rate"] < 1.0
    assert reward.__name__ == "microcoder_binary"


def test_trl_conversational_completions(reward):
    batch = [s for s in SAMPLES if s["label"] == "pass"][:4]
    assert _trl_call(reward, batch, conversational=True) == [1.0] * 4


def test_fraction_policy_penalties_and_subsampling():
    r = EvaluatorReward(RewardConfig(policy="fraction", workers=2, timeout_s=2, no_code_reward=-1.0,
                                     syntax_error_reward=-0.5, max_tests=2, seed=3))
    try:
        qid = "mcb101_a"
        p = r.problem_for(RECORDS[qid])
        assert len(p.tests) == 2 and p.tests == r.problem_for(RECORDS[qid]).tests  # deterministic
        good = next(s for s in SAMPLES if s["question_id"] == qid and s["label"] == "pass")
        batch = [good, {"question_id": qid, "completion": "no code here"},
                 {"question_id": qid, "completion": "```python\ndef f(:\n```"},
                 {"question_id": qid, "completion": "```python\nprint(0)\n```"}]
        assert _trl_call(r, batch) == [1.0, -1.0, -0.5, 0.0]
    finally:
        r.close()


def test_cache_hits_for_identical_code(reward):
    s = next(s for s in SAMPLES if s["label"] == "pass")
    before = reward.cache_hits
    _trl_call(reward, [s, s, s])
    _trl_call(reward, [s])
    assert reward.cache_hits - before >= 1


def test_hostile_completion_cannot_stall_or_poison_the_batch(reward):
    good = [s for s in SAMPLES if s["label"] == "pass"][:6]
    qid = good[0]["question_id"]
    hostile = [
        {"question_id": qid, "completion": "```python\nimport os\nwhile True:\n    try: os.fork()\n    except OSError: pass\n```"},
        {"question_id": qid, "completion": "```python\nimport os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n```"},
        {"question_id": qid, "completion": "```python\nwhile True: pass\n```"},
    ]
    t0 = time.monotonic()
    rewards = _trl_call(reward, good + hostile)
    elapsed = time.monotonic() - t0
    assert rewards[:6] == [1.0] * 6
    assert all(r in (0.0, None) for r in rewards[6:])
    assert elapsed < 60  # bounded by per-sample budgets, not hung
    assert _trl_call(reward, good[:2]) == [1.0, 1.0]  # still healthy afterwards


def test_infra_failure_is_none_not_zero():
    class Broken:
        def evaluate(self, items, extract=False):
            raise RuntimeError("cluster down")

        def close(self):
            pass

    r = EvaluatorReward(RewardConfig(), executor=Broken())
    s = next(s for s in SAMPLES if s["label"] == "pass")
    assert _trl_call(r, [s, s]) == [None, None]


def test_rows_with_tests_column_and_bad_rows(reward):
    rows = {"tests": [json.dumps([{"input": "2 3\n", "output": "5\n", "testtype": "stdin"}]), "not tests"]}
    out = reward(prompts=["p", "p"], completions=["```python\nprint(sum(map(int, input().split())))\n```"] * 2,
                 completion_ids=[[1], [1]], trainer_state=None, **rows)
    assert out == [1.0, None]


def test_verl_compute_score():
    gt = json.dumps({"inputs": ["2 3\n", "10 5\n"], "outputs": ["5\n", "15\n"]})
    ok = compute_score("codecontests", "```python\nprint(sum(map(int, input().split())))\n```", gt)
    assert ok["score"] == 1.0 and ok["status"] == "passed" and ok["valid"]
    bad = compute_score("codecontests", "no code", gt)
    assert bad["score"] == 0.0 and bad["status"] == "no_code"
    fn_gt = json.dumps({"fn_name": "add", "inputs": [[1, 2], [3, 4]], "outputs": [3, 7]})
    res = compute_score_batch(["leetcode"] * 2, ["```python\ndef add(a, b):\n    return a + b\n```",
                                                 "```python\ndef add(a, b):\n    return a - b\n```"], [fn_gt, fn_gt])
    assert [r["score"] for r in res] == [1.0, 0.0]
    rllm_gt = json.dumps({"tests": json.dumps([{"input": "4\n", "output": "8\n", "testtype": "stdin"}])})
    assert compute_score("lcb", "```python\nprint(2 * int(input()))\n```", rllm_gt)["score"] == 1.0


def test_reward_config_validation():
    with pytest.raises(UserError, match="policy 'partial'"):
        RewardConfig(policy="partial")
    with pytest.raises(UserError, match="max_tests=-1"):
        RewardConfig(max_tests=-1)
    with pytest.raises(UserError, match="timeout_s=0"):
        RewardConfig(timeout_s=0)


def test_real_verl_parquet_ground_truth():
    from conftest import real
    import pyarrow.parquet as pq

    rows = pq.read_table(real("train_formats/rllm_deepcoder_style/rllm-org_test_livecodebench_verl_879.parquet")).to_pylist()
    from microcoder_eval.reward import _row_from_ground_truth, default_reward

    probs = [default_reward().problem_for(_row_from_ground_truth(r["reward_model"]["ground_truth"], r.get("extra_info")))
             for r in rows[:50]]
    assert all(p.tests for p in probs)
