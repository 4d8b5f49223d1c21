"""verl's ways of loading and calling the reward: by file path, from a thread pool, with numpy batches.

The file-path tests reproduce verl's loader (``spec_from_file_location`` + ``exec_module`` without
``sys.modules``) so they run without verl; the tests marked ``verl`` use verl's own code
(``get_custom_reward_fn``, ``BatchRewardManager``, ``DataProto``) and skip when verl is not installed
(``pip install --no-deps verl`` next to the existing torch, see README "verl").
"""
import importlib.util
import json
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import microcoder_eval.reward as reward_mod
from microcoder_eval.reward import EvaluatorReward, RewardConfig

REWARD_PY = Path(reward_mod.__file__)
ADD = "```python\nprint(sum(map(int, input().split())))\n```"
SUB = "```python\na, b = map(int, input().split())\nprint(a - b)\n```"
GT = json.dumps({"inputs": ["2 3\n", "10 5\n"], "outputs": ["5\n", "15\n"]})


def _load_by_path(name="custom_module_test"):
    spec = importlib.util.spec_from_file_location(name, REWARD_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # as verl.utils.import_utils.load_module: not put in sys.modules
    assert name not in sys.modules
    return module


def test_reward_file_loads_by_path_outside_sys_modules():
    mod = _load_by_path()
    assert mod.RewardConfig(policy="fraction").policy == "fraction"  # the dataclass works in the copy
    # the copy hands calls to the installed module: one warm evaluator per process
    assert mod.compute_score_batch is reward_mod.compute_score_batch
    out = mod.compute_score("codecontests", ADD, GT, {"index": 0})
    assert out["score"] == 1.0 and out["valid"] and out["status"] == "passed"


def test_compute_score_batch_accepts_numpy_object_arrays():
    """verl's BatchRewardManager passes data_sources and extra_infos as numpy object arrays."""
    n = 4
    data_sources = np.array(["codecontests"] * n, dtype=object)
    extra_infos = np.array([{"index": i, "split": "train", "tags": np.array(["math"], dtype=object)}
                            for i in range(n)], dtype=object)
    # ground truths as a parquet column read back through pandas: dicts holding numpy arrays
    gt_arrays = {"inputs": np.array(["2 3\n", "10 5\n"], dtype=object),
                 "outputs": np.array(["5\n", "15\n"], dtype=object)}
    ground_truths = np.array([GT, gt_arrays, GT, gt_arrays], dtype=object)
    res = reward_mod.compute_score_batch(data_sources, np.array([ADD, SUB, SUB, ADD], dtype=object),
                                         ground_truths, extra_infos)
    assert [r["score"] for r in res] == [1.0, 0.0, 0.0, 1.0]
    assert [r["status"] for r in res] == ["passed", "wrong_answer", "wrong_answer", "passed"]


def test_plain_converts_numpy_and_keeps_json_types():
    v = reward_mod.plain({"a": np.array([1, 2]), "b": (np.int64(3), np.float32(0.5)), "c": None, 4: "x"})
    assert v == {"a": [1, 2], "b": [3, 0.5], "c": None, "4": "x"}
    assert type(v["b"][0]) is int


def test_lazy_executor_is_created_once_under_threads(monkeypatch):
    made = []

    class FakeExecutor:
        def close(self):
            pass

    def slow_make(cfg):
        time.sleep(0.05)  # widen the window a racing thread would need
        ex = FakeExecutor()
        made.append(ex)
        return ex

    monkeypatch.setattr(reward_mod, "make_executor", slow_make)
    r = EvaluatorReward(RewardConfig(workers=1))
    barrier = threading.Barrier(8)
    seen = []

    def touch():
        barrier.wait()
        seen.append(r.executor)

    threads = [threading.Thread(target=touch) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(ex is made[0] for ex in seen)
    r.close()


# ---------------------------------------------------------------------------------- real verl



class _Tok:
    """Decodes the token ids these tests make: id k -> the k-th text of the batch."""

    def __init__(self, texts):
        self.texts = texts

    def decode(self, ids, skip_special_tokens=True):
        return self.texts[int(ids[0])]


@pytest.fixture
def verl_modules():
    pytest.importorskip("verl", reason="verl not installed (optional: pip install --no-deps verl)")
    from omegaconf import OmegaConf
    from verl import DataProto
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.batch import BatchRewardManager
    return OmegaConf, DataProto, get_custom_reward_fn, BatchRewardManager


def test_verl_loads_reward_by_path_and_calls_it_per_sample(verl_modules):
    OmegaConf, _, get_custom_reward_fn, _ = verl_modules
    cfg = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": str(REWARD_PY), "name": "compute_score", "reward_kwargs": {}}}})
    fn = get_custom_reward_fn(cfg)
    # NaiveRewardManager calls it from a thread pool, one sample at a time, with keyword arguments
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda c: fn(data_source="codecontests", solution_str=c, ground_truth=GT,
                                          extra_info={"num_turns": None, "rollout_reward_scores": {}}),
                             [ADD, SUB, ADD, "no code"]))
    assert [o["score"] for o in outs] == [1.0, 0.0, 1.0, 0.0]
    assert outs[3]["status"] == "no_code"


def test_verl_batch_reward_manager_with_dataproto(verl_modules):
    OmegaConf, DataProto, get_custom_reward_fn, BatchRewardManager = verl_modules
    import torch

    cfg = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": "pkg://microcoder_eval.reward", "name": "compute_score_batch", "reward_kwargs": {}}}})
    fn = get_custom_reward_fn(cfg)
    texts = [ADD, SUB, ADD]
    n = len(texts)
    data = DataProto.from_dict(
        tensors={"prompts": torch.zeros(n, 2, dtype=torch.long),
                 "responses": torch.arange(n).unsqueeze(1),
                 "attention_mask": torch.ones(n, 3, dtype=torch.long)},
        non_tensors={"data_source": np.array(["codecontests"] * n, dtype=object),
                     "reward_model": np.array([{"ground_truth": GT, "style": "rule"}] * n, dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(n)], dtype=object)})
    manager = BatchRewardManager(tokenizer=_Tok(texts), num_examine=0, compute_score=fn)
    out = manager(data, return_dict=True)
    rewards = out["reward_tensor"].sum(dim=-1).tolist()
    assert rewards == [1.0, 0.0, 1.0]
    assert list(out["reward_extra_info"]["status"]) == ["passed", "wrong_answer", "passed"]


def test_reward_kwargs_configure_the_verl_reward():
    """verl passes custom_reward_function.reward_kwargs to compute_score as keyword arguments."""
    half = "```python\na, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n```"
    default = reward_mod.compute_score("codecontests", half, GT, None, reward_router_address=None)
    fraction = reward_mod.compute_score("codecontests", half, GT, None, policy="fraction", workers=1)
    assert default["score"] == 0.0 and fraction["score"] == 0.5
    assert reward_mod.default_reward(policy="fraction", workers=1) is reward_mod.default_reward(workers=1, policy="fraction")
    assert reward_mod.default_reward(unknown_key=1) is reward_mod.default_reward()
    reward_mod.default_reward(policy="fraction", workers=1).close()
