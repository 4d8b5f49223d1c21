"""MicroCoderGRPOTrainer on CPU with a tiny random Qwen3 and a locally trained tokenizer (no hub)."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from datasets import Dataset  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from microcoder_train.config import MicroCoderGRPOConfig, recipe  # noqa: E402
from microcoder_train.tiny import build_model, build_tokenizer  # noqa: E402
from microcoder_train.trainer import PROBE_FILE, SCHEDULE_STATE_FILE, MicroCoderGRPOTrainer  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
G = 4


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    """A saved tiny model whose generation also stops on every 12th token id, so batches mix
    finished and truncated completions (a random model almost never samples the real EOS)."""
    out = tmp_path_factory.mktemp("tiny")
    tok = build_tokenizer()
    model = build_model(tok)
    model.generation_config.eos_token_id = [tok.eos_token_id, *range(10, len(tok), 12)]
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _load(path):
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def _dataset(n=8):
    prompts = ["Write a Python program that adds two numbers.", "Print the maximum of a list.",
               "Reverse a string read from stdin.", "Count the vowels in a word."]
    return Dataset.from_dict({"prompt": [[{"role": "user", "content": prompts[i % 4]}] for i in range(n)]})


def length_reward(completions, **kwargs):
    """Local stand-in reward with variance inside a group: completion length mod 3."""
    return [float(len(c[-1]["content"]) % 3) for c in completions]


def _args(tmp_path, **kw):
    base = dict(output_dir=str(tmp_path / "out"), per_device_train_batch_size=G, num_generations=G,
                max_completion_length=16, repetition_window=4, max_steps=3, logging_steps=1, report_to=[],
                use_cpu=True, gradient_checkpointing=False, save_strategy="no", learning_rate=1e-2, seed=0,
                disable_tqdm=True)
    base.update(kw)
    return MicroCoderGRPOConfig(**base)


def _params(model):
    return {k: v.detach().clone() for k, v in model.named_parameters()}


def _changed(before, model):
    return sum(not torch.equal(before[k], v) for k, v in model.named_parameters())


def _logged(trainer, key):
    return [h[key] for h in trainer.state.log_history if key in h]


def test_microcoder_steps_change_parameters_and_log_metrics(tiny_dir, tmp_path):
    model, tok = _load(tiny_dir)
    before = _params(model)
    args = _args(tmp_path, truncation_mask_rho=1.0, temperature=0.9)
    trainer = MicroCoderGRPOTrainer(model=model, reward_funcs=length_reward, args=args, train_dataset=_dataset(),
                                    processing_class=tok)
    assert trainer.ref_model is None and trainer.beta == 0.0
    trainer.train()
    assert _changed(before, trainer.model) > 0
    for key in ("microcoder/masked_fraction", "microcoder/truncation_rate", "microcoder/diversity",
                "microcoder/temperature", "microcoder/response_length", "completions/mean_length", "reward"):
        assert len(_logged(trainer, key)) == 3, key
    # rho=1, no code in random text (never incorrect), window 4 (no loops): every truncated one is masked
    assert _logged(trainer, "microcoder/masked_fraction") == _logged(trainer, "microcoder/truncation_rate")
    assert any(0 < t < 1 for t in _logged(trainer, "microcoder/truncation_rate"))
    assert _logged(trainer, "microcoder/temperature") == [0.9] * 3
    assert all(0 < d <= 1 for d in _logged(trainer, "microcoder/distinct_ngrams"))
    assert _logged(trainer, "microcoder/diversity") == _logged(trainer, "entropy")  # token_entropy, in nats


@pytest.mark.parametrize("name", ["grpo", "dapo"])
def test_baseline_recipes_train(tiny_dir, tmp_path, name):
    model, tok = _load(tiny_dir)
    before = _params(model)
    trainer = MicroCoderGRPOTrainer(model=model, reward_funcs=length_reward, args=_args(tmp_path, **recipe(name)),
                                    train_dataset=_dataset(), processing_class=tok)
    assert (trainer.ref_model is not None) == (name == "grpo")
    trainer.train()
    assert _changed(before, trainer.model) > 0
    assert _logged(trainer, "microcoder/masked_fraction") == [0.0] * 3  # rho = 0 in both baselines
    if name == "grpo":
        assert all(k >= 0 for k in _logged(trainer, "kl"))


class _ScheduleSpy(MicroCoderGRPOTrainer):
    """Records the temperature each generate() call samples with, and checks every training
    log-prob against log_softmax(logits / T) computed independently."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.sampled, self.scored = [], []
        model = self.model
        original = model.generate

        def generate(*args, **kwargs):
            self.sampled.append((self.state.global_step, kwargs["generation_config"].temperature))
            return original(*args, **kwargs)

        model.generate = generate

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *a, **kw):
        out = super()._get_per_token_logps_and_entropies(model, input_ids, attention_mask, logits_to_keep, *a, **kw)
        with torch.no_grad():
            logits = model(input_ids=input_ids, attention_mask=attention_mask).logits[:, :-1][:, -logits_to_keep:]
        labels = input_ids[:, -logits_to_keep:].unsqueeze(-1)
        mask = attention_mask[:, -logits_to_keep:].bool()

        def err(t):
            ref = torch.log_softmax(logits.float() / t, dim=-1).gather(-1, labels).squeeze(-1)
            return (out[0].detach() - ref).abs()[mask].max().item()

        self.scored.append((self.state.global_step, err(0.5), err(2.0)))
        return out


