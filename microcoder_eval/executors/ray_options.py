"""Settings of the Ray executor (``RayExecutorOptions``), read from ``MICROCODER_RAY_*`` or defaults.

These live here and not in ``EvalConfig`` because they only matter for ``--executor ray``; every
field can be set from the environment as ``MICROCODER_RAY_<FIELD>`` (e.g. ``MICROCODER_RAY_BATCH_SIZE=32``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from microcoder_eval.errors import UserError

ENV_PREFIX = "MICROCODER_RAY_"


def _help(text: str, **kw: Any) -> Any:
    return field(metadata={"help": text}, **kw)


@dataclass
class RayExecutorOptions:
    """How samples are cut into Ray tasks and where the evaluation actors run."""

    batch_size: int = _help("Samples per Ray task. Larger batches cost less scheduling, smaller ones "
                            "stream results sooner and lose less work when an actor dies.", default=16)
    num_actors: int = _help("Evaluation actors to start. 0 = fill the cluster: one actor per node when "
                            "cpus_per_actor is 0, else as many as the cluster's CPUs hold.", default=0)
    cpus_per_actor: int = _help("CPUs each actor declares to Ray; it runs that many sandbox workers. "
                                "0 = all CPUs of its node (one actor per node), or an even share of the "
                                "cluster's CPUs when num_actors is set.", default=0)
    actor_resource: str = _help("Only place actors on nodes that have this custom Ray resource (start "
                                "them with ray start --resources '{\"NAME\": 1}'), e.g. to keep sandboxes "
                                "off the GPU trainer nodes. Empty = any node.", default="")
    inflight_per_actor: int = _help("Batches sent to one actor at a time (it runs them concurrently, so "
                                    "its workers do not idle while the last sample of a batch finishes).",
                                    default=2)
    max_batch_retries: int = _help("Times a batch whose actor died (or whose result was lost) is sent "
                                   "again, to another actor when there is one, before its samples get "
                                   "infra_error.", default=2)
    actor_restarts: int = _help("Times Ray restarts a dead actor (a fresh evaluator) before it is "
                                "retired.", default=2)
    batch_timeout_s: float = _help("Give up on a batch after this many seconds (its actor is restarted, "
                                   "the batch retried). 0 = a bound no honest batch can reach: every "
                                   "test of every sample run one after another at its full limit.",
                                   default=0.0)
    start_timeout_s: float = _help("Seconds to wait for the actors to start (Ray must find their CPUs).",
                                   default=300.0)
    local_num_cpus: int = _help("CPUs of the local Ray instance started when no ray_address is given "
                                "(0 = EvalConfig.workers).", default=0)
    ship_package: bool = _help("Send this machine's microcoder_eval package to the cluster with the job "
                               "(Ray runtime_env py_modules) instead of relying on the copy installed "
                               "on every node; its dependencies must still be installed there. Needs the "
                               "executor to open the Ray connection (not a process that already called "
                               "ray.init).", default=False)

    def __post_init__(self) -> None:
        def need(ok: bool, name: str, rule: str, example: str) -> None:
            if not ok:
                raise UserError(f"ray option {name}={getattr(self, name)!r} {rule}; set e.g. "
                                f"{ENV_PREFIX}{name.upper()}={example}")

        need(self.batch_size >= 1, "batch_size", "must be >= 1 sample per task", "16")
        need(self.num_actors >= 0, "num_actors", "must be >= 0 (0 = fill the cluster)", "0")
        need(self.cpus_per_actor >= 0, "cpus_per_actor", "must be >= 0 (0 = a whole node)", "8")
        need(self.inflight_per_actor >= 1, "inflight_per_actor", "must be >= 1", "2")
        need(self.max_batch_retries >= 0, "max_batch_retries", "must be >= 0", "2")
        need(self.actor_restarts >= 0, "actor_restarts", "must be >= 0", "2")
        need(self.batch_timeout_s >= 0, "batch_timeout_s", "must be >= 0 seconds (0 = automatic bound)", "0")
        need(self.start_timeout_s > 0, "start_timeout_s", "must be > 0 seconds", "300")
        need(self.local_num_cpus >= 0, "local_num_cpus", "must be >= 0 (0 = EvalConfig.workers)", "2")
        need(self.actor_resource == self.actor_resource.strip(), "actor_resource",
             "must not have surrounding spaces", "eval")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "RayExecutorOptions":
        """Defaults, then ``MICROCODER_RAY_<FIELD>`` variables, then ``overrides``."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            var = ENV_PREFIX + f.name.upper()
            if var not in env:
                continue
            raw = env[var].strip()
            kind = str(f.type)
            try:
                if kind == "int":
                    values[f.name] = int(raw)
                elif kind == "float":
                    values[f.name] = float(raw)
                elif kind == "bool":
                    if raw.lower() not in ("1", "0", "true", "false", "yes", "no"):
                        raise ValueError(raw)
                    values[f.name] = raw.lower() in ("1", "true", "yes")
                else:
                    values[f.name] = raw
            except ValueError:
                raise UserError(f"{var}={env[var]!r} is not a valid {kind}; unset it or set e.g. "
                                f"{var}={f.default!r}") from None
        values.update(overrides)
        return cls(**values)

    @classmethod
    def help(cls) -> dict[str, str]:
        """Field name -> help text."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}
