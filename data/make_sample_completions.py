"""Generate ``lcb_sample_completions.jsonl``: raw model-style completions with known verdicts.

Each entry is written for the problems in ``lcb_sample_problems.jsonl`` (see make_sample_data.py)
and carries:

* ``label`` / ``expect_status``: the verdict a correct judge must give on ALL tests (public then
  private), assuming the judge lifts CPython's int->str digit limit, pre-imports ``typing`` for
  functional code, accepts a module-level function when there is no ``class Solution``, compares
  floats with 1e-6 absolute-or-relative tolerance, and treats a non-zero exit status as a runtime
  error and an 8 GiB allocation as a memory-limit failure (limit 4 GiB).
* ``lcb_grader_verdict``: what LiveCodeBench's own grader (lcb_runner/evaluation/testing_util.py)
  returns for the same completion (code taken between the last two lines containing ```).
* ``category``: the behaviour the entry exercises (see README.md for the list).

    python data/make_sample_completions.py            # rewrite data/lcb_sample_completions.jsonl
    python data/make_sample_completions.py --check    # exit 1 if the file on disk differs
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT_PATH = HERE / "lcb_sample_completions.jsonl"

PASS_CATEGORIES = {
    "correct_plain": "a straightforward correct solution",
    "correct_think_prefix": "correct; <think>...</think> reasoning precedes the answer",
    "correct_multi_fence": "several fenced blocks; the last complete block is the (correct) answer",
    "correct_multi_fence_truncated_tail": "correct last complete block followed by an unclosed, truncated fence",
    "stdin_for_line_in_sys_stdin": "reads the header with input()/readline, then iterates sys.stdin",
    "stdin_from_sys_import_stdin": "`from sys import stdin`, then reads lines from that name",
    "stdin_buffer_readline": "reads every line with sys.stdin.buffer.readline",
    "stdin_open0_read": "reads all input with open(0).read()",
    "stdin_read_split": "reads all input with sys.stdin.read().split()",
    "stdout_buffer_write": "writes the answer with sys.stdout.buffer.write",
    "stdout_os_write": "writes the answer with os.write(1, ...)",
    "stdout_sys_write": "writes the answer with sys.stdout.write",
    "global_in_function": "module-level variable updated through `global` inside a function",
    "bigint_over_4300_digits": "prints an int with more than 4300 (but fewer than 50000) digits",
    "bigint_over_50000_digits": "prints an int with more than 50000 digits",
    "float_other_precision": "float printed with a different but acceptable number of decimals",
    "trailing_whitespace": "trailing spaces and a blank trailing line",
    "numeric_equivalent_text": "number printed as 3.0 where 3 is expected (or the reverse)",
    "functional_tuple_for_list": "returns a tuple where a list is expected",
    "functional_nested_tuples": "returns a list of tuples where a list of lists is expected",
    "functional_float_for_int": "returns 3.0 where 3 is expected",
    "functional_float_within_tol": "returns a float within 1e-6 of, but not equal to, the expected one",
    "functional_module_level_function": "defines a module-level function instead of class Solution",
    "functional_no_typing_import": "uses List annotations without importing typing",
    "checker_other_valid_answer": "another valid answer to a 'print any of them' problem; its checker accepts it",
    "checker_same_answer_as_tests": "the same answer as the tests of a problem with a checker",
}
FAIL_CATEGORIES = {
    "wrong_answer": "plainly wrong output",
    "wrong_case": "prints YES/NO where Yes/No is required",
    "output_prefix_only": "prints only a prefix of the expected lines",
    "extra_output_line": "prints one line too many",
    "float_off_1e-3": "float answer off by about 1e-3",
    "crash_after_output": "prints the correct answer, then raises",
    "sys_exit_nonzero_after_output": "prints the correct answer, then exits with a non-zero status",
    "infinite_loop": "never terminates",
    "memory_hog": "allocates 8 GiB (then prints the correct answer)",
    "syntax_error": "does not compile",
    "no_code_fence": "prose only, no fenced code block",
    "no_code_truncated": "the only fence is never closed (completion cut off)",
    "always_equal_object": "returns an object whose __eq__ always returns True",
    "passes_public_fails_private": "correct on the public tests, wrong on a private test",
    "crash_on_private": "correct on the public tests, raises on a private test",
    "runtime_error": "raises an exception on a public test",
    "checker_rejects_invalid_split": "an invalid answer to a problem with a checker",
}
CATEGORIES = {**PASS_CATEGORIES, **FAIL_CATEGORIES}

ENTRIES: list[dict] = []


def C(qid: str, category: str, status: str, lcb: bool, note: str, completion: str) -> None:
    """Register one completion; ``status`` is the true verdict's Status value."""
    ENTRIES.append({
        "question_id": qid,
        "category": category,
        "completion": completion,
        "label": "pass" if status == "passed" else "fail",
        "expect_status": status,
        "lcb_grader_verdict": lcb,
        "note": note,
    })


# ------------------------------------------------------------------------------------------ mcb101_a
C("mcb101_a", "correct_plain", "passed", True, "reference-style formatting with 12 decimals",
  r"""The average is simply the sum divided by N. Python floats have plenty of precision for at most 2000 scores of at most 100, and formatting with 12 decimals matches the required output.

```python
n = int(input())
scores = list(map(int, input().split()))
print(f"{sum(scores) / n:.12f}")
```

This runs in O(N).""")

C("mcb101_a", "stdin_read_split", "passed", True, "all tokens via sys.stdin.read().split()",
  r"""We read every token at once, which also works if the scores are spread over several lines.

```python
import sys

def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    print("{:.12f}".format(sum(a) / n))

main()
```""")

C("mcb101_a", "float_other_precision", "passed", False,
  "10 decimals (0.3333333333) vs expected 0.333333333333: within 1e-6, but LCB compares Decimals exactly",
  r"""Compute the mean and print it. Ten digits after the decimal point are more than enough for an error tolerance of 1e-6.

```python
n = int(input())
a = [int(x) for x in input().split()]
avg = sum(a) / n
print("%.10f" % avg)
```""")

C("mcb101_a", "float_off_1e-3", "wrong_answer", False, "rounds to 3 decimals: 0.333 vs 0.333333333333",
  r"""Sum the scores and divide by N; rounding to three places keeps the output tidy.

```python
n = int(input())
a = list(map(int, input().split()))
print(round(sum(a) / n, 3))
```""")

C("mcb101_a", "stdout_buffer_write", "passed", False,
  "sys.stdout.buffer.write: LCB captures stdout with a StringIO that has no .buffer",
  r"""For fast output I write bytes directly to the stdout buffer.

```python
import sys

n = int(sys.stdin.readline())
a = list(map(int, sys.stdin.readline().split()))
sys.stdout.buffer.write(("%.12f\n" % (sum(a) / n)).encode())
```""")

# ------------------------------------------------------------------------------------------ mcb101_b
C("mcb101_b", "correct_plain", "passed", True, "prefix sums with itertools.accumulate",
  r"""Let T be the total weight. A divider after the k-th book works exactly when the prefix sum of the first k books equals T - prefix, i.e. 2 * prefix == T. We check every k from 1 to N-1.

```python
from itertools import accumulate

n = int(input())
w = list(map(int, input().split()))
total = sum(w)
prefixes = list(accumulate(w))[:-1]
print("Yes" if any(2 * p == total for p in prefixes) else "No")
```""")

C("mcb101_b", "wrong_case", "wrong_answer", False, "prints YES/NO instead of Yes/No",
  r"""We scan prefix sums and look for one that is exactly half of the total.

```python
n = int(input())
w = list(map(int, input().split()))
total = sum(w)
cur = 0
found = False
for x in w[:-1]:
    cur += x
    if cur * 2 == total:
        found = True
        break
print("YES" if found else "NO")
```""")

C("mcb101_b", "stdin_for_line_in_sys_stdin", "passed", True,
  "input() for N, then `for line in sys.stdin`: LCB passes it too (input() and iteration both use its StringIO stdin)",
  r"""I read N first and then gather the weights from the remaining lines (this also handles weights split across lines).

```python
import sys

n = int(input())
w = []
for line in sys.stdin:
    w.extend(map(int, line.split()))

total = sum(w)
left = 0
ans = "No"
for i in range(n - 1):
    left += w[i]
    if 2 * left == total:
        ans = "Yes"
        break
print(ans)
```""")

