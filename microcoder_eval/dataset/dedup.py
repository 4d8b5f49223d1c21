"""Stage 3: exact duplicates (normalised statement hash) and near duplicates (datasketch MinHash LSH).

Of each group of duplicates the copy with the most tests is kept (then the most reference
solutions, then the earliest). Near
duplicates are candidates from ``MinHashLSH`` confirmed by the MinHash Jaccard estimate.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from tqdm import tqdm

from microcoder_eval.dataset.readers.common import SOLUTIONS
from microcoder_eval.dataset.store import StageWriter
from microcoder_eval.dataset.text import normalize, statement_hash, word_ngrams
from microcoder_eval.errors import UserError
from microcoder_eval.problem import Problem

if TYPE_CHECKING:
    from datasketch import MinHash


def _datasketch() -> object:
    try:
        import datasketch
    except ImportError as e:
        raise UserError("near-duplicate removal needs datasketch: pip install 'microcoder[dataset]' "
                        "(or pass --no-dedup)") from e
    return datasketch


def minhash(text: str, shingle: int, num_perm: int) -> "MinHash":
    MinHash = _datasketch().MinHash  # type: ignore[attr-defined]

    m = MinHash(num_perm=num_perm, seed=1)
    grams = word_ngrams(normalize(text).split(), shingle)
    m.update_batch([g.encode() for g in grams])
    return m


def find_duplicates(problems: list[tuple[str, str, int] | tuple[str, str, int, int]], threshold: float,
                    shingle: int, num_perm: int, progress: bool = False) -> dict[int, tuple[str, str, float]]:
    """``problems`` = ``(id, statement, num_tests[, num_references])``; returns
    ``{index: (reason, kept_id, similarity)}`` for every copy to drop."""
    MinHashLSH = _datasketch().MinHashLSH  # type: ignore[attr-defined]

    order = sorted(range(len(problems)), key=lambda i: (*(-x for x in problems[i][2:]), i))
    dropped: dict[int, tuple[str, str, float]] = {}
    exact: dict[str, int] = {}
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm) if threshold < 1.0 else None
    hashes: dict[int, MinHash] = {}
    for i in tqdm(order, desc="dedup", unit="prob", disable=not progress):
        qid, text = problems[i][:2]
        h = statement_hash(text)
        if h in exact:
            dropped[i] = ("exact_duplicate", problems[exact[h]][0], 1.0)
            continue
        exact[h] = i
        if lsh is None:
            continue
        m = minhash(text, shingle, num_perm)
        best: tuple[float, int] | None = None
        for key in lsh.query(m):
            sim = m.jaccard(hashes[key])
            if sim >= threshold and (best is None or sim > best[0]):
                best = (sim, key)
        if best is not None:
            dropped[i] = ("near_duplicate", problems[best[1]][0], round(best[0], 4))
            continue
        lsh.insert(i, m)
        hashes[i] = m
    return dropped


def run_dedup(problems: Iterable[Problem], reread: Iterable[Problem], out: StageWriter, threshold: float,
              shingle: int, num_perm: int, progress: bool) -> int:
    """Two passes over the stage input: collect statements, then write the survivors."""
    meta = [(p.question_id, p.question_content, len(p.tests), len(p.extra.get(SOLUTIONS) or [])) for p in problems]
    dropped = find_duplicates(meta, threshold, shingle, num_perm, progress)
    n = 0
    for i, p in enumerate(reread):
        n += 1
        if i in dropped:
            reason, kept, sim = dropped[i]
            out.drop(p.question_id, reason, f"duplicate of {kept}", duplicate_of=kept, similarity=sim)
        else:
            out.keep(p)
    out.notes.update(near_dup_threshold=threshold, shingle_size=shingle, minhash_num_perm=num_perm)
    return n
