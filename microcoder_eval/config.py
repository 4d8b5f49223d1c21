"""Evaluator configuration: one validated dataclass with help text for every field."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.sandbox.run_lcb import LCB_DEFAULT_REVISION, LCB_REVISIONS

MODES = ("flex", "lcb")


def _help(text: str, choices: tuple[str, ...] | None = None, **kw: Any) -> Any:
    meta: dict[str, Any] = {"help": text}
    if choices:
        meta["choices"] = choices  # the CLI offers exactly these (add_dataclass_args)
    return field(metadata=meta, **kw)


@dataclass
class EvalConfig:
    """How samples are executed and judged."""

    mode: str = _help("Comparison mode: 'flex' (cascade of named rules, the default) or 'lcb' "
                      "(reproduce LiveCodeBench's grader verdicts).", default="flex", choices=MODES)
    lcb_version: str = _help("LiveCodeBench grader revision that --mode lcb reproduces: " + "; ".join(
        f"'{k}' = {v}" for k, v in LCB_REVISIONS.items()) + ". 'current' names the newest.",
        default=LCB_DEFAULT_REVISION)
    timeout_s: float = _help("Per-test wall-clock limit in seconds (LiveCodeBench uses 6).", default=6.0)
    memory_mb: int = _help("Address-space cap per test process in MiB (0 = no cap).", default=4096)
    output_limit_mb: int = _help("Cap on stdout and on any file a solution writes, MiB.", default=64)
    max_processes: int = _help("Process/thread cap per sandbox user (RLIMIT_NPROC) when run as root.",
                               default=32)
    workers: int = _help("Parallel sandbox workers (0 = one per CPU core).", default=0)
    sample_budget_s: float = _help("Total wall-clock budget for one sample across its tests (0 = "
                                   "unlimited); tests left when it runs out get time_limit.", default=0.0)
    functional_batch: bool = _help("Run a sample's functional (LeetCode-style) tests in one process "
                                   "with a fresh Solution() per test, as LeetCode's judge does; a new "
                                   "process only after one dies. Off: a fresh process per test.",
                                   default=True)
    all_tests: bool = _help("Run every test instead of stopping at the first failure.", default=False)
    isolate_network: bool = _help("Run solutions in an empty network namespace where the OS allows it.",
                                  default=True)
    sandbox_uid_base: int = _help("When run as root, worker k runs solutions as uid base+k (no login, "
                                  "no files); processes of that uid are killed after every test.",
                                  default=61000)
    checker_timeout_s: float = _help("Wall-clock limit for one run of a problem's checker (problems whose "
                                     "metadata carries one; flex mode only).", default=10.0)
    infra_retries: int = _help("Retries of a test whose sandbox worker died before an infra_error "
                               "verdict is given.", default=1)
    executor: str = _help("Where samples run: 'local' (this machine's sandbox pool) or 'ray' (a Ray "
                          "cluster; pip install 'microcoder[ray]').", default="local", choices=("local", "ray"))
    ray_address: str | None = _help("Ray cluster address for --executor ray (e.g. ray://head:10001 or "
                                    "'auto'); unset starts a local Ray instance.", default=None)
    extract_mode: str = _help("Code extraction: 'flex' (last complete python block, <think> ignored) or "
                              "'lcb' (between the last two ``` lines). Defaults to the comparison mode.",
                              default="", choices=MODES)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UserError(f"mode {self.mode!r} is not supported; use one of {', '.join(MODES)}")
        if self.executor not in ("local", "ray"):
            raise UserError(f"executor {self.executor!r} is unknown; use 'local' or 'ray'")
        if self.lcb_version == "current":
            self.lcb_version = LCB_DEFAULT_REVISION
        if self.lcb_version not in LCB_REVISIONS:
            raise UserError(f"lcb_version {self.lcb_version!r} is unknown; use one of "
                            f"{', '.join(LCB_REVISIONS)} (or 'current')")
        if not self.extract_mode:
            self.extract_mode = self.mode
        if self.extract_mode not in MODES:
            raise UserError(f"extract_mode {self.extract_mode!r} is not supported; use flex or lcb")
        if not (0 < float(self.timeout_s) <= 3600):
            raise UserError(f"timeout_s={self.timeout_s} must be in (0, 3600] seconds; LiveCodeBench uses 6")
        if self.sample_budget_s < 0:
            raise UserError(f"sample_budget_s={self.sample_budget_s} must be >= 0 (0 = unlimited)")
        if self.memory_mb < 0 or (0 < self.memory_mb < 64):
            raise UserError(f"memory_mb={self.memory_mb} is too small for Python (needs >= 64) or negative; "
                            "use 0 for no cap or e.g. 4096")
        if self.output_limit_mb < 1:
            raise UserError(f"output_limit_mb={self.output_limit_mb} must be >= 1")
        if self.max_processes < 1:
            raise UserError(f"max_processes={self.max_processes} must be >= 1")
        if self.workers < 0:
            raise UserError(f"workers={self.workers} must be >= 0 (0 = one per CPU core)")
        if not (0 < float(self.checker_timeout_s) <= 3600):
            raise UserError(f"checker_timeout_s={self.checker_timeout_s} must be in (0, 3600] seconds")
        if self.infra_retries < 0:
            raise UserError(f"infra_retries={self.infra_retries} must be >= 0")
        if self.workers == 0:
            self.workers = os.cpu_count() or 1

    @classmethod
    def help(cls) -> dict[str, str]:
        """Field name -> help text (used by the CLI)."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}
