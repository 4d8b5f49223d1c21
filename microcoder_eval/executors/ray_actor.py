"""The Ray actor body: a local ``Evaluator`` (same sandboxed runner) that judges one batch per call.

Plain class, no Ray import: the executor wraps it with ``ray.remote`` so this module stays
importable (and testable) without Ray.
"""
from __future__ import annotations

import os
import socket
from typing import Any, Sequence

from microcoder_eval.config import EvalConfig
from microcoder_eval.evaluator import Evaluator, Item
from microcoder_eval.verdict import SampleResult


class EvalActor:
    """Holds a warm evaluator with ``workers`` sandbox workers on the node it was placed on."""

    def __init__(self, config: dict[str, Any], workers: int, hide_paths: Sequence[str] = (),
                 crash_dir: str | None = None) -> None:
        """Sandbox uids are claimed machine-wide by the pool, so actors sharing a node never kill
        each other's test processes. ``crash_dir``: test hook, see ``_maybe_crash``."""
        cfg = EvalConfig(**{**config, "workers": workers, "executor": "local", "ray_address": None})
        self.evaluator = Evaluator(cfg, hide_paths=hide_paths)
        self.evaluator.warm_up()
        self.crash_dir = crash_dir
        self.batches = 0

    def info(self) -> dict[str, Any]:
        """Where this actor runs (answered once its evaluator is warm)."""
        import microcoder_eval

        try:  # the Ray node it was placed on (this module is importable without Ray)
            import ray

            node = ray.get_runtime_context().get_node_id()
        except Exception:  # noqa: BLE001
            node = None
        return {"host": socket.gethostname(), "pid": os.getpid(), "workers": self.evaluator.config.workers,
                "batches": self.batches, "package": os.path.dirname(microcoder_eval.__file__), "node": node}

    def evaluate_batch(self, items: Sequence[Item], extract: bool,
                       sample_indices: Sequence[int]) -> list[SampleResult]:
        """Judge ``items``; the whole batch comes back at once, in input order."""
        out: list[SampleResult | None] = [None] * len(items)
        for n, (pos, res) in enumerate(self.evaluator.evaluate_iter(items, extract, sample_indices)):
            out[pos] = res
            if n == 0:
                self._maybe_crash()
        self.batches += 1
        return [r for r in out if r is not None]

    def close(self) -> None:
        self.evaluator.close()

    def _maybe_crash(self) -> None:
        """Test hook: with ``crash_dir`` set, claim one token file from it and die mid-batch.

        Each file in the directory is one crash; ``os.unlink`` succeeding is the claim, so across
        actors exactly as many crashes happen as there were files.
        """
        if not self.crash_dir:
            return
        for name in sorted(os.listdir(self.crash_dir)):
            try:
                os.unlink(os.path.join(self.crash_dir, name))
            except FileNotFoundError:
                continue
            os._exit(17)
