"""LCB prompt wording, chat-template rendering, thinking policy and GenerateConfig validation."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from microcoder_eval.cli import main
from microcoder_eval.errors import UserError
from microcoder_eval.generation.config import GenerateConfig, RunConfig
from microcoder_eval.generation.prompts import (
    SYSTEM_MESSAGE,
    apply_thinking_policy,
    build_messages,
    opens_thinking,
    plain_prompt,
    render_prompt,
)
from microcoder_eval.lcb import load_problems
from microcoder_eval.problem import Problem

from conftest import REAL as _REAL  # noqa: E402

REAL = _REAL / "lcb_problems"
QWQ = REAL / "qwq_eval_livecodebench_v5_2408-2502.jsonl"
RECON = REAL / "lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "lcb_sample_problems.jsonl"


@pytest.mark.skipif(not (QWQ.exists() and RECON.exists()), reason="real LCB records not available")
def test_qwq_style_is_byte_identical_to_qwens_published_lcb_prompts():
    official: dict[str, list[str]] = {}
    for line in QWQ.open():
        rec = json.loads(line)
        official.setdefault(rec["question_id"], []).append(rec["prompt"])
    problems = load_problems(RECON)
    assert len(problems) == sum(map(len, official.values())) == 279
    mismatched = []
    for p in problems:
        msgs = build_messages(p, "qwq")
        if len(msgs) != 1 or msgs[0]["content"] not in official[p.question_id.split("#")[0]]:
            mismatched.append(p.question_id)
    assert mismatched == []
    # both branches are covered by the real data
    assert {bool(p.starter_code) for p in problems} == {True, False}


def test_lcb_style_stdin_prompt_matches_livecodebench_template():
    p = Problem("q1", question_content="Print the sum of A and B.")
    system, user = build_messages(p, "lcb")
    assert system == {"role": "system", "content": SYSTEM_MESSAGE}
    assert user["role"] == "user"
    assert user["content"] == (
        "### Question:\nPrint the sum of A and B.\n\n"
        "### Format: Read the inputs from stdin solve the problem and write the answer to stdout (do not directly "
        "test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python "
        "program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.\n"
        "```python\n# YOUR CODE HERE\n```\n\n"
        "### Answer: (use the provided format with backticks)\n\n")


def test_lcb_style_starter_code_prompt_puts_the_stub_in_a_python_fence():
    stub = "class Solution:\n    def f(self, x: int) -> int:\n        "
    p = Problem("q2", question_content="Return x.", starter_code=stub, func_name="f")
    user = build_messages(p, "lcb")[1]["content"]
    assert ("### Format: You will use the following starter code to write the solution to the problem and "
            f"enclose your code within delimiters.\n```python\n{stub}\n```\n\n") in user
    assert "stdin" not in user
    single = build_messages(p, "lcb_user")
    assert len(single) == 1 and single[0]["content"] == f"{SYSTEM_MESSAGE}\n\n{user}"


def test_unknown_prompt_style_is_a_user_error():
    with pytest.raises(UserError, match="prompt style 'chatty'"):
        build_messages(Problem("q"), "chatty")


class RecordingTokenizer:
    """Stands in for a HF tokenizer: records apply_chat_template's arguments."""

    def __init__(self, template="{{ messages }}", suffix="<|im_start|>assistant\n"):
        self.chat_template = template
        self.suffix = suffix
        self.calls = []

    def apply_chat_template(self, messages, tokenize, add_generation_prompt, **kw):
        self.calls.append({"tokenize": tokenize, "add_generation_prompt": add_generation_prompt, **kw})
        return "".join(m["content"] for m in messages) + self.suffix


def test_render_prompt_applies_the_chat_template_and_passes_enable_thinking_only_when_set():
    tok = RecordingTokenizer()
    msgs = build_messages(Problem("q", question_content="x"), "lcb")
    out = render_prompt(tok, msgs)
    assert out.endswith("<|im_start|>assistant\n")
    assert tok.calls[-1] == {"tokenize": False, "add_generation_prompt": True}
    render_prompt(tok, msgs, enable_thinking=False)
    assert tok.calls[-1]["enable_thinking"] is False
    assert plain_prompt(msgs) == render_prompt(tok, msgs, chat_template="none")


