"""A tiny randomly initialised Qwen3 model and a locally trained BPE tokenizer (no hub).

Used by the tests, the benchmark and the README smoke run: ``python -m microcoder_train.tiny OUT``
writes a model folder that ``microcoder-train --model OUT`` loads like any hub checkpoint.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

# A minimal chat template: a user turn, then the assistant turn the model continues.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

_CORPUS = [
    "Write a Python program that reads two integers from stdin and prints their sum.",
    "```python\nimport sys\na, b = map(int, sys.stdin.read().split())\nprint(a + b)\n```",
    "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        return []\n",
    "def solve():\n    n = int(input())\n    for i in range(n):\n        print(i * i)\n",
    "Read the input from stdin, solve the problem and write the answer to stdout.",
    "You are given an array of integers. Return the maximum sum of a contiguous subarray.",
]


def build_tokenizer(vocab_size: int = 512):
    """Train a byte-level BPE tokenizer on a small built-in code corpus; returns a fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(tokenizer, hidden_size: int = 64, num_layers: int = 2, seed: int = 0):
    """A randomly initialised Qwen3 causal LM sized for CPU tests."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=hidden_size // 4,
        max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=False,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model


# ---- a toy task a tiny random model can learn from the evaluator reward --------------------------
# The byte-level tokenizer above needs ~8 exact tokens in a row to write a fence, so a random
# policy never earns a reward. With a tokenizer whose tokens are whole lines, a solution is three
# tokens (fence, one line of code, fence) and a random policy passes a few percent of the time.
TOY_TASKS = {  # name -> (statement, [(stdin, expected stdout)], difficulty)
    "add": ("Add the two integers on the input line.", [("2 3\n", "5\n"), ("10 -4\n", "6\n"), ("0 0\n", "0\n")],
            "easy"),
    "mul": ("Multiply the two integers on the input line.",
            [("2 3\n", "6\n"), ("10 -4\n", "-40\n"), ("7 1\n", "7\n")], "medium"),
}
TOY_LINES = [
    "```python\n",
    "```\n",
    "print(sum(map(int, input().split())))\n",  # solves "add"
    "a, b = map(int, input().split()); print(a + b)\n",  # solves "add"
    "print(eval(input().replace(' ', '+')))\n",  # solves "add"
    "a, b = map(int, input().split()); print(a * b)\n",  # solves "mul"
    "print(0)\n",
]
# One turn per message, no role names: the prompt is <|im_start|>STATEMENT<|im_end|><|im_start|>.
LINE_CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['content'] }}<|im_end|>{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>{% endif %}"
)


def build_line_tokenizer(lines: list[str] | None = None, tasks: tuple[str, ...] = ()):
    """A word-level tokenizer whose tokens are whole lines (``TOY_LINES`` by default) plus the
    statements of ``tasks`` (so prompts can be told apart); anything else is ``<unk>``. Decoding
    concatenates. The vocabulary is tiny, so a random policy writes a fenced solution a few % of the time."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab: dict[str, int] = {}
    for t in [*SPECIAL_TOKENS, "<unk>", *(TOY_TASKS[n][0] for n in tasks),
              *(lines if lines is not None else TOY_LINES)]:
        vocab.setdefault(t, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[^\n]*\n|[^\n]+"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   unk_token="<unk>", additional_special_tokens=["<|im_start|>"])
    fast.chat_template = LINE_CHAT_TEMPLATE
    return fast


def toy_dataset(tasks: tuple[str, ...] = ("add",), copies: int = 8):
    """Rows ``{prompt, tests, question_id, difficulty}`` for the toy tasks (the evaluator reward reads them)."""
    import json

    from datasets import Dataset

    rows = []
    for _ in range(copies):
        for name in tasks:
            text, tests, difficulty = TOY_TASKS[name]
            rows.append({"prompt": [{"role": "user", "content": text}], "question_id": f"toy_{name}",
                         "difficulty": difficulty,
                         "tests": json.dumps([{"input": i, "output": o} for i, o in tests])})
    return Dataset.from_list(rows)


def save_tiny_model(out: str | Path, hidden_size: int = 64, num_layers: int = 2, seed: int = 0) -> Path:
    """Write a tiny model + tokenizer folder loadable with ``from_pretrained(out)``."""
    out = Path(out)
    tok = build_tokenizer()
    model = build_model(tok, hidden_size=hidden_size, num_layers=num_layers, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m microcoder_train.tiny", description=__doc__.splitlines()[0])
    p.add_argument("out", help="folder to write the model and tokenizer into")
    p.add_argument("--hidden-size", type=int, default=64)
    p.add_argument("--num-layers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    path = save_tiny_model(a.out, a.hidden_size, a.num_layers, a.seed)
    print(f"wrote tiny Qwen3 model and tokenizer to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
