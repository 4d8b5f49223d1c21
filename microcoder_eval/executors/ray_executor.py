"""``--executor ray``: batches of samples run on Ray actors, each holding a local sandboxed ``Evaluator``.

Results stream back batch by batch in order of completion (``evaluate_iter``); ``evaluate`` returns
them in input order. A batch whose actor dies (or whose result is lost or times out) is sent again,
to another actor when one is alive, up to ``max_batch_retries`` times; every such event is logged on
the ``microcoder_eval.ray`` logger and counted in ``RayExecutor.stats``. Only when the retries run out
do its samples get ``infra_error`` - never a verdict the solution did not earn.

Ray is imported lazily: the evaluator core never needs it.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import socket
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import InfraError, UserError
from microcoder_eval.evaluator import Item, in_input_order
from microcoder_eval.executors.ray_actor import EvalActor
from microcoder_eval.executors.ray_options import RayExecutorOptions
from microcoder_eval.extraction import extract_code
from microcoder_eval.problem import Problem
from microcoder_eval.verdict import SampleResult, Status

log = logging.getLogger("microcoder_eval.ray")

# Ray binds to the machine's routable address unless it believes clusters are unsupported
# (its Windows/macOS default); this switch makes a local instance listen on 127.0.0.1 only.
_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_LOCAL_OBJECT_STORE_BYTES = 512 * 1024 * 1024
_LOCAL_TOKEN: list[str | None] = [None]  # the auth token this process gave its local instance


def import_ray() -> Any:
    """``import ray`` with a one-line UserError when it is not installed."""
    try:
        import ray
    except ModuleNotFoundError as e:
        raise UserError("executor 'ray' needs Ray; install it with pip install 'microcoder[ray]'") from e
    return ray


def _private_token() -> None:
    """Give a local instance its own auth token through the environment (inherited by its processes).

    Ray otherwise writes one to ``~/.ray/auth_token`` on first use; two local instances starting at
    once (pytest-xdist workers, parallel jobs) can race on that file and lock each other out.
    An explicit RAY_AUTH_MODE / RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH is left alone.
    """
    if _LOCAL_TOKEN[0] is not None and os.environ.get("RAY_AUTH_TOKEN") == _LOCAL_TOKEN[0]:
        return  # an earlier local instance's token, still cached by Ray in this process: reuse it
    if any(k in os.environ for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")):
        return
    import secrets

    _LOCAL_TOKEN[0] = os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a ``HOST:PORT`` / ``ray://HOST:PORT`` address nothing listens on (``ray.init``
    would retry for minutes); ``auto`` and other forms are left to Ray."""
    target = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = target.rpartition(":")
    if not sep or not host or "://" in target or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise UserError(f"nothing answers at Ray address {address!r} ({e}); start the head with "
                        "`ray start --head` or fix --ray-address (HOST:6379, ray://HOST:10001 or auto)") from e


def package_runtime_env() -> dict[str, Any]:
    """Ray ``runtime_env`` that uploads this machine's ``microcoder_eval`` package with the job."""
    import microcoder_eval

    return {"py_modules": [str(Path(microcoder_eval.__file__).resolve().parent)]}


