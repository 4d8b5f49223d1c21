"""Trusted output comparison, run in the parent process only.

Flexible mode is an explicit cascade; the first rule that accepts names the verdict:

stdin programs
  ``exact``       byte-identical output
  ``whitespace``  equal after stripping each line and dropping leading/trailing blank lines
  ``tokens``      equal whitespace-separated token sequences (line breaks may differ)
  ``numeric``     same token count; every token equal as text, or both numbers with integers
                  compared exactly at any size and floats within abs OR rel ``float_tol``
  per-problem options add ``case_insensitive``, ``unordered_lines``, ``unordered_tokens``.

functional calls (values decoded from the sandbox's tagged JSON)
  ``exact``          same value and same container/number types
  ``type_coercion``  equal after tuple->list (any depth), set vs list as a set,
                     int-valued float <-> int, bool <-> 0/1
  ``numeric``        as ``type_coercion`` with floats within abs OR rel ``float_tol``

``lcb`` mode reproduces LiveCodeBench's grader: stdin lines compared after ``strip``, each line
equal as text or as exact ``Decimal`` tokens; functional top-level tuple -> list, then ``==``.
Every rejection returns ``(False, reason)``: nothing loosens silently.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from microcoder_eval.intdigits import unlimited_int_digits
from microcoder_eval.problem import CompareOptions

_INT_RE = re.compile(r"[+-]?\d+\Z")
_TOKEN_RE = re.compile(r"\S+")
_FLOAT_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


@dataclass(frozen=True)
class Comparison:
    """Outcome of one comparison: accepted?, the deciding rule, and why it failed if not."""

    ok: bool
    rule: str | None
    reason: str = ""


# flex: an output this much longer than the expected one fails before it is split into tokens
OVERSIZE_FACTOR, OVERSIZE_SLACK = 16, 1 << 20


def _lines(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def _safe_repr(v: Any, n: int = 60) -> str:
    try:
        return _short(repr(v), n)
    except ValueError:  # int too large for str()
        return f"<int of {v.bit_length()} bits>" if isinstance(v, int) else "<unprintable>"


def _short(s: str, n: int = 60) -> str:
    return s if len(s) <= n else s[: n - 3] + "..."


def _norm_int(tok: str) -> str:
    """Canonical integer text (no int() call: no 4300-digit limit, linear time)."""
    neg = tok.startswith("-")
    digits = tok.lstrip("+-").lstrip("0") or "0"
    return ("-" if neg and digits != "0" else "") + digits


def numbers_close(got: str, want: str, tol: float) -> bool:
    """Token equality for numbers: exact for integers (any size), abs-or-rel ``tol`` for floats."""
    if got == want:
        return True
    if _INT_RE.match(want):
        if _INT_RE.match(got):
            return _norm_int(got) == _norm_int(want)
        if _FLOAT_RE.match(got):  # "3.0" for "3": only if exactly integral
            try:
                return Decimal(got) == Decimal(want)
            except InvalidOperation:
                return False
        return False
    if not (_FLOAT_RE.match(want) and _FLOAT_RE.match(got)):
        return False
    g, w = float(got), float(want)
    if math.isinf(w) or math.isinf(g):
        # beyond float range: fall back to exact decimal equality
        return Decimal(got) == Decimal(want)
    diff = abs(g - w)
    return diff <= tol or diff <= tol * abs(w)


def _token_lists_match(got: list[str], want: list[str], tol: float) -> tuple[bool, str]:
    if len(got) != len(want):
        return False, f"token count {len(got)} != expected {len(want)}"
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b and not numbers_close(a, b, tol):
            return False, f"token {i}: {_short(a)!r} != {_short(b)!r}"
    return True, ""


def _count_tokens(text: str) -> int:
    """Whitespace-separated tokens, counted in C without building them."""
    return _TOKEN_RE.subn("", text)[1]


def compare_stdout(got: str, want: str, opts: CompareOptions | None = None) -> Comparison:
    """Flexible cascade for stdin/stdout programs.

    Every rule needs the expected number of tokens, so the token count is checked first (in C,
    without building the tokens): a flood of short tokens or blank lines costs the judge no more
    than a scan of the output."""
    opts = opts or CompareOptions()
    if got == want:
        return Comparison(True, "exact")
    if len(got) > OVERSIZE_FACTOR * len(want) + OVERSIZE_SLACK:
        # no rule accepts it, and reading it would cost the judge more than the program spent
        return Comparison(False, None, f"output of {len(got)} bytes, expected {len(want)}")
    w_lines = _lines(want)
    if not w_lines and got.strip():
        return Comparison(False, None, "expected empty output, got some")
    n_got, n_want = _count_tokens(got), _count_tokens(want)
    if n_got != n_want:
        g_count = len(_lines(got)) if got.count("\n") <= 4 * len(w_lines) + 1024 else got.count("\n") + 1
        extra = f"{g_count} output lines, expected {len(w_lines)} (" if g_count != len(w_lines) else ""
        return Comparison(False, None, f"{extra}token count {n_got} != expected {n_want}" + (")" if extra else ""))
    # as many tokens as expected; lines only when their number can match (blank-line floods cannot)
    g_lines = _lines(got) if got.strip().count("\n") <= 4 * len(w_lines) + 1024 else None
    if g_lines == w_lines:
        return Comparison(True, "whitespace")
    g_tok = [t for ln in g_lines for t in ln.split()] if g_lines is not None else got.split()
    w_tok = [t for ln in w_lines for t in ln.split()]
    if g_tok == w_tok:
        return Comparison(True, "tokens")
    ok, reason = _token_lists_match(g_tok, w_tok, opts.float_tol)
    if ok:
        return Comparison(True, "numeric")
    if opts.case_insensitive:
        gl, wl = [t.lower() for t in g_tok], [t.lower() for t in w_tok]
        if _token_lists_match(gl, wl, opts.float_tol)[0]:
            return Comparison(True, "case_insensitive")
    if opts.unordered_lines and g_lines is not None:
        norm = (lambda s: s.lower()) if opts.case_insensitive else (lambda s: s)
        if Counter(" ".join(norm(ln).split()) for ln in g_lines) == Counter(
            " ".join(norm(ln).split()) for ln in w_lines
        ):
            return Comparison(True, "unordered_lines")
    if opts.unordered_tokens:
        norm = (lambda s: s.lower()) if opts.case_insensitive else (lambda s: s)
        if Counter(map(norm, g_tok)) == Counter(map(norm, w_tok)):
            return Comparison(True, "unordered_tokens")
    return Comparison(False, None, reason)


# ---------------------------------------------------------------- functional values
class Opaque:
    """A value the sandbox could not serialise; it equals nothing (defeats hostile ``__eq__``)."""

    def __init__(self, description: str) -> None:
        self.description = description

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<opaque {self.description}>"


MAX_INT_DIGITS = 200_000


def _big_int(text: str) -> int:
    """int() without the 4300-digit guard (inputs here are bounded by MAX_INT_DIGITS)."""
    try:
        return int(text)
    except ValueError:
        with unlimited_int_digits():
            return int(text)


def load_expected(text: str) -> Any:
    """json.loads for trusted expected outputs, big integers included."""
    try:
        return json.loads(text)
    except ValueError as e:
        if "digits" not in str(e):
            raise
        with unlimited_int_digits():
            return json.loads(text)


def decode_value(v: Any) -> Any:
    """Inverse of the sandbox's tagged JSON encoding."""
    if isinstance(v, list):
        return [decode_value(x) for x in v]
    if isinstance(v, dict):
        if "$tuple" in v:
            return tuple(decode_value(x) for x in v["$tuple"])
        if "$set" in v:
            items = [decode_value(x) for x in v["$set"]]
            try:
                return set(items)
            except TypeError:
                return Opaque("set of unhashable items")
        if "$dict" in v:
            out = {}
            for k, x in v["$dict"]:
                k = decode_value(k)
                try:
                    out[k] = decode_value(x)
                except TypeError:
                    return Opaque("dict with unhashable key")
            return out
        if "$int" in v:
            digits = str(v["$int"])
            if len(digits) > MAX_INT_DIGITS:
                return Opaque(f"integer with {len(digits)} digits")
            return _big_int(digits)
        if "$float" in v:
            return float(v["$float"])
        if "$opaque" in v:
            return Opaque(str(v["$opaque"]))
        return Opaque("unknown tag")
    return v