C("mcb101_b", "syntax_error", "runtime_error", False, "Python 2 print statement",
  r"""Here is a simple solution:

```python
n = int(raw_input())
w = map(int, raw_input().split())
total = sum(w)
s = 0
ok = False
for i in range(n - 1):
    s += w[i]
    if 2 * s == total:
        ok = True
print "Yes" if ok else "No"
```""")

C("mcb101_b", "crash_after_output", "runtime_error", False,
  "prints the right answer, then calls an undefined main() under __main__ (NameError); LCB also reports a runtime error here",
  r"""Solution:

```python
def solve():
    n = int(input())
    w = list(map(int, input().split()))
    total = sum(w)
    run = 0
    for i in range(n - 1):
        run += w[i]
        if run * 2 == total:
            print("Yes")
            return
    print("No")

solve()

if __name__ == "__main__":
    main()
```""")

# ------------------------------------------------------------------------------------------ 90001
C("90001", "correct_plain", "passed", True, "single pass with a running counter",
  r"""We keep the length of the current run of vowels and reset it at every consonant.

```python
class Solution:
    def longestVowelRun(self, s: str) -> int:
        vowels = set("aeiou")
        best = 0
        run = 0
        for c in s:
            run = run + 1 if c in vowels else 0
            if run > best:
                best = run
        return best
```""")

C("90001", "functional_module_level_function", "passed", True,
  "module-level function named like func_name, no class Solution",
  r"""A regular expression finds all maximal vowel runs; the answer is the longest one.

```python
import re

def longestVowelRun(s: str) -> int:
    runs = re.findall(r"[aeiou]+", s)
    return max((len(r) for r in runs), default=0)
```""")

C("90001", "wrong_answer", "wrong_answer", False, "counts all vowels instead of the longest run",
  r"""Count the vowels in the string.

```python
class Solution:
    def longestVowelRun(self, s: str) -> int:
        return sum(1 for ch in s if ch in "aeiou")
```""")

C("90001", "correct_think_prefix", "passed", True, "itertools.groupby after a <think> block",
  r"""<think>
I need the longest contiguous block of vowels. groupby on "is vowel" gives the blocks directly. Edge case: no vowels at all means 0, so I need a default for max.
Let me check "beautiful": b|eau|t|i|f|u|l -> longest is "eau" = 3. Good.
</think>
Group consecutive characters by whether they are vowels and take the longest vowel group.

```python
from itertools import groupby

class Solution:
    def longestVowelRun(self, s: str) -> int:
        best = 0
        for is_vowel, group in groupby(s, key=lambda ch: ch in "aeiou"):
            if is_vowel:
                best = max(best, len(list(group)))
        return best
```""")

# ------------------------------------------------------------------------------------------ mcb104_c
C("mcb104_c", "bigint_over_4300_digits", "passed", True,
  "prints 2000! (5736 digits) without lifting the limit: needs a judge that lifts CPython's 4300-digit limit; LCB's grader sets 50000 itself, so it passes there",
  r"""Python integers are arbitrary precision, so we can compute N! directly with math.factorial. The number of trailing zeros can be read off the decimal string.

```python
import math

n = int(input())
f = math.factorial(n)
s = str(f)
print(s)
print(len(s) - len(s.rstrip('0')))
```""")

C("mcb104_c", "correct_think_prefix", "passed", True,
  "lifts the digit limit itself and counts zeros with Legendre's formula",
  r"""<think>
2000! has about 5700 digits. Python 3.11 refuses to convert ints with more than 4300 digits to str unless the limit is raised, so call sys.set_int_max_str_digits(0).
Trailing zeros of N!: count factors of 5 -> N//5 + N//25 + N//125 + ...
For N=10: 2 + 0 = 2. 10! = 3628800, two zeros. Right.
</think>
We raise Python's int-to-string digit limit (2000! has more than 4300 digits) and use Legendre's formula for the trailing zeros.

```python
import sys
sys.set_int_max_str_digits(0)

def main():
    n = int(sys.stdin.readline())
    fact = 1
    for k in range(2, n + 1):
        fact *= k
    zeros = 0
    p = 5
    while p <= n:
        zeros += n // p
        p *= 5
    print(fact)
    print(zeros)

main()
```""")

C("mcb104_c", "passes_public_fails_private", "wrong_answer", False,
  "trailing zeros computed as N//5: right for 5, 10, 3 and 1, wrong for 25",
  r"""Every multiple of 5 contributes a zero, so the count is N // 5.

```python
import sys
sys.set_int_max_str_digits(0)
from math import factorial

n = int(input())
print(factorial(n))
print(n // 5)
```""")

C("mcb104_c", "output_prefix_only", "wrong_answer", False, "prints only N!, forgets the second line",
  r"""```python
import sys
from math import factorial
sys.set_int_max_str_digits(100000)
print(factorial(int(input())))
```""")

# ------------------------------------------------------------------------------------------ mcb104_d
C("mcb104_d", "bigint_over_50000_digits", "passed", False,
  "prints 3**125000 (59642 digits) without lifting the limit; LCB's grader raises its limit only to 50000, so str() fails there",
  r"""Python's built-in integers handle this directly.

```python
a, b = map(int, input().split())
print(a ** b)
```""")

C("mcb104_d", "stdout_sys_write", "passed", True, "lifts the digit limit and writes with sys.stdout.write",
  r"""A^B can have up to 60000 digits, which exceeds Python's default limit for converting integers to strings, so we disable that limit first.

```python
import sys

sys.set_int_max_str_digits(0)
a, b = map(int, sys.stdin.readline().split())
sys.stdout.write(str(pow(a, b)) + "\n")
```""")

C("mcb104_d", "wrong_answer", "wrong_answer", False, "prints A^B modulo 10^9+7",
  r"""Since the result is huge we compute it with fast modular exponentiation.

```python
a, b = map(int, input().split())
MOD = 10**9 + 7
print(pow(a, b, MOD))
```""")

# ------------------------------------------------------------------------------------------ mccf01_a
C("mccf01_a", "correct_plain", "passed", True, "shoelace formula, float formatting",
  r"""Use the shoelace formula: twice the signed area is the sum of cross products of consecutive corners.

```python
n = int(input())
pts = [tuple(map(int, input().split())) for _ in range(n)]
twice = 0
for i in range(n):
    x1, y1 = pts[i]
    x2, y2 = pts[(i + 1) % n]
    twice += x1 * y2 - x2 * y1
print(f"{abs(twice) / 2:.1f}")
```""")

C("mccf01_a", "numeric_equivalent_text", "passed", True,
  "prints 12 where 12.0 is expected (integer areas without the decimal); numerically equal, and LCB's Decimal compare agrees",
  r"""Shoelace formula. If twice the area is even, the area is an integer and I print it as such; otherwise it ends in .5.

```python
import sys

def main():
    it = iter(sys.stdin.read().split())
    n = int(next(it))
    xs, ys = [], []
    for _ in range(n):
        xs.append(int(next(it)))
        ys.append(int(next(it)))
    s = 0
    for i in range(n):
        j = (i + 1) % n
        s += xs[i] * ys[j] - xs[j] * ys[i]
    s = abs(s)
    print(s // 2 if s % 2 == 0 else s / 2)

main()
```""")

C("mccf01_a", "no_code_fence", "no_code", False, "explains the algorithm but gives no code block",
  r"""This is the classic shoelace formula. Walk around the polygon and accumulate x_i * y_{i+1} - x_{i+1} * y_i over all edges (wrapping around from the last corner to the first). The absolute value of that sum is twice the area, so the answer is |sum| / 2, which is always an integer or an integer plus one half because the corners are lattice points. Print it with one decimal digit: sum // 2 followed by ".5" if the sum is odd and ".0" otherwise. The algorithm is O(N) and uses only integer arithmetic, so there are no precision issues.""")

