"""Executors run batches of (problem, code) items and yield ``(position, SampleResult)``.

``local`` (default) is the in-machine sandbox pool (``microcoder_eval.evaluator.Evaluator``);
other backends (e.g. ``ray``) register a factory in ``EXECUTORS``. Every executor is a context
manager with ``evaluate_iter(items, extract=False, sample_indices=None)`` and ``evaluate(...)``.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import UserError

# name -> "module:factory"; the factory takes an EvalConfig and returns an executor
EXECUTORS: dict[str, str] = {
    "local": "microcoder_eval.evaluator:Evaluator",
    "ray": "microcoder_eval.executors.ray_executor:RayExecutor",
}


def make_executor(config: EvalConfig, hide_paths: tuple[str, ...] = ()) -> Any:
    """Build the executor named by ``config.executor`` (``hide_paths``: see ``Evaluator``)."""
    target = EXECUTORS.get(config.executor)
    if target is None:
        raise UserError(f"executor {config.executor!r} is unknown; choose one of {', '.join(EXECUTORS)}")
    module, name = target.split(":")
    try:
        factory: Callable[[EvalConfig], Any] = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as e:
        raise UserError(f"executor {config.executor!r} needs an optional dependency ({e.name}); "
                        f"install it with pip install 'microcoder[{config.executor}]'") from e
    if hide_paths:
        return factory(config, hide_paths=hide_paths)
    return factory(config)
