"""Retried generation requests are logged (a warning per retry, with the error and the delay)."""
from __future__ import annotations

import logging

from test_generation_openai import CODE, chat_reply, server  # noqa: F401 - the canned server fixture

from microcoder_eval.generation.base import SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.openai_http import OpenAIBackend


def test_each_retry_is_logged_with_error_and_delay(server, caplog):  # noqa: F811
    state = {"calls": 0}

    def flaky(path, body):
        state["calls"] += 1
        return (503, {"error": "overloaded"}, {}) if state["calls"] <= 2 else chat_reply(CODE)

    srv = server(flaky)
    backend = OpenAIBackend(GenerateConfig(model="tiny", base_url=srv.url, retry_backoff_s=0.25), sleep=lambda s: None)
    with caplog.at_level(logging.WARNING, logger="microcoder_eval.generation.openai_http"):
        c = backend.complete(SampleRequest("q", 0, [{"role": "user", "content": "hi"}], 0))
    assert c.text == CODE and backend.retried == 2
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 2 and "HTTP 503" in msgs[0] and "retry 1 of" in msgs[0] and "in 0.2 s" in msgs[0]
    assert "retry 2 of" in msgs[1] and "in 0.5 s" in msgs[1]