def _strict_equal(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _loose_equal(got: Any, want: Any, tol: float | None) -> bool:
    """Equality with explicit coercions; ``tol`` None means no float tolerance."""
    if isinstance(got, Opaque) or isinstance(want, Opaque):
        return False
    if isinstance(got, tuple):
        got = list(got)
    if isinstance(want, tuple):
        want = list(want)
    if isinstance(got, (set, frozenset)) and isinstance(want, list):
        if len(want) != len(got):
            return False
        try:
            return set(want) == got if tol is None else _set_match(list(got), want, tol)
        except TypeError:
            return _set_match(list(got), want, tol)
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(_loose_equal(x, y, tol) for x, y in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        if len(got) != len(want):
            return False
        # JSON keys are strings: match a returned non-str key by its str()
        gk = {(k if isinstance(k, str) else json.dumps(k) if not isinstance(k, (int, float)) else str(k)): v
              for k, v in got.items()}
        return gk.keys() == want.keys() and all(_loose_equal(gk[k], want[k], tol) for k in want)
    if isinstance(got, (int, float)) and isinstance(want, (int, float)):
        if isinstance(got, bool) != isinstance(want, bool) and not (got in (0, 1) and want in (0, 1)):
            return False
        if got == want:
            return True
        if tol is None or isinstance(want, bool):
            return False
        if isinstance(want, int) and not isinstance(want, bool) and isinstance(got, int):
            return False  # integers: exact
        if isinstance(want, int) and isinstance(got, float) and not float(got).is_integer():
            return False  # expected an integer: a fractional float is wrong whatever the tol
        g, w = float(got), float(want)
        if math.isnan(g) or math.isnan(w):
            return math.isnan(g) and math.isnan(w)
        return abs(g - w) <= tol or abs(g - w) <= tol * abs(w)
    return type(got) is type(want) and got == want


def _set_match(got: list[Any], want: list[Any], tol: float | None) -> bool:
    remaining = list(want)
    for g in got:
        for i, w in enumerate(remaining):
            if _loose_equal(g, w, tol):
                del remaining[i]
                break
        else:
            return False
    return not remaining


def compare_value(got: Any, want_json: str, opts: CompareOptions | None = None) -> Comparison:
    """Flexible cascade for a functional test's decoded return value."""
    opts = opts or CompareOptions()
    try:
        want = load_expected(want_json)
    except ValueError:
        return Comparison(False, None, f"expected output {_short(want_json)!r} is not JSON")
    if isinstance(got, Opaque):
        return Comparison(False, None, f"returned a non-data object {got.description}")
    if _strict_equal(got, want):
        return Comparison(True, "exact")
    if _loose_equal(got, want, None):
        return Comparison(True, "type_coercion")
    if _loose_equal(got, want, opts.float_tol):
        return Comparison(True, "numeric")
    if opts.case_insensitive and isinstance(got, str) and isinstance(want, str) and got.lower() == want.lower():
        return Comparison(True, "case_insensitive")
    return Comparison(False, None, f"returned {_safe_repr(got)}, expected {_short(want_json)}")


# ---------------------------------------------------------------- LiveCodeBench strict mode
def _lcb_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(tok) for tok in line.split()]
    except (InvalidOperation, ValueError):
        return None


def compare_stdout_lcb(got: str, want: str) -> Comparison:
    """LiveCodeBench's stdio rule: same line count; each line equal or equal as exact Decimals."""
    if got.strip().count("\n") != want.strip().count("\n"):  # the same verdict, without a split
        return Comparison(False, None, "Wrong answer: mismatched output length")
    g, w = _lcb_lines(got), _lcb_lines(want)
    if len(g) != len(w):
        return Comparison(False, None, "Wrong answer: mismatched output length")
    for i, (a, b) in enumerate(zip(g, w)):
        if a == b:
            continue
        if _count_tokens(a) != _count_tokens(b):  # unequal Decimal lists, without building them
            return Comparison(False, None, f"Wrong answer at output_line_idx={i}: {_short(a)} != {_short(b)}")
        da, db = _decimals(a), _decimals(b)
        if da is None or db is None or da != db:
            return Comparison(False, None, f"Wrong answer at output_line_idx={i}: {_short(a)} != {_short(b)}")
    return Comparison(True, "lcb")


def compare_value_lcb(got: Any, want_json: str) -> Comparison:
    """LiveCodeBench's call rule: top-level tuple -> list, then Python ``==``."""
    try:
        want = load_expected(want_json)
    except ValueError:
        return Comparison(False, None, "expected output is not JSON")
    if isinstance(got, tuple):
        got = list(got)
    try:
        ok = bool(got == want)
    except Exception:  # noqa: BLE001
        ok = False
    return Comparison(True, "lcb") if ok else Comparison(False, None, "Wrong Answer")
