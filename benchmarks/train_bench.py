"""Seconds per training step and peak memory: MicroCoderGRPOTrainer vs TRL's plain GRPOTrainer.

Each configuration runs in its own subprocess (so peak memory is its own) on the same model,
prompts, reward and seed; the first ``--warmup`` steps are excluded from the timing.

    python benchmarks/train_bench.py                      # tiny random Qwen3 on CPU
    python benchmarks/train_bench.py --compare reward --reward evaluator --beta 0.04   # reward overlap
    python benchmarks/train_bench.py --model /path/Qwen3-1.7B --max-completion-length 1024 \
        --batch-size 8 --num-generations 8 [--use-vllm --vllm-mode colocate] [--reward evaluator]

Prints a Markdown table and the MicroCoder/TRL ratios; ``--out`` also writes them as JSON. On a
shared machine wall time is noisy; the process CPU time per step is reported beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PROBLEMS = ROOT / "data" / "lcb_sample_problems.jsonl"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=None, help="model folder (default: a tiny random Qwen3 built here)")
    p.add_argument("--steps", type=int, default=6, help="training steps per configuration")
    p.add_argument("--warmup", type=int, default=1, help="steps excluded from the timing")
    p.add_argument("--batch-size", type=int, default=8, help="per-device train batch size (completions)")
    p.add_argument("--num-generations", type=int, default=4)
    p.add_argument("--max-completion-length", type=int, default=64)
    p.add_argument("--reward", choices=["length", "evaluator", "labelled"], default="length",
                   help="'length': a trivial local reward (isolates trainer cost); 'evaluator': the sandbox reward "
                        "on the shipped sample problems; 'labelled': the sandbox reward judging the shipped labelled "
                        "completions in place of the model's (a random model writes no code, so the sandbox would "
                        "have nothing to run; the result cache is off)")
    p.add_argument("--compare", choices=["trl", "reward"], default="trl",
                   help="'trl': TRL's GRPOTrainer vs MicroCoderGRPOTrainer; 'reward': MicroCoderGRPOTrainer with the "
                        "reward computed after the log-prob scoring (concurrent_reward=False) vs concurrently with it; "
                        "reports the share of step time spent waiting for rewards")
    p.add_argument("--beta", type=float, default=0.0,
                   help="KL weight (> 0 adds the reference-model scoring the concurrent reward overlaps)")
    p.add_argument("--hidden-size", type=int, default=64, help="tiny model width (when no --model)")
    p.add_argument("--num-layers", type=int, default=2, help="tiny model depth (when no --model)")
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (GPU)")
    p.add_argument("--vllm-mode", default="colocate", choices=["colocate", "server"])
    p.add_argument("--bf16", action="store_true", help="bf16 mixed precision (GPU)")
    p.add_argument("--repeats", type=int, default=3,
                   help="runs per configuration, alternating; the median s/step is reported (damps noise)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads per run (1 keeps a shared 2-core machine's noise down)")
    p.add_argument("--out", default=None, help="also write the results as JSON here")
    p.add_argument("--_worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--_model_dir", default=None, help=argparse.SUPPRESS)
    return p


def length_reward(completions, **kwargs):
    return [float(len(c[-1]["content"] if isinstance(c, list) else c) % 3) for c in completions]


class LabelledReward:
    """The evaluator reward judging shipped labelled completions of each row's problem instead of the
    model's text (so the sandbox runs real programs however the model writes); no result cache."""

    __name__ = "labelled_evaluator"

    def __init__(self):
        from microcoder_eval.reward import EvaluatorReward, RewardConfig

        self.inner = EvaluatorReward(RewardConfig(cache_size=0))
        self.by_problem: dict[str, list[str]] = {}
        with open(ROOT / "data" / "lcb_sample_completions.jsonl") as f:
            for line in f:
                rec = json.loads(line)
                self.by_problem.setdefault(rec["question_id"], []).append(rec["completion"])
        self.calls = 0

    def __call__(self, completions, question_id, **kw):
        self.calls += 1
        texts = []
        for i, qid in enumerate(question_id):
            pool = self.by_problem.get(qid) or ["no code"]
            texts.append([{"role": "assistant", "content": pool[(i + self.calls) % len(pool)]}])
        return self.inner(completions=texts, question_id=question_id, **kw)

    @property
    def last_results(self):
        return self.inner.last_results

    def close(self):
        self.inner.close()


def _dataset(n: int, with_tests: bool):
    from datasets import Dataset

    if with_tests:
        from microcoder_train.data import build_train_dataset

        ds = build_train_dataset(SAMPLE_PROBLEMS)
        return ds.select([i % len(ds) for i in range(n)])
    prompts = ["Write a Python program that adds two numbers read from stdin.",
               "Return the maximum subarray sum of a list of integers.",
               "Read a string and print it reversed.", "Count the vowels in a word."]
    return Dataset.from_dict({"prompt": [[{"role": "user", "content": prompts[i % 4]}] for i in range(n)]})


