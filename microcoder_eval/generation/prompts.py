"""LiveCodeBench generation prompts for chat models, chat-template rendering, thinking tags.

Wording follows LiveCodeBench's ``lcb_runner/prompts/code_generation.py`` (2025 revision, the one
used for the v5/v6 windows): a system message, then the question, then either the starter code
in a python fence or the read-stdin/write-stdout instruction, and the answer in a python fence.

Styles:

- ``lcb``: LCB's ``OpenAIChat`` style (system message + ``### Question:`` user message). Default.
- ``lcb_user``: LCB's ``OpenAIReason`` style: the same text as a single user message (for models
  whose chat template has no system role).
- ``qwq``: the single user message of Qwen's published QwQ/Qwen3 LiveCodeBench harness
  (``QwenLM/QwQ`` ``eval/data/livecodebench_v5.jsonl``); byte-identical to its 279 prompts.
"""
from __future__ import annotations

from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.extraction import strip_thinking
from microcoder_eval.problem import Problem

SYSTEM_MESSAGE = ("You are an expert Python programmer. You will be given a question (problem specification) "
                  "and will generate a correct Python program that matches the specification and passes all tests.")
TASK_SENTENCE = ("You will be given a question (problem specification) and will generate a correct Python "
                 "program that matches the specification and passes all tests.")
WITH_STARTER_CODE = ("You will use the following starter code to write the solution to the problem and "
                     "enclose your code within delimiters.")
WITHOUT_STARTER_CODE = ("Read the inputs from stdin solve the problem and write the answer to stdout (do not "
                        "directly test on the sample inputs). Enclose your code within delimiters as follows. "
                        "Ensure that when the python program runs, it reads the inputs, runs the algorithm and "
                        "writes output to STDOUT.")
PROMPT_STYLES = ("lcb", "lcb_user", "qwq")
Messages = list[dict[str, str]]


def _format_block(problem: Problem) -> tuple[str, str]:
    """(instruction, fenced code) for the problem's answer format."""
    if problem.starter_code:
        return WITH_STARTER_CODE, f"```python\n{problem.starter_code}\n```\n\n"
    return WITHOUT_STARTER_CODE, "```python\n# YOUR CODE HERE\n```\n\n"


def lcb_question(problem: Problem) -> str:
    """LCB's generic user turn: question, format instruction + fence, answer cue."""
    instruction, fence = _format_block(problem)
    return (f"### Question:\n{problem.question_content}\n\n### Format: {instruction}\n{fence}"
            "### Answer: (use the provided format with backticks)\n\n")


def qwq_question(problem: Problem) -> str:
    """The single user turn of Qwen's QwQ LiveCodeBench harness."""
    instruction, fence = _format_block(problem)
    return f"{TASK_SENTENCE}\n\nQuestion: {problem.question_content}\n\n{instruction}\n{fence}"


def build_messages(problem: Problem, style: str = "lcb") -> Messages:
    """Chat messages asking for a solution to ``problem`` in the given prompt style."""
    if style == "lcb":
        return [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": lcb_question(problem)}]
    if style == "lcb_user":
        return [{"role": "user", "content": f"{SYSTEM_MESSAGE}\n\n{lcb_question(problem)}"}]
    if style == "qwq":
        return [{"role": "user", "content": qwq_question(problem)}]
    raise UserError(f"prompt style {style!r} is unknown; choose one of {', '.join(PROMPT_STYLES)}")


def plain_prompt(messages: Messages) -> str:
    """Messages joined as plain text (``--chat-template none``, for base models)."""
    return "\n\n".join(m["content"].rstrip("\n") for m in messages) + "\n\n"


def load_chat_template(spec: str) -> str | None:
    """``auto`` -> None (use the tokenizer's own), ``none`` -> None too (caller renders plain text),
    otherwise the text of a Jinja template file."""
    if spec in ("auto", "none"):
        return None
    from pathlib import Path

    path = Path(spec)
    if not path.is_file():
        raise UserError(f"chat template {spec!r} is not a file; pass auto, none or a .jinja file path")
    return path.read_text()


def render_prompt(tokenizer: Any, messages: Messages, chat_template: str = "auto",
                  enable_thinking: bool | None = None) -> str:
    """Render messages to the text a local model continues.

    ``chat_template``: ``auto`` (the tokenizer's template), ``none`` (plain text) or a Jinja file.
    ``enable_thinking`` is passed to the template only when set (Qwen3 hybrid templates read it).
    """
    if chat_template == "none":
        return plain_prompt(messages)
    template = load_chat_template(chat_template)
    if template is None and not getattr(tokenizer, "chat_template", None):
        raise UserError("the tokenizer has no chat template; use an instruct/chat model, pass "
                        "--chat-template FILE.jinja, or --chat-template none for plain-text prompts")
    kwargs: dict[str, Any] = {}
    if template is not None:
        kwargs["chat_template"] = template
    if enable_thinking is not None:
        kwargs["enable_thinking"] = enable_thinking
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)


def opens_thinking(prompt: str) -> bool:
    """True when the rendered prompt itself opens a ``<think>`` block (e.g. Qwen3-Thinking-2507)."""
    tail = prompt.rstrip()
    return tail.endswith("<think>")


def apply_thinking_policy(text: str, policy: str, reasoning: str | None = None,
                          think_open: bool = False) -> str:
    """Final completion text under ``policy`` ``keep`` or ``strip``.

    ``reasoning``: reasoning a server returned separately (``reasoning_content``); ``keep`` puts it
    back in front as a ``<think>`` block, ``strip`` drops it. ``think_open``: the prompt opened
    ``<think>``, so text without ``</think>`` is reasoning only.
    """
    if policy == "keep":
        return f"<think>\n{reasoning}\n</think>\n\n{text}" if reasoning else text
    if policy != "strip":
        raise UserError(f"thinking policy {policy!r} is unknown; use keep or strip")
    if think_open and "</think>" not in text:
        return ""  # the completion never left the reasoning block (truncated)
    out = strip_thinking(text)
    if out.lstrip().lower().startswith("<think>"):
        return ""  # an unclosed block: reasoning only
    return out.lstrip("\n")
