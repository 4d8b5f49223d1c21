"""DAPO's soft overlong punishment as a TRL reward function.

    R_length(L) = 0                                   if L <= L_max - L_c
                = (L_max - L_c - L) / L_c * factor    if L_max - L_c < L <= L_max
                = -factor                             if L > L_max

L is the completion's token count, L_max ``max_completion_length`` and L_c the buffer
(``overlong_buffer_length``). Generation stops at L_max, so a truncated completion gets -factor.
"""
from __future__ import annotations

from collections.abc import Sequence


def overlong_penalty(length: int, max_length: int, buffer: int, factor: float = 1.0) -> float:
    if buffer <= 0 or length <= max_length - buffer:
        return 0.0
    if length > max_length:
        return -factor
    return (max_length - buffer - length) / buffer * factor


class OverlongPenalty:
    """Reward function ``f(completion_ids=...) -> [R_length]`` (TRL passes ``completion_ids``)."""

    __name__ = "overlong_penalty"

    def __init__(self, max_length: int, buffer: int, factor: float = 1.0):
        self.max_length, self.buffer, self.factor = max_length, buffer, factor

    def __call__(self, completions=None, completion_ids: Sequence[Sequence[int]] | None = None, **kwargs):
        if completion_ids is None:
            raise TypeError("overlong_penalty needs completion_ids")
        return [overlong_penalty(len(ids), self.max_length, self.buffer, self.factor) for ids in completion_ids]
