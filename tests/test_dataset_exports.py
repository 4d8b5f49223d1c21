"""build-dataset's exports loaded the way each consumer loads them.

* LiveCodeBench: ``CodeGenerationProblem(**record)`` from ``lcb_runner.benchmarks.code_generation``.
  LiveCodeBench is not on PyPI, so the test uses, in this order: an installed ``lcb_runner``; the
  file named by ``MICROCODER_LCB_CODE_GENERATION`` (e.g. a LiveCodeBench checkout's
  ``lcb_runner/benchmarks/code_generation.py``, loaded by path); else a REIMPLEMENTATION of that
  constructor's checks (same keys, enums, ``datetime.fromisoformat``, ``Test(**t)`` keys,
  json-or-pickle private tests, JSON metadata), written here from reading its source.
* verl: ``datasets.load_dataset("parquet")`` as ``RLHFDataset`` reads ``data.train_files``, and with
  verl installed, ``RLHFDataset`` itself; each row's ``reward_model.ground_truth``/``extra_info``
  scored by ``compute_score`` with the problem's verified reference.
* TRL: ``datasets.load_from_disk`` then ``GRPOTrainer`` one step on a tiny local model with
  ``EvaluatorReward`` reading the exported columns.
"""
from __future__ import annotations

import base64
import importlib.util
import json
import os
import pickle
import zlib
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path

import pytest

