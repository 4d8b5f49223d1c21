"""The build pipeline: read -> min_tests -> dedup -> decontaminate -> verify -> difficulty -> export.

Each stage streams its input from the previous stage's ``problems.jsonl`` and writes its own
folder under ``<out>/stages``; a stage whose folder holds stats with the same key (its settings
plus everything upstream, inputs by content hash) is reused on a rerun. Evaluator verdicts are
cached in ``<out>/cache`` independently of stage keys, so changing e.g. the dedup threshold does
not re-run the references of problems already verified.
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from microcoder_eval.dataset import decontaminate, dedup, difficulty, filters, ingest, verify
from microcoder_eval.dataset.config import BuildDatasetConfig, file_fingerprint, stage_key
from microcoder_eval.dataset.export import export
from microcoder_eval.dataset.report import histograms, to_markdown, write_png
from microcoder_eval.dataset.store import RunCache, Stage, StageWriter
from microcoder_eval.errors import UserError

EvaluatorFactory = Callable[[BuildDatasetConfig, list[str]], Any]

# the flag that loosens each stage, for the "no problems survive" error
_LOOSEN = {"read": "check the input files and --format", "min_tests": "lower --min-tests",
           "dedup": "raise --near-dup-threshold or pass --no-dedup",
           "decontaminate": "raise --statement-overlap/--test-overlap or narrow the eval window",
           "verify": "check the reference solutions, leave out --require-reference, or pass --no-verify",
           "difficulty": "widen --min-pass-rate/--max-pass-rate or lower --min-completions"}


def _default_evaluator(cfg: BuildDatasetConfig, hide: list[str]) -> Any:
    from microcoder_eval.evaluator import Evaluator

    return Evaluator(cfg.eval_config(), hide_paths=hide)


class _LazyEvaluator:
    """Starts sandbox workers only when a stage actually has something to evaluate."""

    def __init__(self, factory: EvaluatorFactory, cfg: BuildDatasetConfig, hide: list[str]) -> None:
        self._factory, self._cfg, self._hide, self._ev = factory, cfg, hide, None

    def evaluate_iter(self, items: Any, extract: bool = False) -> Any:
        if self._ev is None:
            self._ev = self._factory(self._cfg, self._hide)
        return self._ev.evaluate_iter(items, extract=extract)

    def close(self) -> None:
        if self._ev is not None and hasattr(self._ev, "close"):
            self._ev.close()


def _log(cfg: BuildDatasetConfig, msg: str) -> None:
    if cfg.progress:
        print(msg, file=sys.stderr)


class Pipeline:
    def __init__(self, cfg: BuildDatasetConfig, evaluator_factory: EvaluatorFactory | None = None) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out_dir)
        self.stages: list[dict[str, Any]] = []
        self.upstream = ""
        self.current: Stage | None = None
        self.index = 0
        hide = [str(self.out)] + sorted({str(Path(p).resolve().parent) for p in
                                         [*cfg.inputs, *cfg.decontaminate_against, *([cfg.completions] if cfg.completions else [])]})
        self.evaluator = _LazyEvaluator(evaluator_factory or _default_evaluator, cfg, hide)
        self.eval_window: dict[str, Any] | None = None
        self.rate_rows: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------ stage plumbing
    def run_stage(self, name: str, params: dict[str, Any], fn: Callable[[StageWriter], int]) -> Stage:
        self.index += 1
        key = stage_key(name, params, self.upstream)
        stage = Stage(self.out, self.index, name, key)
        stats = stage.done()
        if stats is not None:
            stats["reused"] = True
            _log(self.cfg, f"[build-dataset] {name}: reusing {stats['output']}/{stats['input']} from {stage.dir}")
        else:
            writer = stage.writer()
            stats = writer.close(fn(writer))
            stats["reused"] = False
            _log(self.cfg, f"[build-dataset] {name}: kept {stats['output']} of {stats['input']}"
                 + (f" (dropped {stats['dropped']})" if stats["dropped"] else ""))
        self.stages.append(stats)
        self.upstream = key
        self.current = stage
        if stats["output"] == 0:
            self._nothing_left(stats, stage)
        return stage

    def _nothing_left(self, stats: dict[str, Any], stage: Stage) -> None:
        """Stop with one line that names the stage, its reasons and the flag to change."""
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(stats["dropped"].items(), key=lambda kv: -kv[1]))
        if stats["input"] == 0:
            what = f"no problems were read from {', '.join(self.cfg.inputs)}"
        else:
            what = f"stage '{stats['stage']}' dropped all {stats['input']} problems ({reasons or 'no reason'})"
        hint = _LOOSEN.get(stats["stage"], "loosen that stage's settings")
        raise UserError(f"no problems left to export: {what}; see {stage.dir / 'dropped.jsonl'}; {hint}")

    def skip_stage(self, name: str, why: str) -> None:
        self.index += 1
        self.stages.append({"stage": name, "enabled": False, "why": why})

    def previous_output(self) -> int:
        return next(s["output"] for s in reversed(self.stages) if s.get("enabled", True))

    def problems(self) -> Any:
        assert self.current is not None
        return self.current.problems()

    # ------------------------------------------------------------------ the pipeline
    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        started = time.time()
        if cfg.overwrite:
            for sub in ("stages", "cache"):
                shutil.rmtree(self.out / sub, ignore_errors=True)
        self.out.mkdir(parents=True, exist_ok=True)
        inputs = [file_fingerprint(p) for p in cfg.inputs]
        try:
            self._stages(inputs)
            outputs = export(self.problems(), self.out, progress=cfg.progress, prompt_style=cfg.prompt_style)
        finally:
            self.evaluator.close()
        return self._finish(inputs, outputs, started)

    def _stages(self, inputs: list[dict[str, Any]]) -> None:
        cfg = self.cfg
        self.run_stage("read", {"inputs": inputs, "format": cfg.format,
                                "include_generated_tests": cfg.include_generated_tests,
                                "keep_solutions": cfg.keep_solutions},
                       lambda w: ingest.run_read(cfg, w))
        self.run_stage("min_tests", {"min_tests": cfg.min_tests},
                       lambda w: filters.run_min_tests(self.problems(), w, cfg.min_tests))
        if cfg.dedup:
            self.run_stage("dedup", {"t": cfg.near_dup_threshold, "s": cfg.shingle_size, "p": cfg.minhash_num_perm,
                                     "rule": "variants-v1"},  # bump when the duplicate rule changes
                           lambda w: dedup.run_dedup(self.problems(), self.problems(), w, cfg.near_dup_threshold,
                                                     cfg.shingle_size, cfg.minhash_num_perm, cfg.progress))
        else:
            self.skip_stage("dedup", "--no-dedup")
        if cfg.decontaminate_against:
            self._decontaminate()
        else:
            self.skip_stage("decontaminate", "no --decontaminate-against")
        if cfg.verify:
            self._verify()
        else:
            self.skip_stage("verify", "--no-verify")
        if cfg.difficulty_enabled:
            self._difficulty()
        else:
            self.skip_stage("difficulty", "no --completions or --pass-rate-column")

    def _decontaminate(self) -> None:
        cfg = self.cfg
        evs = [file_fingerprint(p) for p in cfg.decontaminate_against]
        params = {"eval": evs, "window": [cfg.eval_release, cfg.eval_start_date, cfg.eval_end_date],
                  "sn": cfg.statement_ngram, "so": cfg.statement_overlap, "tn": cfg.test_ngram, "to": cfg.test_overlap}

        def fn(w: StageWriter) -> int:
            ev = decontaminate.load_eval_set(cfg.decontaminate_against, cfg.eval_start_date, cfg.eval_end_date,
                                             cfg.eval_release, cfg.statement_ngram, cfg.test_ngram)
            return decontaminate.run_decontaminate(self.problems(), w, ev, cfg.statement_ngram,
                                                   cfg.statement_overlap, cfg.test_ngram, cfg.test_overlap,
                                                   cfg.progress)

        self.run_stage("decontaminate", params, fn)
        summary = self.stages[-1]["notes"]["eval_set"]
        self.eval_window = {**summary["window"], "problems": summary["problems"]}

    def _cache(self, name: str) -> RunCache:
        return RunCache(self.out / "cache" / f"{name}_runs.jsonl", verify.settings(self.cfg))

    def _verify(self) -> None:
        cfg = self.cfg
        params = {"runs": cfg.verify_runs, "refs": cfg.max_references, "require": cfg.require_reference,
                  **verify.settings(cfg)}

        def fn(w: StageWriter) -> int:
            cache = self._cache("verify")
            try:
                v = verify.Verifier(self.evaluator, cache, cfg.verify_runs, cfg.max_references)
                chunk = max(64, 16 * cfg.eval_config().workers)
                return verify.run_verify(self.problems(), w, v, cfg.require_reference, cfg.progress,
                                         total=self.previous_output(), chunk=chunk)
            finally:
                cache.close()

        self.run_stage("verify", params, fn)

    def _difficulty(self) -> None:
        cfg = self.cfg
        source: Any = {"column": cfg.pass_rate_column} if cfg.pass_rate_column else \
            {"completions": file_fingerprint(cfg.completions), **verify.settings(cfg)}
        params = {**source, "band": [cfg.min_pass_rate, cfg.max_pass_rate], "min": cfg.min_completions}
        holder: dict[str, Any] = {}

        def fn(w: StageWriter) -> int:
            samples = cache = None
            if not cfg.pass_rate_column:
                samples = difficulty.load_completions(cfg.completions)
                cache = self._cache("difficulty")
            try:
                n, rows = difficulty.run_difficulty(
                    self.problems(), w, low=cfg.min_pass_rate, high=cfg.max_pass_rate,
                    min_completions=1 if cfg.pass_rate_column else cfg.min_completions,
                    column=cfg.pass_rate_column, samples=samples, evaluator=self.evaluator, cache=cache,
                    progress=cfg.progress, total=self.previous_output(),
                    chunk=max(64, 16 * cfg.eval_config().workers))
            finally:
                if cache is not None:
                    cache.close()
            with (w.stage.dir / "rates.jsonl").open("w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
            holder["rows"] = rows
            return n

        stage = self.run_stage("difficulty", params, fn)
        if "rows" in holder:
            self.rate_rows = holder["rows"]
        else:
            with (stage.dir / "rates.jsonl").open() as f:
                self.rate_rows = [json.loads(line) for line in f if line.strip()]

    # ------------------------------------------------------------------ manifest + report
    def _finish(self, inputs: list[dict[str, Any]], outputs: dict[str, Any], started: float) -> dict[str, Any]:
        cfg = self.cfg
        labels: Counter[str] = Counter()
        with open(outputs["lcb_jsonl"]) as f:
            for line in f:
                labels[json.loads(line).get("difficulty") or "unknown"] += 1
        manifest: dict[str, Any] = {
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "seconds": round(time.time() - started, 2),
            "config": cfg.to_dict(),
            "config_hash": self.upstream,
            "inputs": inputs,
            "stages": self.stages,
            "final_count": outputs["rows"],
            "final_difficulty": dict(sorted(labels.items())),
            "band": [cfg.min_pass_rate, cfg.max_pass_rate] if cfg.difficulty_enabled else None,
            "decontamination_window": self.eval_window,
            "outputs": {k: v for k, v in outputs.items() if k != "rows"},
        }
        hist = histograms(self.rate_rows) if self.rate_rows is not None else None
        png = None
        if hist is not None:
            png = str(self.out / "report.png")
            write_png(hist, png)
            manifest["histograms"] = hist
        manifest["outputs"].update(report_md=str(self.out / "report.md"), report_png=png,
                                   manifest=str(self.out / "manifest.json"))
        (self.out / "report.md").write_text(to_markdown(manifest, hist, png))
        tmp = self.out / "manifest.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, default=str))
        tmp.replace(self.out / "manifest.json")
        return manifest


def build_dataset(cfg: BuildDatasetConfig, evaluator_factory: EvaluatorFactory | None = None) -> dict[str, Any]:
    """Run (or resume) the whole build; returns the manifest (also written to ``<out>/manifest.json``)."""
    return Pipeline(cfg, evaluator_factory).run()
