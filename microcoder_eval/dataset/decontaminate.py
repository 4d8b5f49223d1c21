"""Stage 4: drop training problems that overlap an evaluation set (statements and tests).

Overlap of a training problem T with one evaluation problem E is the containment
``|grams(T) & grams(E)| / min(|grams(T)|, |grams(E)|)`` (1.0 when one text's n-grams all occur
in the other, so a copy that dropped the examples or added a prompt wrapper still scores high),
over word n-grams of the normalised statements and, separately, over whitespace-token n-grams of
all test inputs and outputs (texts with fewer than n tokens are not compared on tests). T is
contaminated when either overlap reaches its threshold for some E. Evaluation problems can be
restricted to a date window and LCB release (contest_date), which the report prints.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from tqdm import tqdm

from microcoder_eval.dataset.readers import read_source
from microcoder_eval.dataset.store import StageWriter
from microcoder_eval.dataset.text import normalize, word_ngrams
from microcoder_eval.errors import UserError
from microcoder_eval.problem import Problem


def test_tokens(p: Problem) -> list[str]:
    toks: list[str] = []
    for t in p.tests:
        toks += t.input.split()
        toks += t.output.split()
    return toks


@dataclass
class NgramIndex:
    """n-gram -> evaluation problems containing it, plus each problem's distinct n-gram count."""

    n: int
    postings: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    sizes: list[int] = field(default_factory=list)

    def add(self, grams: set[str]) -> None:
        idx = len(self.sizes)
        self.sizes.append(len(grams))
        for g in grams:
            self.postings[hash(g)].append(idx)

    def best(self, grams: set[str]) -> tuple[int, float]:
        """``(eval_index, containment)`` of the evaluation problem overlapping ``grams`` most (-1 if none)."""
        hits: Counter[int] = Counter()
        for g in grams:
            for e in self.postings.get(hash(g), ()):
                hits[e] += 1
        best, frac = -1, 0.0
        for e, k in hits.items():
            f = k / min(len(grams), self.sizes[e])
            if f > frac:
                best, frac = e, f
        return best, frac


@dataclass
class EvalSet:
    ids: list[str]
    statements: NgramIndex
    tests: NgramIndex
    summary: dict[str, Any]


def in_window(day: str, start: str | None, end: str | None, release_end: str | None) -> bool:
    if not (start or end or release_end):
        return True
    if not day:
        return False
    return not ((start and day < start) or (end and day >= end) or (release_end and day > release_end))


def load_eval_set(paths: list[str], start: str | None, end: str | None, release: str | None,
                  statement_n: int, test_n: int) -> EvalSet:
    from microcoder_eval.lcb import RELEASES

    release_end = RELEASES[release][1] if release else None
    st, te = NgramIndex(statement_n), NgramIndex(test_n)
    ids: list[str] = []
    per_file: dict[str, Any] = {}
    no_date = outside = skipped = 0
    for path in paths:
        fmt, outcomes = read_source(path)
        kept = 0
        for o in outcomes:
            if o.problem is None:
                skipped += 1
                continue
            day = o.problem.contest_date[:10]
            if not in_window(day, start, end, release_end):
                no_date += not day
                outside += bool(day)
                continue
            ids.append(o.problem.question_id)
            st.add(word_ngrams(normalize(o.problem.question_content).split(), statement_n))
            toks = test_tokens(o.problem)
            te.add({" ".join(toks[i:i + test_n]) for i in range(len(toks) - test_n + 1)} if len(toks) >= test_n else set())
            kept += 1
        per_file[path] = {"format": fmt, "problems": kept}
    if not ids:
        raise UserError(f"the evaluation set {', '.join(paths)} has no problems in the window "
                        f"[{start or '-inf'}, {end or '+inf'}){' within ' + release if release else ''}; "
                        "widen the window or check the files")
    summary = {"files": per_file, "problems": len(ids), "window": {"start": start, "end": end, "release": release},
               "excluded_outside_window": outside, "excluded_without_date": no_date,
               "unreadable_records": skipped,
               "without_comparable_tests": sum(1 for s in te.sizes if s == 0)}
    return EvalSet(ids, st, te, summary)


def run_decontaminate(problems: Iterable[Problem], out: StageWriter, ev: EvalSet, statement_n: int,
                      statement_thr: float, test_n: int, test_thr: float, progress: bool) -> int:
    n = 0
    for p in tqdm(problems, desc="decontaminate", unit="prob", disable=not progress):
        n += 1
        s_idx, s_frac = ev.statements.best(word_ngrams(normalize(p.question_content).split(), statement_n))
        toks = test_tokens(p)
        t_idx, t_frac = ev.tests.best({" ".join(toks[i:i + test_n]) for i in range(len(toks) - test_n + 1)})
        info = {"statement_overlap": round(s_frac, 4), "statement_match": ev.ids[s_idx] if s_idx >= 0 else None,
                "test_overlap": round(t_frac, 4), "test_match": ev.ids[t_idx] if t_idx >= 0 else None}
        if s_frac >= statement_thr:
            out.drop(p.question_id, "contaminated_statement",
                     f"statement {statement_n}-gram containment {s_frac:.0%} with {ev.ids[s_idx]}", **info)
        elif t_frac >= test_thr:
            out.drop(p.question_id, "contaminated_tests",
                     f"test {test_n}-gram containment {t_frac:.0%} with {ev.ids[t_idx]}", **info)
        else:
            out.keep(p)
    out.notes["eval_set"] = ev.summary
    out.notes.update(statement_ngram=statement_n, statement_overlap=statement_thr, test_ngram=test_n,
                     test_overlap=test_thr)
    return n