C("mccf01_a", "passes_public_fails_private", "wrong_answer", False,
  "forgets abs(): the public polygons are counter-clockwise, a private one is clockwise and gets a negative area",
  r"""The shoelace formula gives the area directly.

```python
n = int(input())
P = [list(map(int, input().split())) for _ in range(n)]
area2 = sum(P[i][0] * P[(i + 1) % n][1] - P[(i + 1) % n][0] * P[i][1] for i in range(n))
print("%.1f" % (area2 / 2))
```""")

# ------------------------------------------------------------------------------------------ mcb108_a
C("mcb108_a", "numeric_equivalent_text", "passed", True,
  "true division prints 15.0 where 15 is expected; values stay below 2^53 so they are exact",
  r"""The staircase needs 1 + 2 + ... + n = n(n+1)/2 blocks.

```python
q = int(input())
for _ in range(q):
    n = int(input())
    print(n * (n + 1) / 2)
```""")

C("mcb108_a", "global_in_function", "passed", False,
  "token reader that advances a module-level `pos` via `global`; LCB wraps the module in a function, so `global pos` finds nothing (NameError)",
  r"""I use a small token reader over the whole input.

```python
import sys

data = sys.stdin.read().split()
pos = 0

def read_int():
    global pos
    pos += 1
    return int(data[pos - 1])

q = read_int()
res = []
for _ in range(q):
    n = read_int()
    res.append(n * (n + 1) // 2)
print("\n".join(map(str, res)))
```""")

C("mcb108_a", "stdout_os_write", "passed", False,
  "writes with os.write(1, ...): bypasses sys.stdout, so LCB captures nothing",
  r"""Collect all answers and write them in one system call.

```python
import os
import sys

def main():
    q = int(sys.stdin.readline())
    out = []
    for _ in range(q):
        n = int(sys.stdin.readline())
        out.append(str(n * (n + 1) // 2))
    os.write(1, ("\n".join(out) + "\n").encode())

main()
```""")

C("mcb108_a", "extra_output_line", "wrong_answer", False, "leftover debug print of Q before the answers",
  r"""Triangular numbers: answer = n(n+1)/2.

```python
q = int(input())
print(q)
for _ in range(q):
    n = int(input())
    print(n * (n + 1) // 2)
```""")

# ------------------------------------------------------------------------------------------ mcb108_e
C("mcb108_e", "correct_plain", "passed", True, "float probability DP over partial sums",
  r"""Let dp[t] be the probability that the dice rolled so far sum to t. Each new die spreads the mass uniformly over the next K sums.

```python
n, k, s = map(int, input().split())
dp = [0.0] * (s + 1)
dp[0] = 1.0
for _ in range(n):
    ndp = [0.0] * (s + 1)
    for t in range(s + 1):
        if dp[t] == 0.0:
            continue
        share = dp[t] / k
        for f in range(1, k + 1):
            if t + f > s:
                break
            ndp[t + f] += share
    dp = ndp
print(f"{dp[s]:.10f}")
```""")

C("mcb108_e", "correct_think_prefix", "passed", True, "exact integer counts, then Fraction rounding",
  r"""<think>
Count the number of outcomes with sum S using integers (K^N outcomes in total, K^N <= 20^50 which Python handles). Then divide exactly with Fraction and round to 10 decimals myself to avoid float issues.
S can be up to 1000 but the max possible sum is N*K <= 1000, fine.
</think>
Count the outcomes exactly with big integers, then round the exact fraction to 10 decimals.

```python
from fractions import Fraction

def main():
    n, k, s = map(int, input().split())
    cnt = [0] * (s + 1)
    cnt[0] = 1
    for _ in range(n):
        new = [0] * (s + 1)
        for t, c in enumerate(cnt):
            if c:
                for f in range(1, min(k, s - t) + 1):
                    new[t + f] += c
        cnt = new
    p = Fraction(cnt[s], k ** n)
    q = round(p * 10 ** 10)
    print(f"{q // 10**10}.{q % 10**10:010d}")

main()
```""")

C("mcb108_e", "float_other_precision", "passed", False,
  "prints repr() of the float (e.g. 0.16666666666666666): within tolerance, not Decimal-equal",
  r"""Dynamic programming over the sum, then print the probability.

```python
import sys

n, k, s = map(int, sys.stdin.readline().split())
dp = {0: 1.0}
for _ in range(n):
    nd = {}
    for total, p in dp.items():
        for face in range(1, k + 1):
            if total + face <= s:
                nd[total + face] = nd.get(total + face, 0.0) + p / k
    dp = nd
print(dp.get(s, 0.0))
```""")

C("mcb108_e", "float_off_1e-3", "wrong_answer", False, "rounds to 3 decimals: 0.167 vs 0.1666666667",
  r"""```python
n, k, s = map(int, input().split())
ways = [1] + [0] * s
for _ in range(n):
    ways = [sum(ways[t - f] for f in range(1, k + 1) if t - f >= 0) for t in range(s + 1)]
print(f"{ways[s] / k ** n:.3f}")
```""")

# ------------------------------------------------------------------------------------------ mcb112_f
C("mcb112_f", "stdin_buffer_readline", "passed", False,
  "`input = sys.stdin.buffer.readline` for every line; LCB's StringIO stdin has no .buffer",
  r"""Range add + range sum is handled with two Fenwick trees (the standard B1/B2 trick): sum(1..i) = B1(i) * i - B2(i).

```python
import sys
input = sys.stdin.buffer.readline

def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    b1 = [0] * (n + 1)
    b2 = [0] * (n + 1)

    def upd(t, i, v):
        while i <= n:
            t[i] += v
            i += i & -i

    def qry(t, i):
        r = 0
        while i:
            r += t[i]
            i -= i & -i
        return r

    def range_add(l, r, x):
        upd(b1, l, x)
        upd(b2, l, x * (l - 1))
        if r + 1 <= n:
            upd(b1, r + 1, -x)
            upd(b2, r + 1, -x * r)

    def pref(i):
        return qry(b1, i) * i - qry(b2, i)

    base = [0] * (n + 1)
    for i in range(n):
        base[i + 1] = base[i] + a[i]
    out = []
    for _ in range(q):
        parts = input().split()
        if parts[0] == b"1":
            l, r, x = int(parts[1]), int(parts[2]), int(parts[3])
            range_add(l, r, x)
        else:
            l, r = int(parts[1]), int(parts[2])
            out.append(base[r] - base[l - 1] + pref(r) - pref(l - 1))
    sys.stdout.write("\n".join(map(str, out)) + "\n")

main()
```""")

C("mcb112_f", "output_prefix_only", "wrong_answer", False,
  "processes only Q-1 queries, so the last answer line is missing",
  r"""Fenwick trees with range updates.

```python
import sys

def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1])
    t1 = [0] * (n + 2)
    t2 = [0] * (n + 2)

    def add(t, i, v):
        while i <= n:
            t[i] += v
            i += i & -i

    def get(t, i):
        s = 0
        while i > 0:
            s += t[i]
            i -= i & -i
        return s

    def radd(l, r, x):
        add(t1, l, x); add(t1, r + 1, -x)
        add(t2, l, x * (l - 1)); add(t2, r + 1, -x * r)

    def psum(i):
        return get(t1, i) * i - get(t2, i)

    for i in range(n):
        v = int(data[2 + i])
        radd(i + 1, i + 1, v)
    p = 2 + n
    res = []
    for _ in range(q - 1):
        if data[p] == "1":
            radd(int(data[p + 1]), int(data[p + 2]), int(data[p + 3]))
            p += 4
        else:
            res.append(psum(int(data[p + 2])) - psum(int(data[p + 1]) - 1))
            p += 3
    print("\n".join(map(str, res)))

main()
```""")

