"""Output diversity of a GRPO group (the paper publishes no formula; these are ours).

- ``token_entropy`` (default): the mean entropy, in nats, of the policy's next-token distribution
  at the sampling temperature, over the completion tokens it sampled. It moves with the
  temperature for any model that is not already uniform (T -> 0 gives 0; T -> inf gives
  log(vocab size)), while sequence-level metrics saturate: once two samples differ in one token,
  an autoregressive model's continuations differ everywhere, so distinct-n reads ~1.0 at every
  candidate temperature and "lowest temperature reaching the target" then picks the lowest. The
  trainer computes it with a scoring forward during the probe; per step it is TRL's ``entropy``
  (the loss forward scores at the sampling temperature). Not bounded by 1: its target is in nats.

The two sequence metrics work on token ids, are computed per prompt group (the ``num_generations``
completions of one prompt) and averaged over groups; 1.0 means fully diverse. Both are logged every
step (``microcoder/distinct_ngrams``, ``microcoder/distinct_completions``) whatever the metric.

- ``distinct_ngrams``: distinct-n. The number of distinct token n-grams across the
  group's completions divided by the total number of n-grams in the group. Identical
  completions score 1/G; completions sharing no n-gram score 1.0. Completions shorter than n
  contribute their whole token tuple as one "n-gram" so empty or tiny outputs still count.
- ``distinct_completions``: the number of distinct completions (exact token sequences) in the
  group minus one, divided by G - 1: 0.0 when all G are identical, 1.0 when all differ.
"""
from __future__ import annotations

from collections.abc import Sequence

DIVERSITY_METRICS = ("token_entropy", "distinct_ngrams", "distinct_completions")
SEQUENCE_METRICS = ("distinct_ngrams", "distinct_completions")
FRACTION_METRICS = SEQUENCE_METRICS  # in [0, 1]


def _ngrams(ids: Sequence[int], n: int) -> list[tuple[int, ...]]:
    ids = tuple(ids)
    if len(ids) < n:
        return [ids]
    return [ids[i : i + n] for i in range(len(ids) - n + 1)]


def distinct_ngrams(group: Sequence[Sequence[int]], n: int = 4) -> float:
    """Distinct-n of one group: distinct n-grams / all n-grams, pooled over its completions."""
    grams = [g for ids in group for g in _ngrams(ids, n)]
    return len(set(grams)) / len(grams) if grams else 0.0


def distinct_completions(group: Sequence[Sequence[int]]) -> float:
    """(distinct completions - 1) / (G - 1); 0.0 for a group whose completions are all identical."""
    if len(group) < 2:
        return 0.0
    return (len({tuple(ids) for ids in group}) - 1) / (len(group) - 1)


def group_diversity(
    completion_ids: Sequence[Sequence[int]], num_generations: int, metric: str = "distinct_ngrams", n: int = 4
) -> float:
    """Mean diversity over consecutive groups of ``num_generations`` completions (TRL's group order)."""
    if metric not in SEQUENCE_METRICS:
        raise ValueError(f"unknown diversity metric {metric!r} for token ids; choose one of {SEQUENCE_METRICS}")
    if num_generations < 1 or len(completion_ids) % num_generations:
        raise ValueError(
            f"{len(completion_ids)} completions do not split into groups of num_generations={num_generations}"
        )
    groups = [completion_ids[i : i + num_generations] for i in range(0, len(completion_ids), num_generations)]
    if not groups:
        return 0.0
    if metric == "distinct_ngrams":
        scores = [distinct_ngrams(g, n) for g in groups]
    else:
        scores = [distinct_completions(g) for g in groups]
    return sum(scores) / len(scores)


def mean_token_entropy(entropies, mask) -> float:
    """Mean of per-token entropies ``[B, T]`` over the positions where ``mask`` is set."""
    mask = mask.to(entropies.dtype)
    return float((entropies * mask).sum() / mask.sum().clamp(min=1))