def worker(a: argparse.Namespace) -> dict:
    """One configuration: train ``--steps`` steps and report timing and peak memory."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from microcoder_train.config import MicroCoderGRPOConfig
    from microcoder_train.trainer import MicroCoderGRPOTrainer

    cuda = torch.cuda.is_available()
    torch.set_num_threads(a.threads)
    model = AutoModelForCausalLM.from_pretrained(a._model_dir, dtype=torch.bfloat16 if a.bf16 else None)
    tok = AutoTokenizer.from_pretrained(a._model_dir)
    common = dict(output_dir=tempfile.mkdtemp(prefix="train-bench-"), per_device_train_batch_size=a.batch_size,
                  num_generations=a.num_generations, max_completion_length=a.max_completion_length,
                  max_steps=a.steps, logging_steps=1, report_to=[], save_strategy="no", seed=0,
                  use_cpu=not cuda, bf16=a.bf16, gradient_checkpointing=cuda, disable_tqdm=True,
                  use_vllm=a.use_vllm, vllm_mode=a.vllm_mode, learning_rate=1e-6)
    if a.reward == "evaluator":
        from microcoder_eval.reward import EvaluatorReward

        reward = EvaluatorReward()
    elif a.reward == "labelled":
        reward = LabelledReward()
    else:
        reward = length_reward
    if a._worker == "trl":
        trainer_cls, config = GRPOTrainer, GRPOConfig(beta=a.beta, epsilon_high=0.28, **common)
    else:
        window = min(128, a.max_completion_length // 2)
        trainer_cls = MicroCoderGRPOTrainer
        config = MicroCoderGRPOConfig(truncation_mask_rho=0.2, repetition_window=window, beta=a.beta,
                                      temperature_schedule="staged", concurrent_reward=a._worker != "sync_reward",
                                      **common)

    times: list[float] = []
    cpu_times: list[float] = []

    class StepTimer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            self.t0, self.c0 = time.perf_counter(), time.process_time()

        def on_step_end(self, args, state, control, **kw):
            if cuda:
                torch.cuda.synchronize()
            times.append(time.perf_counter() - self.t0)
            cpu_times.append(time.process_time() - self.c0)

    trainer = trainer_cls(model=model, reward_funcs=reward, args=config, processing_class=tok,
                          train_dataset=_dataset(a.batch_size * a.steps, a.reward != "length"),
                          callbacks=[StepTimer()])
    hook_s = [0.0]
    if isinstance(trainer, MicroCoderGRPOTrainer):  # time MicroCoder's own per-batch work (masking + metrics)
        inner = trainer._mask_and_log

        def timed_mask_and_log(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                hook_s[0] += time.perf_counter() - t0

        trainer._mask_and_log = timed_mask_and_log
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    trainer.train()
    if hasattr(reward, "close"):
        reward.close()
    timed = times[a.warmup:] or times
    cpu_timed = cpu_times[a.warmup:] or cpu_times
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    history = [h for h in trainer.state.log_history if "microcoder/reward_wait_s" in h][a.warmup:]
    reward_wait = sum(h["microcoder/reward_wait_s"] for h in history)
    reward_s = sum(h["microcoder/reward_s"] for h in history)
    return {"config": a._worker, "steps": len(times), "timed_steps": len(timed),
            "reward_s_per_step": reward_s / max(len(history), 1),
            "reward_wait_s_per_step": reward_wait / max(len(history), 1),
            "reward_wait_share": reward_wait / sum(timed) if history else None,
            "hook_ms_per_step": 1000 * hook_s[0] / max(len(times), 1),
            "s_per_step": sum(timed) / len(timed), "cpu_s_per_step": sum(cpu_timed) / len(cpu_timed),
            "peak_rss_mib": rss_kib / 1024,
            "peak_gpu_mib": torch.cuda.max_memory_allocated() / 2**20 if cuda else None,
            "device": torch.cuda.get_device_name() if cuda else "cpu"}


def _median_run(rs: list[dict]) -> dict:
    """The run with the median s/step, plus every run's s/step for the record."""
    ordered = sorted(rs, key=lambda r: r["s_per_step"])
    return {**ordered[len(ordered) // 2], "all_s_per_step": [r["s_per_step"] for r in rs],
            "all_cpu_s_per_step": [r["cpu_s_per_step"] for r in rs]}


def _report_reward(a: argparse.Namespace, results: dict) -> int:
    sync, conc = results["sync_reward"], results["microcoder"]
    model_name = a.model or f"tiny random Qwen3 ({a.num_layers} layers, hidden {a.hidden_size})"
    print(f"model: {model_name}; device: {sync['device']}; batch {a.batch_size} x {a.num_generations} generations, "
          f"max_completion_length {a.max_completion_length}, reward {a.reward}, beta {a.beta}, "
          f"{sync['timed_steps']} timed steps after {a.warmup} warm-up, median of {a.repeats} alternating runs\n")
    print("| reward | s/step (wall) | reward s/step | waiting for reward s/step | share of step waiting |")
    print("|---|---|---|---|---|")
    for name, r in (("after the log-prob scoring (concurrent_reward=False)", sync),
                    ("concurrent with it (default)", conc)):
        print(f"| {name} | {r['s_per_step']:.4f} | {r['reward_s_per_step']:.4f} | {r['reward_wait_s_per_step']:.4f} "
              f"| {r['reward_wait_share']:.1%} |")
    ratios = {"s_per_step": conc["s_per_step"] / sync["s_per_step"],
              "reward_wait": conc["reward_wait_s_per_step"] / max(sync["reward_wait_s_per_step"], 1e-12)}
    print("\nratios concurrent / sequential: " + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))
    if a.out:
        Path(a.out).write_text(json.dumps({"args": {k: v for k, v in vars(a).items() if not k.startswith("_")},
                                           "results": results, "ratios": ratios}, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    if a._worker:
        print(json.dumps(worker(a)))
        return 0
    with tempfile.TemporaryDirectory(prefix="train-bench-model-") as tmp:
        model_dir = a.model
        if model_dir is None:
            from microcoder_train.tiny import save_tiny_model

            model_dir = str(save_tiny_model(Path(tmp) / "tiny", hidden_size=a.hidden_size, num_layers=a.num_layers))
        runs: dict[str, list[dict]] = ({"trl": [], "microcoder": []} if a.compare == "trl"
                                       else {"sync_reward": [], "microcoder": []})
        passthrough = [x for x in (argv if argv is not None else sys.argv[1:]) if x not in ("--model",)]
        if a.model:
            passthrough = [x for x in passthrough if x != a.model]
        for _ in range(a.repeats):
            for name in runs:
                cmd = [sys.executable, __file__, *passthrough, "--_worker", name, "--_model_dir", model_dir]
                proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "TQDM_DISABLE": "1"})
                if proc.returncode != 0:
                    print(proc.stderr[-4000:], file=sys.stderr)
                    print(f"train_bench: the {name} run failed (exit {proc.returncode})", file=sys.stderr)
                    return 1
                runs[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    results = {name: _median_run(rs) for name, rs in runs.items()}
    if a.compare == "reward":
        return _report_reward(a, results)
    trl, mc = results["trl"], results["microcoder"]
    model_name = a.model or "tiny random Qwen3 (2 layers, hidden 64)"
    print(f"model: {model_name}; device: {trl['device']}; batch {a.batch_size} x {a.num_generations} generations, "
          f"max_completion_length {a.max_completion_length}, reward {a.reward}, "
          f"{trl['timed_steps']} timed steps after {a.warmup} warm-up, median of {a.repeats} alternating runs\n")
    print("| trainer | s/step (wall) | CPU s/step | peak RSS MiB | peak GPU MiB |")
    print("|---|---|---|---|---|")
    for name, r in (("TRL GRPOTrainer (beta 0, clip-higher)", trl), ("MicroCoderGRPOTrainer (rho 0.2, staged)", mc)):
        gpu = f"{r['peak_gpu_mib']:.0f}" if r["peak_gpu_mib"] is not None else "-"
        print(f"| {name} | {r['s_per_step']:.4f} | {r['cpu_s_per_step']:.4f} | {r['peak_rss_mib']:.0f} | {gpu} |")
    ratios = {"s_per_step": mc["s_per_step"] / trl["s_per_step"],
              "cpu_s_per_step": mc["cpu_s_per_step"] / trl["cpu_s_per_step"], "peak_rss": mc["peak_rss_mib"] / trl["peak_rss_mib"]}
    if trl["peak_gpu_mib"]:
        ratios["peak_gpu"] = mc["peak_gpu_mib"] / trl["peak_gpu_mib"]
    print("\nratios MicroCoder / TRL: " + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))
    print(f"MicroCoder masking + metrics hook: {mc['hook_ms_per_step']:.2f} ms/step = "
          f"{mc['hook_ms_per_step'] / 1000 / mc['s_per_step']:.2%} of its step time")
    if a.out:
        Path(a.out).write_text(json.dumps({"args": {k: v for k, v in vars(a).items() if not k.startswith("_")},
                                           "results": results, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