C("mcb112_f", "infinite_loop", "time_limit", False,
  "0-based index into a 1-based Fenwick tree: i += i & -i never leaves 0",
  r"""Two BITs support range add and range sum in O(log N).

```python
import sys

def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1])
    bit1 = [0] * (n + 1)
    bit2 = [0] * (n + 1)

    def update(bit, i, v):
        while i <= n:
            bit[i] += v
            i += i & (-i)

    def query(bit, i):
        s = 0
        while i > 0:
            s += bit[i]
            i -= i & (-i)
        return s

    def range_update(l, r, x):
        update(bit1, l, x)
        update(bit1, r + 1, -x)
        update(bit2, l, x * (l - 1))
        update(bit2, r + 1, -x * r)

    for i in range(n):
        range_update(i, i, int(data[2 + i]))

    idx = 2 + n
    ans = []
    for _ in range(q):
        if data[idx] == "1":
            l, r, x = map(int, data[idx + 1:idx + 4])
            range_update(l, r, x)
            idx += 4
        else:
            l, r = map(int, data[idx + 1:idx + 3])
            total = query(bit1, r) * r - query(bit2, r)
            total -= query(bit1, l - 1) * (l - 1) - query(bit2, l - 1)
            ans.append(total)
            idx += 3
    print(*ans, sep="\n")

main()
```""")

C("mcb112_f", "correct_multi_fence", "passed", True,
  "first block is a slow draft, the last block (the answer) uses a segment tree with lazy propagation",
  r"""A direct simulation would look like this:

```python
n, q = map(int, input().split())
a = list(map(int, input().split()))
for _ in range(q):
    t = list(map(int, input().split()))
    if t[0] == 1:
        for i in range(t[1] - 1, t[2]):
            a[i] += t[3]
    else:
        print(sum(a[t[1] - 1:t[2]]))
```

but that is O(NQ), too slow for N, Q = 2e5. Instead, use a lazy segment tree:

```python
import sys

def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1])
    size = 1
    while size < n:
        size *= 2
    tot = [0] * (2 * size)
    lazy = [0] * (2 * size)
    length = [0] * (2 * size)
    for i in range(n):
        tot[size + i] = int(data[2 + i])
        length[size + i] = 1
    for v in range(size - 1, 0, -1):
        tot[v] = tot[2 * v] + tot[2 * v + 1]
        length[v] = length[2 * v] + length[2 * v + 1]

    def apply(v, x):
        tot[v] += x * length[v]
        lazy[v] += x

    def push(v):
        if lazy[v]:
            apply(2 * v, lazy[v])
            apply(2 * v + 1, lazy[v])
            lazy[v] = 0

    def update(v, lo, hi, l, r, x):
        if r < lo or hi < l:
            return
        if l <= lo and hi <= r:
            apply(v, x)
            return
        push(v)
        mid = (lo + hi) // 2
        update(2 * v, lo, mid, l, r, x)
        update(2 * v + 1, mid + 1, hi, l, r, x)
        tot[v] = tot[2 * v] + tot[2 * v + 1]

    def query(v, lo, hi, l, r):
        if r < lo or hi < l:
            return 0
        if l <= lo and hi <= r:
            return tot[v]
        push(v)
        mid = (lo + hi) // 2
        return query(2 * v, lo, mid, l, r) + query(2 * v + 1, mid + 1, hi, l, r)

    pos = 2 + n
    out = []
    for _ in range(q):
        if data[pos] == "1":
            l, r, x = int(data[pos + 1]) - 1, int(data[pos + 2]) - 1, int(data[pos + 3])
            update(1, 0, size - 1, l, r, x)
            pos += 4
        else:
            l, r = int(data[pos + 1]) - 1, int(data[pos + 2]) - 1
            out.append(query(1, 0, size - 1, l, r))
            pos += 3
    print("\n".join(map(str, out)))

main()
```

Each operation is O(log N).""")

# ------------------------------------------------------------------------------------------ mccf02_b
C("mccf02_b", "stdin_from_sys_import_stdin", "passed", False,
  "`from sys import stdin`, then iterates stdin: under LCB that name is bound before its patches, to the worker's empty stdin",
  r"""Read t, then walk through the remaining lines two at a time.

```python
from sys import stdin

t = int(stdin.readline())
lines = iter(stdin)
for _ in range(t):
    n = int(next(lines))
    a = list(map(int, next(lines).split()))
    print(max(a) - min(a))
```""")

C("mccf02_b", "crash_after_output", "runtime_error", False,
  "reads test cases until input() fails: every answer is printed, then it dies with EOFError (LCB also flags it, via ValueError)",
  r"""Process test cases until the input runs out.

```python
t = int(input())
while True:
    n = int(input())
    a = list(map(int, input().split()))
    print(max(a) - min(a))
```""")

C("mccf02_b", "correct_plain", "passed", True, "compact loop with a list of answers",
  r"""For each test case the spread is max(a) - min(a).

```python
ans = []
for _ in range(int(input())):
    input()
    a = [*map(int, input().split())]
    ans.append(max(a) - min(a))
print(*ans, sep="\n")
```""")

C("mccf02_b", "wrong_answer", "wrong_answer", False, "prints max - min of absolute values",
  r"""The spread is the largest value minus the smallest value.

```python
t = int(input())
for _ in range(t):
    n = int(input())
    a = sorted(abs(x) for x in map(int, input().split()))
    print(a[-1] - a[0])
```""")

# ------------------------------------------------------------------------------------------ mccf03_d
C("mccf03_d", "stdin_open0_read", "passed", False,
  "open(0).read(): under LCB fd 0 is /dev/null in the worker, so it reads nothing",
  r"""Standard grid DP: ways[i][j] = ways[i-1][j] + ways[i][j-1] for free cells, 0 for blocked ones. One row of state is enough.

```python
MOD = 998244353
h, w, *rows = open(0).read().split()
h, w = int(h), int(w)
dp = [0] * (w + 1)
dp[1] = 1
for i in range(h):
    row = rows[i]
    for j in range(1, w + 1):
        if row[j - 1] == '#':
            dp[j] = 0
        else:
            dp[j] = (dp[j] + dp[j - 1]) % MOD
print(dp[w])
```""")

C("mccf03_d", "memory_hog", "memory_limit", False,
  "allocates (and zero-fills) an 8 GiB buffer, then solves correctly. LCB sets no memory limit: on a 2-core/24 GiB VM the fill alone takes ~18 s and trips LCB's 6 s alarm (-3); on a host with fast RAM LCB would pass it",
  r"""I preallocate a large scratch buffer to avoid reallocations, then run the usual DP.

```python
import sys

scratch = bytearray(8 * 1024 ** 3)

MOD = 998244353
def main():
    data = sys.stdin.read().split()
    h, w = int(data[0]), int(data[1])
    g = data[2:2 + h]
    dp = [[0] * w for _ in range(h)]
    dp[0][0] = 1
    for i in range(h):
        for j in range(w):
            if g[i][j] == '#':
                dp[i][j] = 0
                continue
            if i:
                dp[i][j] += dp[i - 1][j]
            if j:
                dp[i][j] += dp[i][j - 1]
            dp[i][j] %= MOD
    print(dp[h - 1][w - 1])

main()
```""")

C("mccf03_d", "passes_public_fails_private", "wrong_answer", False,
  "forgets the modulus: the public grids are tiny, the private 30x30 empty grid has more than 998244353 routes",
  r"""Dynamic programming over the grid.

```python
h, w = map(int, input().split())
g = [input() for _ in range(h)]
dp = [[0] * (w + 1) for _ in range(h + 1)]
for i in range(1, h + 1):
    for j in range(1, w + 1):
        if g[i - 1][j - 1] == '#':
            continue
        if i == 1 and j == 1:
            dp[i][j] = 1
        else:
            dp[i][j] = dp[i - 1][j] + dp[i][j - 1]
print(dp[h][w])
```""")

C("mccf03_d", "correct_plain", "passed", True, "2D DP with padding row/column",
  r"""Count paths with a DP table; blocked cells contribute zero.

```python
MOD = 998244353

def solve():
    h, w = map(int, input().split())
    grid = [input().strip() for _ in range(h)]
    dp = [[0] * (w + 1) for _ in range(h + 1)]
    dp[0][1] = 1
    for i in range(1, h + 1):
        for j in range(1, w + 1):
            if grid[i - 1][j - 1] == '.':
                dp[i][j] = (dp[i - 1][j] + dp[i][j - 1]) % MOD
    print(dp[h][w])

if __name__ == "__main__":
    solve()
```""")

