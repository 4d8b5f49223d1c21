"""vLLM generation throughput of the ``vllm`` backend, on a randomly initialised real architecture.

Needs a CUDA GPU and ``pip install 'microcoder[vllm]'``; nothing is downloaded. The script

1. builds a model folder from a published architecture config (Qwen3-0.6B or Qwen3-1.7B sizes,
   random weights, bf16) and a word-level tokenizer whose vocabulary has exactly the model's
   151,936 ids (so every sampled id decodes), with a Qwen-style chat template;
2. renders LiveCodeBench prompts of the shipped sample problems through microcoder's
   ``VLLMBackend`` (chat template, one request per sample, per-sample seeds);
3. times (a) all samples in one batched ``generate`` and (b) the same kind of requests one at a
   time (vLLM without batching), and prints generated tokens/s of both and their ratio.

A random model almost never samples EOS, so completions run to ``--max-tokens``: the numbers are
decode throughput at that length, not a quality measurement.

    python benchmarks/vllm_throughput.py --arch qwen3-0.6b --samples 256 --max-tokens 512
    python benchmarks/vllm_throughput.py --arch tiny --build-only   # CPU: check the model folder only
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Sizes from the published config.json files of Qwen/Qwen3-0.6B and Qwen/Qwen3-1.7B.
ARCHS = {
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                       num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
    "qwen3-1.7b": dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
                       num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
    "tiny": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=16, tie_word_embeddings=True),
}
VOCAB_SIZE = 151936
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<unk>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_tokenizer():
    """Word-level tokenizer: ids 0..VOCAB_SIZE-7 are 'w<i>', the last six ids are the special tokens."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = VOCAB_SIZE - len(SPECIALS)
    vocab = {f"w{i}": i for i in range(words)}
    vocab.update({tok: words + k for k, tok in enumerate(SPECIALS)})
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>",
                                   additional_special_tokens=["<|im_start|>", "<think>", "</think>"])
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model_dir(arch: str, out: Path, device: str) -> Path:
    """Write a random-weight Qwen3 model of ``arch`` sizes plus the tokenizer into ``out``."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    tok = build_tokenizer()
    assert len(tok) == VOCAB_SIZE, len(tok)
    config = Qwen3Config(vocab_size=VOCAB_SIZE, max_position_embeddings=40960, rope_theta=1_000_000.0,
                         rms_norm_eps=1e-6, bos_token_id=None, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id, dtype="bfloat16", **ARCHS[arch])
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen3ForCausalLM(config).to(torch.bfloat16)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def timed(backend, requests) -> tuple[float, int]:
    start = time.perf_counter()
    tokens = sum(c.completion_tokens or 0 for c in backend.generate(requests))
    return time.perf_counter() - start, tokens


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=sorted(ARCHS), default="qwen3-0.6b")
    ap.add_argument("--samples", type=int, default=256, help="samples in the batched run")
    ap.add_argument("--sequential", type=int, default=8, help="samples in the one-at-a-time run")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--gpu-memory-utilization", type=float, default=0.5)
    ap.add_argument("--enforce-eager", action="store_true", help="skip CUDA graphs (faster start, slower decode)")
    ap.add_argument("--build-only", action="store_true", help="build and load-check the model folder, no vLLM")
    ap.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)

    from microcoder_eval.generation.config import DEFAULT_PROBLEMS, GenerateConfig
    from microcoder_eval.generation.runner import plan
    from microcoder_eval.lcb import load_problems

    with tempfile.TemporaryDirectory(prefix="mc-vllm-bench-") as tmp:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        t0 = time.perf_counter()
        model_dir = build_model_dir(args.arch, Path(tmp) / args.arch, device)
        print(f"built random {args.arch} in {time.perf_counter() - t0:.1f}s at {model_dir}", flush=True)
        problems = load_problems(DEFAULT_PROBLEMS)
        if args.build_only:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tok = AutoTokenizer.from_pretrained(model_dir)
            model = AutoModelForCausalLM.from_pretrained(model_dir)
            n_params = sum(p.numel() for p in model.parameters())
            from microcoder_eval.generation.prompts import build_messages, render_prompt

            prompt = render_prompt(tok, build_messages(problems[0], "lcb"))
            print(f"ok: {n_params / 1e6:.1f}M parameters, vocab {len(tok)}, prompt of "
                  f"{len(tok(prompt)['input_ids'])} tokens")
            return 0

        from microcoder_eval.generation.vllm_backend import VLLMBackend

        n = max(1, -(-args.samples // len(problems)))  # samples per problem to reach --samples
        cfg = GenerateConfig(model=str(model_dir), backend="vllm", n=n, temperature=1.0, top_p=1.0,
                             max_tokens=args.max_tokens, seed=0, dtype="bfloat16", max_model_len=4096,
                             gpu_memory_utilization=args.gpu_memory_utilization, chunk_size=10**6)
        t0 = time.perf_counter()
        import vllm

        llm = vllm.LLM(model=str(model_dir), dtype="bfloat16", seed=0, max_model_len=4096,
                       gpu_memory_utilization=args.gpu_memory_utilization, enforce_eager=args.enforce_eager,
                       enable_prefix_caching=True)
        backend = VLLMBackend(cfg, llm=llm)
        print(f"vLLM {vllm.__version__} engine up in {time.perf_counter() - t0:.1f}s", flush=True)
        requests = plan(cfg, problems, set())[:args.samples]
        timed(backend, requests[:4])  # warm-up (compilation, first prefill)
        batched_s, batched_tok = timed(backend, requests)
        seq_s, seq_tok = 0.0, 0
        for req in requests[:args.sequential]:
            s, t = timed(backend, [req])
            seq_s, seq_tok = seq_s + s, seq_tok + t
        batched_tps, seq_tps = batched_tok / batched_s, seq_tok / seq_s
        figures = {"arch": args.arch, "gpu": torch.cuda.get_device_name(0), "vllm": vllm.__version__,
                   "max_tokens": args.max_tokens, "batched_samples": len(requests), "batched_tokens": batched_tok,
                   "batched_s": round(batched_s, 2), "batched_tok_per_s": round(batched_tps, 1),
                   "sequential_samples": args.sequential, "sequential_tok_per_s": round(seq_tps, 1),
                   "ratio_batched_over_sequential": round(batched_tps / seq_tps, 2)}
        print(f"batched:    {len(requests)} samples, {batched_tok} tokens in {batched_s:.2f}s = "
              f"{batched_tps:,.0f} tok/s ({len(requests) / batched_s:.1f} samples/s)")
        print(f"sequential: {args.sequential} samples, {seq_tok} tokens in {seq_s:.2f}s = {seq_tps:,.0f} tok/s")
        print(f"ratio batched/sequential: {batched_tps / seq_tps:.1f}x")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
