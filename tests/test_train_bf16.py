"""bf16 mixed precision survives the temperature switch (accelerate's autocast wrapper on forward)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from datasets import Dataset  # noqa: E402

from microcoder_train.config import MicroCoderGRPOConfig  # noqa: E402
from microcoder_train.tiny import build_model, build_tokenizer  # noqa: E402
from microcoder_train.trainer import MicroCoderGRPOTrainer  # noqa: E402


def _reward(completions, **kw):
    return [float(len(c[-1]["content"]) % 3) for c in completions]


class _AutocastSpy(MicroCoderGRPOTrainer):
    """Records, per global step, whether the generation forward ran under CPU autocast."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.autocast_in_generation: dict[int, set[bool]] = {}
        self.in_generation = False

        def hook(module, args):
            if self.in_generation:
                self.autocast_in_generation.setdefault(self.state.global_step, set()).add(
                    torch.is_autocast_enabled("cpu"))

        self.model.model.layers[0].register_forward_pre_hook(hook)

    def _generate_single_turn(self, *a, **kw):
        self.in_generation = True
        try:
            return super()._generate_single_turn(*a, **kw)
        finally:
            self.in_generation = False


def test_bf16_autocast_survives_the_staged_temperature_switch(tmp_path):
    tok = build_tokenizer()
    model = build_model(tok)
    ds = Dataset.from_dict({"prompt": [[{"role": "user", "content": "Add two numbers."}]] * 8})
    args = MicroCoderGRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=4, max_completion_length=8,
        repetition_window=4, max_steps=3, report_to=[], use_cpu=True, bf16=True, save_strategy="no",
        temperature_schedule="staged", temperature_low=0.6, temperature_high=1.2, temperature_switch_step=1,
        disable_tqdm=True, logging_steps=1)
    trainer = _AutocastSpy(model=model, reward_funcs=_reward, args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    assert [h["microcoder/temperature"] for h in trainer.state.log_history if "microcoder/temperature" in h] == [
        0.6, 1.2, 1.2]
    # every step's generation (before and after the switch to a new temperature head) runs under autocast
    assert trainer.autocast_in_generation == {0: {True}, 1: {True}, 2: {True}}
