"""Configuration of ``generate`` (GenerateConfig) and the extra settings of ``run`` (RunConfig)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from microcoder_eval import resources
from microcoder_eval.errors import UserError
from microcoder_eval.generation.prompts import PROMPT_STYLES

BACKENDS = ("openai", "vllm", "transformers")
DEFAULT_PROBLEMS = resources.sample_problems()


def _help(text: str, choices: tuple[str, ...] | None = None, **kw: Any) -> Any:
    meta: dict[str, Any] = {"help": text}
    if choices:
        meta["choices"] = choices  # the CLI offers exactly these (add_dataclass_args)
    return field(metadata=meta, **kw)


@dataclass
class GenerateConfig:
    """What to sample, from which model, how, and where the completions go."""

    problems: str = _help("LCB problems: .jsonl/.json/.parquet path or HF dataset name.", default=DEFAULT_PROBLEMS)
    release: str | None = _help("LCB release, e.g. release_v6 (limits contest dates / picks the HF version).",
                                default=None)
    start_date: str | None = _help("Keep problems with contest_date >= this (YYYY-MM-DD).", default=None)
    end_date: str | None = _help("Keep problems with contest_date < this (YYYY-MM-DD).", default=None)
    platform: str | None = _help("Comma-separated platforms to keep (leetcode,atcoder,codeforces).", default=None)
    difficulty: str | None = _help("Comma-separated difficulties to keep (easy,medium,hard).", default=None)
    limit: int = _help("Use only the first N problems after filtering (0 = all).", default=0)
    backend: str = _help("Generation backend: 'openai' (an OpenAI-compatible server such as `vllm serve`), "
                         "'vllm' (offline vLLM on this machine's GPU) or 'transformers' (CPU fallback).",
                         default="openai", choices=BACKENDS)
    model: str = _help("Model: a local model folder (vllm/transformers), or the served model name (openai).",
                       default="")
    base_url: str = _help("OpenAI-compatible server URL including /v1.", default="http://127.0.0.1:8000/v1")
    api: str = _help("HTTP endpoint: 'chat' (/v1/chat/completions, the server applies the chat template) or "
                     "'completions' (/v1/completions with a prompt rendered here from --tokenizer).",
                     default="chat", choices=("chat", "completions"))
    api_key_env: str = _help("Environment variable holding the API key (sent as a Bearer token if set).",
                             default="OPENAI_API_KEY")
    tokenizer: str = _help("Local tokenizer folder for rendering the chat template (defaults to --model).",
                           default="")
    chat_template: str = _help("Chat template: 'auto' (the tokenizer's own), 'none' (plain-text prompt, for "
                               "base models) or a .jinja file.", default="auto")
    prompt_style: str = _help(f"Prompt wording: {', '.join(PROMPT_STYLES)} (lcb = LiveCodeBench's system + "
                              "user messages; qwq = Qwen's QwQ harness prompt).", default="lcb",
                              choices=PROMPT_STYLES)
    n: int = _help("Samples per problem (LiveCodeBench uses 10).", default=10)
    temperature: float = _help("Sampling temperature (LiveCodeBench uses 0.2; 0 = greedy).", default=0.2)
    top_p: float = _help("Nucleus sampling top-p (LiveCodeBench uses 0.95).", default=0.95)
    max_tokens: int = _help("Maximum new tokens per completion (LiveCodeBench uses 2000; reasoning models "
                            "need far more, e.g. 8192 or 32768).", default=2000)
    seed: int = _help("Base seed; sample i of every problem uses seed+i (-1 = unseeded).", default=0)
    thinking: str = _help("Reasoning text: 'keep' stores <think>…</think> in the completion, 'strip' "
                          "removes it before writing.", default="keep", choices=("keep", "strip"))
    enable_thinking: str = _help("Passed to the chat template as enable_thinking (Qwen3 hybrid models): "
                                 "'true', 'false' or '' for the template's default.", default="",
                                 choices=("true", "false", ""))
    out: str = _help("Completions JSONL (appended as samples finish; a rerun resumes).",
                     default="completions.jsonl")
    overwrite: bool = _help("Discard an existing --out file instead of resuming it.", default=False)
    progress: bool = _help("Show a progress bar.", default=True)
    concurrency: int = _help("Parallel HTTP requests (openai backend).", default=16)
    retries: int = _help("Retries of a failed HTTP request (connection errors, 429, 5xx).", default=5)
    retry_backoff_s: float = _help("First retry delay in seconds; doubles on each retry (max 60).", default=1.0)
    request_timeout_s: float = _help("Timeout of one HTTP request in seconds.", default=600.0)
    batch_size: int = _help("Samples of one prompt generated together (transformers backend).", default=4)
    device: str = _help("Torch device for the transformers backend: auto, cpu, cuda, cuda:1 …", default="auto")
    dtype: str = _help("Weights dtype (transformers/vllm): auto, bfloat16, float16, float32.", default="auto")
    tensor_parallel_size: int = _help("GPUs per model (vllm backend).", default=1)
    gpu_memory_utilization: float = _help("Fraction of GPU memory vLLM may use.", default=0.9)
    max_model_len: int = _help("vLLM context length (0 = the model's own).", default=0)
    chunk_size: int = _help("Samples per vLLM generate call; each chunk is written to disk when done.",
                            default=1024)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise UserError(f"backend {self.backend!r} is unknown; choose one of {', '.join(BACKENDS)}")
        if not self.model:
            raise UserError("--model is required: a local model folder (vllm/transformers) or the name the "
                            "server serves (openai; see GET /v1/models)")
        if self.api not in ("chat", "completions"):
            raise UserError(f"api {self.api!r} is unknown; use chat or completions")
        if self.prompt_style not in PROMPT_STYLES:
            raise UserError(f"prompt style {self.prompt_style!r} is unknown; choose one of {', '.join(PROMPT_STYLES)}")
        if self.thinking not in ("keep", "strip"):
            raise UserError(f"thinking {self.thinking!r} is unknown; use keep or strip")
        flag = str(self.enable_thinking).strip().lower()
        if flag not in ("", "true", "false", "none"):
            raise UserError(f"enable_thinking {self.enable_thinking!r} must be true, false or empty")
        self.enable_thinking = "" if flag == "none" else flag
        checks = [
            (self.n >= 1, f"n={self.n} must be >= 1 (LiveCodeBench uses 10)"),
            (0.0 <= self.temperature <= 5.0, f"temperature={self.temperature} must be in [0, 5]"),
            (0.0 < self.top_p <= 1.0, f"top_p={self.top_p} must be in (0, 1]"),
            (self.max_tokens >= 1, f"max_tokens={self.max_tokens} must be >= 1"),
            (self.seed >= -1, f"seed={self.seed} must be >= 0, or -1 for unseeded sampling"),
            (self.limit >= 0, f"limit={self.limit} must be >= 0 (0 = all problems)"),
            (self.concurrency >= 1, f"concurrency={self.concurrency} must be >= 1"),
            (self.retries >= 0, f"retries={self.retries} must be >= 0"),
            (self.retry_backoff_s >= 0, f"retry_backoff_s={self.retry_backoff_s} must be >= 0"),
            (self.request_timeout_s > 0, f"request_timeout_s={self.request_timeout_s} must be > 0"),
            (self.batch_size >= 1, f"batch_size={self.batch_size} must be >= 1"),
            (self.tensor_parallel_size >= 1, f"tensor_parallel_size={self.tensor_parallel_size} must be >= 1"),
            (0.0 < self.gpu_memory_utilization <= 1.0,
             f"gpu_memory_utilization={self.gpu_memory_utilization} must be in (0, 1]"),
            (self.max_model_len >= 0, f"max_model_len={self.max_model_len} must be >= 0 (0 = model default)"),
            (self.chunk_size >= 1, f"chunk_size={self.chunk_size} must be >= 1"),
        ]
        for ok, msg in checks:
            if not ok:
                raise UserError(msg)
        if self.dtype not in ("auto", "bfloat16", "float16", "float32"):
            raise UserError(f"dtype {self.dtype!r} is unknown; use auto, bfloat16, float16 or float32")
        if self.chat_template not in ("auto", "none") and not Path(self.chat_template).is_file():
            raise UserError(f"chat template {self.chat_template!r} is not a file; pass auto, none or a .jinja path")

    @property
    def thinking_flag(self) -> bool | None:
        """``enable_thinking`` as the template expects it (None = leave the template default)."""
        return None if not self.enable_thinking else self.enable_thinking == "true"

    def sample_seed(self, sample_index: int) -> int | None:
        """Seed of sample ``sample_index`` (the same for every problem; prompts differ)."""
        return None if self.seed < 0 else self.seed + sample_index

    def fingerprint_settings(self) -> dict[str, Any]:
        """Settings that change what a completion means; a resumed file must match them."""
        keep = ("backend", "model", "api", "tokenizer", "chat_template", "prompt_style", "temperature",
                "top_p", "max_tokens", "seed", "thinking", "enable_thinking")
        return {k: getattr(self, k) for k in keep}

    @classmethod
    def help(cls) -> dict[str, str]:
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}


@dataclass
class RunConfig:
    """Settings ``run`` adds on top of generation and evaluation: results, k values, leaderboard."""

    results: str = _help("Per-sample results JSONL (default: <out> with .results.jsonl).", default="")
    ks: str = _help("Comma-separated k values for pass@k (k <= n).", default="1,5,10")
    leaderboard_name: str = _help("If set, also write leaderboards/runs/<name>.json for `microcoder-eval "
                                  "leaderboard` (a label like qwen3-1.7b-lcbv6).", default="")
    leaderboard_dir: str = _help("Leaderboard folder whose runs/ receives the entry.", default="leaderboards")

    def __post_init__(self) -> None:
        try:
            self.k_values = sorted({int(k) for k in str(self.ks).split(",") if k.strip()})
        except ValueError as e:
            raise UserError(f"--ks {self.ks!r} must be comma-separated integers, e.g. 1,5,10") from e
        if not self.k_values or self.k_values[0] < 1:
            raise UserError(f"--ks {self.ks!r} needs positive integers, e.g. 1,5,10")
        name = self.leaderboard_name
        if name and (not all(c.isalnum() or c in "-_." for c in name) or name.startswith(".")):
            raise UserError(f"leaderboard name {name!r} may hold only letters, digits, '-', '_' and '.'")
