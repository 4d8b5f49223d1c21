"""Draw ``n`` samples per problem with the chosen backend, streaming records to the store."""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.generation.base import Backend, Completion, SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.prompts import apply_thinking_policy, build_messages
from microcoder_eval.generation.store import CompletionStore
from microcoder_eval.lcb import load_problems
from microcoder_eval.problem import Problem


def make_backend(config: GenerateConfig) -> Backend:
    """Build the backend named by ``config.backend`` (heavy imports happen only here)."""
    if config.backend == "openai":
        from microcoder_eval.generation.openai_http import OpenAIBackend

        return OpenAIBackend(config)
    if config.backend == "transformers":
        from microcoder_eval.generation.transformers_backend import TransformersBackend

        return TransformersBackend(config)
    from microcoder_eval.generation.vllm_backend import VLLMBackend

    return VLLMBackend(config)


def select_problems(config: GenerateConfig) -> list[Problem]:
    """Problems of the configured file/dataset, release, window, platform and difficulty."""
    problems = load_problems(config.problems, config.release, config.start_date, config.end_date,
                             config.platform, config.difficulty)
    if config.limit:
        problems = problems[:config.limit]
    if not problems:
        raise UserError(f"no problems left in {config.problems} after the release/date/platform/difficulty "
                        "filters; widen --start-date/--end-date or check --release")
    return problems


def plan(config: GenerateConfig, problems: list[Problem], done: set[tuple[str, int]]) -> list[SampleRequest]:
    """Requests for every (problem, sample_index < n) not yet in ``done``, grouped by problem."""
    out = []
    for p in problems:
        messages = None
        for i in range(config.n):
            if (p.question_id, i) in done:
                continue
            messages = messages or build_messages(p, config.prompt_style)
            out.append(SampleRequest(p.question_id, i, messages, config.sample_seed(i)))
    return out


def to_record(c: Completion, config: GenerateConfig) -> dict[str, Any]:
    """The JSONL record of one completion after the thinking policy."""
    text = apply_thinking_policy(c.text, config.thinking, c.reasoning, c.think_open)
    return {"question_id": c.question_id, "sample_index": c.sample_index, "completion": text,
            "finish_reason": c.finish_reason, "model": config.model, "completion_tokens": c.completion_tokens}


@dataclass
class GenerationSummary:
    """What a generate call did."""

    out: str
    problems: list[Problem]
    n: int
    requested: int
    resumed: int
    generated: int = 0
    finish_reasons: Counter[str] = field(default_factory=Counter)

    def line(self) -> str:
        reasons = ", ".join(f"{k} {v}" for k, v in self.finish_reasons.most_common()) or "none new"
        return (f"{self.out}: {len(self.problems)} problems x {self.n} samples, {self.generated} new "
                f"({self.resumed} already there); finish reasons: {reasons}")


def generate(config: GenerateConfig, problems: list[Problem] | None = None,
             backend: Backend | None = None) -> GenerationSummary:
    """Sample every missing (problem, sample_index) and append it to ``config.out``."""
    from tqdm import tqdm

    problems = problems if problems is not None else select_problems(config)
    with CompletionStore(config.out, config.fingerprint_settings(), overwrite=config.overwrite) as store:
        wanted = {(p.question_id, i) for p in problems for i in range(config.n)}
        resumed = len(wanted & store.done)
        todo = plan(config, problems, store.done)
        summary = GenerationSummary(config.out, problems, config.n, len(wanted), resumed)
        if not todo:
            return summary
        own = backend is None
        backend = backend or make_backend(config)
        bar = tqdm(total=len(wanted), initial=resumed, desc="generating", unit="sample",
                   disable=not config.progress, file=sys.stderr)
        try:
            for completion in backend.generate(todo):
                store.add(to_record(completion, config))
                summary.generated += 1
                summary.finish_reasons[completion.finish_reason] += 1
                bar.update(1)
        finally:
            bar.close()
            if own:
                backend.close()
    return summary
