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


WORKER = r'''
import json, os, sys
import torch
from datasets import Dataset
from microcoder_train.config import MicroCoderGRPOConfig
from microcoder_train.trainer import MicroCoderGRPOTrainer
from transformers import AutoTokenizer

model_dir, out, per_device = sys.argv[1], sys.argv[2], int(sys.argv[3])
tok = AutoTokenizer.from_pretrained(model_dir)
words = [i for i in range(10, len(tok)) if tok.decode([i]).strip()]
FIXED = [words[:12], words[3:6] + [tok.eos_token_id], words[5:17], words[7:9] + [tok.eos_token_id]]


class Fixed(MicroCoderGRPOTrainer):
    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, **kw):
        start = self.accelerator.process_index * len(prompt_ids)
        return [list(FIXED[(start + i) % len(FIXED)]) for i in range(len(prompt_ids))], None


def reward(prompts, completions, **kw):
    return [float(len(c[-1]["content"]) % 5) + (p[-1]["content"] == "b") for p, c in zip(prompts, completions)]


ds = Dataset.from_dict({"prompt": [[{"role": "user", "content": p}] for p in ("a", "b")] * 4})
args = MicroCoderGRPOConfig(output_dir=out, per_device_train_batch_size=per_device, num_generations=4,
                            max_completion_length=12, repetition_window=4, truncation_mask_rho=0.0, max_steps=1,
                            learning_rate=0.1, optim="sgd", report_to=[], use_cpu=True, save_strategy="no", seed=0,
                            disable_tqdm=True, logging_steps=1, training_report=False)
trainer = Fixed(model=model_dir, reward_funcs=reward, args=args, train_dataset=ds, processing_class=tok)
trainer.train()
if trainer.accelerator.is_main_process:
    params = {n: [p.detach().double().sum().item(), p.detach().double().norm().item()]
              for n, p in trainer.model.named_parameters()}
    logs = [h for h in trainer.state.log_history if "loss" in h][0]
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump({"params": params, "loss": logs["loss"], "reward": logs["reward"]}, f)
'''


def test_two_ranks_agree_with_one(tmp_path):
    """Same global batch and fixed rollouts: one SGD step on 2 ranks x 4 completions lands on the
    same weights as on 1 rank x 8 (groups are formed, normalised and masked over the gathered batch)."""
    from microcoder_train.tiny import build_model, build_tokenizer

    tok = build_tokenizer()
    model_dir = tmp_path / "tiny"
    model = build_model(tok)
    initial = {n: [p.detach().double().sum().item(), p.detach().double().norm().item()]
               for n, p in model.named_parameters()}
    model.save_pretrained(model_dir)
    tok.save_pretrained(model_dir)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    results = {}
    for ranks, per_device in ((1, 8), (2, 4)):
        out = tmp_path / f"r{ranks}"
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(ranks), "--master_port",
               str(_free_port()), str(script), str(model_dir), str(out), str(per_device)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
        results[ranks] = json.loads((out / "result.json").read_text())
    one, two = results[1], results[2]
    assert one["reward"] == pytest.approx(two["reward"])
    assert one["loss"] == pytest.approx(two["loss"], rel=1e-4, abs=1e-6)
    assert sum(one["params"][n] != pytest.approx(v, rel=1e-9) for n, v in initial.items()) > 10  # it trained
    for name, value in one["params"].items():
        assert two["params"][name] == pytest.approx(value, rel=1e-5, abs=1e-6), name
