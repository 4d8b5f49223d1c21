"""OpenAI-compatible HTTP backend (``vllm serve``, SGLang, llama.cpp, OpenAI): stdlib urllib only.

One request per sample (``n=1`` with seed ``seed + sample_index``), ``concurrency`` requests in
flight. Connection errors, timeouts, 429 and 5xx are retried with exponential backoff (honouring
``Retry-After``); other 4xx answers are user errors (bad model name, bad parameter) and stop the run.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import socket
import threading
import urllib.error
import urllib.request
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import urlparse

from microcoder_eval.errors import UserError
from microcoder_eval.generation.base import Backend, Completion, SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.prompts import opens_thinking, plain_prompt, render_prompt

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
log = logging.getLogger(__name__)
MAX_DELAY_S = 60.0


class RetryableError(Exception):
    """A failure worth retrying (the server may recover)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class OpenAIBackend(Backend):
    """Sample through ``/v1/chat/completions`` (default) or ``/v1/completions``."""

    def __init__(self, config: GenerateConfig, sleep: Callable[[float], None] | None = None) -> None:
        self.config = config
        parsed = urlparse(config.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise UserError(f"base URL {config.base_url!r} is not an http(s) URL; e.g. http://127.0.0.1:8000/v1")
        endpoint = "chat/completions" if config.api == "chat" else "completions"
        self.url = config.base_url.rstrip("/") + "/" + endpoint
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(config.api_key_env) if config.api_key_env else None
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self._stopping = threading.Event()
        self._sleep = sleep or self._stopping.wait  # a stopped run wakes up at once
        self._tokenizer: Any = None
        self.retried = 0  # requests retried after a retryable failure (logged as warnings)
        if config.api == "completions" and config.chat_template != "none":
            self._tokenizer = _load_tokenizer(config.tokenizer or config.model)

    # ------------------------------------------------------------------ requests
    def body(self, req: SampleRequest) -> tuple[dict[str, Any], bool]:
        """The JSON body for one sample, and whether its prompt opened a <think> block."""
        cfg = self.config
        body: dict[str, Any] = {"model": cfg.model, "max_tokens": cfg.max_tokens,
                                "temperature": cfg.temperature, "top_p": cfg.top_p, "n": 1}
        if req.seed is not None:
            body["seed"] = req.seed
        think_open = False
        if cfg.api == "chat":
            body["messages"] = req.messages
            if cfg.thinking_flag is not None:
                body["chat_template_kwargs"] = {"enable_thinking": cfg.thinking_flag}
        else:
            if self._tokenizer is None:
                prompt = plain_prompt(req.messages)
            else:
                prompt = render_prompt(self._tokenizer, req.messages, cfg.chat_template, cfg.thinking_flag)
            think_open = opens_thinking(prompt)
            body["prompt"] = prompt
        return body, think_open

    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST with retries; returns the decoded JSON answer."""
        cfg = self.config
        attempts = cfg.retries + 1
        last: RetryableError | None = None
        for attempt in range(attempts):
            if self._stopping.is_set():
                raise UserError("generation stopped")
            try:
                return self._post_once(body)
            except RetryableError as e:
                last = e
                if attempt + 1 < attempts:
                    delay = min(MAX_DELAY_S, cfg.retry_backoff_s * 2 ** attempt)
                    if e.retry_after is not None:
                        delay = min(MAX_DELAY_S, max(delay, e.retry_after))
                    self.retried += 1
                    log.warning("generation: %s from %s; retry %d of %d in %.1f s", e, self.url, attempt + 1,
                                attempts - 1, delay)
                    self._sleep(delay)
        raise UserError(f"request to {self.url} failed {attempts} times, last: {last}; is the server up and "
                        "--base-url right? Finished samples are saved: rerun to resume")

    def _post_once(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        request = urllib.request.Request(self.url, data=data, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.config.request_timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = _error_text(e)
            if e.code in RETRY_STATUS:
                raise RetryableError(f"HTTP {e.code}: {detail}", _retry_after(e)) from e
            raise UserError(f"{self.url} answered HTTP {e.code}: {detail}") from e
        except urllib.error.URLError as e:
            raise RetryableError(f"cannot reach the server ({e.reason})") from e
        except (socket.timeout, TimeoutError, ConnectionError) as e:
            raise RetryableError(f"{type(e).__name__}: {e}") from e
        try:
            answer = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise RetryableError(f"answer is not JSON ({raw[:80]!r})") from e
        if not isinstance(answer, dict) or not answer.get("choices"):
            raise RetryableError(f"answer has no choices ({str(answer)[:120]})")
        return answer

    def complete(self, req: SampleRequest) -> Completion:
        """Draw one sample."""
        body, think_open = self.body(req)
        answer = self.post(body)
        choice = answer["choices"][0]
        reasoning = None
        if self.config.api == "chat":
            message = choice.get("message") or {}
            text = message.get("content") or ""
            reasoning = message.get("reasoning_content") or message.get("reasoning") or None
        else:
            text = choice.get("text") or ""
        usage = answer.get("usage") or {}
        tokens = usage.get("completion_tokens")
        return Completion(req.question_id, req.sample_index, text, str(choice.get("finish_reason") or "unknown"),
                          tokens if isinstance(tokens, int) else None, reasoning, think_open)

    # ------------------------------------------------------------------ batch
    def generate(self, requests: Sequence[SampleRequest]) -> Iterator[Completion]:
        """``concurrency`` daemon threads drain the requests; completions come back as they finish.

        Daemon threads (not a ThreadPoolExecutor) so that Ctrl-C or an error exits at once instead
        of waiting for requests in flight; what finished is already on disk.
        """
        todo: queue.Queue[SampleRequest] = queue.Queue()
        for req in requests:
            todo.put(req)
        done: queue.Queue[tuple[Completion | None, BaseException | None]] = queue.Queue()
        self._stopping.clear()

        def worker() -> None:
            while not self._stopping.is_set():
                try:
                    req = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    done.put((self.complete(req), None))
                except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
                    done.put((None, e))

        for _ in range(min(self.config.concurrency, len(requests))):
            threading.Thread(target=worker, name="mc-http", daemon=True).start()
        try:
            for _ in range(len(requests)):
                completion, error = done.get()
                if error is not None:
                    raise error
                assert completion is not None
                yield completion
        finally:
            self._stopping.set()


def _error_text(e: urllib.error.HTTPError) -> str:
    try:
        raw = e.read().decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the body is only for the message
        return str(e.reason)
    try:
        err = json.loads(raw)
        if isinstance(err, dict):
            inner = err.get("error", err)
            msg = inner.get("message") if isinstance(inner, dict) else inner
            return " ".join(str(msg or raw).split())[:300]
    except json.JSONDecodeError:
        pass
    return " ".join(raw.split())[:300] or str(e.reason)


def _retry_after(e: urllib.error.HTTPError) -> float | None:
    value = e.headers.get("Retry-After") if e.headers else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _load_tokenizer(name: str) -> Any:
    from pathlib import Path

    if not Path(name).exists():
        raise UserError(f"--api completions renders the chat template here and needs a local tokenizer folder; "
                        f"{name!r} is not one: pass --tokenizer PATH, or --chat-template none for plain prompts")
    try:
        from transformers import AutoTokenizer
    except ModuleNotFoundError as e:
        raise UserError("rendering chat templates needs transformers: pip install 'microcoder[train]'") from e
    return AutoTokenizer.from_pretrained(name)
