"""``microcoder-eval serve-reward``: the evaluator reward over HTTP, for trainers on other machines.

Endpoints (JSON in, JSON out; stdlib ``ThreadingHTTPServer``, no extra dependency):

* ``POST /get_reward`` — OpenRLHF's remote reward-model protocol (``--remote_rm_url``):
  ``{"query": [prompt+response, ...], "prompts": [prompt, ...], "labels": [ground_truth, ...]}`` ->
  ``{"rewards": [float, ...], "scores": [...], "extra_logs": {"pass": [...], "valid": [...]}}``.
  The response is ``query`` with its ``prompt`` prefix removed; a label is any test format the
  reward reads (LCB record fields, ``{"inputs", "outputs"[, "fn_name"]}``, a test list, build-dataset's
  ``verl`` ground truth), as a JSON string or an object. A reward the trainer cannot use (sandbox
  failure, unreadable label) is sent as 0.0 with ``valid`` 0 (the protocol has no null).
* ``POST /score`` — native batch: ``{"items": [{"completion": str, "ground_truth": ...}, ...]}`` ->
  ``{"results": [{"reward": float|null, "status": "passed"|"wrong_answer"|..., "num_passed",
  "num_tests", "detail", "tests": [{"index", "status", "rule", "time_s"}]}]}``.
* ``GET /health`` — ``{"status": "ok", "queued": n, "in_flight": n, ...}``.
* ``GET /metrics`` — Prometheus text: requests, items, rejections, verdicts, queue depth, latency.

Items of all requests go into one bounded queue (``max_queue`` items; a request that does not fit
gets 503 with ``Retry-After``, the queue never grows past the bound). A dispatcher takes micro-batches
(up to ``max_batch`` items, waiting ``batch_wait_ms`` for more) and runs up to ``batch_concurrency``
of them at once through one warm ``EvaluatorReward`` (same sandbox, policy, cache as in-process), so
a hostile or slow batch does not hold up the others beyond its share of sandbox workers.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.problem import Problem
from microcoder_eval.reward import EvaluatorReward, RewardConfig, _row_from_ground_truth
from microcoder_eval.verdict import SampleResult, Status


@dataclass
class ServerConfig:
    """Network, batching and back-pressure settings of the reward server."""

    host: str = field(default="127.0.0.1", metadata={"help": "Address to listen on (0.0.0.0 for every interface)."})
    port: int = field(default=8000, metadata={"help": "TCP port (0 = any free port)."})
    max_batch: int = field(default=64, metadata={"help": "Most items judged in one evaluator call."})
    batch_wait_ms: float = field(default=5.0, metadata={"help": "How long a batch waits for more items after its first."})
    batch_concurrency: int = field(default=4, metadata={"help": "Batches judged at the same time (they share the sandbox workers)."})
    max_queue: int = field(default=4096, metadata={"help": "Most items waiting; a request that does not fit gets 503."})
    max_request_mb: float = field(default=64.0, metadata={"help": "Largest request body accepted, MiB (413 above)."})

    def __post_init__(self) -> None:
        for name in ("max_batch", "batch_concurrency", "max_queue"):
            if getattr(self, name) < 1:
                raise UserError(f"{name}={getattr(self, name)} must be >= 1")
        if self.batch_wait_ms < 0 or self.max_request_mb <= 0:
            raise UserError("batch_wait_ms must be >= 0 and max_request_mb > 0")
        if not 0 <= self.port <= 65535:
            raise UserError(f"port={self.port} must be in 0..65535")


class QueueFull(Exception):
    pass


@dataclass
class _Item:
    problem: Problem | None
    text: str
    future: Future = field(default_factory=Future)


class _Metrics:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: collections.Counter[tuple[str, int]] = collections.Counter()
        self.items = 0
        self.rejected_items = 0
        self.verdicts: collections.Counter[str] = collections.Counter()
        self.batches = 0
        self.batch_items = 0
        self.latencies: collections.deque[float] = collections.deque(maxlen=4096)

    def request(self, path: str, code: int, seconds: float) -> None:
        with self.lock:
            self.requests[(path, code)] += 1
            if code == 200:
                self.latencies.append(seconds)


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class RewardService:
    """Queue + dispatcher around one warm ``EvaluatorReward``; usable without HTTP."""

    def __init__(self, reward: EvaluatorReward, config: ServerConfig | None = None) -> None:
        self.reward = reward
        self.config = config or ServerConfig()
        self.metrics = _Metrics()
        self._cv = threading.Condition()
        self._queue: collections.deque[_Item] = collections.deque()
        self._in_flight = 0
        self._closed = False
        self._runners = ThreadPoolExecutor(self.config.batch_concurrency, thread_name_prefix="mc-reward-batch")
        self._slots = threading.Semaphore(self.config.batch_concurrency)
        self._dispatcher = threading.Thread(target=self._dispatch, name="mc-reward-dispatch", daemon=True)
        self._dispatcher.start()

    # -------------------------------------------------------------- queue
    def submit(self, problems: list[Problem | None], texts: list[str]) -> list[Future]:
        """Queue a request's items all at once, or raise ``QueueFull`` (nothing queued)."""
        items = [_Item(p, t) for p, t in zip(problems, texts)]
        if len(items) > self.config.max_queue:
            raise _HTTPError(413, f"request has {len(items)} items, more than --max-queue "
                                  f"{self.config.max_queue}; split it or raise --max-queue")
        with self._cv:
            if self._closed:
                raise QueueFull("server is shutting down")
            if len(self._queue) + len(items) > self.config.max_queue:
                with self.metrics.lock:
                    self.metrics.rejected_items += len(items)
                raise QueueFull(f"queue holds {len(self._queue)} of {self.config.max_queue} items; "
                                f"this request has {len(items)}")
            self._queue.extend(items)
            self._cv.notify_all()
        with self.metrics.lock:
            self.metrics.items += len(items)
        return [it.future for it in items]

    def _take_batch(self) -> list[_Item] | None:
        cfg = self.config
        with self._cv:
            while not self._queue and not self._closed:
                self._cv.wait()
            if self._closed and not self._queue:
                return None
            deadline = time.monotonic() + cfg.batch_wait_ms / 1000
            while len(self._queue) < cfg.max_batch and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(left)
            n = min(cfg.max_batch, len(self._queue))
            batch = [self._queue.popleft() for _ in range(n)]
            self._in_flight += n
            return batch

    def _dispatch(self) -> None:
        while True:
            self._slots.acquire()  # at most batch_concurrency batches in the sandbox
            batch = self._take_batch()
            if batch is None:
                self._slots.release()
                return
            self._runners.submit(self._run, batch)

    def _run(self, batch: list[_Item]) -> None:
        try:
            ok = [it for it in batch if it.problem is not None]
            results: list[SampleResult | None] = []
            if ok:
                try:
                    results = self.reward.evaluate([it.problem for it in ok], [it.text for it in ok])  # type: ignore[misc]
                except Exception as e:  # noqa: BLE001 - report, never drop a request's items
                    results = [SampleResult(it.problem.question_id, 0, Status.INFRA_ERROR, [],  # type: ignore[union-attr]
                                            len(it.problem.tests), None, f"evaluator: {e}") for it in ok]
            by_item = dict(zip(map(id, ok), results))
            verdicts = collections.Counter()
            for it in batch:
                r = by_item.get(id(it))
                verdicts[r.status.value if r is not None else "bad_ground_truth"] += 1
                it.future.set_result(r)
            with self.metrics.lock:
                self.metrics.batches += 1
                self.metrics.batch_items += len(batch)
                self.metrics.verdicts.update(verdicts)
        finally:
            with self._cv:
                self._in_flight -= len(batch)
            self._slots.release()

    # -------------------------------------------------------------- API used by the handlers
    def problem(self, ground_truth: Any) -> Problem | None:
        try:
            return self.reward.problem_for(_row_from_ground_truth(ground_truth, None))
        except (ValueError, TypeError, KeyError):
            return None

    def score(self, ground_truths: list[Any], texts: list[str], timeout: float | None = None
              ) -> list[SampleResult | None]:
        futures = self.submit([self.problem(g) for g in ground_truths], texts)
        return [f.result(timeout) for f in futures]

    def state(self) -> dict[str, Any]:
        with self._cv:
            return {"queued": len(self._queue), "in_flight": self._in_flight, "max_queue": self.config.max_queue}

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        self._dispatcher.join(timeout=5)
        self._runners.shutdown(wait=True)


