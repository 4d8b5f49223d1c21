"""Conditional truncation masking (MicroCoder-GRPO, SPEC §4), as pure tensor functions.

    A_i <- A_i * (1 - 1[truncated_i AND not incorrect_i AND not repeat(o_i, m) AND U_i < rho])

- ``truncated``: the completion reached the length limit, |o_i| == L_max, without ending in an
  end-of-sequence token (a completion whose EOS is exactly the L_max-th token finished normally).
- ``incorrect``: the reward's verdict says the completion's code definitely failed (see
  :func:`incorrect_from_rewards`). A completion cut off before its closing code fence has no
  extractable code; that is *not* a definite failure, so it is "not incorrect" and may be masked.
- ``repeat(o_i, m)``: the last m tokens equal the m tokens before them (a degenerate loop, which
  keeps its negative advantage). Completions shorter than 2m are never repetitive.
- ``U_i``: one uniform draw per completion; rho is the masking probability.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass
class TruncationMaskResult:
    """Masked advantages plus the per-completion flags behind them (for logging)."""

    advantages: torch.Tensor
    masked: torch.Tensor  # bool [B]: advantage zeroed
    truncated: torch.Tensor  # bool [B]
    repetitive: torch.Tensor  # bool [B]


def pad_completions(completion_ids: Sequence[Sequence[int]], pad_value: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token-id lists into a ``[B, T]`` tensor; also return the ``[B]`` lengths."""
    lengths = torch.tensor([len(ids) for ids in completion_ids], dtype=torch.long)
    width = int(lengths.max()) if len(completion_ids) else 0
    out = torch.full((len(completion_ids), width), pad_value, dtype=torch.long)
    for i, ids in enumerate(completion_ids):
        if len(ids):
            out[i, : len(ids)] = torch.as_tensor(list(ids), dtype=torch.long)
    return out, lengths


def is_truncated(
    completion_ids: torch.Tensor, lengths: torch.Tensor, max_length: int, eos_token_ids: Sequence[int]
) -> torch.Tensor:
    """``[B]`` bool: length == ``max_length`` and the last token is not an end-of-sequence token."""
    at_limit = lengths >= max_length
    last = completion_ids.gather(1, (lengths - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
    ends_eos = torch.isin(last, torch.as_tensor(list(eos_token_ids), dtype=last.dtype)) & (lengths > 0)
    return at_limit & ~ends_eos


def is_repetitive(completion_ids: torch.Tensor, lengths: torch.Tensor, window: int) -> torch.Tensor:
    """``[B]`` bool: the last ``window`` tokens equal the ``window`` tokens before them."""
    if window < 1:
        raise ValueError(f"repetition window must be >= 1, got {window}")
    if completion_ids.size(1) < 2 * window:
        return torch.zeros(completion_ids.size(0), dtype=torch.bool)
    offsets = torch.arange(window)
    start_last = (lengths - window).clamp(min=window).unsqueeze(1)
    last = completion_ids.gather(1, start_last + offsets)
    prev = completion_ids.gather(1, start_last - window + offsets)
    return (last == prev).all(dim=1) & (lengths >= 2 * window)


def truncation_mask(
    truncated: torch.Tensor,
    incorrect: torch.Tensor,
    repetitive: torch.Tensor,
    uniform: torch.Tensor,
    rho: float,
) -> torch.Tensor:
    """``[B]`` bool: the four SPEC §4 conditions, all required."""
    return truncated & ~incorrect & ~repetitive & (uniform < rho)


def conditional_truncation_mask(
    advantages: torch.Tensor,
    completion_ids: torch.Tensor,
    lengths: torch.Tensor,
    incorrect: torch.Tensor,
    *,
    max_length: int,
    eos_token_ids: Sequence[int],
    window: int,
    rho: float,
    uniform: torch.Tensor,
) -> TruncationMaskResult:
    """Apply SPEC §4 to ``advantages`` ``[B]``; ``completion_ids`` is ``[B, T]`` right-padded."""
    truncated = is_truncated(completion_ids, lengths, max_length, eos_token_ids)
    repetitive = is_repetitive(completion_ids, lengths, window)
    masked = truncation_mask(truncated, incorrect.bool(), repetitive, uniform, rho).to(advantages.device)
    return TruncationMaskResult(advantages * (~masked).to(advantages.dtype), masked, truncated, repetitive)


INCORRECT_STATUSES = frozenset({"wrong_answer", "time_limit", "memory_limit", "runtime_error"})


def incorrect_from_statuses(statuses: Sequence[object]) -> torch.Tensor:
    """``[B]`` bool from evaluator verdicts: a definite failure of the extracted code.

    ``passed``, ``no_code`` (e.g. cut off before the closing fence), ``infra_error`` and a
    missing verdict (``None``) are not incorrect.
    """
    names = [getattr(s, "value", s) for s in statuses]
    return torch.tensor([n in INCORRECT_STATUSES for n in names], dtype=torch.bool)


def incorrect_from_rewards(rewards: torch.Tensor, has_code: torch.Tensor, pass_reward: float) -> torch.Tensor:
    """``[B]`` bool fallback when no verdicts are available: code was extracted and scored below
    ``pass_reward``. NaN rewards (unscorable, infrastructure failure) are not incorrect."""
    return has_code.bool() & ~torch.isnan(rewards) & (rewards < pass_reward)
