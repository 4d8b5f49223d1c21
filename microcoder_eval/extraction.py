"""Pull the answer code out of a raw model completion.

Default rule: drop ``<think>…</think>`` reasoning, then collect every complete fenced block. A
fence opens at the start of a line (```python, ```py, ```python3, ```Python, a bare ``` or
~~~) or, as LiveCodeBench's extractor also finds it, at the end of a line of prose
(``Assistant: ```python`` in completions that echo their prompt). A block whose closing fence is
missing (a truncated completion) does not count. Of several blocks the best candidate wins: the
last block labelled Python that parses and holds a statement (not only comments, such as the
prompt's ``# YOUR CODE HERE`` placeholder), then earlier ones, then bare-fenced blocks the same
way (a bare block after the answer is usually sample output), and when nothing parses the last
non-empty block (so the verdict shows the syntax error). ``lcb`` mode reproduces LiveCodeBench:
the text between the last two lines that contain ``` (nothing if fewer than two such lines).
"""
from __future__ import annotations

import ast
import re
import warnings

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_PY_LANGS = {"", "python", "py", "python3", "py3"}
# a fence line: the fence (and an optional language) alone on its line ...
_FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$")
# ... or a backtick fence (its language right after it) ending a line of prose that holds no
# other backticks: "Assistant: ```python", but not "use ``` fences" or "a ```b``` c"
_MIDLINE_FENCE_RE = re.compile(r"^[^`\n]*?[^`\s][^`\n]*?(`{3,})([\w+#.-]*)[ \t]*$")


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


def _opening_fence(line: str) -> tuple[str, str] | None:
    m = _FENCE_RE.match(line) or _MIDLINE_FENCE_RE.match(line)
    return (m.group(1), m.group(2).lower()) if m else None


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All complete fenced blocks as ``(language, code)`` in order of appearance."""
    blocks: list[tuple[str, str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opened = _opening_fence(lines[i])
        if opened is None:
            i += 1
            continue
        fence, lang = opened
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


def _has_statement(code: str) -> bool | None:
    """True: parses and holds a statement; False: parses but is empty (comments only);
    None: not valid Python."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences in the candidate
            return bool(ast.parse(code).body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def best_candidate(blocks: list[tuple[str, str]]) -> str | None:
    """The answer among complete ``(language, code)`` blocks (see the module docstring)."""
    python = [code for lang, code in blocks if lang in _PY_LANGS]
    if not python:
        return None
    labelled = [code for lang, code in blocks if lang in _PY_LANGS and lang]
    bare = [code for lang, code in blocks if lang == ""]
    for group in (labelled, bare):
        for code in reversed(group):
            if _has_statement(code):
                return code
    for code in reversed(python):
        if _has_statement(code) is None and code.strip():
            return code  # nothing parses: the last attempt, judged as the syntax error it is
    return None


def extract_code(text: str | None, mode: str = "flex") -> str | None:
    """Return the answer code, or ``None`` when the completion holds no usable code block."""
    if not text:
        return None
    if mode == "lcb":
        return extract_code_lcb(text)
    return best_candidate(fenced_blocks(strip_thinking(text)))


def extract_code_lcb(text: str) -> str | None:
    """LiveCodeBench's rule: code between the last two lines containing ```."""
    lines = text.split("\n")
    idx = [i for i, line in enumerate(lines) if "```" in line]
    if len(idx) < 2:
        return None
    code = "\n".join(lines[idx[-2] + 1 : idx[-1]])
    return code if code.strip() else None
