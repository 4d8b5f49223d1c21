"""Conditional truncation masking (SPEC §4) on hand-built tensors: each condition on its own."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from microcoder_eval.verdict import Status  # noqa: E402
from microcoder_train.masking import (  # noqa: E402
    conditional_truncation_mask,
    incorrect_from_rewards,
    incorrect_from_statuses,
    is_repetitive,
    is_truncated,
    pad_completions,
    truncation_mask,
)

EOS = 2
L_MAX = 8
M = 2


def _run(rows, incorrect, uniform, rho=0.5, advantages=None):
    ids, lengths = pad_completions(rows, pad_value=0)
    adv = torch.tensor(advantages if advantages is not None else [1.5] * len(rows))
    return conditional_truncation_mask(
        adv, ids, lengths, torch.tensor(incorrect), max_length=L_MAX, eos_token_ids=[EOS], window=M, rho=rho,
        uniform=torch.tensor(uniform),
    )


# a truncated (8 tokens, no EOS), non-repetitive completion; the last 2 tokens differ from the 2 before
BASE = [5, 6, 7, 8, 9, 10, 11, 12]


def test_all_four_conditions_hold_so_the_advantage_is_zeroed():
    r = _run([BASE], incorrect=[False], uniform=[0.1])
    assert r.masked.tolist() == [True]
    assert r.advantages.tolist() == [0.0]


def test_condition_length_a_completion_shorter_than_l_max_is_kept():
    r = _run([BASE[:7]], incorrect=[False], uniform=[0.1])
    assert r.truncated.tolist() == [False] and r.masked.tolist() == [False]
    assert r.advantages.tolist() == [1.5]


def test_condition_length_eos_as_the_last_allowed_token_is_a_finished_completion():
    r = _run([BASE[:7] + [EOS]], incorrect=[False], uniform=[0.1])
    assert r.truncated.tolist() == [False] and r.advantages.tolist() == [1.5]


def test_condition_incorrect_a_definite_failure_keeps_its_advantage():
    r = _run([BASE], incorrect=[True], uniform=[0.1], advantages=[-0.7])
    assert r.truncated.tolist() == [True] and r.masked.tolist() == [False]
    assert r.advantages.tolist() == pytest.approx([-0.7])


def test_condition_repetition_last_m_equal_previous_m_keeps_its_advantage():
    looping = [5, 6, 7, 8, 3, 4, 3, 4]  # last 2 == previous 2
    r = _run([looping], incorrect=[False], uniform=[0.1], advantages=[-0.7])
    assert r.repetitive.tolist() == [True] and r.masked.tolist() == [False]
    assert r.advantages.tolist() == pytest.approx([-0.7])


def test_condition_probability_u_not_below_rho_keeps_the_advantage():
    r = _run([BASE, BASE], incorrect=[False, False], uniform=[0.5, 0.49], rho=0.5)
    assert r.masked.tolist() == [False, True]
    assert r.advantages.tolist() == [1.5, 0.0]


def test_rho_zero_never_masks_and_rho_one_always_masks_eligible():
    assert not _run([BASE], [False], [0.0], rho=0.0).masked.any()
    assert _run([BASE], [False], [0.999], rho=1.0).masked.all()


def test_mixed_batch_with_padding_masks_exactly_the_eligible_row():
    rows = [BASE, BASE[:3], [5, 6, 7, 8, 3, 4, 3, 4], BASE]
    r = _run(rows, incorrect=[False, False, False, True], uniform=[0.0] * 4, rho=1.0, advantages=[1.0, 2.0, 3.0, 4.0])
    assert r.masked.tolist() == [True, False, False, False]
    assert r.advantages.tolist() == [0.0, 2.0, 3.0, 4.0]


def test_repetition_needs_two_windows_of_tokens():
    ids, lengths = pad_completions([[3, 4, 3, 4], [3, 4, 3], [1, 3, 4, 3, 4], [9, 9, 9, 9, 9, 8]], pad_value=0)
    assert is_repetitive(ids, lengths, window=2).tolist() == [True, False, True, False]
    # window larger than any row: never repetitive
    assert not is_repetitive(ids, lengths, window=4).any()


def test_repetition_ignores_right_padding():
    ids, lengths = pad_completions([[7, 3, 4, 3, 4], [1, 2]], pad_value=3)
    assert is_repetitive(ids, lengths, window=2).tolist() == [True, False]


def test_is_truncated_with_several_eos_ids():
    ids, lengths = pad_completions([[1, 2, 3], [1, 2, 9], [1, 2, 4], [1]])
    assert is_truncated(ids, lengths, 3, eos_token_ids=[9, 4]).tolist() == [True, False, False, False]


def test_truncation_mask_is_the_conjunction():
    t = torch.tensor([True, True, True, True, False])
    inc = torch.tensor([False, True, False, False, False])
    rep = torch.tensor([False, False, True, False, False])
    u = torch.tensor([0.0, 0.0, 0.0, 0.9, 0.0])
    assert truncation_mask(t, inc, rep, u, rho=0.5).tolist() == [True, False, False, False, False]


def test_incorrect_from_statuses_treats_no_code_and_infra_as_not_incorrect():
    statuses = [Status.WRONG_ANSWER, Status.TIME_LIMIT, Status.MEMORY_LIMIT, Status.RUNTIME_ERROR, Status.PASSED,
                Status.NO_CODE, Status.INFRA_ERROR, None, "wrong_answer"]
    assert incorrect_from_statuses(statuses).tolist() == [True, True, True, True, False, False, False, False, True]


def test_incorrect_from_rewards_needs_extracted_code_and_a_failing_reward():
    rewards = torch.tensor([0.0, 0.0, 1.0, float("nan"), 0.5])
    has_code = torch.tensor([True, False, True, True, True])
    assert incorrect_from_rewards(rewards, has_code, pass_reward=1.0).tolist() == [True, False, False, False, True]
