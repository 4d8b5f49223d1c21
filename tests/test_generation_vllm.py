"""The vLLM backend's own logic (prompts, per-sample seeds, chunking, records) with a stand-in engine.

vLLM needs a GPU; here ``vllm`` is a small fake module so that what our code sends to the engine
and writes to disk is checked on CPU. benchmarks/vllm_throughput.py runs the real engine.
"""
from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace

import pytest

from microcoder_eval.errors import UserError
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.prompts import build_messages
from microcoder_eval.generation.runner import generate, plan, select_problems
from microcoder_eval.generation.store import read_completions
from microcoder_eval.generation.vllm_backend import engine_kwargs, sampling_kwargs

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "lcb_sample_problems.jsonl"


class FakeTokenizer:
    chat_template = "fake"

    def apply_chat_template(self, messages, tokenize, add_generation_prompt, **kw):
        think = "<think>\n" if kw.get("enable_thinking") else ""
        return "|".join(m["content"][:20] for m in messages) + "<assistant>" + think


class FakeLLM:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls = []

    def get_tokenizer(self):
        return FakeTokenizer()

    def generate(self, prompts, params, use_tqdm=True):
        self.calls.append((list(prompts), list(params)))
        return [SimpleNamespace(outputs=[SimpleNamespace(text=f"reasoning</think>\n```python\nprint({p.kw['seed']})\n```",
                                                         token_ids=[1, 2, 3], finish_reason="length")])
                for p in params]


@pytest.fixture
def fake_vllm(monkeypatch):
    mod = types.ModuleType("vllm")
    mod.LLM = FakeLLM
    mod.SamplingParams = lambda **kw: SimpleNamespace(kw=kw)
    monkeypatch.setitem(sys.modules, "vllm", mod)
    return mod


def config(tmp_path, **kw):
    base = dict(problems=str(SAMPLE), backend="vllm", model="/models/x", limit=3, n=3, chunk_size=4,
                out=str(tmp_path / "c.jsonl"), progress=False, seed=10)
    return GenerateConfig(**{**base, **kw})


def test_engine_and_sampling_arguments():
    cfg = GenerateConfig(model="/m", backend="vllm", tensor_parallel_size=2, max_model_len=8192, seed=3,
                         gpu_memory_utilization=0.8, temperature=0.6, top_p=0.9, max_tokens=4096)
    assert engine_kwargs(cfg) == {"model": "/m", "tensor_parallel_size": 2, "gpu_memory_utilization": 0.8,
                                  "dtype": "auto", "enable_prefix_caching": True, "max_model_len": 8192, "seed": 3}
    assert sampling_kwargs(cfg, 5) == {"n": 1, "temperature": 0.6, "top_p": 0.9, "max_tokens": 4096, "seed": 5}
    assert "seed" not in sampling_kwargs(cfg, None)


def test_generate_chunks_requests_renders_templates_and_seeds_each_sample(fake_vllm, tmp_path):
    cfg = config(tmp_path, thinking="strip", enable_thinking="true")
    summary = generate(cfg)
    assert summary.generated == 9 and summary.finish_reasons == {"length": 9}
    recs = read_completions(cfg.out)
    assert len(recs) == 9
    for r in recs:
        assert r["completion"] == f"```python\nprint({10 + r['sample_index']})\n```"  # reasoning stripped
        assert r["completion_tokens"] == 3 and r["finish_reason"] == "length"


def test_each_chunk_is_one_engine_call_with_the_rendered_prompt(fake_vllm, tmp_path):
    from microcoder_eval.generation.vllm_backend import VLLMBackend

    cfg = config(tmp_path)
    backend = VLLMBackend(cfg)
    problems = select_problems(cfg)
    requests = plan(cfg, problems, set())
    out = list(backend.generate(requests))
    assert [len(prompts) for prompts, _ in backend.llm.calls] == [4, 4, 1]
    prompts = [p for prompts, _ in backend.llm.calls for p in prompts]
    expected = [FakeTokenizer().apply_chat_template(build_messages(p, "lcb"), False, True)
                for p in problems for _ in range(3)]
    assert prompts == expected
    seeds = [prm.kw["seed"] for _, params in backend.llm.calls for prm in params]
    assert seeds == [10, 11, 12] * 3
    assert [(c.question_id, c.sample_index) for c in out] == [(r.question_id, r.sample_index) for r in requests]
    assert backend.llm.kwargs["model"] == "/models/x"


def test_resume_sends_only_missing_samples(fake_vllm, tmp_path):
    cfg = config(tmp_path, n=2)
    generate(cfg)
    bigger = config(tmp_path, n=3)
    summary = generate(bigger)
    assert summary.resumed == 6 and summary.generated == 3
    assert sorted(r["sample_index"] for r in read_completions(cfg.out)) == [0] * 3 + [1] * 3 + [2] * 3


def test_missing_vllm_is_a_user_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "vllm", None)  # import fails
    from microcoder_eval.generation.vllm_backend import VLLMBackend

    with pytest.raises(UserError, match="needs vLLM and a CUDA GPU"):
        VLLMBackend(config(tmp_path))
