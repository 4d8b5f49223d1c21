"""Recipe options: DAPO dynamic sampling, soft overlong punishment, prompts per step, LoRA."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from datasets import Dataset  # noqa: E402

from microcoder_eval.errors import UserError  # noqa: E402
from microcoder_train.config import MicroCoderGRPOConfig  # noqa: E402
from microcoder_train.shaping import overlong_penalty  # noqa: E402
from microcoder_train.tiny import build_model, build_tokenizer  # noqa: E402
from microcoder_train.trainer import MicroCoderGRPOTrainer  # noqa: E402

G = 4


def _args(tmp_path, **kw):
    base = dict(output_dir=str(tmp_path / "out"), per_device_train_batch_size=2 * G, num_generations=G,
                max_completion_length=16, repetition_window=4, max_steps=3, logging_steps=1, report_to=[],
                use_cpu=True, gradient_checkpointing=False, save_strategy="no", learning_rate=1e-2, seed=0,
                disable_tqdm=True)
    base.update(kw)
    return MicroCoderGRPOConfig(**base)


def _dataset():
    return Dataset.from_dict({"prompt": [[{"role": "user", "content": p}] for p in ("flat", "varied")] * 8})


def _reward(prompts, completions, **kw):
    """Prompt 'flat': every completion scores 0 (a group without signal); 'varied': length mod 3."""
    return [0.0 if p[-1]["content"] == "flat" else float(len(c[-1]["content"]) % 3)
            for p, c in zip(prompts, completions)]


def _logged(trainer, key):
    return [h[key] for h in trainer.state.log_history if key in h]


class _Spy(MicroCoderGRPOTrainer):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.batches = []

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        self.batches.append(out)
        return out


def test_overlong_penalty_formula():
    assert [overlong_penalty(n, 100, 20) for n in (10, 80, 90, 100, 101)] == [0.0, 0.0, -0.5, -1.0, -1.0]
    assert overlong_penalty(95, 100, 20, factor=2.0) == pytest.approx(-1.5)
    assert overlong_penalty(100, 100, 0) == 0.0


def test_dynamic_sampling_refills_groups_without_signal(tmp_path):
    tok = build_tokenizer()
    trainer = _Spy(model=build_model(tok), reward_funcs=_reward, processing_class=tok, train_dataset=_dataset(),
                   args=_args(tmp_path, dynamic_sampling=True, dynamic_sampling_max_rounds=6))
    trainer.train()
    fill = _logged(trainer, "microcoder/dynamic_sampling_fill_rate")
    rounds = _logged(trainer, "microcoder/dynamic_sampling_rounds")
    assert len(fill) == 3 and all(f == 1.0 for f in fill), fill
    assert all(r >= 2 for r in rounds), rounds  # every batch held a 'flat' group and needed a refill
    for out in trainer.batches:
        assert out["advantages"].shape == (2 * G,)
        assert out["completion_ids"].shape[0] == out["prompt_ids"].shape[0] == 2 * G
        assert int(out["num_items_in_batch"]) == int(out["completion_mask"].sum())
        for g in range(2):  # every group in the trained batch carries a signal
            assert out["advantages"][g * G : (g + 1) * G].abs().sum() > 0


def test_without_dynamic_sampling_the_flat_groups_stay(tmp_path):
    tok = build_tokenizer()
    trainer = _Spy(model=build_model(tok), reward_funcs=_reward, processing_class=tok, train_dataset=_dataset(),
                   args=_args(tmp_path))
    trainer.train()
    assert not _logged(trainer, "microcoder/dynamic_sampling_fill_rate")
    zero_groups = sum(int((b["advantages"].view(-1, G).abs().sum(dim=1) == 0).sum()) for b in trainer.batches)
    assert zero_groups >= 3  # at least the flat prompt's groups train with advantage 0


def test_soft_overlong_punishment_is_an_extra_reward(tmp_path):
    tok = build_tokenizer()
    trainer = MicroCoderGRPOTrainer(model=build_model(tok), reward_funcs=_reward, processing_class=tok,
                                    train_dataset=_dataset(),
                                    args=_args(tmp_path, max_steps=1, overlong_buffer_length=8))
    assert [getattr(f, "__name__", "") for f in trainer.reward_funcs][-1] == "overlong_penalty"
    trainer.train()
    penalty = _logged(trainer, "rewards/overlong_penalty/mean")
    assert len(penalty) == 1 and -1.0 <= penalty[0] < 0  # the random model writes long completions


def test_prompts_per_step_sets_the_accumulation(tmp_path):
    cfg = _args(tmp_path, prompts_per_step=8, per_device_train_batch_size=G)
    assert cfg.gradient_accumulation_steps == 8 and cfg.generation_batch_size == 8 * G
    with pytest.raises(UserError, match="do not split"):
        _args(tmp_path, prompts_per_step=3, per_device_train_batch_size=8)


def test_lora_trains_only_the_adapter(tmp_path):
    pytest.importorskip("peft")
    tok = build_tokenizer()
    path = tmp_path / "model"
    build_model(tok).save_pretrained(path)
    tok.save_pretrained(path)
    trainer = MicroCoderGRPOTrainer(model=str(path), reward_funcs=_reward, processing_class=tok,
                                    train_dataset=_dataset(),
                                    args=_args(tmp_path, max_steps=2, lora_r=4, temperature_schedule="staged",
                                               temperature_switch_step=1))
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainable = {n for n, p in trainer.model.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    trainer.train()
    changed = {n for n, p in trainer.model.named_parameters() if not torch.equal(before[n], p)}
    assert changed and changed <= trainable
    assert _logged(trainer, "microcoder/temperature") == [0.6, 1.2]


class _ScoringSignal(MicroCoderGRPOTrainer):
    """Sets an event when the step starts scoring reference log-probs (the work the reward overlaps)."""

    def __init__(self, *a, event, **kw):
        super().__init__(*a, **kw)
        self.event = event

    def _get_per_token_logps_and_entropies(self, *a, **kw):
        if not torch.is_grad_enabled():  # the no-grad ref/old scoring, not the loss forward
            self.event.set()
        return super()._get_per_token_logps_and_entropies(*a, **kw)


@pytest.mark.parametrize("concurrent", [True, False])
def test_reward_runs_while_the_step_scores_reference_log_probs(tmp_path, concurrent):
    import threading

    event, seen = threading.Event(), []

    def reward(completions, **kw):
        # concurrent: the ref-model scoring starts while this reward still runs, so the event fires;
        # sequential: the scoring already happened before the reward was called
        seen.append((threading.current_thread() is threading.main_thread(), event.wait(timeout=30)))
        event.clear()
        return [float(len(c[-1]["content"]) % 3) for c in completions]

    tok = build_tokenizer()
    path = tmp_path / "model"
    build_model(tok).save_pretrained(path)
    tok.save_pretrained(path)
    trainer = _ScoringSignal(model=str(path), reward_funcs=reward, processing_class=tok, train_dataset=_dataset(),
                             event=event, args=_args(tmp_path, max_steps=2, beta=0.04, concurrent_reward=concurrent))
    trainer.train()
    assert seen == [(not concurrent, True)] * 2
    assert len(_logged(trainer, "microcoder/reward_wait_s")) == 2 and len(_logged(trainer, "microcoder/reward_s")) == 2