# ------------------------------------------------------------------------------------------ mcb115_c
C("mcb115_c", "stdout_sys_write", "passed", True, "one sys.stdout.write with the joined lines",
  r"""Count with a dictionary and sort by (-count, word).

```python
import sys
from collections import Counter

def main():
    input()
    cnt = Counter(sys.stdin.readline().split())
    items = sorted(cnt.items(), key=lambda p: (-p[1], p[0]))
    sys.stdout.write("\n".join(f"{w} {c}" for w, c in items) + "\n")

main()
```""")

C("mcb115_c", "trailing_whitespace", "passed", True, "a space at the end of every line and an empty last line",
  r"""```python
n = int(input())
words = input().split()
freq = {}
for w in words:
    freq[w] = freq.get(w, 0) + 1
order = sorted(freq, key=lambda w: (-freq[w], w))
for w in order:
    print(w, freq[w], end=" \n")
print()
```""")

C("mcb115_c", "wrong_answer", "wrong_answer", False, "Counter.most_common breaks ties by first occurrence, not lexicographically",
  r"""`Counter.most_common()` already returns the words ordered by frequency.

```python
from collections import Counter

input()
for word, c in Counter(input().split()).most_common():
    print(word, c)
```""")

C("mcb115_c", "correct_think_prefix", "passed", True, "sorts twice (stable sort) after a <think> block",
  r"""<think>
Sort by count descending, ties lexicographic. Trick: sort alphabetically first, then stable sort by count descending.
Example 2: zeta alpha mid all count 1 -> alpha mid zeta. Good.
</think>
Stable sorting: first alphabetically, then by decreasing frequency.

```python
from collections import Counter

n = int(input())
c = Counter(input().split())
words = sorted(c)
words.sort(key=lambda w: c[w], reverse=True)
print("\n".join(w + " " + str(c[w]) for w in words))
```""")

# ------------------------------------------------------------------------------------------ mcb118_g
C("mcb118_g", "correct_plain", "passed", True, "closed form in floats, rewritten to avoid overflow",
  r"""This is the gambler's ruin. With r = q/p, the probability of reaching N from I is (1 - r^I) / (1 - r^N) (and I/N when p = q). When r > 1 the powers overflow for N = 200, so divide numerator and denominator by r^N and work with s = 1/r < 1 instead.

```python
n, i, P = map(int, input().split())
p = P / 100
q = 1 - p
if P == 50:
    ans = i / n
elif q < p:
    r = q / p
    ans = (1 - r ** i) / (1 - r ** n)
else:
    s = p / q
    ans = (s ** n - s ** (n - i)) / (s ** n - 1)
print("%.10f" % ans)
```""")

C("mcb118_g", "float_other_precision", "passed", False, "prints repr() of the float: 15-17 significant digits",
  r"""Solve the linear system of the random walk by the standard closed form, taking care of overflow.

```python
import math

n, i, pp = map(int, input().split())
p = pp / 100.0
if pp == 50:
    print(i / n)
else:
    r = (1 - p) / p
    if r < 1:
        print((1 - r ** i) / (1 - r ** n))
    else:
        s = 1 / r
        print((s ** n - s ** (n - i)) / (s ** n - 1))
```""")

C("mcb118_g", "crash_on_private", "runtime_error", False,
  "r ** n overflows (OverflowError) for P = 1, N = 200, which only a private test has",
  r"""Closed form of the gambler's ruin problem.

```python
n, i, P = map(int, input().split())
if P == 50:
    print(f"{i / n:.10f}")
else:
    r = (100 - P) / P
    print(f"{(1 - r ** i) / (1 - r ** n):.10f}")
```""")

C("mcb118_g", "correct_think_prefix", "passed", True, "exact Fraction arithmetic",
  r"""<think>
Floats might overflow: r = 99 for P = 1, and 99^200 is about 1e399. Use Fraction for exactness, N <= 200 so the numbers stay manageable. Then round to 10 digits.
</think>
Use exact rational arithmetic for the closed form, then round to ten decimals.

```python
from fractions import Fraction

N, I, P = map(int, input().split())
if P * 2 == 100:
    ans = Fraction(I, N)
else:
    r = Fraction(100 - P, P)
    ans = (1 - r ** I) / (1 - r ** N)
print(f"{float(ans):.10f}")
```""")

# ------------------------------------------------------------------------------------------ mccf05_a
C("mccf05_a", "checker_other_valid_answer", "passed", False,
  "prints 1 and n-1, another valid split: the problem's checker accepts it; LCB compares with the one expected output",
  r"""Any split works, so take a = 1 and b = n - 1.

```python
t = int(input())
for _ in range(t):
    n = int(input())
    print(1, n - 1)
```""")

C("mccf05_a", "checker_same_answer_as_tests", "passed", True,
  "prints the halves, exactly the expected outputs",
  r"""Split n as evenly as possible.

```python
t = int(input())
for _ in range(t):
    n = int(input())
    print(n // 2, n - n // 2)
```""")

C("mccf05_a", "checker_rejects_invalid_split", "wrong_answer", False,
  "prints 0 and n: a must be positive, so the checker rejects it",
  r"""Zero plus n is n.

```python
t = int(input())
for _ in range(t):
    n = int(input())
    print(0, n)
```""")

# ------------------------------------------------------------------------------------------ mccf04_c
C("mccf04_c", "sys_exit_nonzero_after_output", "runtime_error", True,
  "prints every answer, then sys.exit(main()) exits with status t != 0; LCB swallows SystemExit",
  r"""Unbounded coin change DP, O(n * x) per test.

```python
import sys

def main():
    data = sys.stdin.read().split()
    t = int(data[0])
    p = 1
    INF = 10 ** 9
    for _ in range(t):
        n, x = int(data[p]), int(data[p + 1])
        coins = list(map(int, data[p + 2:p + 2 + n]))
        p += 2 + n
        dp = [0] + [INF] * x
        for c in coins:
            for v in range(c, x + 1):
                if dp[v - c] + 1 < dp[v]:
                    dp[v] = dp[v - c] + 1
        print(dp[x] if dp[x] < INF else -1)
    return t

if __name__ == "__main__":
    sys.exit(main())
```""")

C("mccf04_c", "passes_public_fails_private", "wrong_answer", False,
  "greedy largest-coin-first: right for the public coin systems, wrong for {1, 3, 4} with x = 6",
  r"""Greedy: always take the largest coin that still fits.

```python
t = int(input())
for _ in range(t):
    n, x = map(int, input().split())
    coins = sorted(map(int, input().split()), reverse=True)
    used = 0
    for c in coins:
        used += x // c
        x %= c
    print(used if x == 0 else -1)
```""")

C("mccf04_c", "correct_plain", "passed", True, "BFS over amounts",
  r"""Breadth-first search from 0: the first time we reach x, the number of BFS levels is the minimum number of coins.

```python
from collections import deque

def min_coins(coins, x):
    dist = [-1] * (x + 1)
    dist[0] = 0
    dq = deque([0])
    while dq:
        v = dq.popleft()
        if v == x:
            return dist[v]
        for c in coins:
            u = v + c
            if u <= x and dist[u] == -1:
                dist[u] = dist[v] + 1
                dq.append(u)
    return dist[x]

t = int(input())
for _ in range(t):
    n, x = map(int, input().split())
    coins = list(map(int, input().split()))
    print(min_coins(coins, x))
```""")

C("mccf04_c", "correct_multi_fence_truncated_tail", "passed", False,
  "a complete correct block, then an unclosed second fence (completion cut off); LCB takes the prose between the last two ``` lines",
  r"""Classic unbounded knapsack / coin change:

```python
import sys

def main():
    it = iter(sys.stdin.read().split())
    t = int(next(it))
    res = []
    for _ in range(t):
        n, x = int(next(it)), int(next(it))
        coins = [int(next(it)) for _ in range(n)]
        best = [0] + [float('inf')] * x
        for a in range(1, x + 1):
            best[a] = min((best[a - c] + 1 for c in coins if c <= a), default=float('inf'))
        res.append(str(best[x]) if best[x] != float('inf') else "-1")
    print("\n".join(res))

main()
```

The complexity is O(t * n * x), about 10^7 operations in the worst case.

An alternative is BFS over the amounts, which stops early:

```python
from collections import deque
def solve(coins, x):
    dist = {0: 0}
    dq = deque([0])
    while dq:""")

