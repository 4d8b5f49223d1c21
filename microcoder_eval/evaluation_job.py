"""Run one evaluation job end to end: load, match, judge (streamed + resumable), summarise."""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import sys
import traceback
from pathlib import Path
from typing import Any, Iterator

from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import ExecutorError, UserError
from microcoder_eval.executors import make_executor
from microcoder_eval.extraction import extract_code
from microcoder_eval.lcb import load_problems
from microcoder_eval.problem import Problem
from microcoder_eval.report import agreement, summarize, write_reports
from microcoder_eval.results_store import ResultsStore
from microcoder_eval.samples import Sample, load_samples


def match_samples(problems: list[Problem], samples: list[Sample], skip_missing: bool,
                  filtered: bool) -> list[tuple[Problem, Sample]]:
    """Pair samples with problems; an unknown question_id is an error unless asked to skip."""
    pmap = {p.question_id: p for p in problems}
    pairs, missing = [], []
    for s in samples:
        if s.question_id in pmap:
            pairs.append((pmap[s.question_id], s))
        else:
            missing.append(s.question_id)
    if missing and not skip_missing and not filtered:
        raise UserError(f"sample for unknown question_id {missing[0]!r} ({len(set(missing))} unknown ids); "
                        "check the problems file or pass --skip-missing")
    return pairs


def run_evaluation(job: Any, config: EvalConfig, quiet: bool = False) -> dict[str, Any]:
    """Evaluate ``job.samples`` on ``job.problems``; results stream to ``job.out``."""
    problems = load_problems(job.problems, job.release, job.start_date, job.end_date, job.platform, job.difficulty)
    if not problems:
        raise UserError(f"no problems left in {job.problems} after the release/date/platform/difficulty filters")
    samples = load_samples(job.samples, job.use_raw_output)
    if not samples:
        raise UserError(f"{job.samples} holds no samples")
    filtered = any(v is not None for v in (job.release, job.start_date, job.end_date, job.platform, job.difficulty))
    pairs = match_samples(problems, samples, job.skip_missing, filtered)
    if not pairs:
        raise UserError("no sample matches a problem in the selected window")
    # settings that change verdicts; where and how wide the run executes does not
    verdict_config = {k: v for k, v in dataclasses.asdict(config).items()
                      if k not in ("workers", "executor", "ray_address")}
    settings = {"problems": str(Path(job.problems)), "samples": str(Path(job.samples)),
                "use_raw_output": job.use_raw_output, "config": verdict_config,
                "window": [job.release, job.start_date, job.end_date, job.platform, job.difficulty]}
    store = ResultsStore(job.out, settings, overwrite=job.overwrite)  # reads only; created once judging starts
    hashes = {s.key: input_hash(p, s) for p, s in pairs}
    todo = [(p, s) for p, s in pairs if not store.is_done(s.key, hashes[s.key])]
    sandbox: dict | None = None
    try:
        if todo:
            # with bubblewrap none of these is visible anyway; on the host view they are hidden
            hide: list[str] = []
            for path in (job.problems, job.samples, job.out):
                if Path(path).exists():  # the file itself, and its folder where that is safe
                    hide += [str(Path(path).resolve()), str(Path(path).resolve().parent)]
            sandbox = _judge(todo, config, store, job.progress and not quiet, tuple(hide), hashes)
            if sandbox and str(sandbox.get("mode", "")).startswith("host") and not quiet:
                print("microcoder-eval: warning: weaker sandbox (" + "; ".join(sandbox.get("notes", [])) +
                      "); run `microcoder-eval doctor` for details", file=sys.stderr)
    finally:
        store.close()  # compacts to one row per sample (atomically), unless a write failed
    wanted = {s.key for _, s in pairs}
    results = [r for k, r in store.done.items() if k in wanted]
    used = {p.question_id for p, _ in pairs}
    window = {"release": job.release, "start_date": job.start_date, "end_date": job.end_date,
              "platform": job.platform, "difficulty": job.difficulty, "mode": config.mode,
              "lcb_version": config.lcb_version}
    summary = summarize([p for p in problems if p.question_id in used], results, job.k_values, window)
    if todo and sandbox:
        summary["sandbox"] = sandbox
    labels = {s.key: s.label for _, s in pairs if s.label is not None}
    if labels:
        summary["label_agreement"] = agreement(results, labels, "label")
    refs = {s.key: s.reference_verdict for _, s in pairs if s.reference_verdict is not None}
    if refs:
        summary["lcb_agreement"] = agreement(results, refs, "lcb_verdict")
    try:
        summary["reports"] = write_reports(summary, Path(job.out).with_suffix(""))
    except OSError as e:
        raise UserError(f"cannot write the reports next to {job.out}: {e.strerror or e}; the results file "
                        "is complete, so rerunning the same command only writes the reports") from e
    return summary


def input_hash(problem: Problem, sample: Sample) -> str:
    """Identity of what a result judged: the problem's tests and options, and the sample text."""
    blob = json.dumps([problem.func_name, [t.to_dict() for t in problem.tests], dataclasses.asdict(problem.compare),
                       problem.time_limit_s, sample.text, sample.is_code]
                      + ([problem.checker] if problem.checker else []), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _judge(todo: list[tuple[Problem, Sample]], config: EvalConfig, store: ResultsStore, progress: bool,
           hide: tuple[str, ...] = (), hashes: dict[tuple[str, int], str] | None = None) -> dict | None:
    """Judge ``todo`` into ``store``; returns the sandbox's isolation report (local executor)."""
    from tqdm import tqdm

    items = []
    for p, s in todo:
        code = s.text if s.is_code else extract_code(s.text, config.extract_mode)
        items.append((p, code))
    indices = [s.sample_index for _, s in todo]
    bar = tqdm(total=len(items), desc="evaluating", unit="sample", disable=not progress, file=sys.stderr)
    sandbox = None
    try:
        with _executor_errors(config, "start"):
            ev = make_executor(config, hide)
        with _executor_errors(config, "judge"), ev:  # closing it is covered too
            with _executor_errors(config, "start"):
                getattr(ev, "warm_up", lambda: None)()  # the local pool starts its workers now
            pool = getattr(ev, "pool", None)
            sandbox = pool.isolation() if pool is not None else None
            store.open()  # nothing is created on disk before the executor is up
            for pos, res in ev.evaluate_iter(items, extract=False, sample_indices=indices):
                if not todo[pos][1].is_code and res.code is None:
                    res.detail = "no code block found in the completion"
                store.add(res, (hashes or {}).get(todo[pos][1].key))
                bar.update(1)
    finally:
        bar.close()
    return sandbox


@contextlib.contextmanager
def _executor_errors(config: EvalConfig, stage: str) -> Iterator[None]:
    """Turn any failure of an executor into the one-line error; the traceback goes to its log file.

    UserErrors (bad settings, full disk) and Ctrl-C pass through as they are.
    """
    try:
        yield
    except (UserError, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - whatever the executor raised
        what = "could not start" if stage == "start" else "failed while judging"
        raise ExecutorError(f"the {config.executor} executor {what} ({type(e).__name__}: {_first_line(e)}); "
                            "results already on disk are kept; rerun the same command to resume",
                            detail=traceback.format_exc()) from e


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0][:300] if lines else type(e).__name__