# ------------------------------------------------------------------ HTTP
def _response_text(query: str, prompt: str | None) -> str:
    """OpenRLHF sends prompt+response as ``query``: keep what follows the prompt."""
    if prompt:
        if query.startswith(prompt):
            return query[len(prompt):]
        at = query.rfind(prompt)
        if at >= 0:
            return query[at + len(prompt):]
    return query


def _result_dict(r: SampleResult | None, reward: float | None) -> dict[str, Any]:
    if r is None:
        return {"reward": None, "status": "bad_ground_truth", "num_passed": 0, "num_tests": 0,
                "detail": "ground_truth holds no readable tests", "tests": []}
    return {"reward": reward, "status": r.status.value, "num_passed": r.num_passed, "num_tests": r.num_tests,
            "detail": r.detail,
            "tests": [{"index": t.index, "status": t.status.value, "rule": t.rule, "time_s": round(t.time_s, 4)}
                      for t in r.tests]}


class _Handler(BaseHTTPRequestHandler):
    service: RewardService  # set on the subclass made by make_server
    server_version = "microcoder-reward/1"
    protocol_version = "HTTP/1.1"
    timeout = 120  # seconds a connection may sit idle or dribble its request (slow clients)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by default
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _send(self, code: int, body: Any, content_type: str = "application/json", headers: dict | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code: int, message: str, headers: dict | None = None) -> int:
        self._send(code, {"error": message}, headers=headers)
        return code

    def _body(self) -> Any:
        n = int(self.headers.get("Content-Length") or 0)
        if n > self.service.config.max_request_mb * 2**20:
            self.close_connection = True  # the unread body must not be parsed as the next request
            raise _HTTPError(413, f"request body of {n} bytes exceeds --max-request-mb; split the batch")
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"null")
        except ValueError as e:
            raise _HTTPError(400, f"body is not JSON: {e}") from e

    def do_GET(self) -> None:  # noqa: N802
        started = time.monotonic()
        path = self.path.split("?")[0]
        if path == "/health":
            code = 200
            self._send(200, {"status": "ok", **self.service.state(), "policy": self.service.reward.config.policy,
                             "workers": self.service.reward.eval_config.workers})
        elif path == "/metrics":
            code = 200
            self._send(200, self._metrics_text(), content_type="text/plain; version=0.0.4")
        else:
            code = self._error(404, f"no GET {path}; try /health, /metrics, POST /get_reward or POST /score")
        self.service.metrics.request(path, code, time.monotonic() - started)

    def do_POST(self) -> None:  # noqa: N802
        started = time.monotonic()
        path = self.path.split("?")[0]
        try:
            if path == "/get_reward":
                code = self._get_reward(self._body())
            elif path == "/score":
                code = self._score(self._body())
            else:
                code = self._error(404, f"no POST {path}; use /get_reward (OpenRLHF) or /score")
        except _HTTPError as e:
            code = self._error(e.code, e.message, e.headers)
        except QueueFull as e:
            code = self._error(503, f"busy: {e}; retry later", {"Retry-After": "1"})
        self.service.metrics.request(path, code, time.monotonic() - started)

    def _get_reward(self, body: Any) -> int:
        if not isinstance(body, dict) or not isinstance(body.get("query"), list):
            raise _HTTPError(400, 'expected {"query": [...], "prompts": [...], "labels": [...]}')
        queries = body["query"]
        n = len(queries)
        prompts = body.get("prompts") or [None] * n
        labels = body.get("labels")
        if not isinstance(labels, list) or len(labels) != n or len(prompts) != n:
            raise _HTTPError(400, f"query has {n} items; prompts and labels must have as many "
                                  "(labels = each problem's tests)")
        texts = [_response_text(str(q), p if isinstance(p, str) else None) for q, p in zip(queries, prompts)]
        results = self.service.score(labels, texts)
        scores = self.service.reward.score_results(results)
        rewards = [0.0 if s is None else float(s) for s in scores]
        self._send(200, {"rewards": rewards, "scores": rewards,
                         "extra_logs": {"pass": [float(bool(r and r.passed)) for r in results],
                                        "valid": [float(s is not None) for s in scores]}})
        return 200

    def _score(self, body: Any) -> int:
        items = body.get("items") if isinstance(body, dict) else None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise _HTTPError(400, 'expected {"items": [{"completion": "...", "ground_truth": ...}, ...]}')
        truths = [i.get("ground_truth", i.get("tests", i.get("label"))) for i in items]
        texts = [str(i.get("completion") or "") for i in items]
        results = self.service.score(truths, texts)
        scores = self.service.reward.score_results(results)
        self._send(200, {"results": [_result_dict(r, s) for r, s in zip(results, scores)]})
        return 200

    def _metrics_text(self) -> str:
        m = self.service.metrics
        st = self.service.state()
        with m.lock:
            lat = list(m.latencies)
            lines = ["# TYPE microcoder_reward_requests_total counter"]
            lines += [f'microcoder_reward_requests_total{{path="{p}",code="{c}"}} {n}'
                      for (p, c), n in sorted(m.requests.items())]
            lines += ["# TYPE microcoder_reward_items_total counter", f"microcoder_reward_items_total {m.items}",
                      "# TYPE microcoder_reward_rejected_items_total counter",
                      f"microcoder_reward_rejected_items_total {m.rejected_items}",
                      "# TYPE microcoder_reward_verdicts_total counter"]
            lines += [f'microcoder_reward_verdicts_total{{status="{s}"}} {n}' for s, n in sorted(m.verdicts.items())]
            lines += ["# TYPE microcoder_reward_batches_total counter", f"microcoder_reward_batches_total {m.batches}",
                      f"microcoder_reward_batch_items_total {m.batch_items}"]
        lines += ["# TYPE microcoder_reward_queue_items gauge", f"microcoder_reward_queue_items {st['queued']}",
                  f"microcoder_reward_in_flight_items {st['in_flight']}",
                  "# TYPE microcoder_reward_request_seconds summary",
                  f'microcoder_reward_request_seconds{{quantile="0.5"}} {_quantile(lat, 0.5):.6f}',
                  f'microcoder_reward_request_seconds{{quantile="0.99"}} {_quantile(lat, 0.99):.6f}',
                  f"microcoder_reward_request_seconds_count {len(lat)}"]
        return "\n".join(lines) + "\n"


