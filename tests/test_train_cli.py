"""`microcoder-train` end to end on CPU: train, checkpoint, resume; bad input -> one line, exit 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from microcoder_train.cli import main  # noqa: E402
from microcoder_train.tiny import save_tiny_model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = str(ROOT / "data" / "lcb_sample_problems.jsonl")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return str(save_tiny_model(tmp_path_factory.mktemp("tiny-cli")))


def _flags(model, out, steps):
    return ["--model", model, "--dataset", PROBLEMS, "--output-dir", out, "--recipe", "microcoder",
            "--max_steps", str(steps), "--per_device_train_batch_size", "4", "--num_generations", "4",
            "--max_completion_length", "24", "--repetition_window", "8", "--save_steps", "1",
            "--logging_steps", "1", "--report_to", "none", "--gradient_checkpointing", "false",
            "--reward_workers", "2", "--reward_timeout_s", "5", "--disable_tqdm", "true", "--max_problems", "6"]


def test_trains_saves_checkpoints_and_resumes(tiny_dir, tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main(_flags(tiny_dir, out, 2)) == 0
    assert (Path(out) / "checkpoint-2" / "microcoder_temperature.json").exists()
    assert (Path(out) / "model.safetensors").exists()
    state = json.loads((Path(out) / "checkpoint-2" / "trainer_state.json").read_text())
    assert state["global_step"] == 2
    assert any("microcoder/masked_fraction" in h for h in state["log_history"])
    capsys.readouterr()

    assert main(_flags(tiny_dir, out, 3) + ["--resume_from_checkpoint", "last"]) == 0
    err = capsys.readouterr().err
    assert "resuming from" in err and "checkpoint-2" in err
    state = json.loads((Path(out) / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3
    staged = json.loads((Path(out) / "checkpoint-3" / "microcoder_temperature.json").read_text())
    assert staged["kind"] == "staged" and staged["switch_step"] == 1  # max_steps // 2 of the first run


@pytest.mark.parametrize("change, message", [
    (("--model", "/nonexistent/model"), "model folder '/nonexistent/model' does not exist"),
    (("--dataset", "/nonexistent/problems.jsonl"), "does not exist"),
    (("--truncation_mask_rho", "1.5"), "truncation_mask_rho=1.5 is not a probability"),
    (("--recipe", "ppo"), "unknown recipe 'ppo'"),
    (("--temperature_schedule", "cosine"), "invalid choice: 'cosine'"),
    (("--resume_from_checkpoint", "/nonexistent/ckpt"), "is not a checkpoint folder"),
    (("--reward_policy", "partial"), "reward policy 'partial' is unknown"),
])
def test_bad_input_is_one_line_and_exit_2(tiny_dir, tmp_path, capsys, change, message):
    argv = _flags(tiny_dir, str(tmp_path / "bad"), 1)
    flag, value = change
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("values", [["0.6,0.8,1.0"], ["0.6", "0.8", "1.0"], ["0.6,0.8", "1.0"]])
def test_candidate_temperatures_flag_takes_a_comma_list(tiny_dir, tmp_path, values):
    from microcoder_train.cli import parse_args

    argv = _flags(tiny_dir, str(tmp_path / "x"), 1) + ["--diversity_candidate_temperatures", *values]
    _, _, config = parse_args(argv)
    assert config.diversity_candidate_temperatures == [0.6, 0.8, 1.0]


def test_recipe_options_are_flags(tiny_dir, tmp_path):
    from microcoder_train.cli import parse_args

    argv = _flags(tiny_dir, str(tmp_path / "x"), 1) + [
        "--lora_r", "4", "--lora_target_modules", "q_proj,v_proj", "--dynamic_sampling", "true",
        "--prompts_per_step", "2", "--overlong_buffer_length", "8", "--judge_truncated_completions", "true"]
    _, _, config = parse_args(argv)
    assert config.dynamic_sampling and config.overlong_buffer_length == 8 and config.judge_truncated_completions
    assert config.gradient_accumulation_steps == 2  # 2 prompts x 4 generations / 4 per pass
    lora = config.to_lora_config()
    assert lora.r == 4 and lora.lora_alpha == 8 and set(lora.target_modules) == {"q_proj", "v_proj"}
