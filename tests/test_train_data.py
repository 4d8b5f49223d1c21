"""Training datasets: prompts plus LCB record columns that the evaluator reward reads back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("datasets")

from microcoder_eval.errors import UserError  # noqa: E402
from microcoder_eval.generation.prompts import build_messages  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402
from microcoder_eval.reward import EvaluatorReward  # noqa: E402
from microcoder_train.data import build_train_dataset  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "data" / "lcb_sample_problems.jsonl"
from conftest import REAL  # noqa: E402


def test_lcb_records_become_eval_prompts_and_reward_columns():
    ds = build_train_dataset(PROBLEMS)
    problems = {p.question_id: p for p in load_problems(PROBLEMS)}
    assert len(ds) == len(problems)
    reward = EvaluatorReward()
    for row in ds:
        p = problems[row["question_id"]]
        assert row["prompt"] == build_messages(p, "lcb")  # identical to the evaluation prompt
        back = reward.problem_for({k: v for k, v in row.items() if k != "prompt"})
        assert [t.to_dict() for t in back.tests] == [t.to_dict() for t in p.tests]
        assert back.func_name == p.func_name


def test_prompt_styles_and_filters():
    plain = build_train_dataset(PROBLEMS, prompt_style="plain", max_problems=2)
    assert len(plain) == 2 and isinstance(plain[0]["prompt"], str) and "### Question:" in plain[0]["prompt"]
    qwq = build_train_dataset(PROBLEMS, prompt_style="qwq", max_problems=1)
    assert [m["role"] for m in qwq[0]["prompt"]] == ["user"]
    easy = build_train_dataset(PROBLEMS, difficulty="easy")
    assert set(easy["difficulty"]) == {"easy"}
    with pytest.raises(UserError, match="prompt style 'fancy' is unknown"):
        build_train_dataset(PROBLEMS, prompt_style="fancy")
    with pytest.raises(UserError, match="no problems with tests left"):
        build_train_dataset(PROBLEMS, start_date="2030-01-01")


def test_training_rows_with_tests_and_a_statement(tmp_path):
    rows = [{"problem": "Print the sum of two integers.", "tests": json.dumps(
        [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]), "difficulty": "easy"},
        {"question": "Return x doubled.", "fn_name": "double",
         "input_output": json.dumps({"inputs": [[2], [5]], "outputs": [4, 10], "fn_name": "double"})}]
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    ds = build_train_dataset(path)
    assert len(ds) == 2
    assert "Print the sum of two integers." in ds[0]["prompt"][-1]["content"]
    reward = EvaluatorReward()
    second = reward.problem_for({k: v for k, v in ds[1].items() if k != "prompt"})
    assert second.func_name == "double" and len(second.tests) == 2
    with pytest.raises(UserError, match="filter LiveCodeBench records only"):
        build_train_dataset(path, start_date="2024-01-01")


def test_rows_without_statement_or_tests_are_rejected(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"tests": json.dumps([{"input": "1", "output": "1"}])}) + "\n")
    with pytest.raises(UserError, match="no problem statement"):
        build_train_dataset(path)
    path.write_text(json.dumps({"problem": "no tests here"}) + "\n")
    with pytest.raises(UserError, match="record 1: row has no tests"):
        build_train_dataset(path)


def test_real_rllm_codeforces_rows():
    path = REAL / "train_formats" / "rllm_deepcoder_style" / "codeforces_test_408.json"
    if not path.exists():
        pytest.skip("needs ../shared/real")
    ds = build_train_dataset(path, max_problems=5)
    assert len(ds) == 5 and all(json.loads(r["public_test_cases"]) for r in ds)