class _HTTPError(Exception):
    def __init__(self, code: int, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.headers = code, message, headers


class RewardServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, service: RewardService, verbose: bool = False) -> None:
        handler = type("Handler", (_Handler,), {"service": service})
        super().__init__((service.config.host, service.config.port), handler)
        self.service = service
        self.verbose = verbose

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self.service.close()


def make_server(reward_config: RewardConfig | None = None, server_config: ServerConfig | None = None,
                reward: EvaluatorReward | None = None, verbose: bool = False) -> RewardServer:
    """A bound (not yet serving) server; ``serve_forever()`` it, or run it in a thread for tests."""
    reward = reward or EvaluatorReward(reward_config or RewardConfig())
    return RewardServer(RewardService(reward, server_config), verbose=verbose)


# ------------------------------------------------------------------ CLI
def register(subparsers: Any) -> None:
    from microcoder_eval.evaluate_cli import add_dataclass_args

    p = subparsers.add_parser(
        "serve-reward", help="Serve the evaluator reward over HTTP (OpenRLHF /get_reward, native /score).",
        description=__doc__.split("\n\n")[0] + " OpenRLHF: --remote_rm_url http://HOST:PORT/get_reward.")
    add_dataclass_args(p, ServerConfig)
    add_dataclass_args(p, RewardConfig)
    p.add_argument("--log-requests", action="store_true", help="Log every HTTP request to stderr.")
    p.set_defaults(func=command)


def command(args: argparse.Namespace) -> int:
    from microcoder_eval.evaluate_cli import dataclass_from_args

    server_cfg = dataclass_from_args(ServerConfig, args)
    reward_cfg = dataclass_from_args(RewardConfig, args)
    try:
        server = make_server(reward_cfg, server_cfg, verbose=args.log_requests)
    except OSError as e:
        raise UserError(f"cannot listen on {server_cfg.host}:{server_cfg.port}: {e.strerror}; pick another --port") from e
    server.service.reward.executor  # start the sandbox workers before the first request
    print(f"microcoder reward server on {server.url} (POST /get_reward, POST /score, GET /health, GET /metrics)",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        server.service.reward.close()
    return 0
