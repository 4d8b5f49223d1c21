"""Stage 5: run reference solutions through the evaluator; keep problems some reference passes.

Each problem's references (``extra["solutions"]``, source order, at most ``max_references``) are
run ``runs`` times. A reference *verifies* the problem when every run passes every test. A
reference whose per-test verdicts differ between runs is *flaky* and the next one is tried. When
no reference verifies the problem it is dropped as ``flaky`` (some reference was), ``infra_error``
(the sandbox failed), ``checker_candidate`` (two or more references all run cleanly and all give
other outputs than the tests: the problem likely accepts several answers and needs a checker), or
``reference_failed``. APPS-style call-based problems whose outputs were
unwrapped from one-element lists are also tried with the wrapped outputs; the form the reference
returns is kept. Every evaluation is cached on disk, so an interrupted run resumes.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable, Iterator, Protocol, Sequence

from tqdm import tqdm

from microcoder_eval.dataset.readers.common import SOLUTIONS, WRAPPED
from microcoder_eval.dataset.store import RunCache, StageWriter
from microcoder_eval.problem import Problem
from microcoder_eval.verdict import SampleResult, Status

VERIFICATION = "verification"
VERIFIED_SOLUTION = "verified_solution"


class EvaluatorLike(Protocol):
    def evaluate_iter(self, items: Sequence[tuple[Problem, str | None]], extract: bool = False
                      ) -> Iterator[tuple[int, SampleResult]]: ...


def with_outputs(p: Problem, outputs: list[str]) -> Problem:
    """A copy of ``p`` whose tests (public, then private) expect ``outputs``."""
    n = len(p.public_tests)
    new = [replace(t, output=o) for t, o in zip(p.tests, outputs)]
    return Problem(**{**{f.name: getattr(p, f.name) for f in fields(Problem)},
                      "public_tests": new[:n], "private_tests": new[n:], "extra": dict(p.extra)})


def problem_digest(p: Problem) -> str:
    """Identity of what the evaluator sees of a problem (tests, call mode, options)."""
    blob = json.dumps({"tests": [t.to_dict() for t in p.tests], "func_name": p.func_name,
                       "compare": repr(p.compare), "time_limit_s": p.time_limit_s, "checker": p.checker},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def run_key(p: Problem, code: str, run: int) -> str:
    return f"{problem_digest(p)}:{hashlib.sha256(code.encode()).hexdigest()[:20]}:{run}"


def signature(r: SampleResult) -> tuple[str, tuple[str, ...]]:
    return r.status.value, tuple(t.status.value for t in r.tests)


@dataclass
class Verdict:
    status: str  # verified | reference_failed | flaky | infra_error
    reference: int = -1
    variant: str = "as_read"  # as_read | wrapped
    detail: str = ""


def evaluate_cached(evaluator: EvaluatorLike, cache: RunCache, jobs: list[tuple[str, Problem, str]],
                    extract: bool = False) -> None:
    """Evaluate ``(key, problem, text)`` jobs not in ``cache``, streaming each result into it."""
    todo: dict[str, tuple[Problem, str]] = {}
    for k, p, c in jobs:
        if cache.get(k) is None and k not in todo:
            todo[k] = (p, c)
    if not todo:
        return
    keys = list(todo)
    for pos, res in evaluator.evaluate_iter([todo[k] for k in keys], extract=extract):
        cache.add(keys[pos], res)


class Verifier:
    """Resolves the references of a batch of problems in rounds (reference 0 for all, then 1 ...)."""

    def __init__(self, evaluator: EvaluatorLike, cache: RunCache, runs: int, max_references: int) -> None:
        self.evaluator, self.cache, self.runs, self.max_refs = evaluator, cache, runs, max_references

    def _variants(self, p: Problem) -> list[tuple[str, Problem]]:
        out = [("as_read", p)]
        if p.extra.get(WRAPPED):
            out.append(("wrapped", with_outputs(p, p.extra[WRAPPED])))
        return out

    def verify(self, problems: list[Problem]) -> list[Verdict]:
        refs = [list(p.extra.get(SOLUTIONS) or [])[: self.max_refs] for p in problems]
        variants = [self._variants(p) for p in problems]
        verdicts: list[Verdict | None] = [None] * len(problems)
        flags: list[set[str]] = [set() for _ in problems]
        notes: list[list[str]] = [[] for _ in problems]
        wrong: list[int] = [0] * len(problems)  # references whose output differs from the tests'
        state = {i: 0 for i in range(len(problems)) if refs[i]}
        while state:
            jobs = [(run_key(vp, refs[i][r], k), vp, refs[i][r])
                    for i, r in state.items() for _, vp in variants[i] for k in range(self.runs)]
            evaluate_cached(self.evaluator, self.cache, jobs)
            for i, r in list(state.items()):
                code = refs[i][r]
                for name, vp in variants[i]:
                    results = [self.cache.get(run_key(vp, code, k)) for k in range(self.runs)]
                    if any(x is None or x.status is Status.INFRA_ERROR for x in results):
                        flags[i].add("infra_error")
                        notes[i].append(f"ref{r}/{name}: infra_error")
                        continue
                    sigs = {signature(x) for x in results}
                    if len(sigs) > 1:
                        flags[i].add("flaky")
                        notes[i].append(f"ref{r}/{name}: verdicts differ across runs "
                                        f"({', '.join(sorted(x.status.value for x in results))})")
                        continue
                    if results[0].passed:
                        verdicts[i] = Verdict("verified", r, name)
                        break
                    notes[i].append(f"ref{r}/{name}: {results[0].status.value} ({results[0].detail[:80]})")
                    wrong[i] += name == "as_read" and results[0].status is Status.WRONG_ANSWER
                if verdicts[i] is not None:
                    del state[i]
                elif r + 1 < len(refs[i]):
                    state[i] = r + 1
                else:
                    del state[i]
                    reason = "flaky" if "flaky" in flags[i] else \
                        "infra_error" if "infra_error" in flags[i] else "reference_failed"
                    detail = "; ".join(notes[i])[:400]
                    if reason == "reference_failed" and wrong[i] >= 2 and wrong[i] == r + 1 \
                            and not problems[i].checker:
                        # several references all run cleanly and all answer differently from the
                        # tests: likely "print any valid answer", which needs a checker
                        reason = "checker_candidate"
                        detail = f"{wrong[i]} reference solutions all give other outputs than the tests " \
                                 f"(the problem may accept several answers: add a checker); {detail}"[:400]
                    verdicts[i] = Verdict(reason, detail=detail)
        return [v if v is not None else Verdict("no_reference") for v in verdicts]


def _chunks(it: Iterable[Problem], size: int) -> Iterator[list[Problem]]:
    buf: list[Problem] = []
    for p in it:
        buf.append(p)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


def run_verify(problems: Iterable[Problem], out: StageWriter, verifier: Verifier, require_reference: bool,
               progress: bool, total: int | None = None, chunk: int = 64) -> int:
    n = 0
    counts: dict[str, int] = {"verified": 0, "kept_unverified": 0, "wrapped_outputs": 0,
                              "unresolved_wrapped_outputs": 0}
    bar = tqdm(total=total, desc="verify", unit="prob", disable=not progress)
    for batch in _chunks(problems, chunk):
        for p, v in zip(batch, verifier.verify(batch)):
            n += 1
            bar.update()
            if v.status == "verified":
                code = p.extra[SOLUTIONS][v.reference]
                if v.variant == "wrapped":
                    p = with_outputs(p, p.extra[WRAPPED])
                    counts["wrapped_outputs"] += 1
                p.extra.pop(WRAPPED, None)
                p.extra[VERIFICATION] = {"status": "verified", "reference": v.reference, "runs": verifier.runs,
                                         "outputs": v.variant}
                p.extra[VERIFIED_SOLUTION] = code
                counts["verified"] += 1
                out.keep(p)
            elif v.status == "no_reference":
                if require_reference:
                    out.drop(p.question_id, "no_reference", "the source has no reference solution")
                    continue
                p.extra[VERIFICATION] = {"status": "unverified"}
                counts["kept_unverified"] += 1
                counts["unresolved_wrapped_outputs"] += bool(p.extra.get(WRAPPED))
                out.keep(p)
            else:
                out.drop(p.question_id, v.status, v.detail)
    bar.close()
    out.notes.update(counts)
    out.notes.update(runs=verifier.runs, max_references=verifier.max_refs, require_reference=require_reference)
    return n


def settings(cfg: Any) -> dict[str, Any]:
    """What makes a cached evaluator verdict reusable."""
    return {"mode": cfg.eval_mode, "timeout_s": cfg.timeout_s, "memory_mb": cfg.memory_mb}

