"""transformers backend: ``model.generate`` on CPU (or one GPU) for machines without vLLM.

Samples of one problem are drawn ``batch_size`` at a time (``num_return_sequences``); the torch
seed of a batch is the seed of its first sample, so a rerun with the same settings reproduces it.
torch and transformers are imported only when this backend is built.
"""
from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Any, Iterator, Sequence

from microcoder_eval.errors import UserError
from microcoder_eval.generation.base import Backend, Completion, SampleRequest
from microcoder_eval.generation.config import GenerateConfig
from microcoder_eval.generation.prompts import opens_thinking, render_prompt


class TransformersBackend(Backend):
    """Local Hugging Face model (a folder written by ``save_pretrained``)."""

    def __init__(self, config: GenerateConfig) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ModuleNotFoundError as e:
            raise UserError(f"the transformers backend needs {e.name}: pip install 'microcoder[train]' "
                            "(torch==2.13.0, transformers)") from e
        self.config = config
        self.torch = torch
        if not Path(config.model).exists():
            raise UserError(f"model {config.model!r} is not a local folder; the transformers backend loads "
                            "save_pretrained() folders (download the model first)")
        self.tokenizer = AutoTokenizer.from_pretrained(config.tokenizer or config.model)
        dtype = "auto" if config.dtype == "auto" else getattr(torch, config.dtype)
        self.model = AutoModelForCausalLM.from_pretrained(config.model, dtype=dtype)
        self.device = _pick_device(torch, config.device)
        self.model.to(self.device)
        self.model.eval()
        self.eos_ids = _eos_ids(self.model, self.tokenizer)
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (self.eos_ids[0] if self.eos_ids else None)

    def generate(self, requests: Sequence[SampleRequest]) -> Iterator[Completion]:
        cfg = self.config
        # requests arrive grouped by problem; keep the prompt for consecutive samples of one problem
        for _, group in groupby(requests, key=lambda r: r.question_id):
            reqs = list(group)
            prompt = render_prompt(self.tokenizer, reqs[0].messages, cfg.chat_template, cfg.thinking_flag)
            think_open = opens_thinking(prompt)
            enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(self.device)
            for start in range(0, len(reqs), cfg.batch_size):
                batch = reqs[start:start + cfg.batch_size]
                yield from self._batch(enc, batch, think_open)

    def _batch(self, enc: Any, batch: list[SampleRequest], think_open: bool) -> Iterator[Completion]:
        cfg, torch = self.config, self.torch
        if batch[0].seed is not None:
            torch.manual_seed(batch[0].seed)
        sampling = cfg.temperature > 0
        # greedy decoding gives every sample the same text: decode once, hand it to each sample
        kwargs: dict[str, Any] = {"max_new_tokens": cfg.max_tokens, "num_return_sequences": len(batch) if sampling else 1,
                                  "do_sample": sampling, "pad_token_id": self.pad_id}
        if sampling:
            kwargs.update(temperature=cfg.temperature, top_p=cfg.top_p, top_k=0)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        if self.eos_ids:
            kwargs["eos_token_id"] = self.eos_ids
        with torch.no_grad():
            out = self.model.generate(**enc, **kwargs)
        new = out[:, enc["input_ids"].shape[1]:]
        rows = list(new) if sampling else [new[0]] * len(batch)
        for req, ids in zip(batch, rows):
            ids = ids.tolist()
            stop = next((i for i, t in enumerate(ids) if t in self.eos_ids), None)
            kept = ids if stop is None else ids[:stop]
            text = self.tokenizer.decode(kept, skip_special_tokens=True)
            reason = "length" if stop is None else "stop"
            yield Completion(req.question_id, req.sample_index, text, reason,
                             len(kept) + (stop is not None), None, think_open)

    def close(self) -> None:
        self.model = None


def _pick_device(torch: Any, device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"device {device!r} requested but CUDA is not available; use --device cpu")
    return device


def _eos_ids(model: Any, tokenizer: Any) -> list[int]:
    ids = getattr(model.generation_config, "eos_token_id", None)
    if ids is None:
        ids = tokenizer.eos_token_id
    if ids is None:
        return []
    return list(ids) if isinstance(ids, (list, tuple)) else [int(ids)]