# ------------------------------------------------------------------------------------------ 90002
C("90002", "functional_float_for_int", "passed", True, "true division returns 5.0 where 5 is expected",
  r"""All pairs minus the distinct grudge pairs.

```python
class Solution:
    def countHandshakes(self, n: int, grudges: List[List[int]]) -> int:
        distinct = set()
        for a, b in grudges:
            distinct.add(frozenset((a, b)))
        return n * (n - 1) / 2 - len(distinct)
```""")

C("90002", "functional_no_typing_import", "passed", True, "List annotation with no `from typing import List`",
  r"""Normalize each pair so (a, b) and (b, a) are the same, then subtract the number of distinct pairs from C(n, 2).

```python
class Solution:
    def countHandshakes(self, n: int, grudges: List[List[int]]) -> int:
        blocked = {(a, b) if a < b else (b, a) for a, b in grudges}
        return n * (n - 1) // 2 - len(blocked)
```""")

C("90002", "wrong_answer", "wrong_answer", False, "does not deduplicate repeated grudge pairs",
  r"""```python
from typing import List

class Solution:
    def countHandshakes(self, n: int, grudges: List[List[int]]) -> int:
        return n * (n - 1) // 2 - len(grudges)
```""")

# ------------------------------------------------------------------------------------------ 90003
C("90003", "correct_plain", "passed", True, "sort and sweep",
  r"""Sort the bookings by start and sweep, extending the current block while the next booking starts no later than the block's end.

```python
from typing import List

class Solution:
    def mergeBookings(self, bookings: List[List[int]]) -> List[List[int]]:
        bookings.sort(key=lambda b: b[0])
        merged = [bookings[0][:]]
        for start, end in bookings[1:]:
            last = merged[-1]
            if start <= last[1]:
                last[1] = max(last[1], end)
            else:
                merged.append([start, end])
        return merged
```""")

C("90003", "functional_nested_tuples", "passed", False,
  "returns a list of (start, end) tuples; JSON-equal to the expected list of lists, but LCB converts only the top-level tuple",
  r"""```python
class Solution:
    def mergeBookings(self, bookings: List[List[int]]) -> List[List[int]]:
        res = []
        for s, e in sorted(map(tuple, bookings)):
            if res and s <= res[-1][1]:
                res[-1] = (res[-1][0], max(res[-1][1], e))
            else:
                res.append((s, e))
        return res
```""")

C("90003", "wrong_answer", "wrong_answer", False, "does not merge bookings that only touch",
  r"""Merge overlapping intervals after sorting.

```python
class Solution:
    def mergeBookings(self, bookings):
        out = []
        for s, e in sorted(bookings):
            if out and s < out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out
```""")

# ------------------------------------------------------------------------------------------ 90004
C("90004", "functional_tuple_for_list", "passed", True, "returns a tuple of tags",
  r"""Count, sort by (-count, tag), take the first k.

```python
from collections import Counter
from typing import List

class Solution:
    def topTags(self, tags: List[str], k: int) -> List[str]:
        c = Counter(tags)
        ranked = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
        return tuple(tag for tag, _ in ranked[:k])
```""")

C("90004", "passes_public_fails_private", "wrong_answer", False,
  "Counter.most_common ties follow first occurrence; the public tests have no ties",
  r"""`most_common(k)` gives exactly the k most frequent elements.

```python
from collections import Counter

class Solution:
    def topTags(self, tags: List[str], k: int) -> List[str]:
        return [t for t, _ in Counter(tags).most_common(k)]
```""")

C("90004", "correct_think_prefix", "passed", True, "heapq.nsmallest with a composite key",
  r"""<think>
Need top k by frequency, tie -> lexicographic. heapq.nsmallest(k, counts, key=lambda t: (-cnt[t], t)) does it in O(m log k).
Check example 1: py 3, go 2, rs 1 -> [py, go]. ok.
</think>
```python
import heapq
from collections import Counter
from typing import List

class Solution:
    def topTags(self, tags: List[str], k: int) -> List[str]:
        cnt = Counter(tags)
        return heapq.nsmallest(k, cnt.keys(), key=lambda t: (-cnt[t], t))
```""")

# ------------------------------------------------------------------------------------------ 90005
C("90005", "functional_float_within_tol", "passed", False,
  "rounds the mean to 7 decimals: 3.3333333 vs 3.3333333333333335 (inside 1e-6, not ==)",
  r"""Remove one min and one max and average the rest. I round the result to 7 decimal places.

```python
class Solution:
    def trimmedMean(self, nums: List[int]) -> float:
        rest = sorted(nums)[1:-1]
        return round(sum(rest) / len(rest), 7)
```""")

C("90005", "wrong_answer", "wrong_answer", False, "integer division",
  r"""```python
class Solution:
    def trimmedMean(self, nums: List[int]) -> float:
        total = sum(nums) - min(nums) - max(nums)
        return total // (len(nums) - 2)
```""")

C("90005", "correct_plain", "passed", True, "sort and slice",
  r"""Sorting puts one minimum first and one maximum last, so slicing [1:-1] removes exactly one of each.

```python
from typing import List

class Solution:
    def trimmedMean(self, nums: List[int]) -> float:
        s = sorted(nums)
        middle = s[1:-1]
        return sum(middle) / len(middle)
```""")

# ------------------------------------------------------------------------------------------ 90006
C("90006", "correct_plain", "passed", True,
  "2D DP over (coins, heads); same arithmetic per step as the reference, so even LCB's exact == holds",
  r"""dp[i][j] = probability that among the first i coins exactly j are heads.

```python
from typing import List

class Solution:
    def probabilityOfHeads(self, prob: List[float], k: int) -> float:
        n = len(prob)
        dp = [[0.0] * (k + 1) for _ in range(n + 1)]
        dp[0][0] = 1.0
        for i in range(1, n + 1):
            p = prob[i - 1]
            for j in range(0, k + 1):
                dp[i][j] = dp[i - 1][j] * (1 - p)
                if j > 0:
                    dp[i][j] += dp[i - 1][j - 1] * p
        return dp[n][k]
```""")

C("90006", "correct_think_prefix", "passed", True, "1D DP iterating j downwards, same order as the reference",
  r"""<think>
Standard: dp[j] = P(j heads so far). For each coin go j from k down to 1 so that dp[j-1] is still the old value: dp[j] = dp[j]*(1-p) + dp[j-1]*p, then dp[0] *= (1-p).
Example 3: [0.2, 0.9], k=1 -> 0.2*0.1 + 0.8*0.9 = 0.02 + 0.72 = 0.74. Correct.
</think>
One-dimensional DP, updating from high to low head counts.

```python
class Solution:
    def probabilityOfHeads(self, prob: List[float], k: int) -> float:
        dp = [1.0] + [0.0] * k
        for p in prob:
            for j in range(k, 0, -1):
                dp[j] = dp[j] * (1 - p) + dp[j - 1] * p
            dp[0] *= 1 - p
        return dp[k]
```""")

C("90006", "wrong_answer", "wrong_answer", False, "binomial formula with the average probability",
  r"""Approximate all coins by their average probability and use the binomial distribution.

```python
from math import comb

class Solution:
    def probabilityOfHeads(self, prob: List[float], k: int) -> float:
        n = len(prob)
        p = sum(prob) / n
        return comb(n, k) * p ** k * (1 - p) ** (n - k)
```""")

# ------------------------------------------------------------------------------------------ 90007
C("90007", "correct_multi_fence", "passed", True,
  "explains with a plain DFS first, the final block adds memoization",
  r"""A first idea is plain DFS from every cell:

```python
def dfs(i, j):
    best = 1
    for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
        if 0 <= a < m and 0 <= b < n and heights[a][b] > heights[i][j]:
            best = max(best, 1 + dfs(a, b))
    return best
```

This recomputes the same cells many times. Since a climb is strictly increasing there are no cycles, so we can memoize:

```python
from functools import lru_cache
from typing import List

class Solution:
    def longestClimb(self, heights: List[List[int]]) -> int:
        m, n = len(heights), len(heights[0])

        @lru_cache(maxsize=None)
        def dfs(i: int, j: int) -> int:
            best = 1
            for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if 0 <= a < m and 0 <= b < n and heights[a][b] > heights[i][j]:
                    best = max(best, 1 + dfs(a, b))
            return best

        return max(dfs(i, j) for i in range(m) for j in range(n))
```

Time and space complexity are O(mn).""")

