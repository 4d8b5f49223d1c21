"""Two ranks on CPU (torchrun, gloo) through the CLI; accelerate's one-process --cpu launch is refused."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

from microcoder_train.cli import check_launcher, main  # noqa: E402
from microcoder_train.tiny import save_tiny_model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_ranks_with_torchrun(tmp_path):
    model = save_tiny_model(tmp_path / "tiny")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
           str(_free_port()), "-m", "microcoder_train.cli", "--model", str(model),
           "--dataset", str(ROOT / "data" / "lcb_sample_problems.jsonl"), "--output-dir", str(out),
           "--recipe", "microcoder", "--max_steps", "2", "--per_device_train_batch_size", "4",
           "--num_generations", "4", "--max_completion_length", "16", "--repetition_window", "4",
           "--save_steps", "2", "--logging_steps", "1", "--report_to", "none", "--gradient_checkpointing", "false",
           "--reward_workers", "1", "--disable_tqdm", "true", "--max_problems", "4", "--use_cpu", "true",
           # the random model earns no reward, so every batch refills once: the ranks agree on the extra round
           "--dynamic_sampling", "true", "--dynamic_sampling_max_rounds", "1"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "2 process(es)" in proc.stderr
    assert proc.stderr.count("saved the model") == 1  # rank 0 reports, once
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    assert state["global_step"] == 2
    # 2 ranks x 4 completions = 2 prompts a step: 2 steps cover the 4 problems once (one rank: epoch 0.5)
    assert state["log_history"][-1]["epoch"] == 1.0
    logged = [h for h in state["log_history"] if "microcoder/masked_fraction" in h]
    assert len(logged) == 2 and all(0 <= h["microcoder/masked_fraction"] <= 1 for h in logged)
    assert [h["microcoder/dynamic_sampling_rounds"] for h in logged] == [2.0, 2.0]
    assert (out / "training_curves.png").exists() and (out / "training_summary.md").exists()


def test_accelerate_cpu_launch_of_several_processes_is_refused(capsys, monkeypatch):
    monkeypatch.setenv("ACCELERATE_USE_CPU", "True")
    monkeypatch.setenv("MASTER_PORT", "29500")
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(Exception, match="starts a single process"):
        check_launcher()
    check_launcher({"ACCELERATE_USE_CPU": "True", "MASTER_PORT": "1", "WORLD_SIZE": "2"})  # --multi_gpu: fine
    check_launcher({"ACCELERATE_USE_CPU": "True"})  # plain one-process run: fine
    assert main(["--model", "x", "--dataset", "y", "--output-dir", "z"]) == 2
    assert "accelerate launch --multi_gpu" in capsys.readouterr().err
