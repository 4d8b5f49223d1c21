"""The OpenAI-compatible backend and `generate` against a local canned HTTP server (no network)."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

from microcoder_eval.cli import main
from microcoder_eval.errors import UserError
from microcoder_eval.generation.base import SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.openai_http import OpenAIBackend
from microcoder_eval.generation.prompts import build_messages, plain_prompt
from microcoder_eval.generation.store import read_completions
from microcoder_eval.lcb import load_problems

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "lcb_sample_problems.jsonl"
CODE = "```python\nprint(1)\n```"

Reply = tuple[int, dict[str, Any], dict[str, str]]


def chat_reply(content: str, finish: str = "stop", tokens: int = 5, **message: Any) -> Reply:
    return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message},
                              "finish_reason": finish}], "usage": {"completion_tokens": tokens}}, {}


class FakeServer:
    """OpenAI-compatible endpoint on 127.0.0.1:<random port>; ``respond(path, body) -> Reply``."""

    def __init__(self, respond: Callable[[str, dict[str, Any]], Reply]) -> None:
        self.respond = respond
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests.append((self.path, body))
                    outer.last_headers = dict(self.headers)
                status, payload, headers = outer.respond(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    made: list[FakeServer] = []

    def make(respond: Callable[[str, dict[str, Any]], Reply]) -> FakeServer:
        s = FakeServer(respond)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def gen_args(url: str, out: Path, *extra: str) -> list[str]:
    return ["generate", "--problems", str(SAMPLE), "--backend", "openai", "--base-url", url, "--model", "tiny",
            "--out", str(out), "--no-progress", "--retry-backoff-s", "0", *extra]


def test_generate_sends_lcb_chat_requests_and_writes_records(server, tmp_path):
    srv = server(lambda path, body: chat_reply(CODE))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "2", "--limit", "3", "--max-tokens", "64", "--seed", "5")) == 0
    problems = load_problems(SAMPLE)[:3]
    recs = read_completions(out)
    assert sorted((r["question_id"], r["sample_index"]) for r in recs) == sorted(
        (p.question_id, i) for p in problems for i in range(2))
    assert all(r["completion"] == CODE and r["finish_reason"] == "stop" and r["model"] == "tiny"
               and r["completion_tokens"] == 5 for r in recs)
    assert {path for path, _ in srv.requests} == {"/v1/chat/completions"}
    by_problem = {p.question_id: build_messages(p, "lcb") for p in problems}
    seen = set()
    for _, body in srv.requests:
        assert body["model"] == "tiny" and body["n"] == 1 and body["max_tokens"] == 64
        assert body["temperature"] == 0.2 and body["top_p"] == 0.95
        assert "chat_template_kwargs" not in body
        qid = next(q for q, m in by_problem.items() if m == body["messages"])
        seen.add((qid, body["seed"]))
    assert seen == {(p.question_id, s) for p in problems for s in (5, 6)}


def test_rerun_resumes_and_larger_n_only_draws_the_missing_samples(server, tmp_path):
    srv = server(lambda path, body: chat_reply(CODE))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "2")) == 0
    assert len(srv.requests) == 2
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "2")) == 0
    assert len(srv.requests) == 2  # nothing left to do
    assert main(gen_args(srv.url, out, "-n", "3", "--limit", "2")) == 0
    assert len(srv.requests) == 6
    assert sorted(body["seed"] for _, body in srv.requests[2:]) == [1, 1, 2, 2]
    assert len(read_completions(out)) == 6


def test_resume_with_other_settings_is_refused_and_overwrite_starts_again(server, tmp_path, capsys):
    srv = server(lambda path, body: chat_reply(CODE))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1")) == 0
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--temperature", "0.8")) == 2
    err = capsys.readouterr().err
    assert "other settings (temperature: 0.2 there, 0.8 now)" in err and "--overwrite" in err
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--temperature", "0.8", "--overwrite")) == 0
    assert len(read_completions(out)) == 1 and len(srv.requests) == 2


def test_a_torn_last_line_is_dropped_and_that_sample_drawn_again(server, tmp_path):
    srv = server(lambda path, body: chat_reply(CODE))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "2", "--limit", "1")) == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # crash in the middle of the second write
    assert main(gen_args(srv.url, out, "-n", "2", "--limit", "1")) == 0
    recs = read_completions(out)
    assert sorted(r["sample_index"] for r in recs) == [0, 1] and len(srv.requests) == 3
    assert all(line.endswith("\n") for line in out.read_text().splitlines(keepends=True))


def test_transient_errors_are_retried_with_backoff(server, tmp_path):
    state = {"calls": 0}

    def flaky(path, body):
        state["calls"] += 1
        if state["calls"] <= 2:
            return 503, {"error": {"message": "overloaded"}}, {}
        return chat_reply(CODE)

    srv = server(flaky)
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--concurrency", "1", "--retries", "3")) == 0
    assert len(srv.requests) == 3 and len(read_completions(out)) == 1


def test_retries_exhausted_is_a_one_line_error(server, tmp_path, capsys):
    srv = server(lambda path, body: (503, {"error": {"message": "overloaded"}}, {}))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--retries", "2")) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    warnings = [line for line in lines if ": WARNING: " in line]  # one logged line per retry
    err = [line for line in lines if line not in warnings]
    assert len(warnings) == 2 and all("retry" in w and "HTTP 503" in w for w in warnings)
    assert len(err) == 1 and "failed 3 times" in err[0] and "HTTP 503: overloaded" in err[0]
    assert len(srv.requests) == 3


def test_client_errors_are_not_retried_and_show_the_servers_message(server, tmp_path, capsys):
    srv = server(lambda path, body: (404, {"error": {"message": "The model `tiny` does not exist."}}, {}))
    assert main(gen_args(srv.url, tmp_path / "c.jsonl", "-n", "1", "--limit", "1")) == 2
    assert "HTTP 404: The model `tiny` does not exist." in capsys.readouterr().err
    assert len(srv.requests) == 1


def test_unreachable_server_is_a_user_error(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("http_proxy", raising=False)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    url = f"http://127.0.0.1:{port}/v1"
    assert main(gen_args(url, tmp_path / "c.jsonl", "-n", "1", "--limit", "1", "--retries", "1")) == 2
    err = capsys.readouterr().err
    assert "cannot reach the server" in err and "rerun to resume" in err


def test_retry_after_header_sets_the_delay(server):
    state = {"calls": 0}

    def limited(path, body):
        state["calls"] += 1
        return (429, {"error": "slow down"}, {"Retry-After": "3"}) if state["calls"] == 1 else chat_reply(CODE)

    srv = server(limited)
    delays: list[float] = []
    cfg = GenerateConfig(model="tiny", base_url=srv.url, retry_backoff_s=0.5)
    backend = OpenAIBackend(cfg, sleep=delays.append)
    c = backend.complete(SampleRequest("q", 0, [{"role": "user", "content": "hi"}], 0))
    assert c.text == CODE and delays == [3.0]


def test_api_key_is_sent_as_bearer_token(server, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test")
    srv = server(lambda path, body: chat_reply(CODE))
    backend = OpenAIBackend(GenerateConfig(model="tiny", base_url=srv.url, api_key_env="MY_KEY"))
    backend.complete(SampleRequest("q", 0, [{"role": "user", "content": "hi"}], None))
    assert srv.last_headers["Authorization"] == "Bearer sk-test"
    assert "seed" not in srv.requests[-1][1]


def test_reasoning_content_is_kept_or_stripped_and_enable_thinking_is_passed(server, tmp_path):
    srv = server(lambda path, body: chat_reply(CODE, reasoning_content="plan: print 1"))
    keep, strip = tmp_path / "keep.jsonl", tmp_path / "strip.jsonl"
    assert main(gen_args(srv.url, keep, "-n", "1", "--limit", "1", "--enable-thinking", "false")) == 0
    assert srv.requests[-1][1]["chat_template_kwargs"] == {"enable_thinking": False}
    assert read_completions(keep)[0]["completion"] == f"<think>\nplan: print 1\n</think>\n\n{CODE}"
    assert main(gen_args(srv.url, strip, "-n", "1", "--limit", "1", "--thinking", "strip")) == 0
    assert read_completions(strip)[0]["completion"] == CODE


def test_inline_think_blocks_are_stripped(server, tmp_path):
    srv = server(lambda path, body: chat_reply("<think>\n```python\nwrong()\n```\n</think>\n\n" + CODE))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--thinking", "strip")) == 0
    assert read_completions(out)[0]["completion"] == CODE


def test_completions_api_sends_a_rendered_prompt(server, tmp_path):
    srv = server(lambda path, body: (200, {"choices": [{"text": CODE, "finish_reason": "length"}]}, {}))
    out = tmp_path / "c.jsonl"
    assert main(gen_args(srv.url, out, "-n", "1", "--limit", "1", "--api", "completions",
                         "--chat-template", "none", "--prompt-style", "qwq")) == 0
    path, body = srv.requests[-1]
    problem = load_problems(SAMPLE)[0]
    assert path == "/v1/completions" and body["prompt"] == plain_prompt(build_messages(problem, "qwq"))
    rec = read_completions(out)[0]
    assert rec["finish_reason"] == "length" and rec["completion_tokens"] is None


def test_completions_api_with_a_template_needs_a_local_tokenizer(tmp_path):
    cfg = GenerateConfig(model="served-name", api="completions")
    with pytest.raises(UserError, match="needs a local tokenizer folder"):
        OpenAIBackend(cfg)


def test_bad_base_url_is_a_user_error():
    with pytest.raises(UserError, match="not an http"):
        OpenAIBackend(GenerateConfig(model="m", base_url="localhost:8000"))
