"""Each comparison rule, and each way a wrong output must fail."""
import pytest

from microcoder_eval.compare import (
    Opaque, compare_stdout, compare_stdout_lcb, compare_value, compare_value_lcb, numbers_close,
)
from microcoder_eval.problem import CompareOptions


@pytest.mark.parametrize("got,want,rule", [
    ("3\n", "3\n", "exact"),
    ("3", "3\n", "whitespace"),
    ("1 2  \n3\n\n\n", "1 2\n3\n", "whitespace"),
    ("1 2\r\n3\r\n", "1 2\n3\n", "whitespace"),
    ("1\n2\n3\n", "1 2 3\n", "tokens"),
    ("0.3333333333\n", "0.333333333333\n", "numeric"),
    ("3.0\n", "3\n", "numeric"),
    ("1000.0000000001\n", "1000\n", None),  # expected integer: a fractional float is wrong
    ("1e3\n", "1000\n", "numeric"),
    ("2.5000001\n", "2.5\n", "numeric"),
    ("123456789.1\n", "123456789.0\n", None),  # rel 8e-10 ok? no: abs 0.1 and rel 8.1e-10 -> rel passes
])
def test_stdout_rules(got, want, rule):
    res = compare_stdout(got, want)
    if want == "123456789.0\n":
        assert res.ok and res.rule == "numeric"  # relative tolerance
        return
    assert res.rule == rule
    assert res.ok == (rule is not None)


@pytest.mark.parametrize("got,want", [
    ("yes\n", "Yes\n"),             # case matters by default
    ("1\n2\n", "1\n2\n3\n"),         # prefix of the expected lines
    ("1\n2\n3\n4\n", "1\n2\n3\n"),   # extra line
    ("0.334\n", "0.333\n"),          # off by 1e-3
    ("", "5\n"),                     # nothing printed
    ("5\n", ""),                     # expected nothing
    ("12345678901234567890\n", "12345678901234567891\n"),  # big ints are exact
    ("nan\n", "1.0\n"),
    ("1 2\n", "1 2 3\n"),            # token count differs
])
def test_stdout_failures(got, want):
    res = compare_stdout(got, want)
    assert not res.ok and res.rule is None and res.reason


def test_stdout_both_empty_passes_but_reason_free():
    assert compare_stdout("", "").ok
    assert compare_stdout("\n", "").rule == "whitespace"


def test_per_problem_options():
    assert compare_stdout("YES\n", "Yes\n", CompareOptions(case_insensitive=True)).rule == "case_insensitive"
    assert compare_stdout("b\na\n", "a\nb\n", CompareOptions(unordered_lines=True)).rule == "unordered_lines"
    assert compare_stdout("3 1 2\n", "1 2 3\n", CompareOptions(unordered_tokens=True)).rule == "unordered_tokens"
    assert not compare_stdout("b\na\n", "a\nb\n").ok
    assert compare_stdout("0.34\n", "0.33\n", CompareOptions(float_tol=0.02)).rule == "numeric"


def test_numbers_close_integers_exact_at_any_size():
    big = "9" * 5000
    assert numbers_close(big, big, 1e-6)
    assert not numbers_close(big[:-1] + "8", big, 1e-6)
    assert numbers_close("1e400", "1e400", 1e-6) and not numbers_close("1e400", "2e400", 1e-6)


@pytest.mark.parametrize("got,want,rule", [
    ([1, 2], "[1, 2]", "exact"),
    ((1, 2), "[1, 2]", "type_coercion"),
    ([(1, 2), (3, 4)], "[[1, 2], [3, 4]]", "type_coercion"),
    (3.0, "3", "type_coercion"),
    (True, "true", "exact"),
    ({1, 2, 3}, "[3, 1, 2]", "type_coercion"),
    (0.30000000000000004, "0.3", "numeric"),
    ([0.1 + 0.2, 1], "[0.3, 1]", "numeric"),
    ({"a": 1}, '{"a": 1}', "exact"),
    ("abc", '"abc"', "exact"),
    (None, "null", "exact"),
])
def test_value_rules(got, want, rule):
    res = compare_value(got, want)
    assert res.ok and res.rule == rule


@pytest.mark.parametrize("got,want", [
    ([1, 2], "[2, 1]"), (3.5, "3"), (2, "3"), ("3", "3"), (Opaque("E"), "3"),
    ({1, 2}, "[1, 1, 2]"), ([1], "1"), (0.31, "0.3"), (True, "2"),
])
def test_value_failures(got, want):
    assert not compare_value(got, want).ok


def test_lcb_stdout_rule():
    assert compare_stdout_lcb("1 2\n3", "1 2\n3\n").ok
    assert compare_stdout_lcb("3.0\n", "3\n").ok  # Decimal equality
    assert compare_stdout_lcb("1e3\n", "1000\n").ok
    assert not compare_stdout_lcb("0.333333\n", "0.333333333333\n").ok  # no tolerance
    assert not compare_stdout_lcb("1\n2 3\n", "1 2\n3\n").ok
    assert not compare_stdout_lcb("YES\n", "Yes\n").ok
    assert not compare_stdout_lcb("1\n2\n", "1 2\n").ok  # line counts must match


def test_lcb_value_rule():
    assert compare_value_lcb((1, 2), "[1, 2]").ok
    assert not compare_value_lcb([(1, 2)], "[[1, 2]]").ok  # nested tuples fail in LCB
    assert compare_value_lcb(3.0, "3").ok
    assert not compare_value_lcb(0.1 + 0.2, "0.3").ok
    assert not compare_value_lcb(Opaque("E"), "3").ok


def test_big_integer_values():
    from microcoder_eval.compare import decode_value

    big = 7 ** 9000  # > 4300 digits
    import sys
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    text = str(big)
    sys.set_int_max_str_digits(old)
    assert compare_value(decode_value({"$int": text}), text).rule == "exact"
    assert not compare_value(decode_value({"$int": text}), text[:-1] + "0").ok
    assert isinstance(decode_value({"$int": "9" * 300_000}), Opaque)
