"""Pull the answer code out of a raw model completion.

Default rule: drop ``<think>…</think>`` reasoning, then take the LAST complete fenced block
(```python, ```py, ```python3, ```Python or a bare ```); a block whose closing fence is missing
(a truncated completion) does not count. ``lcb`` mode reproduces LiveCodeBench: the text between
the last two lines that contain ``` (nothing if fewer than two such lines).
"""
from __future__ import annotations

import re

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_PY_LANGS = {"", "python", "py", "python3", "py3"}
_FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$")


def strip_thinking(text: str) -> str:
    """Remove reasoning: closed ``<think>`` blocks, text before a lone ``</think>`` (templates
    that open the tag in the prompt), and everything after an unclosed ``<think>`` (a
    completion cut off while still reasoning has no answer)."""
    text = _THINK_RE.sub("", text)
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    lower = text.lower()
    if "<think>" in lower:
        text = text[: lower.index("<think>")]
    return text


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All complete fenced blocks as ``(language, code)`` in order of appearance."""
    blocks: list[tuple[str, str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        body: list[str] = []
        j = i + 1
        closed = False
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                closed = True
                break
            body.append(lines[j])
            j += 1
        if not closed:
            break  # truncated block: not an answer
        blocks.append((lang, "\n".join(body)))
        i = j + 1
    return blocks


def extract_code(text: str | None, mode: str = "flex") -> str | None:
    """Return the answer code, or ``None`` when the completion holds no usable code block."""
    if not text:
        return None
    if mode == "lcb":
        return extract_code_lcb(text)
    blocks = [code for lang, code in fenced_blocks(strip_thinking(text)) if lang in _PY_LANGS]
    for code in reversed(blocks):
        if code.strip():
            return code
    return None


def extract_code_lcb(text: str) -> str | None:
    """LiveCodeBench's rule: code between the last two lines containing ```."""
    lines = text.split("\n")
    idx = [i for i, line in enumerate(lines) if "```" in line]
    if len(idx) < 2:
        return None
    code = "\n".join(lines[idx[-2] + 1 : idx[-1]])
    return code if code.strip() else None