def connect_ray(address: str | None, num_cpus: int, runtime_env: dict[str, Any] | None = None) -> bool:
    """Connect to ``address`` (or ``$RAY_ADDRESS``), else start a local instance on loopback only.

    Returns True when this call initialised Ray (the caller shuts it down), False when Ray was
    already initialised in this process (e.g. inside a verl/Ray trainer) and is reused as it is;
    ``runtime_env`` (the job's) then cannot be applied and is an error.
    """
    ray = import_ray()
    if ray.is_initialized():
        if address:
            log.warning("Ray is already initialised in this process; using that connection, not %s", address)
        if runtime_env:
            raise UserError("MICROCODER_RAY_SHIP_PACKAGE needs the executor to open the Ray connection, but "
                            "Ray is already initialised in this process; pass runtime_env="
                            f"{runtime_env!r} to your own ray.init instead")
        return False
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        if _LOCAL_TOKEN[0] is not None and os.environ.get("RAY_AUTH_TOKEN") == _LOCAL_TOKEN[0]:
            os.environ.pop("RAY_AUTH_TOKEN")  # our earlier local instance's token is not the cluster's
            _LOCAL_TOKEN[0] = None
            try:  # Ray caches the token it read; best effort, the API is private
                from ray._raylet import AuthenticationTokenLoader

                AuthenticationTokenLoader.instance().reset_cache()
            except Exception:  # noqa: BLE001
                pass
        check_reachable(address)
        noise, failure, detail = _ray_init(True, address=address, logging_level=logging.WARNING,
                                           log_to_driver=False, runtime_env=runtime_env)
        if failure is not None:
            raise UserError(f"cannot connect to the Ray cluster at {address!r} ({type(failure).__name__}: "
                            f"{_first_sentence(failure)}); check --ray-address (e.g. ray://HEAD:10001, or auto "
                            "on a cluster node)", detail=_join_detail(noise, detail)) from failure
        if noise:  # connected: Ray's own warnings (version mismatch...) are worth seeing
            sys.stderr.write("".join(noise))
        return True
    try:  # the switch is read from here at call time (private: checked below, not relied on blindly)
        from ray._private import ray_constants
    except ImportError:  # pragma: no cover - other Ray layouts
        ray_constants = None
    saved_env = os.environ.get(_LOOPBACK_ENV)
    saved_flag = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[_LOOPBACK_ENV] = "0"  # inherited by the raylet and its workers
    _private_token()
    if saved_flag is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        # fd=False: the local instance's processes must not inherit a redirected stderr
        noise, failure, detail = _ray_init(False, num_cpus=num_cpus, include_dashboard=False,
                                           logging_level=logging.WARNING, log_to_driver=False,
                                           object_store_memory=_LOCAL_OBJECT_STORE_BYTES, runtime_env=runtime_env)
        if failure is not None:
            raise UserError(f"cannot start a local Ray instance ({type(failure).__name__}: "
                            f"{_first_sentence(failure)}); start a cluster with `ray start --head` and pass "
                            "--ray-address, or use --executor local", detail=_join_detail(noise, detail)) from failure
        # the token notice is about the private token set above; anything else is worth seeing
        sys.stderr.write("".join(m for m in noise if "Token authentication is enabled" not in m))
    finally:
        if saved_flag is not None:
            ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(_LOOPBACK_ENV, None)
        else:
            os.environ[_LOOPBACK_ENV] = saved_env
    ip = ray.util.get_node_ip_address()
    if ip != "127.0.0.1":  # pragma: no cover - depends on the Ray version
        ray.shutdown()
        raise UserError(f"the local Ray instance bound to {ip}, not 127.0.0.1 (this Ray version ignores "
                         f"{_LOOPBACK_ENV}=0); start a cluster yourself and pass --ray-address")
    return True


def _route_cluster_messages() -> Callable[[], None]:
    """While an executor lives, send the cluster's error messages (a node died, a worker was
    OOM-killed: multi-line texts Ray's driver thread prints to stdout, in the middle of a report)
    to the ``microcoder_eval.ray`` logger as one line each. Returns the function that undoes it.

    Ray has no switch for this, so its printing function is wrapped (private API; skipped when
    absent); other output of Ray passes through unchanged.
    """
    try:
        from ray._private import worker as ray_worker

        original = ray_worker.print_to_stdstream
    except (ImportError, AttributeError):  # pragma: no cover - other Ray layouts
        return lambda: None
    if getattr(original, "_microcoder", False):
        return lambda: None  # another executor in this process already routes them

    def route(data: dict[str, Any], ignore_prefix: bool) -> None:
        if data.get("pid") != "raylet":
            return original(data, ignore_prefix)
        for text in data.get("lines") or []:
            first = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
            log.warning("ray cluster: %s", first[:300])

    route._microcoder = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = route

    def undo() -> None:
        if ray_worker.print_to_stdstream is route:
            ray_worker.print_to_stdstream = original

    return undo


@dataclass
class _Slot:
    """One evaluation actor and its health."""

    index: int
    handle: Any
    cpus: int
    info: dict[str, Any] = field(default_factory=dict)
    deaths: int = 0
    generation: int = 0  # bumped at each death seen, so two batches lost in one death count once
    retired: bool = False


@dataclass
class _Batch:
    """Consecutive input positions sent as one Ray task."""

    number: int
    positions: list[int]
    attempts: int = 0
    tried: set[int] = field(default_factory=set)


