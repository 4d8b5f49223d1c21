"""The transformers backend with a tiny random Qwen3 model and a locally trained tokenizer (no hub)."""
from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from microcoder_eval.cli import main  # noqa: E402
from microcoder_eval.generation.prompts import build_messages, render_prompt  # noqa: E402
from microcoder_eval.generation.store import read_completions  # noqa: E402
from microcoder_eval.lcb import load_problems  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "lcb_sample_problems.jsonl"

# Qwen3-style: honours enable_thinking=False with an empty think block, like the real template.
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    corpus = [p.question_content for p in load_problems(SAMPLE)] + [
        "```python\nimport sys\nprint(sum(map(int, sys.stdin.read().split())))\n```",
        "class Solution:\n    def solve(self, nums: List[int]) -> int:\n        return max(nums)\n"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = TEMPLATE
    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=4096,
                         pad_token_id=fast.pad_token_id, eos_token_id=fast.eos_token_id, bos_token_id=None)
    model = Qwen3ForCausalLM(config)
    out = tmp_path_factory.mktemp("tiny_qwen3")
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out


def args(model: Path, out: Path, *extra: str) -> list[str]:
    return ["generate", "--problems", str(SAMPLE), "--backend", "transformers", "--model", str(model),
            "--out", str(out), "--no-progress", "--device", "cpu", "--limit", "2", "--max-tokens", "6", *extra]


def test_generate_with_a_tiny_random_model_writes_every_sample(tiny_model, tmp_path):
    out = tmp_path / "c.jsonl"
    assert main(args(tiny_model, out, "-n", "3", "--batch-size", "2", "--temperature", "1.0")) == 0
    recs = read_completions(out)
    qids = [p.question_id for p in load_problems(SAMPLE)[:2]]
    assert sorted((r["question_id"], r["sample_index"]) for r in recs) == sorted((q, i) for q in qids for i in range(3))
    for r in recs:
        assert isinstance(r["completion"], str) and r["model"] == str(tiny_model)
        assert r["finish_reason"] in ("stop", "length") and 1 <= r["completion_tokens"] <= 6
        assert r["finish_reason"] == "stop" or r["completion_tokens"] == 6


def test_same_seed_reproduces_samples_and_greedy_samples_agree(tiny_model, tmp_path):
    a, b, g = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "g.jsonl"
    for out in (a, b):
        assert main(args(tiny_model, out, "-n", "2", "--temperature", "1.0", "--seed", "3")) == 0
    key = lambda r: (r["question_id"], r["sample_index"])  # noqa: E731
    assert sorted(read_completions(a), key=key) == sorted(read_completions(b), key=key)
    assert main(args(tiny_model, g, "-n", "2", "--temperature", "0")) == 0
    by_q: dict[str, set[str]] = {}
    for r in read_completions(g):
        by_q.setdefault(r["question_id"], set()).add(r["completion"])
    assert all(len(v) == 1 for v in by_q.values())


def test_chat_template_and_enable_thinking_reach_the_local_tokenizer(tiny_model):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model)
    msgs = build_messages(load_problems(SAMPLE)[0], "lcb")
    default = render_prompt(tok, msgs)
    assert default.startswith("<|im_start|>system\nYou are an expert Python programmer.")
    assert default.endswith("<|im_start|>assistant\n")
    assert render_prompt(tok, msgs, enable_thinking=False).endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_missing_model_folder_is_a_user_error(tmp_path, capsys):
    assert main(args(tmp_path / "nope", tmp_path / "c.jsonl", "-n", "1")) == 2
    assert "is not a local folder" in capsys.readouterr().err
