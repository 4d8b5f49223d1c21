"""``BuildDatasetConfig``: every knob of ``microcoder-eval build-dataset``, validated on creation."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from datetime import date
from pathlib import Path
from typing import Any

from microcoder_eval.errors import UserError

EVAL_MODES = ("flex", "lcb")


def _help(text: str, choices: tuple[str, ...] | None = None, **kw: Any) -> Any:
    meta: dict[str, Any] = {"help": text}
    if choices:
        meta["choices"] = choices  # the CLI offers exactly these (add_dataclass_args)
    return field(metadata=meta, **kw)


@dataclass
class BuildDatasetConfig:
    """Inputs, filters and outputs of one dataset build (stages run in the order of the fields)."""

    inputs: list[str] = _help("Source files (.jsonl/.json/.parquet) or raw APPS folders; formats may differ.",
                              default_factory=list)
    out_dir: str = _help("Output folder: stages/ (resumable stage outputs), problems.jsonl (loadable by "
                         "LiveCodeBench), verl/train.parquet, trl/ (for GRPOTrainer), dataset.parquet, hf/ "
                         "(datasets.save_to_disk), manifest.json, report.md/png.",
                         default="dataset_out")
    format: str = _help("Source format for every input: 'auto' (detect per file) or one of lcb, apps, "
                        "codecontests, deepcoder, plain, verl, leetcodedataset.", default="auto",
                        choices=("auto", "lcb", "apps", "codecontests", "deepcoder", "plain", "verl", "leetcodedataset"))
    include_generated_tests: bool = _help("CodeContests: also use generated_tests (besides public/private).",
                                          default=True)
    keep_solutions: int = _help("Reference solutions kept per problem from the source, in source order "
                                "(0 = all; APPS/TACO rows carry hundreds, copied into every stage file).",
                                default=16)
    # ---- test count
    min_tests: int = _help("Drop problems with fewer tests than this (DeepCoder used 5; LiveCodeBench "
                           "public-only problems have 1-3).", default=1)
    # ---- dedup
    dedup: bool = _help("Remove exact (normalised statement hash) and near duplicates (MinHash LSH).",
                        default=True)
    near_dup_threshold: float = _help("Estimated Jaccard similarity of statement word shingles at or above "
                                      "which two problems are near duplicates (1.0 = exact only).", default=0.8)
    shingle_size: int = _help("Words per shingle for near-duplicate MinHash.", default=5)
    minhash_num_perm: int = _help("MinHash permutations (more = more exact Jaccard estimates, slower).",
                                  default=128)
    # ---- decontamination
    decontaminate_against: list[str] = _help("Evaluation problem files (any readable format, e.g. LCB JSONL) "
                                             "to decontaminate against; empty = no decontamination.",
                                             default_factory=list)
    eval_release: str | None = _help("Only evaluation problems inside this LiveCodeBench release's dates "
                                     "(release_v1 .. release_v6).", default=None)
    eval_start_date: str | None = _help("Only evaluation problems with contest_date >= this (YYYY-MM-DD).",
                                        default=None)
    eval_end_date: str | None = _help("Only evaluation problems with contest_date < this (YYYY-MM-DD).",
                                      default=None)
    statement_ngram: int = _help("Word n-gram size for statement overlap (13 as in GPT-3's decontamination).",
                                 default=13)
    statement_overlap: float = _help("Drop a training problem when its statement n-gram containment with an "
                                     "evaluation problem (shared / the smaller n-gram set) reaches this.",
                                     default=0.5)
    test_ngram: int = _help("Token n-gram size for test overlap (test inputs and outputs, whitespace tokens).",
                            default=13)
    test_overlap: float = _help("Drop a training problem when the containment of its test-token n-grams "
                                "with an evaluation problem's reaches this (tests with fewer than test_ngram "
                                "tokens in all are not compared).", default=0.5)
    # ---- verification
    verify: bool = _help("Run reference solutions through the evaluator; drop problems whose references "
                         "fail or are flaky.", default=True)
    verify_runs: int = _help("Runs per reference; a reference whose per-test verdicts differ between runs "
                             "is flaky (1 = no flakiness check).", default=2)
    max_references: int = _help("Reference solutions tried per problem, in source order, until one passes "
                                "every test in every run.", default=3)
    require_reference: bool = _help("Drop problems that have no reference solution (default: keep them, "
                                    "marked unverified and counted in the manifest).", default=False)
    # ---- difficulty
    completions: str | None = _help("Sampled completions JSONL {question_id, completion} (or an LCB "
                                    "code_list file) to measure each problem's pass rate with the evaluator.",
                                    default=None)
    pass_rate_column: str | None = _help("Instead of --completions: a source column holding each problem's "
                                         "pass rate in [0, 1] (e.g. KodCode gpt_pass_percentage).", default=None)
    min_completions: int = _help("Problems with fewer judged completions than this are dropped by the "
                                 "difficulty filter.", default=4)
    min_pass_rate: float = _help("Keep problems whose pass rate is >= this (drops never-solved ones).",
                                 default=0.05)
    max_pass_rate: float = _help("Keep problems whose pass rate is <= this (drops always-solved ones).",
                                 default=0.95)
    # ---- evaluator
    eval_mode: str = _help("Evaluator comparison mode for verification and completions: flex or lcb.",
                           default="flex", choices=("flex", "lcb"))
    timeout_s: float = _help("Per-test time limit in seconds.", default=6.0)
    memory_mb: int = _help("Memory cap per test process in MiB (0 = none).", default=4096)
    workers: int = _help("Parallel sandbox workers (0 = one per CPU core).", default=0)
    # ---- exports
    prompt_style: str = _help("Prompt of the verl/ and trl/ exports: lcb (system + user, LiveCodeBench's), "
                              "lcb_user (one user turn) or qwq.", default="lcb",
                              choices=("lcb", "lcb_user", "qwq"))
    # ---- run control
    overwrite: bool = _help("Discard stage outputs and caches in out_dir instead of resuming.", default=False)
    progress: bool = _help("Show progress bars.", default=True)

    def __post_init__(self) -> None:
        from microcoder_eval.dataset.readers import FORMATS

        self.inputs = [str(p) for p in (self.inputs or [])]
        self.decontaminate_against = [str(p) for p in (self.decontaminate_against or [])]
        if not self.inputs:
            raise UserError("no inputs: pass one or more source files or APPS folders")
        for p in [*self.inputs, *self.decontaminate_against]:
            if not Path(p).exists():
                raise UserError(f"input {p!r} does not exist; check the path")
        if self.format != "auto" and self.format not in FORMATS:
            raise UserError(f"format={self.format!r} is unknown; use auto or one of {', '.join(FORMATS)}")
        if not str(self.out_dir).strip():
            raise UserError("out_dir is empty; pass --out-dir DIR")
        if Path(self.out_dir).exists() and not Path(self.out_dir).is_dir():
            raise UserError(f"out_dir {self.out_dir!r} is a file; pass a folder")
        _at_least("min_tests", self.min_tests, 1)
        _at_least("shingle_size", self.shingle_size, 1)
        _at_least("minhash_num_perm", self.minhash_num_perm, 16)
        _at_least("statement_ngram", self.statement_ngram, 1)
        _at_least("test_ngram", self.test_ngram, 1)
        _at_least("verify_runs", self.verify_runs, 1)
        _at_least("max_references", self.max_references, 1)
        _at_least("min_completions", self.min_completions, 1)
        _at_least("keep_solutions", self.keep_solutions, 0)
        if 0 < self.keep_solutions < self.max_references:
            raise UserError(f"keep_solutions={self.keep_solutions} < max_references={self.max_references}: "
                            "verification could not try that many references; raise keep_solutions or use 0 (all)")
        _fraction("near_dup_threshold", self.near_dup_threshold, open_low=True)
        _fraction("statement_overlap", self.statement_overlap, open_low=True)
        _fraction("test_overlap", self.test_overlap, open_low=True)
        _fraction("min_pass_rate", self.min_pass_rate)
        _fraction("max_pass_rate", self.max_pass_rate)
        if self.min_pass_rate > self.max_pass_rate:
            raise UserError(f"min_pass_rate={self.min_pass_rate} > max_pass_rate={self.max_pass_rate}: the band "
                            "[min, max] is empty; swap them")
        from microcoder_eval.generation.prompts import PROMPT_STYLES

        if self.prompt_style not in PROMPT_STYLES:
            raise UserError(f"prompt_style {self.prompt_style!r} is unknown; choose one of {', '.join(PROMPT_STYLES)}")
        if self.completions and self.pass_rate_column:
            raise UserError("give --completions or --pass-rate-column, not both")
        if self.completions and not Path(self.completions).is_file():
            raise UserError(f"completions file {self.completions!r} does not exist")
        for name in ("eval_start_date", "eval_end_date"):
            v = getattr(self, name)
            if v is not None:
                try:
                    setattr(self, name, date.fromisoformat(str(v)[:10]).isoformat())
                except ValueError as e:
                    raise UserError(f"{name}={v!r} is not a date; use YYYY-MM-DD") from e
                if not self.decontaminate_against:
                    raise UserError(f"{name} filters the evaluation set, but --decontaminate-against is empty")
        if self.eval_release is not None:
            from microcoder_eval.lcb import RELEASES

            if self.eval_release not in RELEASES:
                raise UserError(f"eval_release={self.eval_release!r} is unknown; use one of {', '.join(RELEASES)}")
            if not self.decontaminate_against:
                raise UserError("eval_release filters the evaluation set, but --decontaminate-against is empty")
        if self.eval_start_date and self.eval_end_date and self.eval_start_date >= self.eval_end_date:
            raise UserError(f"eval_start_date {self.eval_start_date} is not before eval_end_date "
                            f"{self.eval_end_date}; the window is [start, end)")
        if self.eval_mode not in EVAL_MODES:
            raise UserError(f"eval_mode={self.eval_mode!r} is unknown; use flex or lcb")
        if not 0 < float(self.timeout_s) <= 3600:
            raise UserError(f"timeout_s={self.timeout_s} must be in (0, 3600]")
        if self.memory_mb < 0 or 0 < self.memory_mb < 64:
            raise UserError(f"memory_mb={self.memory_mb} must be 0 (no cap) or >= 64")
        if self.workers < 0:
            raise UserError(f"workers={self.workers} must be >= 0 (0 = one per CPU core)")

    @property
    def difficulty_enabled(self) -> bool:
        return bool(self.completions or self.pass_rate_column)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def eval_config(self) -> Any:
        from microcoder_eval.config import EvalConfig

        return EvalConfig(mode=self.eval_mode, timeout_s=self.timeout_s, memory_mb=self.memory_mb,
                          workers=self.workers)

    @classmethod
    def help(cls) -> dict[str, str]:
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}


def _at_least(name: str, value: int, low: int) -> None:
    if not isinstance(value, int) or value < low:
        raise UserError(f"{name}={value!r} must be an integer >= {low}")


def _fraction(name: str, value: float, open_low: bool = False) -> None:
    ok = (0 < value <= 1) if open_low else (0 <= value <= 1)
    if not ok:
        raise UserError(f"{name}={value} must be in {'(0' if open_low else '[0'}, 1]")


def file_fingerprint(path: str | Path) -> dict[str, Any]:
    """Identity of an input for stage keys: sha256 of the content (of every file in a folder)."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    for q in files:
        h.update(str(q.relative_to(p) if p.is_dir() else q.name).encode())
        with q.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return {"path": str(p), "sha256": h.hexdigest()}


def stage_key(name: str, params: dict[str, Any], upstream: str) -> str:
    blob = json.dumps({"stage": name, "params": params, "upstream": upstream, "version": 1},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