from microcoder_eval.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "dataset"
LCB_KEYS = {"question_title", "question_content", "platform", "question_id", "contest_id", "contest_date",
            "starter_code", "difficulty", "public_test_cases", "private_test_cases", "metadata"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    pytest.importorskip("datasketch")
    out = tmp_path_factory.mktemp("exports") / "out"
    argv = ["build-dataset", str(FIX / "plain.jsonl"), "--out", str(out), "--workers", "2", "--timeout-s", "2",
            "--memory-mb", "1024", "--no-progress"]
    assert main(argv) == 0
    return out


# ------------------------------------------------------------------------------ LiveCodeBench
class _Platform(Enum):
    LEETCODE = "leetcode"
    CODEFORCES = "codeforces"
    ATCODER = "atcoder"


class _Difficulty(Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class _TestType(Enum):
    STDIN = "stdin"
    FUNCTIONAL = "functional"


@dataclass
class _Test:
    input: str
    output: str
    testtype: _TestType

    def __post_init__(self):
        self.testtype = _TestType(self.testtype)


@dataclass
class _ReimplementedCodeGenerationProblem:
    """REIMPLEMENTED checks of LiveCodeBench's CodeGenerationProblem (used only when it is not available)."""

    question_title: str
    question_content: str
    platform: _Platform
    question_id: str
    contest_id: str
    contest_date: datetime
    starter_code: str
    difficulty: _Difficulty
    public_test_cases: list
    private_test_cases: list
    metadata: dict

    def __post_init__(self):
        self.platform = _Platform(self.platform)
        self.difficulty = _Difficulty(self.difficulty)
        self.contest_date = datetime.fromisoformat(self.contest_date)
        self.public_test_cases = [_Test(**t) for t in json.loads(self.public_test_cases)]
        try:
            private = json.loads(self.private_test_cases)
        except Exception:  # noqa: BLE001 - as LiveCodeBench
            private = json.loads(pickle.loads(zlib.decompress(base64.b64decode(self.private_test_cases.encode()))))
        self.private_test_cases = [_Test(**t) for t in private]
        self.metadata = json.loads(self.metadata)


def lcb_problem_class():
    """(CodeGenerationProblem, where it came from)."""
    try:
        from lcb_runner.benchmarks.code_generation import CodeGenerationProblem

        return CodeGenerationProblem, "lcb_runner (installed)"
    except ImportError:
        pass
    path = os.environ.get("MICROCODER_LCB_CODE_GENERATION")
    if path and Path(path).is_file():
        spec = importlib.util.spec_from_file_location("lcb_code_generation", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.CodeGenerationProblem, f"LiveCodeBench's {path}"
    import warnings

    warnings.warn("LiveCodeBench's CodeGenerationProblem is not available (not on PyPI; set "
                  "MICROCODER_LCB_CODE_GENERATION): checking problems.jsonl with a reimplementation of its checks")
    return _ReimplementedCodeGenerationProblem, "reimplemented checks"


def test_problems_jsonl_loads_with_livecodebench(built):
    cls, where = lcb_problem_class()
    records = [json.loads(line) for line in (built / "problems.jsonl").read_text().splitlines()]
    assert records
    for rec in records:
        assert set(rec) == LCB_KEYS
        prob = cls(**rec)  # raises on an extra key, a value outside the enums or a bad date
        assert prob.platform.value in ("leetcode", "codeforces", "atcoder"), where
        assert prob.public_test_cases or prob.private_test_cases
        if prob.metadata.get("func_name"):
            assert all(t.testtype.value == "functional" for t in prob.public_test_cases + prob.private_test_cases)
    print(f"LiveCodeBench loader used: {where}")


def test_mapped_values_keep_their_originals_for_our_loader(tmp_path):
    from microcoder_eval.dataset.export import lcb_loader_record
    from microcoder_eval.lcb import load_problems
    from microcoder_eval.problem import Problem, TestCase

    odd = Problem("cc1", question_content="x", platform="codechef", difficulty="unknown", contest_date="",
                  source="taco", private_tests=[TestCase("1\n", "1\n")])
    apps = Problem("ap1", question_content="y", platform="unknown", difficulty="interview",
                   contest_date="2024-03-05", source="apps", func_name="f",
                   private_tests=[TestCase("1", "1", testtype=__import__("microcoder_eval.problem").problem.TestType.FUNCTIONAL)])
    recs = [lcb_loader_record(odd), lcb_loader_record(apps)]
    assert [(r["platform"], r["difficulty"], r["contest_date"]) for r in recs] == [
        ("codeforces", "medium", "1970-01-01T00:00:00"), ("leetcode", "medium", "2024-03-05T00:00:00")]
    cls, _ = lcb_problem_class()
    for r in recs:
        cls(**r)
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    back = {p.question_id: p for p in load_problems(path)}
    assert (back["cc1"].platform, back["cc1"].difficulty, back["cc1"].contest_date, back["cc1"].source) == \
        ("codechef", "unknown", "", "taco")
    assert (back["ap1"].platform, back["ap1"].difficulty, back["ap1"].source) == ("unknown", "interview", "apps")


# ------------------------------------------------------------------------------ verl
def _fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def _references(built):
    import pyarrow.parquet as pq

    return {r["question_id"]: r["verified_solution"] for r in pq.read_table(built / "dataset.parquet").to_pylist()}


def test_verl_parquet_rows_score_with_compute_score(built):
    import datasets

    from microcoder_eval.reward import compute_score

    ds = datasets.load_dataset("parquet", data_files=str(built / "verl" / "train.parquet"),
                               cache_dir=str(built / ".verl_cache"))["train"]  # as verl's RLHFDataset
    assert set(ds.column_names) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    refs = _references(built)
    scored = 0
    for row in ds:
        assert row["prompt"][-1]["role"] == "user" and row["reward_model"]["style"] == "rule"
        ref = refs[row["extra_info"]["question_id"]]
        if not ref:
            continue
        out = compute_score(row["data_source"], _fenced(ref), row["reward_model"]["ground_truth"], row["extra_info"])
        assert out["score"] == 1.0, out
        wrong = compute_score(row["data_source"], _fenced("print('nope')"), row["reward_model"]["ground_truth"],
                              row["extra_info"])
        assert wrong["score"] == 0.0
        scored += 1
    assert scored >= 1


def test_verl_rlhf_dataset_reads_the_export(built, tmp_path):
    pytest.importorskip("verl", reason="verl not installed (optional: pip install --no-deps verl)")
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from microcoder_train.tiny import build_tokenizer

    cfg = OmegaConf.create({"max_prompt_length": 4096, "filter_overlong_prompts": True, "cache_dir": str(tmp_path),
                            "filter_overlong_prompts_workers": 1, "return_raw_chat": True})
    ds = RLHFDataset(data_files=str(built / "verl" / "train.parquet"), tokenizer=build_tokenizer(), config=cfg)
    assert len(ds) >= 1
    item = ds[0]
    assert item["reward_model"]["style"] == "rule" and "ground_truth" in item["reward_model"]
    assert item["data_source"].startswith("microcoder/")


# ------------------------------------------------------------------------------ TRL
def test_trl_folder_trains_one_grpo_step_with_the_evaluator_reward(built, tmp_path):
    pytest.importorskip("trl")
    import datasets
    from trl import GRPOConfig, GRPOTrainer

    from microcoder_eval.reward import EvaluatorReward, RewardConfig
    from microcoder_train.tiny import build_model, build_tokenizer

    ds = datasets.load_from_disk(str(built / "trl"))
    assert {"prompt", "public_test_cases", "private_test_cases", "metadata"} <= set(ds.column_names)
    tok = build_tokenizer()
    model = build_model(tok)
    reward = EvaluatorReward(RewardConfig(workers=2, timeout_s=2, sample_budget_s=4))
    args = GRPOConfig(output_dir=str(tmp_path / "o"), per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, max_steps=1, logging_steps=1, report_to=[], use_cpu=True,
                      save_strategy="no", disable_tqdm=True, seed=0)
    try:
        trainer = GRPOTrainer(model=model, processing_class=tok, reward_funcs=[reward], train_dataset=ds, args=args)
        trainer.train()
    finally:
        reward.close()
    assert trainer.state.global_step == 1
    assert reward.last_results and all(r is not None for r in reward.last_results)  # every row had tests
