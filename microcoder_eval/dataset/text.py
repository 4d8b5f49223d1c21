"""Text helpers: strip prompt wrappers, find starter code / function names, normalise, n-grams."""
from __future__ import annotations

import hashlib
import re
import unicodedata

# Prompt wrappers that real training sets put around the statement (prefix, suffix markers).
_PREFIXES = (
    "Solve the following coding problem using the programming language python:",  # PrimeIntellect
    "Please solve the programming task below using a self-contained code snippet in a markdown code block.",
    "You are an expert Python programmer. You will be given a question (problem specification) and will "
    "generate a correct Python program that matches the specification and passes all tests.",  # LCB / verl
    "You will be given a question (problem specification) and will generate a correct Python program "
    "that matches the specification and passes all tests.",
    "QUESTION:",  # TACO generation prompt
)
_SUFFIX_MARKERS = (
    "### Format:",  # LCB prompt tail (starter code / stdin instruction)
    "Please complete the following python code precisely:",  # LeetCodeDataset
    "The input will be stdin and you should print your solution to stdout",  # PrimeIntellect
    "The input will be given via stdin and the output should be printed to stdout",
    "Now solve the problem and return the code.",
)
_FENCE_RE = re.compile(r"```(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL)
_DEF_RE = re.compile(r"^[ \t]*def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.MULTILINE)
_CLASS_RE = re.compile(r"^class[ \t]+Solution\b", re.MULTILINE)
_WORD_RE = re.compile(r"[0-9a-z]+")


def split_prompt(text: str) -> tuple[str, str]:
    """Return ``(statement, starter_code)`` from a prompt that may wrap the statement.

    Known prefixes are removed; the tail from the first known suffix marker is cut off, and a
    python fence inside that tail other than ``# YOUR CODE HERE`` becomes the starter code.
    """
    s = text.strip()
    changed = True
    while changed:
        changed = False
        for p in _PREFIXES:
            if s.startswith(p):
                s = s[len(p):].lstrip()
                changed = True
    if s.startswith("Question:"):
        s = s[len("Question:"):].lstrip()
    cut = min((i for i in (s.find(m) for m in _SUFFIX_MARKERS) if i >= 0), default=-1)
    starter = ""
    if cut >= 0:
        tail = s[cut:]
        s = s[:cut]
        for block in _FENCE_RE.findall(tail):
            if block.strip() and "YOUR CODE HERE" not in block:
                starter = block.rstrip() + "\n"
                break
    return s.strip(), starter


def func_name_from_code(code: str) -> str | None:
    """The method of ``class Solution`` (or the first top-level function) a starter stub defines."""
    if not code:
        return None
    m = _CLASS_RE.search(code)
    if m:
        inner = _DEF_RE.search(code, m.end())
        if inner and inner.group(1) != "__init__":
            return inner.group(1)
    top = re.search(r"^def[ \t]+([A-Za-z_]\w*)[ \t]*\(", code, re.MULTILINE)
    return top.group(1) if top else None


def normalize(text: str) -> str:
    """Lower-case alphanumeric words joined by single spaces (markup, LaTeX ``$``, punctuation go)."""
    text = unicodedata.normalize("NFKC", text).lower().replace("_", "")
    return " ".join(_WORD_RE.findall(text))


def statement_hash(text: str) -> str:
    """Exact-duplicate key of a statement: sha256 of its normalised words."""
    return hashlib.sha256(normalize(text).encode()).hexdigest()


def word_ngrams(words: list[str], n: int) -> set[str]:
    """Distinct word n-grams; a text shorter than ``n`` words is one gram (itself)."""
    if not words:
        return set()
    if len(words) < n:
        return {" ".join(words)}
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


# ---------------------------------------------------------------- what tells two similar statements apart
_VERSION_RE = re.compile(r"\bthis is (?:the|an?) (\w+) version\b|\((\w+) version\)", re.IGNORECASE)
_VERSION_WORDS = {"easier": "easy", "harder": "hard"}
# an upper bound: "≤ X", "<= X", "\le X", "\leq X", "< X", "at most X", "does not exceed X", ...
_BOUND_RE = re.compile(r"(?:≤|<=|&le;|\\leq?(?![a-z])|\\lt(?![a-z])|<|\bat most|\bnot exceed|\bdoes not exceed"
                       r"|\bno more than|\bup to)\s*", re.IGNORECASE)
_LATEX_NOISE_RE = re.compile(r"^(?:\$|\{|\\mathbf|\\mathrm|\\text|\\bf|\s)+")
_VALUE_RE = re.compile(r"(?P<a>\d+(?:(?:\\,|\\ |[ ,'’ ])\d{3})*)(?!\d)"
                       r"(?:\s*\^\s*\{?\s*(?P<ae>\d+)\s*\}?)?"
                       r"(?:\s*(?:\\cdot|\\times|·|×|\*|⋅)\s*(?P<b>\d+)\s*\^\s*\{?\s*(?P<be>\d+)\s*\}?)?")


def version_labels(text: str) -> frozenset[str]:
    """Versions a statement or title declares: "This is the hard version ..." / "... (Easy Version)"."""
    out = set()
    for m in _VERSION_RE.finditer(text):
        word = (m.group(1) or m.group(2)).lower()
        out.add(_VERSION_WORDS.get(word, word))
    return frozenset(out)


def _value(m: re.Match) -> int | None:
    try:
        a = int(re.sub(r"\D", "", m.group("a")))
        if m.group("ae"):
            if int(m.group("ae")) > 64:
                return None
            a **= int(m.group("ae"))
        if m.group("b"):
            if int(m.group("be")) > 64:
                return None
            a *= int(m.group("b")) ** int(m.group("be"))
        return a
    except ValueError:
        return None


def constraint_bounds(text: str) -> frozenset[int]:
    """Numeric upper bounds a statement states (``n ≤ 2·10^5``, ``$k \\le 10^{12}$``, ``at most 7``),
    as integers, so ``2 \\cdot 10^5``, ``2·10^5`` and ``200 000`` agree."""
    text = unicodedata.normalize("NFKC", text)
    out = set()
    for op in _BOUND_RE.finditer(text):
        rest = text[op.end():op.end() + 60]
        rest = _LATEX_NOISE_RE.sub("", rest)
        m = _VALUE_RE.match(rest)
        if m:
            v = _value(m)
            if v is not None:
                out.add(v)
    return frozenset(out)
