"""Stage 3: exact duplicates (normalised statement hash) and near duplicates (datasketch MinHash LSH).

Of each group of duplicates the copy with the most tests is kept (then the most reference
solutions, then the earliest). Near duplicates are candidates from ``MinHashLSH`` confirmed by the
MinHash Jaccard estimate, unless something shows the two are different problems that share most
of their text (Codeforces' easy/hard versions, "the two versions are different problems"):

* they declare different versions ("This is the hard version", "(Easy Version)" in the title);
* their statements state different numeric upper bounds (``n ≤ 2000`` vs ``n ≤ 2·10^5``;
  ``2·10^5`` and ``200 000`` are the same bound); only when both state bounds;
* a test input they share has different expected outputs.

Such pairs are kept and counted in the stage notes (``kept_variants``) with an example.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Iterable, NamedTuple

from tqdm import tqdm

from microcoder_eval.dataset.readers.common import SOLUTIONS
from microcoder_eval.dataset.store import StageWriter
from microcoder_eval.dataset.text import constraint_bounds, normalize, statement_hash, version_labels, word_ngrams
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


class Evidence(NamedTuple):
    """What can tell two similar statements apart (see the module docstring)."""

    versions: frozenset[str]
    bounds: frozenset[int]
    tests: dict[bytes, bytes]  # hashed test input -> hashed expected output


def _h(text: str) -> bytes:
    return hashlib.blake2b(text.encode(errors="replace"), digest_size=8).digest()


MAX_EVIDENCE_TESTS = 64  # the first tests (public/examples come first) are enough to find a conflict


def evidence(statement: str, title: str = "", tests: Iterable[tuple[str, str]] = ()) -> Evidence:
    hashed: dict[bytes, bytes] = {}
    for i, o in tests:
        if len(hashed) >= MAX_EVIDENCE_TESTS:
            break
        hashed[_h(i.strip())] = _h(o.strip())
    return Evidence(version_labels(f"{title}\n{statement}"), constraint_bounds(statement), hashed)


def different_problems(a: Evidence, b: Evidence) -> str | None:
    """Why two near-identical statements are different problems, or ``None``."""
    if a.versions and b.versions and a.versions != b.versions:
        return "different_version"
    if a.bounds and b.bounds and a.bounds != b.bounds:
        return "different_constraints"
    small, big = (a.tests, b.tests) if len(a.tests) <= len(b.tests) else (b.tests, a.tests)
    if any(k in big and big[k] != v for k, v in small.items()):
        return "conflicting_tests"
    return None


def find_duplicates(problems: list[tuple[str, str, int] | tuple[str, str, int, int]], threshold: float,
                    shingle: int, num_perm: int, progress: bool = False,
                    evidences: list[Evidence] | None = None,
                    variants: list[tuple[str, str, str, float]] | None = None) -> dict[int, tuple[str, str, float]]:
    """``problems`` = ``(id, statement, num_tests[, num_references])``; returns
    ``{index: (reason, kept_id, similarity)}`` for every copy to drop.

    ``evidences[i]`` (default: from the statement alone) can show a near-duplicate candidate to be a
    different problem; each such pair kept is appended to ``variants`` as ``(id, other, why, sim)``."""
    if evidences is None:
        evidences = [evidence(p[1]) for p in problems]
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
                why = different_problems(evidences[i], evidences[key])
                if why is not None:
                    if variants is not None:
                        variants.append((qid, problems[key][0], why, round(sim, 4)))
                    continue
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
    meta, evs = [], []
    for p in problems:
        meta.append((p.question_id, p.question_content, len(p.tests), len(p.extra.get(SOLUTIONS) or [])))
        evs.append(evidence(p.question_content, p.question_title, ((t.input, t.output) for t in p.tests)))
    variants: list[tuple[str, str, str, float]] = []
    dropped = find_duplicates(meta, threshold, shingle, num_perm, progress, evs, variants)
    n = 0
    for i, p in enumerate(reread):
        n += 1
        if i in dropped:
            reason, kept, sim = dropped[i]
            out.drop(p.question_id, reason, f"duplicate of {kept}", duplicate_of=kept, similarity=sim)
        else:
            out.keep(p)
    why_counts: dict[str, int] = {}
    for _, _, why, _ in variants:
        why_counts[why] = why_counts.get(why, 0) + 1
    out.notes.update(near_dup_threshold=threshold, shingle_size=shingle, minhash_num_perm=num_perm,
                     kept_variants=len(variants), kept_variants_by_reason=dict(sorted(why_counts.items())),
                     kept_variant_examples=[{"id": a, "similar_to": b, "why": w, "similarity": s}
                                            for a, b, w, s in variants[:5]])
    return n
