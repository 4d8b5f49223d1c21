"""Diversity metrics, temperature schedules and MicroCoderGRPOConfig validation (no training)."""
from __future__ import annotations

import pytest

pytest.importorskip("trl")

from microcoder_eval.errors import UserError  # noqa: E402
from microcoder_train.config import MicroCoderGRPOConfig, recipe  # noqa: E402
from microcoder_train.diversity import distinct_completions, distinct_ngrams, group_diversity  # noqa: E402
from microcoder_train.temperature import TemperatureSchedule, select_temperature  # noqa: E402


def test_distinct_ngrams_identical_vs_disjoint_groups():
    same = [[1, 2, 3, 4, 5]] * 4
    assert distinct_ngrams(same, n=2) == pytest.approx(4 / 16)
    disjoint = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
    assert distinct_ngrams(disjoint, n=2) == 1.0
    assert distinct_ngrams([[1], [1]], n=4) == 0.5  # shorter than n: the whole tuple counts once


def test_distinct_completions_counts_unique_sequences():
    assert distinct_completions([[1, 2]] * 4) == 0.0
    assert distinct_completions([[1], [2], [1], [3]]) == pytest.approx(2 / 3)
    assert distinct_completions([[1], [2], [3], [4]]) == 1.0


def test_group_diversity_averages_consecutive_groups():
    ids = [[1, 2]] * 2 + [[1], [2]]
    assert group_diversity(ids, 2, "distinct_completions") == 0.5
    with pytest.raises(ValueError, match="groups of num_generations=3"):
        group_diversity(ids, 3)
    with pytest.raises(ValueError, match="unknown diversity metric"):
        group_diversity(ids, 2, "entropy")


def test_select_temperature_lowest_reaching_target_else_most_diverse():
    assert select_temperature({0.6: 0.2, 1.0: 0.55, 1.4: 0.8}, 0.5) == 1.0
    assert select_temperature({0.6: 0.2, 1.0: 0.3, 1.4: 0.25}, 0.9) == 1.0
    assert select_temperature({1.2: 0.3, 0.6: 0.3}, 0.9) == 0.6


def test_schedules():
    assert TemperatureSchedule("fixed", base=0.7).temperature_at(100) == 0.7
    staged = TemperatureSchedule("staged", low=0.6, high=1.4, switch_step=10)
    assert [staged.temperature_at(s) for s in (0, 9, 10, 50)] == [0.6, 0.6, 1.4, 1.4]
    div = TemperatureSchedule("diversity", base=1.0)
    assert div.needs_probe and div.temperature_at(0) == 1.0
    div.chosen = 0.8
    assert not div.needs_probe and div.temperature_at(5) == 0.8
    restored = TemperatureSchedule("diversity")
    restored.load_state_dict(div.state_dict())
    assert restored.chosen == 0.8
    with pytest.raises(ValueError, match="temperature_schedule='staged'"):
        TemperatureSchedule("fixed").load_state_dict(staged.state_dict())


def _config(**kw):
    kw.setdefault("max_steps", 4)
    return MicroCoderGRPOConfig(output_dir="/tmp/microcoder-config-test", report_to=[], **kw)


def test_config_defaults_are_microcoder():
    c = _config()
    assert c.beta == 0.0 and c.epsilon_high == 0.28 and c.repetition_window == 128
    assert c.temperature_schedule == "fixed" and 0 < c.truncation_mask_rho <= 1
    for name in ("truncation_mask_rho", "repetition_window", "temperature_schedule", "temperature_low",
                 "temperature_high", "temperature_switch_step", "diversity_candidate_temperatures",
                 "diversity_target", "diversity_probe_repeats", "diversity_metric", "diversity_ngram",
                 "truncation_pass_reward"):
        assert MicroCoderGRPOConfig.__dataclass_fields__[name].metadata["help"]


@pytest.mark.parametrize("kw, message", [
    ({"truncation_mask_rho": 1.5}, "truncation_mask_rho=1.5 is not a probability"),
    ({"repetition_window": 0}, "repetition_window=0 must be a positive"),
    ({"temperature_schedule": "cosine"}, "temperature_schedule='cosine' is unknown"),
    ({"temperature_low": 0.0}, "temperature_low=0.0 is invalid"),
    ({"diversity_candidate_temperatures": [1.0, -2.0]}, "must be > 0"),
    ({"diversity_candidate_temperatures": ["hot"]}, "must be a list of numbers"),
    ({"diversity_target": 2.0, "diversity_metric": "distinct_ngrams"}, "diversity_target=2.0 must be in [0, 1]"),
    ({"diversity_target": -0.5}, "diversity_target=-0.5 must be in"),
    ({"diversity_metric": "bleu"}, "diversity_metric='bleu' is unknown"),
    ({"diversity_probe_repeats": 0}, "diversity_probe_repeats=0"),
    ({"mask_truncated_completions": True}, "conflict"),
    ({"temperature_schedule": "staged", "generation_kwargs": {"temperature": 0.3}}, "generation_kwargs sets"),
    ({"temperature_schedule": "staged", "max_steps": -1}, "needs temperature_switch_step"),
    ({"max_completion_length": 100}, "repetition_window=128 is too large"),
    ({"beta": -0.1}, "beta=-0.1 must be >= 0"),
])
def test_config_rejects_bad_values_with_a_clear_message(kw, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace("[", r"\[")):
        _config(**kw)


def test_candidate_temperatures_accept_a_comma_string():
    assert _config(diversity_candidate_temperatures="0.6, 1.2").diversity_candidate_temperatures == [0.6, 1.2]


def test_recipes_build_valid_configs():
    grpo = _config(**recipe("grpo"))
    assert grpo.beta > 0 and grpo.epsilon_high == grpo.epsilon and grpo.truncation_mask_rho == 0
    dapo = _config(**recipe("dapo"))
    assert dapo.beta == 0 and dapo.mask_truncated_completions and dapo.epsilon_high == 0.28
    mc = _config(max_completion_length=512, **recipe("microcoder"))
    assert mc.temperature_schedule == "staged" and mc.truncation_mask_rho > 0
    with pytest.raises(UserError, match="unknown recipe"):
        recipe("ppo")
