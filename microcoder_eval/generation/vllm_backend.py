"""Offline vLLM backend (GPU): ``vllm.LLM.generate`` over chunks of samples.

Prompts are rendered here with the model's chat template; every sample is its own request with
``SamplingParams(n=1, seed=seed + sample_index)`` so that a resumed run draws the same samples.
Repeated prompts share their KV cache through vLLM's prefix caching. Results reach the caller
(and the completions file) after each chunk of ``chunk_size`` samples. vLLM is imported lazily.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from microcoder_eval.errors import UserError
from microcoder_eval.generation.base import Backend, Completion, SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.prompts import opens_thinking, render_prompt


def engine_kwargs(config: GenerateConfig) -> dict[str, Any]:
    """Keyword arguments for ``vllm.LLM`` from the generation config."""
    kw: dict[str, Any] = {"model": config.model, "tensor_parallel_size": config.tensor_parallel_size,
                          "gpu_memory_utilization": config.gpu_memory_utilization, "dtype": config.dtype,
                          "enable_prefix_caching": True}
    if config.tokenizer:
        kw["tokenizer"] = config.tokenizer
    if config.max_model_len:
        kw["max_model_len"] = config.max_model_len
    if config.seed >= 0:
        kw["seed"] = config.seed
    return kw


def sampling_kwargs(config: GenerateConfig, seed: int | None) -> dict[str, Any]:
    """Keyword arguments for ``vllm.SamplingParams`` of one sample."""
    kw: dict[str, Any] = {"n": 1, "temperature": config.temperature, "top_p": config.top_p,
                          "max_tokens": config.max_tokens}
    if seed is not None:
        kw["seed"] = seed
    return kw


class VLLMBackend(Backend):
    """Runs the model in this process on the local GPU(s)."""

    def __init__(self, config: GenerateConfig, llm: Any = None) -> None:
        try:
            import vllm
        except ModuleNotFoundError as e:
            raise UserError("the vllm backend needs vLLM and a CUDA GPU: pip install 'microcoder[vllm]'; "
                            "without a GPU use --backend transformers or --backend openai") from e
        self.config = config
        self.vllm = vllm
        self.llm = llm if llm is not None else vllm.LLM(**engine_kwargs(config))
        self.tokenizer = self.llm.get_tokenizer()

    def prompt(self, req: SampleRequest) -> str:
        cfg = self.config
        return render_prompt(self.tokenizer, req.messages, cfg.chat_template, cfg.thinking_flag)

    def generate(self, requests: Sequence[SampleRequest]) -> Iterator[Completion]:
        cfg = self.config
        cache: dict[str, str] = {}
        for start in range(0, len(requests), cfg.chunk_size):
            chunk = requests[start:start + cfg.chunk_size]
            prompts = []
            for req in chunk:
                if req.question_id not in cache:
                    cache[req.question_id] = self.prompt(req)
                prompts.append(cache[req.question_id])
            params = [self.vllm.SamplingParams(**sampling_kwargs(cfg, req.seed)) for req in chunk]
            outputs = self.llm.generate(prompts, params, use_tqdm=False)
            for req, prompt, out in zip(chunk, prompts, outputs):
                seq = out.outputs[0]
                yield Completion(req.question_id, req.sample_index, seq.text, str(seq.finish_reason or "unknown"),
                                 len(seq.token_ids), None, opens_thinking(prompt))

    def close(self) -> None:
        self.llm = None