def test_staged_schedule_sets_sampling_and_scoring_temperature(tiny_dir, tmp_path):
    model, tok = _load(tiny_dir)
    args = _args(tmp_path, max_steps=4, temperature_schedule="staged", temperature_low=0.5, temperature_high=2.0,
                 temperature_switch_step=2)
    trainer = _ScheduleSpy(model=model, reward_funcs=length_reward, args=args, train_dataset=_dataset(),
                           processing_class=tok)
    trainer.train()
    assert trainer.sampled == [(0, 0.5), (1, 0.5), (2, 2.0), (3, 2.0)]
    assert [s for s, *_ in trainer.scored] == [0, 1, 2, 3]
    for step, err_low, err_high in trainer.scored:
        right, wrong = (err_low, err_high) if step < 2 else (err_high, err_low)
        assert right < 1e-4, (step, right)
        assert wrong > 1e-2, (step, wrong)  # the check can tell the two temperatures apart
    assert _logged(trainer, "microcoder/temperature") == [0.5, 0.5, 2.0, 2.0]


def test_temperature_reaches_the_vllm_backend(tiny_dir, tmp_path):
    """No vLLM on CPU: check the attribute VLLMGeneration.generate reads, on a stand-in backend."""
    import inspect

    from trl.generation.vllm_generation import VLLMGeneration

    assert "temperature = self.temperature" in inspect.getsource(VLLMGeneration.generate)
    model, tok = _load(tiny_dir)
    trainer = MicroCoderGRPOTrainer(model=model, reward_funcs=length_reward, args=_args(tmp_path),
                                    train_dataset=_dataset(), processing_class=tok)
    trainer.use_vllm, trainer.vllm_generation = True, SimpleNamespace(temperature=1.0)
    trainer.set_temperature(1.7)
    assert trainer.vllm_generation.temperature == 1.7
    assert trainer.generation_config.temperature == 1.7 and trainer.generation_kwargs["temperature"] == 1.7
    assert trainer.current_temperature == 1.7 and trainer.temperature == 1.7


def test_diversity_schedule_probes_picks_and_survives_resume(tmp_path):
    tok = build_tokenizer()
    model = build_model(tok)
    with torch.no_grad():
        model.lm_head.weight.mul_(20)  # peaked logits: near-greedy (low diversity) at T=0.05
    kw = dict(temperature_schedule="diversity", diversity_candidate_temperatures=[0.05, 1.0, 5.0],
              diversity_target=0.9, diversity_metric="distinct_ngrams", save_strategy="steps", save_steps=1,
              max_steps=2)
    trainer = MicroCoderGRPOTrainer(model=model, reward_funcs=length_reward, args=_args(tmp_path, **kw),
                                    train_dataset=_dataset(), processing_class=tok)
    trainer.train()
    probe = json.loads((tmp_path / "out" / PROBE_FILE).read_text())
    assert probe["diversity"]["0.05"] < 0.9 <= probe["diversity"]["1"]
    assert probe["chosen"] == 1.0 == trainer.temperature_schedule.chosen
    assert _logged(trainer, "microcoder/temperature") == [1.0, 1.0]
    saved = json.loads((tmp_path / "out" / "checkpoint-2" / SCHEDULE_STATE_FILE).read_text())
    assert saved["chosen"] == 1.0

    class NoProbe(MicroCoderGRPOTrainer):
        def _probe_temperatures(self, inputs):
            raise AssertionError("resumed run must not probe again")

    kw["max_steps"] = 3
    resumed = NoProbe(model=model, reward_funcs=length_reward, args=_args(tmp_path, **kw),
                      train_dataset=_dataset(), processing_class=tok)
    resumed.train(resume_from_checkpoint=str(tmp_path / "out" / "checkpoint-2"))
    assert resumed.state.global_step == 3
    new = [h for h in resumed.state.log_history if h.get("step") == 3 and "microcoder/temperature" in h]
    assert [h["microcoder/temperature"] for h in new] == [1.0]


# ---- fixed completions: the masking decisions inside a real training step ----------------------
L_MAX, WINDOW = 96, 8
CORRECT = "```python\nn=int(input())\na=list(map(int,input().split()))\nprint('%.12f'%(sum(a)/n))\n```"