C("90007", "correct_think_prefix", "passed", True, "<think> contains its own code fence; the answer fence comes after it",
  r"""<think>
Longest increasing path. Options: memo DFS or process cells in increasing height order.
Sketch:
```
for (h, i, j) in sorted cells:
    best[i][j] = 1 + max(best of lower neighbours)
```
Sorting is O(mn log mn), fine for 200x200. No recursion depth issues this way.
</think>
Process cells from lowest to highest; each cell extends the best climb ending at a lower neighbour.

```python
class Solution:
    def longestClimb(self, heights: List[List[int]]) -> int:
        m, n = len(heights), len(heights[0])
        order = sorted(range(m * n), key=lambda c: heights[c // n][c % n])
        best = [1] * (m * n)
        for c in order:
            i, j = divmod(c, n)
            h = heights[i][j]
            for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
                if 0 <= a < m and 0 <= b < n and heights[a][b] < h:
                    best[c] = max(best[c], best[a * n + b] + 1)
        return max(best)
```""")

C("90007", "wrong_answer", "wrong_answer", False, "only moves right and down",
  r"""DP from the bottom-right corner, moving right or down.

```python
class Solution:
    def longestClimb(self, heights: List[List[int]]) -> int:
        m, n = len(heights), len(heights[0])
        dp = [[1] * n for _ in range(m)]
        for i in range(m - 1, -1, -1):
            for j in range(n - 1, -1, -1):
                if i + 1 < m and heights[i + 1][j] > heights[i][j]:
                    dp[i][j] = max(dp[i][j], dp[i + 1][j] + 1)
                if j + 1 < n and heights[i][j + 1] > heights[i][j]:
                    dp[i][j] = max(dp[i][j], dp[i][j + 1] + 1)
        return max(max(r) for r in dp)
```""")

# ------------------------------------------------------------------------------------------ 90008
C("90008", "correct_plain", "passed", True, "sliding window with a count of satisfied letters",
  r"""Sliding window: extend the right end, and while the window covers t, record it and shrink from the left. Using a strict `<` keeps the leftmost window among equally short ones.

```python
from collections import Counter

class Solution:
    def shortestCover(self, s: str, t: str) -> str:
        need = Counter(t)
        have = Counter()
        formed = 0
        required = len(need)
        best_len, best_start = len(s) + 1, 0
        l = 0
        for r, ch in enumerate(s):
            have[ch] += 1
            if ch in need and have[ch] == need[ch]:
                formed += 1
            while formed == required:
                if r - l + 1 < best_len:
                    best_len, best_start = r - l + 1, l
                left = s[l]
                have[left] -= 1
                if left in need and have[left] < need[left]:
                    formed -= 1
                l += 1
        return s[best_start:best_start + best_len] if best_len <= len(s) else ""
```""")

C("90008", "wrong_answer", "wrong_answer", False, "ignores multiplicity (covers the set of letters only)",
  r"""We need every character of t to appear in the window.

```python
class Solution:
    def shortestCover(self, s: str, t: str) -> str:
        need = set(t)
        best = ""
        for i in range(len(s)):
            seen = set()
            for j in range(i, len(s)):
                seen.add(s[j])
                if need <= seen:
                    if not best or j - i + 1 < len(best):
                        best = s[i:j + 1]
                    break
        return best
```""")

C("90008", "runtime_error", "runtime_error", False, "slices with best=None when nothing covers t (TypeError)",
  r"""```python
from collections import Counter

class Solution:
    def shortestCover(self, s: str, t: str) -> str:
        need = Counter(t)
        missing = len(t)
        best = None
        i = 0
        for j, c in enumerate(s, 1):
            if need[c] > 0:
                missing -= 1
            need[c] -= 1
            if missing == 0:
                while need[s[i]] < 0:
                    need[s[i]] += 1
                    i += 1
                if best is None or j - i < best[1] - best[0]:
                    best = (i, j)
                need[s[i]] += 1
                missing += 1
                i += 1
        return s[best[0]:best[1]]
```""")

# ------------------------------------------------------------------------------------------ 90009
C("90009", "correct_plain", "passed", True, "interval DP by length",
  r"""Let f(i, j) be the number of palindromic subsequences inside s[i..j]. Inclusion-exclusion gives f(i, j) = f(i+1, j) + f(i, j-1) - f(i+1, j-1), and if s[i] == s[j] we add f(i+1, j-1) + 1 for the palindromes wrapped by the two equal ends.

```python
class Solution:
    def countPalindromes(self, s: str) -> int:
        MOD = 1_000_000_007
        n = len(s)
        f = [[0] * (n + 1) for _ in range(n + 1)]
        for i in range(n):
            f[i][i] = 1
        for length in range(2, n + 1):
            for i in range(0, n - length + 1):
                j = i + length - 1
                inner = f[i + 1][j - 1] if length > 2 else 0
                v = f[i + 1][j] + f[i][j - 1] - inner
                if s[i] == s[j]:
                    v += inner + 1
                f[i][j] = v % MOD
        return f[0][n - 1]
```""")

C("90009", "passes_public_fails_private", "wrong_answer", False,
  "forgets the modulus: exact for the short public strings, too large for the 60-letter private one",
  r"""Interval DP with inclusion-exclusion.

```python
class Solution:
    def countPalindromes(self, s: str) -> int:
        n = len(s)
        dp = [[0] * n for _ in range(n)]
        for i in range(n - 1, -1, -1):
            dp[i][i] = 1
            for j in range(i + 1, n):
                mid = dp[i + 1][j - 1] if i + 1 <= j - 1 else 0
                dp[i][j] = dp[i + 1][j] + dp[i][j - 1] - mid
                if s[i] == s[j]:
                    dp[i][j] += mid + 1
        return dp[0][n - 1]
```""")

C("90009", "correct_think_prefix", "passed", True, "memoized recursion with lru_cache",
  r"""<think>
count(i, j) = count(i+1, j) + count(i, j-1) - count(i+1, j-1), plus count(i+1, j-1) + 1 when s[i] == s[j].
"aab": singles 3, "aa" 1 -> 4. Matches.
Recursion depth up to n = 1000 is fine with a raised recursion limit.
</think>
```python
import sys
from functools import lru_cache

class Solution:
    def countPalindromes(self, s: str) -> int:
        sys.setrecursionlimit(10000)
        MOD = 10 ** 9 + 7

        @lru_cache(maxsize=None)
        def go(i, j):
            if i > j:
                return 0
            if i == j:
                return 1
            res = go(i + 1, j) + go(i, j - 1) - go(i + 1, j - 1)
            if s[i] == s[j]:
                res += go(i + 1, j - 1) + 1
            return res % MOD

        for j in range(len(s)):
            for i in range(j, -1, -1):
                go(i, j)
        return go(0, len(s) - 1)
```""")

# ------------------------------------------------------------------------------------------ 90010
C("90010", "correct_plain", "passed", True, "split / reversed / join",
  r"""`str.split()` with no argument drops empty strings, which takes care of the extra spaces.

```python
class Solution:
    def reverseWords(self, s: str) -> str:
        words = s.split()
        words.reverse()
        return " ".join(words)
```""")

C("90010", "syntax_error", "runtime_error", False, "missing colon after the def line",
  r"""```python
class Solution:
    def reverseWords(self, s: str) -> str
        return ' '.join(s.split()[::-1])
```""")

C("90010", "wrong_answer", "wrong_answer", False, "split(' ') keeps empty strings, so extra spaces survive",
  r"""Split on spaces and reverse.

```python
class Solution:
    def reverseWords(self, s: str) -> str:
        return " ".join(reversed(s.strip().split(" ")))
```""")