def test_render_prompt_without_any_template_is_a_clear_error(tmp_path):
    tok = RecordingTokenizer(template=None)
    msgs = [{"role": "user", "content": "hi"}]
    with pytest.raises(UserError, match="no chat template"):
        render_prompt(tok, msgs)
    jinja = tmp_path / "t.jinja"
    jinja.write_text("{{ messages[0]['content'] }}")
    render_prompt(tok, msgs, chat_template=str(jinja))
    assert tok.calls[-1]["chat_template"] == "{{ messages[0]['content'] }}"


@pytest.mark.parametrize("text, reasoning, think_open, keep, strip", [
    ("```python\nprint(1)\n```", None, False, "```python\nprint(1)\n```", "```python\nprint(1)\n```"),
    ("<think>try ```python\nx\n```</think>\n\nanswer", None, False,
     "<think>try ```python\nx\n```</think>\n\nanswer", "answer"),
    ("reasoning only</think>\n\nanswer", None, True, "reasoning only</think>\n\nanswer", "answer"),
    ("still thinking, cut off", None, True, "still thinking, cut off", ""),
    ("<think>unclosed and cut off", None, False, "<think>unclosed and cut off", ""),
    ("answer", "I thought", False, "<think>\nI thought\n</think>\n\nanswer", "answer"),
])
def test_thinking_policy(text, reasoning, think_open, keep, strip):
    assert apply_thinking_policy(text, "keep", reasoning, think_open) == keep
    assert apply_thinking_policy(text, "strip", reasoning, think_open) == strip


def test_opens_thinking_detects_a_prompt_that_ends_inside_think():
    assert opens_thinking("<|im_start|>assistant\n<think>\n")
    assert not opens_thinking("<|im_start|>assistant\n<think>\n\n</think>\n\n")


@pytest.mark.parametrize("kwargs, message", [
    ({"model": ""}, "--model is required"),
    ({"backend": "tgi"}, "backend 'tgi' is unknown"),
    ({"n": 0}, "n=0 must be >= 1"),
    ({"top_p": 0}, "top_p=0 must be in"),
    ({"temperature": -1}, "temperature=-1 must be in"),
    ({"thinking": "hide"}, "thinking 'hide'"),
    ({"enable_thinking": "maybe"}, "enable_thinking 'maybe'"),
    ({"seed": -5}, "seed=-5"),
    ({"chat_template": "missing.jinja"}, "is not a file"),
    ({"api": "responses"}, "api 'responses'"),
])
def test_generate_config_rejects_bad_values_with_a_reason(kwargs, message):
    with pytest.raises(UserError, match=message):
        GenerateConfig(**{"model": "m", **kwargs})


def test_generate_config_seeds_and_thinking_flag():
    cfg = GenerateConfig(model="m", seed=7, enable_thinking="False")
    assert [cfg.sample_seed(i) for i in range(3)] == [7, 8, 9]
    assert cfg.thinking_flag is False
    unseeded = GenerateConfig(model="m", seed=-1)
    assert unseeded.sample_seed(3) is None and unseeded.thinking_flag is None


def test_run_config_validates_ks_and_leaderboard_name():
    assert RunConfig(ks="10, 1,5").k_values == [1, 5, 10]
    with pytest.raises(UserError, match="comma-separated integers"):
        RunConfig(ks="1,x")
    with pytest.raises(UserError, match="leaderboard name"):
        RunConfig(leaderboard_name="../evil")


def test_cli_bad_input_exits_2_with_one_line(capsys):
    assert main(["generate", "--problems", str(SAMPLE), "--backend", "openai"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--model is required" in err[0]
    assert main(["generate", "--problems", "nope.jsonl", "--model", "m"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["generate", "--problems", str(SAMPLE), "--model", "m", "--start-date", "2030-01-01"]) == 2
    assert "no problems left" in capsys.readouterr().err


def test_cli_and_generation_modules_do_not_import_torch_or_vllm():
    import subprocess
    import sys

    code = ("import sys, microcoder_eval.cli as c; c.build_parser(); "
            "import microcoder_eval.generation.runner, microcoder_eval.generation.run; "
            "print(sorted(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