def _fixed_completions(tok):
    """[truncated wrong code, truncated without code, truncated loop, finished correct code]."""
    filler = [i for i in range(10, len(tok)) if "`" not in tok.decode([i]) and tok.decode([i]).strip()]
    wrong = tok.encode("```python\nprint(0)\n```\nAlso")
    nocode = tok.encode("Let me think")
    unit = filler[:WINDOW]
    completions = [
        (wrong + filler[WINDOW:])[:L_MAX],
        (nocode + filler[WINDOW:])[:L_MAX],
        (nocode + filler[WINDOW:])[: L_MAX - 2 * WINDOW] + unit + unit,
        tok.encode(CORRECT) + [tok.eos_token_id],
    ]
    assert [len(c) for c in completions[:3]] == [L_MAX] * 3 and len(completions[3]) < L_MAX
    return completions


class _FixedRollouts(MicroCoderGRPOTrainer):
    def __init__(self, *a, completions, **kw):
        super().__init__(*a, **kw)
        self.fixed, self.advantages = completions, []

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, **kw):
        return [list(self.fixed[i % len(self.fixed)]) for i in range(len(prompt_ids))], None

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.advantages.append(out["advantages"].tolist())
        return out


@pytest.mark.parametrize("judge_truncated", [False, True])
@pytest.mark.parametrize("reward_kind", ["evaluator", "local"])
def test_masking_decisions_in_a_training_step(tmp_path, reward_kind, judge_truncated):
    from microcoder_train.data import build_train_dataset

    tok = build_tokenizer()
    model = build_model(tok)
    rows = build_train_dataset(ROOT / "data" / "lcb_sample_problems.jsonl").filter(
        lambda r: r["question_id"] == "mcb101_a")
    assert len(rows) == 1
    dataset = Dataset.from_list([rows[0]] * 4)
    if reward_kind == "evaluator":
        from microcoder_eval.reward import EvaluatorReward, RewardConfig

        reward = EvaluatorReward(RewardConfig(workers=2, timeout_s=5.0))
    else:
        def reward(completions, **kw):  # no verdicts: the trainer falls back to code + reward < 1
            return [1.0 if "sum(a)/n" in c[-1]["content"] else 0.0 for c in completions]
    args = _args(tmp_path, max_completion_length=L_MAX, repetition_window=WINDOW, truncation_mask_rho=1.0,
                 max_steps=1, judge_truncated_completions=judge_truncated, log_completions=True)
    try:
        trainer = _FixedRollouts(model=model, reward_funcs=reward, args=args, train_dataset=dataset,
                                 processing_class=tok, completions=_fixed_completions(tok))
        trainer.train()
    finally:
        if hasattr(reward, "close"):
            reward.close()
    first = "wrong_answer" if judge_truncated else "no_code"  # by default a truncated answer is missing
    if reward_kind == "evaluator":
        assert [r.status.value for r in reward.last_results] == [first, "no_code", "no_code", "passed"]
    scale = 0.5 + 1e-4  # group rewards [0, 0, 0, 1]: mean 0.25, std 0.5
    if judge_truncated:  # the wrong draft counts as incorrect: only the code-less truncated one is masked
        expected = [-0.25 / scale, 0.0, -0.25 / scale, 0.75 / scale]
    else:  # both non-looping truncated completions are "not incorrect" and masked
        expected = [0.0, 0.0, -0.25 / scale, 0.75 / scale]
    assert trainer.advantages[0] == pytest.approx(expected, rel=1e-4)
    # the completions table shows the advantages that trained, and which were masked
    assert list(trainer._logs["advantages"]) == pytest.approx(expected, rel=1e-4)
    assert list(trainer._logs["extra"]["truncation_masked"]) == [not judge_truncated, True, False, False]
    assert _logged(trainer, "microcoder/masked_fraction") == [0.25 if judge_truncated else 0.5]
    assert _logged(trainer, "microcoder/truncation_rate") == [0.75]
    assert _logged(trainer, "microcoder/repetitive_truncated_rate") == [pytest.approx(1 / 3)]


def test_default_reward_is_the_evaluator(tiny_dir, tmp_path):
    from microcoder_eval.reward import EvaluatorReward

    model, tok = _load(tiny_dir)
    trainer = MicroCoderGRPOTrainer(model=model, args=_args(tmp_path), train_dataset=_dataset(), processing_class=tok)
    assert isinstance(trainer.reward_funcs[0], EvaluatorReward)


def test_rejects_a_plain_grpo_config(tiny_dir):
    from trl import GRPOConfig

    model, tok = _load(tiny_dir)
    with pytest.raises(TypeError, match="MicroCoderGRPOConfig"):
        MicroCoderGRPOTrainer(model=model, reward_funcs=length_reward, train_dataset=_dataset(), processing_class=tok,
                              args=GRPOConfig(output_dir="/tmp/x", use_cpu=True, report_to=[]))