C("90010", "no_code_truncated", "no_code", False, "completion cut off inside its only code fence",
  r"""We can split the string into words, reverse the list and join with single spaces. Here is the implementation:

```python
class Solution:
    def reverseWords(self, s: str) -> str:
        # split() without arguments collapses runs of whitespace
        words = s.sp""")

# ------------------------------------------------------------------------------------------ 90011
C("90011", "correct_plain", "passed", True, "pop the first row, rotate the rest counter-clockwise",
  r"""Take the first row, then rotate the remaining matrix counter-clockwise and repeat.

```python
class Solution:
    def spiralOrder(self, matrix: List[List[int]]) -> List[int]:
        res = []
        m = [row[:] for row in matrix]
        while m:
            res.extend(m.pop(0))
            m = [list(r) for r in zip(*m)][::-1]
        return res
```""")

C("90011", "always_equal_object", "wrong_answer", True,
  "returns an object whose __eq__ always says True; LCB compares inside the untrusted process and accepts it",
  r"""```python
class _Answer:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__

class Solution:
    def spiralOrder(self, matrix: List[List[int]]) -> List[int]:
        return _Answer()
```""")

C("90011", "functional_tuple_for_list", "passed", True, "builds the order with boundaries, returns a tuple",
  r"""Walk the four boundaries inward.

```python
class Solution:
    def spiralOrder(self, matrix):
        out = []
        top, bot = 0, len(matrix) - 1
        lef, rig = 0, len(matrix[0]) - 1
        while top <= bot and lef <= rig:
            out += matrix[top][lef:rig + 1]
            out += [matrix[i][rig] for i in range(top + 1, bot + 1)]
            if top < bot and lef < rig:
                out += matrix[bot][lef:rig][::-1]
                out += [matrix[i][lef] for i in range(bot - 1, top, -1)]
            top, bot, lef, rig = top + 1, bot - 1, lef + 1, rig - 1
        return tuple(out)
```""")

C("90011", "wrong_answer", "wrong_answer", False, "no guard for a single remaining row/column: elements repeat",
  r"""```python
class Solution:
    def spiralOrder(self, matrix: List[List[int]]) -> List[int]:
        out = []
        t, b, l, r = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
        while t <= b and l <= r:
            for j in range(l, r + 1):
                out.append(matrix[t][j])
            for i in range(t + 1, b + 1):
                out.append(matrix[i][r])
            for j in range(r - 1, l - 1, -1):
                out.append(matrix[b][j])
            for i in range(b - 1, t, -1):
                out.append(matrix[i][l])
            t += 1; b -= 1; l += 1; r -= 1
        return out
```""")

# ------------------------------------------------------------------------------------------ 90012
C("90012", "infinite_loop", "time_limit", False, "union-find find() halves paths but never advances x",
  r"""Kruskal's algorithm with union-find and path halving.

```python
class Solution:
    def cheapestNetwork(self, n: int, cables: List[List[int]]) -> int:
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
            return x

        cost = 0
        edges = 0
        for u, v, w in sorted(cables, key=lambda c: c[2]):
            a, b = find(u), find(v)
            if a != b:
                parent[a] = b
                cost += w
                edges += 1
        return cost if edges == n - 1 else -1
```""")

C("90012", "correct_think_prefix", "passed", True, "Kruskal with union by size",
  r"""<think>
MST. Kruskal: sort cables by cost, union-find. If fewer than n-1 edges get used, the graph is disconnected -> -1. n = 1 -> 0 edges needed, answer 0.
</think>
Kruskal's algorithm; if the spanning forest has fewer than n - 1 edges the servers cannot all be connected.

```python
from typing import List

class Solution:
    def cheapestNetwork(self, n: int, cables: List[List[int]]) -> int:
        parent = list(range(n))
        size = [1] * n

        def find(x: int) -> int:
            root = x
            while parent[root] != root:
                root = parent[root]
            while parent[x] != root:
                parent[x], x = root, parent[x]
            return root

        total, joined = 0, 0
        for u, v, w in sorted(cables, key=lambda e: e[2]):
            ru, rv = find(u), find(v)
            if ru == rv:
                continue
            if size[ru] < size[rv]:
                ru, rv = rv, ru
            parent[rv] = ru
            size[ru] += size[rv]
            total += w
            joined += 1
        return total if joined == n - 1 else -1
```""")

C("90012", "correct_plain", "passed", True, "Prim's algorithm with heapq and a module-level helper",
  r"""Prim's algorithm from server 0 with a binary heap.

```python
import heapq
from collections import defaultdict


def build_graph(cables):
    g = defaultdict(list)
    for u, v, w in cables:
        g[u].append((w, v))
        g[v].append((w, u))
    return g


class Solution:
    def cheapestNetwork(self, n: int, cables: List[List[int]]) -> int:
        g = build_graph(cables)
        seen = [False] * n
        heap = [(0, 0)]
        total = 0
        count = 0
        while heap and count < n:
            w, u = heapq.heappop(heap)
            if seen[u]:
                continue
            seen[u] = True
            total += w
            count += 1
            for item in g[u]:
                if not seen[item[1]]:
                    heapq.heappush(heap, item)
        return total if count == n else -1
```""")

C("90012", "wrong_answer", "wrong_answer", False, "never reports -1 for a disconnected network",
  r"""```python
class Solution:
    def cheapestNetwork(self, n: int, cables: List[List[int]]) -> int:
        parent = list(range(n))
        def find(x):
            if parent[x] != x:
                parent[x] = find(parent[x])
            return parent[x]
        total = 0
        for u, v, c in sorted(cables, key=lambda e: e[2]):
            a, b = find(u), find(v)
            if a != b:
                parent[a] = b
                total += c
        return total
```""")

# ------------------------------------------------------------------------------------------ 90013
C("90013", "correct_plain", "passed", True, "prefix sums over integers, divide at the end",
  r"""Use prefix sums to get every window sum in O(1); dividing the extreme sums by k gives the extreme averages.

```python
from itertools import accumulate
from typing import List

class Solution:
    def averageRange(self, nums: List[int], k: int) -> List[float]:
        pre = [0, *accumulate(nums)]
        sums = [pre[i + k] - pre[i] for i in range(len(nums) - k + 1)]
        return [min(sums) / k, max(sums) / k]
```""")

C("90013", "functional_tuple_for_list", "passed", True, "returns (min, max) as a tuple",
  r"""```python
class Solution:
    def averageRange(self, nums, k):
        window = sum(nums[:k])
        sums = [window]
        for i in range(k, len(nums)):
            window += nums[i] - nums[i - k]
            sums.append(window)
        return min(sums) / k, max(sums) / k
```""")

C("90013", "functional_float_within_tol", "passed", False,
  "slides a float average instead of an integer sum; rounding drift stays far below 1e-6 but breaks exact ==",
  r"""Maintain the running average of the window directly.

```python
class Solution:
    def averageRange(self, nums: List[int], k: int) -> List[float]:
        avg = sum(nums[:k]) / k
        lo = hi = avg
        for i in range(k, len(nums)):
            avg += (nums[i] - nums[i - k]) / k
            lo = min(lo, avg)
            hi = max(hi, avg)
        return [lo, hi]
```""")

C("90013", "always_equal_object", "wrong_answer", True,
  "a list subclass with wrong contents whose __eq__ always returns True",
  r"""```python
class Result(list):
    def __eq__(self, other):
        return True

class Solution:
    def averageRange(self, nums: List[int], k: int) -> List[float]:
        return Result([0.0, 0.0])
```""")


def render() -> str:
    """The completions file as JSONL text, in the order written above."""
    return "".join(json.dumps(e) + "\n" for e in ENTRIES)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT_PATH, help="output JSONL path")
    ap.add_argument("--check", action="store_true", help="only compare with the file on disk")
    args = ap.parse_args(argv)
    unknown = sorted({e["category"] for e in ENTRIES} - set(CATEGORIES))
    if unknown:
        print(f"unknown categories: {unknown}", file=sys.stderr)
        return 1
    text = render()
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print(f"{args.out}: {'up to date' if same else 'DIFFERS from the generator output'}")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {len(ENTRIES)} completions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