class RayExecutor:
    """Executor with the ``Evaluator`` interface whose samples run on a Ray cluster."""

    def __init__(self, config: EvalConfig | None = None, options: RayExecutorOptions | None = None,
                 hide_paths: Sequence[str] = (), _crash_dir: str | None = None) -> None:
        """``hide_paths``: as for ``Evaluator`` (dropped on nodes where they do not exist).
        ``_crash_dir``: test hook, each file in it makes one actor die mid-batch (see ``EvalActor``)."""
        self.config = config or EvalConfig(executor="ray")
        self.options = options or RayExecutorOptions.from_env()
        self.stats: Counter[str] = Counter()
        self._closed = False
        self._ray = import_ray()
        self._owns_ray = connect_ray(self.config.ray_address, self.options.local_num_cpus or self.config.workers,
                                     package_runtime_env() if self.options.ship_package else None)
        self._slots: list[_Slot] = []
        self._unmute = _route_cluster_messages()
        try:
            self._start_actors(tuple(hide_paths), _crash_dir)
        except BaseException:
            self.close()
            raise

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> "RayExecutor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def warm_up(self) -> None:
        """Nothing to do: actors are started warm by the constructor (kept for interface parity)."""

    @property
    def actors(self) -> list[Any]:
        """Handles of the actors not retired (for inspection and fault-injection tests)."""
        return [s.handle for s in self._slots if not s.retired]

    def close(self) -> None:
        """Stop the actors (their sandboxes shut down) and, if this executor started Ray, Ray."""
        if self._closed:
            return
        self._closed = True
        ray = self._ray
        if self._slots:
            refs = []
            for s in self._slots:
                if not s.info or s.retired:  # never started or dead: nothing to shut down gracefully
                    continue
                try:
                    refs.append(s.handle.close.remote())
                except Exception:  # noqa: BLE001 - a dead actor
                    pass
            if refs:
                ray.wait(refs, num_returns=len(refs), timeout=15)
            for s in self._slots:
                try:
                    ray.kill(s.handle, no_restart=True)
                except Exception:  # noqa: BLE001
                    pass
        if any(self.stats[k] for k in ("actor_failures", "batch_failures")):
            log.warning("ray executor: %s", self.describe_stats())
        self._unmute()
        if self._owns_ray:
            ray.shutdown()

    def describe_stats(self) -> str:
        """One line with the fault counters."""
        s = self.stats
        return (f"{s['batches']} batches done, {s['batch_failures']} batch failures "
                f"({s['actor_failures']} actor deaths, {s['batch_timeouts']} timeouts), "
                f"{s['batch_retries']} retries, {s['infra_error_samples']} samples infra_error after retries")

    # -------------------------------------------------------------- actors
    def _plan(self) -> list[tuple[int, Any]]:
        """``(cpus, scheduling_strategy)`` for each actor to start."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        o = self.options
        nodes = [n for n in self._ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1
                 and (not o.actor_resource or o.actor_resource in n.get("Resources", {}))]
        if not nodes:
            where = f" with resource {o.actor_resource!r}" if o.actor_resource else ""
            raise UserError(f"the Ray cluster has no live node{where} with a CPU to run sandboxes on; start "
                            "CPU nodes (ray start --address HEAD:6379) or unset MICROCODER_RAY_ACTOR_RESOURCE")
        if not o.num_actors and not o.cpus_per_actor:
            return [(int(n["Resources"]["CPU"]), NodeAffinitySchedulingStrategy(n["NodeID"], soft=False))
                    for n in nodes]
        total = sum(int(n["Resources"]["CPU"]) for n in nodes)
        if o.cpus_per_actor:
            count = o.num_actors or max(1, total // o.cpus_per_actor)
            return [(o.cpus_per_actor, "SPREAD")] * count
        return [(max(1, total // o.num_actors), "SPREAD")] * o.num_actors

    def _start_actors(self, hide_paths: tuple[str, ...], crash_dir: str | None) -> None:
        ray, o = self._ray, self.options
        remote_cls = ray.remote(EvalActor)
        conf = dataclasses.asdict(self.config)
        for i, (cpus, strategy) in enumerate(self._plan()):
            opts: dict[str, Any] = dict(num_cpus=cpus, max_restarts=o.actor_restarts, max_task_retries=0,
                                        max_concurrency=o.inflight_per_actor, scheduling_strategy=strategy)
            if o.actor_resource:
                opts["resources"] = {o.actor_resource: 0.001}
            handle = remote_cls.options(**opts).remote(conf, cpus, hide_paths, crash_dir)
            self._slots.append(_Slot(i, handle, cpus))
        refs = {s.handle.info.remote(): s for s in self._slots}
        ready, waiting = ray.wait(list(refs), num_returns=len(refs), timeout=o.start_timeout_s)
        if waiting:
            free = ray.available_resources().get("CPU", 0)
            raise UserError(f"{len(waiting)} of {len(refs)} Ray evaluation actors did not start within "
                            f"{o.start_timeout_s:.0f}s (they need {sorted({refs[r].cpus for r in waiting})} CPUs "
                            f"each, the cluster has {free:g} free); lower MICROCODER_RAY_NUM_ACTORS or "
                            "MICROCODER_RAY_CPUS_PER_ACTOR, or raise MICROCODER_RAY_START_TIMEOUT_S")
        for ref in ready:
            try:
                refs[ref].info = ray.get(ref)
            except ray.exceptions.RayError as e:
                hint = "" if o.ship_package else " (is microcoder_eval installed on every node? " \
                                                 "MICROCODER_RAY_SHIP_PACKAGE=1 sends this copy)"
                raise UserError(f"a Ray evaluation actor failed to start{hint}: {_first_line(e)}",
                                detail=str(e)) from e
        hosts = {s.info.get("host") for s in self._slots}
        log.info("ray executor: %d actors, %d sandbox workers, on %d hosts", len(self._slots),
                 sum(s.cpus for s in self._slots), len(hosts))

    # -------------------------------------------------------------- public API
    def evaluate(self, items: Sequence[Item], extract: bool = False,
                 sample_indices: Sequence[int] | None = None,
                 on_result: Callable[[int, SampleResult], None] | None = None) -> list[SampleResult]:
        """Judge every item on the cluster; results come back in input order."""
        return in_input_order(self.evaluate_iter(items, extract, sample_indices), len(items), on_result)

    def evaluate_code(self, problem: Problem, code: str | None, sample_index: int = 0) -> SampleResult:
        """Judge one already-extracted program."""
        return self.evaluate([(problem, code)], False, [sample_index])[0]

    def evaluate_iter(self, items: Sequence[Item], extract: bool = False,
                      sample_indices: Sequence[int] | None = None) -> Iterator[tuple[int, SampleResult]]:
        """Yield ``(position, SampleResult)`` batch by batch as batches finish (any order)."""
        if self._closed:
            raise InfraError("ray executor is closed")
        items = list(items)
        indices = list(sample_indices) if sample_indices is not None else [0] * len(items)
        if len(indices) != len(items):
            raise ValueError(f"{len(indices)} sample indices for {len(items)} items")
        size = self.options.batch_size
        queue = deque(_Batch(k, list(range(s, min(s + size, len(items)))))
                      for k, s in enumerate(range(0, len(items), size)))
        run = _Run(self, items, extract, indices)
        try:
            while queue or run.inflight:
                run.dispatch(queue)
                if not run.inflight:
                    log.error("ray executor: every actor is retired; %d batches get infra_error", len(queue))
                    while queue:
                        yield from run.give_up(queue.popleft(), "no Ray evaluation actor is left alive")
                    break
                yield from run.collect(queue)
        finally:
            run.cancel()


class _Run:
    """State of one ``evaluate_iter`` call: batches in flight, per-actor load, deadlines."""

    def __init__(self, ex: RayExecutor, items: list[Item], extract: bool, indices: list[int]) -> None:
        self.ex, self.ray, self.items, self.extract, self.indices = ex, ex._ray, items, extract, indices
        self.inflight: dict[Any, tuple[_Batch, _Slot, float, int]] = {}  # ref -> (batch, slot, deadline, gen)
        self.load: Counter[int] = Counter()

    # ---------------------------------------------------------- dispatch
    def _pick(self, batch: _Batch, live: list[_Slot]) -> _Slot | None:
        cap = self.ex.options.inflight_per_actor
        free = [s for s in live if self.load[s.index] < cap]
        fresh = [s for s in free if s.index not in batch.tried]
        if fresh:
            return min(fresh, key=lambda s: self.load[s.index])
        if any(s.index not in batch.tried for s in live):
            return None  # wait for an actor this batch has not failed on
        return min(free, key=lambda s: self.load[s.index]) if free else None

    def dispatch(self, queue: deque[_Batch]) -> None:
        live = [s for s in self.ex._slots if not s.retired]
        cap = self.ex.options.inflight_per_actor
        deferred: list[_Batch] = []
        while queue and any(self.load[s.index] < cap for s in live):
            batch = queue.popleft()
            slot = self._pick(batch, live)
            if slot is None:
                deferred.append(batch)
                continue
            chunk = [self.items[p] for p in batch.positions]
            idx = [self.indices[p] for p in batch.positions]
            ref = slot.handle.evaluate_batch.remote(chunk, self.extract, idx)
            self.inflight[ref] = (batch, slot, time.monotonic() + self._time_limit(batch), slot.generation)
            self.load[slot.index] += 1
        queue.extendleft(reversed(deferred))

    def _time_limit(self, batch: _Batch) -> float:
        """``batch_timeout_s``, or a bound no honest batch reaches (all tests serial, every retry)."""
        o, cfg = self.ex.options, self.ex.config
        if o.batch_timeout_s:
            return o.batch_timeout_s
        worst = 0.0
        for p in batch.positions:
            problem = self.items[p][0]
            t = problem.time_limit_s or cfg.timeout_s
            worst += (len(problem.tests) * (t + 31) + 35) * (cfg.infra_retries + 1)
        return 120 + worst * o.inflight_per_actor

    # ---------------------------------------------------------- results
    def collect(self, queue: deque[_Batch]) -> Iterator[tuple[int, SampleResult]]:
        """Wait for the next finished batch (or a deadline) and yield what it settles."""
        ray = self.ray
        next_deadline = min(v[2] for v in self.inflight.values())
        ready, _ = ray.wait(list(self.inflight), num_returns=1, timeout=max(0.05, next_deadline - time.monotonic()))
        for ref in ready:
            batch, slot, _, gen = self.inflight.pop(ref)
            self.load[slot.index] -= 1
            try:
                results = ray.get(ref)
            except ray.exceptions.RayError as e:
                # an actor pinned to a node that is gone can never run again: retire it at once
                gone = isinstance(e, getattr(ray.exceptions, "ActorUnschedulableError", ()))
                died = gone or isinstance(e, (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError))
                yield from self.failed(batch, slot, queue, f"{type(e).__name__}: {_first_line(e)}",
                                       died and gen == slot.generation, gone)
                continue
            problem = self._check(batch, results)
            if problem:
                yield from self.failed(batch, slot, queue, problem, died=False)
                continue
            self.ex.stats["batches"] += 1
            yield from zip(batch.positions, results)
        now = time.monotonic()
        for ref, (batch, slot, deadline, gen) in list(self.inflight.items()):
            if now < deadline:
                continue
            del self.inflight[ref]
            self.load[slot.index] -= 1
            self.ex.stats["batch_timeouts"] += 1
            if gen == slot.generation:
                try:
                    ray.kill(slot.handle, no_restart=False)  # a stuck actor: restart it
                except Exception:  # noqa: BLE001
                    pass
            yield from self.failed(batch, slot, queue, "batch exceeded its time limit; actor restarted",
                                   died=gen == slot.generation)

    def _check(self, batch: _Batch, results: Any) -> str:
        """Why a returned batch cannot be trusted ("" when it can)."""
        if not isinstance(results, list) or len(results) != len(batch.positions):
            return f"actor returned {type(results).__name__} of the wrong size for {len(batch.positions)} samples"
        for p, r in zip(batch.positions, results):
            if not isinstance(r, SampleResult) or r.question_id != self.items[p][0].question_id \
                    or r.sample_index != self.indices[p]:
                return f"actor returned a result that does not match input position {p}"
        return ""

    def failed(self, batch: _Batch, slot: _Slot, queue: deque[_Batch], reason: str,
               died: bool, gone: bool = False) -> Iterator[tuple[int, SampleResult]]:
        """Record a failed attempt; requeue the batch or, with retries spent, yield infra errors."""
        ex = self.ex
        ex.stats["batch_failures"] += 1
        batch.attempts += 1
        batch.tried.add(slot.index)
        where = f"actor {slot.index} (host {slot.info.get('host', '?')}, pid {slot.info.get('pid', '?')})"
        if died:  # a new death of this actor (not one already counted for another of its batches)
            ex.stats["actor_failures"] += 1
            slot.deaths += 1
            slot.generation += 1
            if gone and not slot.retired:
                slot.retired = True
                log.warning("ray executor: retiring %s: its node is gone", where)
            elif slot.deaths > ex.options.actor_restarts and not slot.retired:
                slot.retired = True
                log.warning("ray executor: retiring %s after %d deaths", where, slot.deaths)
        if batch.attempts <= ex.options.max_batch_retries:
            ex.stats["batch_retries"] += 1
            log.warning("ray executor: batch %d (%d samples) failed on %s: %s; retry %d of %d",
                        batch.number, len(batch.positions), where, reason, batch.attempts,
                        ex.options.max_batch_retries)
            queue.appendleft(batch)
            return
        log.error("ray executor: batch %d failed on %s: %s; retries exhausted, %d samples get infra_error",
                  batch.number, where, reason, len(batch.positions))
        yield from self.give_up(batch, f"ray batch failed {batch.attempts} times, last on {where}: {reason}")

    def give_up(self, batch: _Batch, detail: str) -> Iterator[tuple[int, SampleResult]]:
        """Yield ``infra_error`` for every sample of ``batch``."""
        self.ex.stats["infra_error_samples"] += len(batch.positions)
        for p in batch.positions:
            problem, text = self.items[p]
            code = extract_code(text, self.ex.config.extract_mode) if self.extract and text is not None else text
            yield p, SampleResult(problem.question_id, self.indices[p], Status.INFRA_ERROR, [],
                                  len(problem.tests), code, detail)

    def cancel(self) -> None:
        """Drop batches still in flight (the caller stopped iterating)."""
        for ref in self.inflight:
            try:
                self.ray.cancel(ref)
            except Exception:  # noqa: BLE001 - already finished or not cancellable
                pass
        self.inflight.clear()


def _ray_init(fd: bool, **kwargs: Any) -> tuple[list[str], BaseException | None, str]:
    """``ray.init(**kwargs)`` with its output captured: (what it printed, the failure, its traceback)."""
    import ray

    with captured_output(fd=fd) as noise:
        try:
            ray.init(**kwargs)
        except Exception as e:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...
            failure: BaseException | None = e
            detail = traceback.format_exc()
        else:
            failure, detail = None, ""
    return noise, failure, detail


@contextlib.contextmanager
def captured_output(fd: bool = True) -> Iterator[list[str]]:
    """Collect what Ray prints while connecting (Python warnings, the ``ray`` logger, and with
    ``fd`` anything its C++ core writes to file descriptor 2) instead of letting it reach the terminal.

    ``fd`` only for connecting to an existing cluster: a local instance's processes would inherit
    the redirected descriptor. The yielded list is filled when the block ends.
    """
    out: list[str] = []
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    ray_logger = logging.getLogger("ray")
    saved_handlers, saved_propagate = ray_logger.handlers[:], ray_logger.propagate
    ray_logger.handlers, ray_logger.propagate = [handler], False
    sys.stderr.flush()
    sink = tempfile.TemporaryFile() if fd else None
    saved_fd = os.dup(2) if sink else -1
    if sink:
        os.dup2(sink.fileno(), 2)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield out
    finally:
        sys.stderr.flush()
        text = ""
        if sink:
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            sink.seek(0)
            text = sink.read().decode(errors="replace")
            sink.close()
        ray_logger.handlers, ray_logger.propagate = saved_handlers, saved_propagate
        out.extend(f"{w.category.__name__}: {w.message}\n" for w in caught)
        out.extend(x for x in (buf.getvalue(), text) if x.strip())


def _join_detail(noise: list[str], tb: str) -> str:
    return ("Ray's output while connecting:\n" + "".join(noise) + "\n" if noise else "") + tb


def _first_sentence(e: BaseException) -> str:
    """The first sentence of an exception's first line (Ray's messages run to several)."""
    line = _first_line(e)
    head, dot, rest = line.partition(". ")
    return head + "." if dot and len(head) > 20 else line


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:300] if text else type(e).__name__
