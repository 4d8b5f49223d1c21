"""The diversity metric moves with temperature, and the probe picks different temperatures for a
peaked and a flat model; the metric is logged per step."""
from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")

from datasets import Dataset  # noqa: E402

from microcoder_train.config import MicroCoderGRPOConfig  # noqa: E402
from microcoder_train.temperature import TemperatureSchedule  # noqa: E402
from microcoder_train.tiny import build_model, build_tokenizer  # noqa: E402
from microcoder_train.trainer import PROBE_FILE, MicroCoderGRPOTrainer  # noqa: E402

CANDIDATES = [0.6, 1.0, 1.8]


def _zero(completions, **kw):
    return [0.0] * len(completions)


def _probe(tmp_path, scale, **kw):
    tok = build_tokenizer()
    model = build_model(tok)
    with torch.no_grad():
        model.lm_head.weight.mul_(scale)  # 0: uniform next-token distribution; 40: peaked
    out = tmp_path / f"scale{scale:g}"
    base = dict(output_dir=str(out), per_device_train_batch_size=8, num_generations=4, max_completion_length=24,
                repetition_window=4, max_steps=2, logging_steps=1, report_to=[], use_cpu=True, save_strategy="no",
                disable_tqdm=True, seed=0, temperature_schedule="diversity",
                diversity_candidate_temperatures=CANDIDATES, diversity_target=1.0)
    base.update(kw)
    ds = Dataset.from_dict({"prompt": [[{"role": "user", "content": "Add two numbers."}]] * 16})
    trainer = MicroCoderGRPOTrainer(model=model, reward_funcs=_zero, args=MicroCoderGRPOConfig(**base),
                                    train_dataset=ds, processing_class=tok)
    trainer.train()
    return trainer, json.loads((out / PROBE_FILE).read_text())


def _logged(trainer, key):
    return [h[key] for h in trainer.state.log_history if key in h]


def test_probe_picks_a_higher_temperature_for_a_peaked_model_than_for_a_flat_one(tmp_path):
    peaked, p_probe = _probe(tmp_path, 40.0)
    _, f_probe = _probe(tmp_path, 0.0)
    p_div = [p_probe["diversity"][f"{t:g}"] for t in CANDIDATES]
    f_div = [f_probe["diversity"][f"{t:g}"] for t in CANDIDATES]
    # token entropy rises with temperature on the peaked model (measured 0.60 / 1.10 / 2.46 nats) ...
    assert p_div[0] < 1.0 <= p_div[1] < p_div[2], p_div
    # ... and is log(vocab) at every temperature on the flat one
    assert max(f_div) - min(f_div) < 1e-3 and f_div[0] > 1.0, f_div
    assert p_probe["chosen"] == 1.0 and f_probe["chosen"] == 0.6
    assert _logged(peaked, "microcoder/temperature") == [1.0, 1.0]
    # the metric is logged every step: the entropy of the step's own samples, at the chosen temperature
    per_step = _logged(peaked, "microcoder/diversity")
    assert len(per_step) == 2 and all(0.5 < d < 2.0 for d in per_step), per_step
    assert len(_logged(peaked, "microcoder/distinct_ngrams")) == 2


def test_diversity_schedule_keeps_the_low_to_high_staging():
    s = TemperatureSchedule("diversity", base=1.0, high=1.4, switch_step=10)
    s.chosen = 0.8
    assert [s.temperature_at(k) for k in (0, 9, 10, 20)] == [0.8, 0.8, 1.4, 1.4]
    s.chosen = 1.6  # already hotter than temperature_high: stays
    assert s.temperature_at(10) == 1.6
    assert TemperatureSchedule("diversity", chosen=0.8).temperature_at(10**6) == 0.8  # no switch step: no rise
