"""Generate ``lcb_sample_problems.jsonl``: original problems in LiveCodeBench record format.

Every statement, reference solution and test input below was written for this project.
Expected outputs are never typed by hand: stdin problems run their reference solution with
``python3`` (subprocess), functional problems call the reference ``Solution`` method and
store ``json.dumps`` of the return value. Test inputs come from seeded generators, so the
output file is byte-for-byte reproducible::

    python data/make_sample_data.py            # rewrite data/lcb_sample_problems.jsonl
    python data/make_sample_data.py --check    # exit 1 if the file on disk differs
"""
from __future__ import annotations

import argparse
import base64
import copy
import json
import pickle
import random
import subprocess
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
OUT_PATH = HERE / "lcb_sample_problems.jsonl"

# Functional references run with the same names LiveCodeBench pre-imports for LeetCode code.
FUNCTIONAL_PRELUDE = "from typing import *\nimport collections, functools, heapq, math\n"


@dataclass
class Spec:
    """One problem before its expected outputs are computed."""

    question_id: str
    title: str
    platform: str
    contest_id: str
    date: str  # YYYY-MM-DD
    difficulty: str
    statement: str  # text before the examples
    reference: str  # python source of the reference solution
    public: list[Any]  # stdin: input strings; functional: lists of positional args
    private: list[Any]
    constraints: str = ""  # functional only: text after the examples
    func_name: str | None = None
    signature: str = ""  # functional only: "(self, s: str) -> int"
    params: list[str] = field(default_factory=list)  # functional only: argument names
    compress_private: bool = False
    checker: str = ""  # stdin only: python source of check(input, output, expected) -> bool

    @property
    def functional(self) -> bool:
        return self.func_name is not None


def _fmt_fraction(value: Any, digits: int) -> str:
    """``value`` (a Fraction >= 0) rounded half-even to ``digits`` decimals, as text."""
    scaled = round(value * 10**digits)
    text = str(scaled).rjust(digits + 1, "0")
    return f"{text[:-digits]}.{text[-digits:]}"


# ----------------------------------------------------------------------------------------------
# stdin problems (AtCoder / Codeforces style)
# ----------------------------------------------------------------------------------------------

def _rng(seed: int) -> random.Random:
    return random.Random(seed)


def _ints(n: int, lo: int, hi: int, seed: int) -> list[int]:
    r = _rng(seed)
    return [r.randint(lo, hi) for _ in range(n)]


def _avg_private() -> list[str]:
    r = _rng(101)
    cases = ["1\n7\n", "2\n0 1\n", "6\n100 100 100 100 100 99\n"]
    for n in (17, 250, 2000):
        cases.append(f"{n}\n{' '.join(str(r.randint(0, 100)) for _ in range(n))}\n")
    return cases


def _shelf_private() -> list[str]:
    r = _rng(102)
    cases = ["2\n5 5\n", "2\n1 2\n", "5\n1 1 1 1 4\n"]
    for n in (40, 300):
        left = [r.randint(1, 10**9) for _ in range(n // 2)]
        right = [r.randint(1, 10**9) for _ in range(n // 2 - 1)]
        right.append(sum(left) - sum(right) if sum(left) > sum(right) else 1)
        cases.append(f"{len(left + right)}\n{' '.join(map(str, left + right))}\n")
    cases.append(f"300\n{' '.join(str(r.randint(1, 10**9)) for _ in range(300))}\n")
    return cases


def _ranges_input(n: int, q: int, seed: int) -> str:
    r = _rng(seed)
    a = [r.randint(-10**6, 10**6) for _ in range(n)]
    lines = [f"{n} {q}", " ".join(map(str, a))]
    has_sum = False
    for i in range(q):
        lo = r.randint(1, n)
        hi = r.randint(lo, n)
        if r.random() < 0.5 or (i == q - 1 and not has_sum):
            lines.append(f"2 {lo} {hi}")
            has_sum = True
        else:
            lines.append(f"1 {lo} {hi} {r.randint(-10**6, 10**6)}")
    return "\n".join(lines) + "\n"


def _spread_input(t: int, max_n: int, seed: int) -> str:
    r = _rng(seed)
    lines = [str(t)]
    for _ in range(t):
        n = r.randint(1, max_n)
        lines.append(str(n))
        lines.append(" ".join(str(r.randint(-10**9, 10**9)) for _ in range(n)))
    return "\n".join(lines) + "\n"


def _grid_input(h: int, w: int, density: float, seed: int) -> str:
    r = _rng(seed)
    rows = []
    for i in range(h):
        row = ["#" if r.random() < density else "." for _ in range(w)]
        rows.append(row)
    rows[0][0] = rows[-1][-1] = "."
    return f"{h} {w}\n" + "\n".join("".join(row) for row in rows) + "\n"


def _words_input(n: int, vocab: int, seed: int) -> str:
    r = _rng(seed)
    words = ["".join(r.choice("abcde") for _ in range(r.randint(1, 4))) for _ in range(vocab)]
    return f"{n}\n" + " ".join(r.choice(words) for _ in range(n)) + "\n"


def _change_input(cases: list[tuple[list[int], int]]) -> str:
    lines = [str(len(cases))]
    for coins, x in cases:
        lines.append(f"{len(coins)} {x}")
        lines.append(" ".join(map(str, coins)))
    return "\n".join(lines) + "\n"


STDIN_SPECS: list[Spec] = [
    Spec(
        question_id="mcb101_a",
        title="Average Score",
        platform="atcoder",
        contest_id="mcb101",
        date="2024-08-10",
        difficulty="easy",
        statement="""\
A class of N students took a quiz. Student i scored A_i points.
Print the average score of the class.

Input

The input is given from Standard Input in the following format:
N
A_1 A_2 \\ldots A_N

Output

Print the average score. Print exactly 12 digits after the decimal point.
Your output is judged correct if its absolute or relative error from the true value is at most 10^{-6}.

Constraints


- 1 \\leq N \\leq 2000
- 0 \\leq A_i \\leq 100
- All input values are integers.""",
        reference="""\
from fractions import Fraction
n = int(input())
a = list(map(int, input().split()))
avg = Fraction(sum(a), n)
scaled = round(avg * 10**12)
text = str(scaled).rjust(13, "0")
print(text[:-12] + "." + text[-12:])
""",
        public=["3\n1 0 0\n", "4\n10 20 30 40\n", "3\n2 2 3\n"],
        private=_avg_private(),
    ),
    Spec(
        question_id="mcb101_b",
        title="Balanced Shelf",
        platform="atcoder",
        contest_id="mcb101",
        date="2024-08-10",
        difficulty="easy",
        statement="""\
There are N books on a shelf, in a row from left to right. The i-th book from the left weighs W_i grams.
You want to place a divider between two adjacent books so that the books to the left of the divider weigh exactly as much in total as the books to its right.
Determine whether this is possible.

Input

The input is given from Standard Input in the following format:
N
W_1 W_2 \\ldots W_N

Output

If it is possible, print Yes; otherwise, print No.

Constraints


- 2 \\leq N \\leq 300
- 1 \\leq W_i \\leq 10^{12}
- All input values are integers.""",
        reference="""\
n = int(input())
w = list(map(int, input().split()))
total = sum(w)
left = 0
ok = False
for i in range(n - 1):
    left += w[i]
    if 2 * left == total:
        ok = True
print("Yes" if ok else "No")
""",
        public=["4\n3 1 2 2\n", "3\n1 2 4\n", "2\n7 7\n"],
        private=_shelf_private(),
    ),
    Spec(
        question_id="mcb104_c",
        title="Factorial Tail",
        platform="atcoder",
        contest_id="mcb104",
        date="2024-09-07",
        difficulty="medium",
        statement="""\
You are given a positive integer N.
Print the value of N! = 1 \\times 2 \\times \\cdots \\times N in decimal, and then the number of zeros at the end of that decimal representation.

Input

The input is given from Standard Input in the following format:
N

Output

Print two lines.
The first line must contain N! in decimal notation, without leading zeros.
The second line must contain the number of trailing zeros of N!.

Constraints


- 1 \\leq N \\leq 2000
- N is an integer.""",
        reference="""\
import sys
sys.set_int_max_str_digits(0)
n = int(input())
f = 1
for i in range(2, n + 1):
    f *= i
s = str(f)
print(s)
print(len(s) - len(s.rstrip("0")))
""",
        public=["5\n", "10\n", "3\n"],
        private=["1\n", "25\n", "100\n", "1000\n", "1999\n", "2000\n"],
    ),
    Spec(
        question_id="mcb104_d",
        title="Exact Power",
        platform="atcoder",
        contest_id="mcb104",
        date="2024-09-07",
        difficulty="medium",
        statement="""\
You are given integers A and B.
Print the exact value of A^B in decimal notation.

Input

The input is given from Standard Input in the following format:
A B

Output

Print A^B in decimal notation, without leading zeros.

Constraints


- 2 \\leq A \\leq 9
- 1 \\leq B \\leq 200000
- A^B has at most 60000 digits.
- All input values are integers.""",
        reference="""\
import sys
sys.set_int_max_str_digits(0)
a, b = map(int, input().split())
print(a ** b)
""",
        public=["2 10\n", "3 5\n", "7 20\n"],
        private=["9 1\n", "2 15000\n", "9 30000\n", "3 125000\n", "2 199000\n"],
        compress_private=True,
    ),
    Spec(
        question_id="mccf01_a",
        title="Fence Area",
        platform="codeforces",
        contest_id="mccf01",
        date="2024-10-05",
        difficulty="easy",
        statement="""\
A farmer's fence is a simple polygon whose N corners all lie on integer grid points. The corners are given in order along the fence (either clockwise or counter-clockwise).
Compute the area enclosed by the fence.

Input

The first line contains one integer N (3 \\le N \\le 1000).
Each of the next N lines contains two integers x_i and y_i (-10^6 \\le x_i, y_i \\le 10^6), the coordinates of the i-th corner.
The polygon is simple (its edges do not cross) and has positive area.

Output

Print the area with exactly one digit after the decimal point.""",
        reference="""\
import sys
data = sys.stdin.read().split()
n = int(data[0])
pts = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
s = 0
for i in range(n):
    x1, y1 = pts[i]
    x2, y2 = pts[(i + 1) % n]
    s += x1 * y2 - x2 * y1
s = abs(s)
print(f"{s // 2}.{5 if s % 2 else 0}")
""",
        public=["4\n0 0\n4 0\n4 3\n0 3\n", "3\n0 0\n5 0\n0 5\n"],
        private=[
            "3\n0 0\n1 0\n0 1\n",
            "6\n0 0\n6 0\n6 2\n3 2\n3 5\n0 5\n",
            "4\n-1000000 -1000000\n1000000 -1000000\n1000000 1000000\n-1000000 1000000\n",
            "5\n0 0\n3 -1\n5 2\n2 4\n-1 2\n",
            "4\n0 0\n0 7\n7 7\n7 0\n",
        ],
    ),
    Spec(
        question_id="mcb108_a",
        title="Block Staircase",
        platform="atcoder",
        contest_id="mcb108",
        date="2024-11-02",
        difficulty="easy",
        statement="""\
A staircase of height n is built from toy blocks: its first column has 1 block, its second column has 2 blocks, and so on, up to the n-th column with n blocks.
Answer Q questions. In the j-th question, you are given n_j; print the number of blocks needed for a staircase of height n_j.

Input

The input is given from Standard Input in the following format:
Q
n_1
n_2
\\vdots
n_Q

Output

Print Q lines. The j-th line must contain the answer to the j-th question.

Constraints


- 1 \\leq Q \\leq 1000
- 1 \\leq n_j \\leq 10^6
- All input values are integers.""",
        reference="""\
q = int(input())
for _ in range(q):
    n = int(input())
    print(n * (n + 1) // 2)
""",
        public=["3\n1\n5\n10\n", "1\n1000000\n"],
        private=[
            "1\n1\n",
            "4\n2\n3\n4\n999999\n",
            "5\n123456\n7\n88\n1000000\n31\n",
            "10\n" + "\n".join(str(x) for x in _rng(108).sample(range(1, 10**6 + 1), 10)) + "\n",
        ],
    ),
    Spec(
        question_id="mcb108_e",
        title="Dice Sum Probability",
        platform="atcoder",
        contest_id="mcb108",
        date="2024-11-02",
        difficulty="medium",
        statement="""\
You roll N fair dice. Each die has K faces showing the integers 1, 2, \\ldots, K, each with probability 1/K, independently of the other dice.
Find the probability that the sum of the N results is exactly S.

Input

The input is given from Standard Input in the following format:
N K S

Output

Print the probability with exactly 10 digits after the decimal point.
Your output is judged correct if its absolute or relative error from the true value is at most 10^{-6}.

Constraints


- 1 \\leq N \\leq 50
- 2 \\leq K \\leq 20
- 1 \\leq S \\leq 1000
- All input values are integers.""",
        reference="""\
from fractions import Fraction
n, k, s = map(int, input().split())
ways = [1] + [0] * s
for _ in range(n):
    nxt = [0] * (s + 1)
    for total, w in enumerate(ways):
        if w:
            for face in range(1, k + 1):
                if total + face > s:
                    break
                nxt[total + face] += w
    ways = nxt
p = Fraction(ways[s], k ** n)
scaled = round(p * 10**10)
text = str(scaled).rjust(11, "0")
print(text[:-10] + "." + text[-10:])
""",
        public=["2 6 7\n", "1 6 7\n", "3 2 4\n"],
        private=["1 2 1\n", "2 6 2\n", "10 6 35\n", "50 20 525\n", "20 3 40\n", "7 10 1000\n"],
    ),
    Spec(
        question_id="mcb112_f",
        title="Range Add and Range Sum",
        platform="atcoder",
        contest_id="mcb112",
        date="2024-12-07",
        difficulty="hard",
        statement="""\
You are given an integer sequence A = (A_1, A_2, \\ldots, A_N) of length N.
Process Q queries in order. Each query has one of the following two forms:

- 1 l r x: add x to each of A_l, A_{l+1}, \\ldots, A_r.
- 2 l r: print A_l + A_{l+1} + \\cdots + A_r.

Input

The input is given from Standard Input in the following format:
N Q
A_1 A_2 \\ldots A_N
\\text{query}_1
\\text{query}_2
\\vdots
\\text{query}_Q

Output

For each query of the second form, print the answer on its own line.

Constraints


- 1 \\leq N, Q \\leq 2 \\times 10^5
- -10^6 \\leq A_i, x \\leq 10^6
- 1 \\leq l \\leq r \\leq N
- There is at least one query of the second form.
- All input values are integers.""",
        reference="""\
import sys
def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    b1 = [0] * (n + 2)
    b2 = [0] * (n + 2)
    def add(tree, i, v):
        while i <= n:
            tree[i] += v
            i += i & -i
    def prefix(tree, i):
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s
    def range_add(l, r, x):
        add(b1, l, x)
        add(b1, r + 1, -x)
        add(b2, l, x * (l - 1))
        add(b2, r + 1, -x * r)
    def sum_to(i):
        return prefix(b1, i) * i - prefix(b2, i)
    for i in range(n):
        v = int(data[2 + i])
        range_add(i + 1, i + 1, v)
    pos = 2 + n
    out = []
    for _ in range(q):
        if data[pos] == b"1":
            l, r, x = int(data[pos + 1]), int(data[pos + 2]), int(data[pos + 3])
            pos += 4
            range_add(l, r, x)
        else:
            l, r = int(data[pos + 1]), int(data[pos + 2])
            pos += 3
            out.append(sum_to(r) - sum_to(l - 1))
    print("\\n".join(map(str, out)))
main()
""",
        public=["5 4\n1 2 3 4 5\n2 1 5\n1 2 4 10\n2 1 3\n2 4 5\n", "3 3\n-1 -1 -1\n1 1 3 1\n2 1 1\n2 1 3\n"],
        private=[
            "1 1\n5\n2 1 1\n",
            "4 5\n0 0 0 0\n1 1 4 1000000\n1 1 4 1000000\n2 1 4\n1 2 3 -1000000\n2 2 3\n",
            _ranges_input(50, 60, 1121),
            _ranges_input(500, 800, 1122),
            _ranges_input(2000, 2000, 1123),
        ],
        compress_private=True,
    ),
    Spec(
        question_id="mccf02_b",
        title="Spread of Values",
        platform="codeforces",
        contest_id="mccf02",
        date="2024-12-14",
        difficulty="easy",
        statement="""\
You are given t test cases. In each test case you are given an array a of n integers.
The spread of an array is the difference between its largest and its smallest element. For each test case, print the spread of the array.

Input

The first line contains a single integer t (1 \\le t \\le 1000), the number of test cases.
Each test case consists of two lines. The first line contains an integer n (1 \\le n \\le 100). The second line contains n integers a_1, a_2, \\ldots, a_n (-10^9 \\le a_i \\le 10^9).

Output

For each test case, print one integer: the spread of the array.""",
        reference="""\
t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    print(max(a) - min(a))
""",
        public=["3\n3\n1 5 2\n1\n7\n4\n-3 -3 -3 -3\n", "2\n2\n-1000000000 1000000000\n3\n10 9 8\n"],
        private=["1\n1\n0\n", _spread_input(5, 8, 1201), _spread_input(40, 30, 1202), _spread_input(200, 100, 1203)],
    ),
    Spec(
        question_id="mccf03_d",
        title="Blocked Grid Paths",
        platform="codeforces",
        contest_id="mccf03",
        date="2025-01-11",
        difficulty="hard",
        statement="""\
A robot stands in the top-left cell of a grid with h rows and w columns. Some cells are blocked. In one move the robot goes one cell down or one cell to the right; it may never enter a blocked cell.
Count the number of different routes from the top-left cell to the bottom-right cell. As the number can be huge, print it modulo 998244353.

Input

The first line contains two integers h and w (1 \\le h, w \\le 1000).
Each of the next h lines contains a string of w characters; '.' is a free cell and '#' is a blocked cell. The top-left and bottom-right cells are free.

Output

Print the number of routes modulo 998244353.""",
        reference="""\
import sys
MOD = 998244353
data = sys.stdin.read().split()
h, w = int(data[0]), int(data[1])
grid = data[2:2 + h]
dp = [0] * w
dp[0] = 1
for i in range(h):
    row = grid[i]
    for j in range(w):
        if row[j] == "#":
            dp[j] = 0
        elif j > 0:
            dp[j] = (dp[j] + dp[j - 1]) % MOD
print(dp[w - 1] % MOD)
""",
        public=["3 3\n...\n.#.\n...\n", "2 2\n.#\n#.\n", "1 1\n.\n"],
        private=[
            "1 5\n.....\n",
            "3 4\n....\n.##.\n....\n",
            _grid_input(10, 12, 0.12, 1305),
            _grid_input(30, 30, 0.0, 1302),
            _grid_input(60, 80, 0.1, 1303),
            _grid_input(200, 150, 0.05, 1304),
        ],
    ),
    Spec(
        question_id="mcb115_c",
        title="Word Ranking",
        platform="atcoder",
        contest_id="mcb115",
        date="2025-01-25",
        difficulty="medium",
        statement="""\
You are given N words W_1, W_2, \\ldots, W_N consisting of lowercase English letters.
List every distinct word together with the number of times it occurs. Words that occur more often come first; words that occur equally often are listed in lexicographical order.

Input

The input is given from Standard Input in the following format:
N
W_1 W_2 \\ldots W_N

Output

Print one line per distinct word, in the order described above. Each line must contain the word and its number of occurrences, separated by a space.

Constraints


- 1 \\leq N \\leq 10^5
- Each W_i is a string of length between 1 and 10 consisting of lowercase English letters.""",
        reference="""\
n = int(input())
words = input().split()
count = {}
for w in words:
    count[w] = count.get(w, 0) + 1
for w, c in sorted(count.items(), key=lambda kv: (-kv[1], kv[0])):
    print(w, c)
""",
        public=["6\nbanana apple banana cherry apple banana\n", "3\nzeta alpha mid\n"],
        private=["1\nsolo\n", "4\nb a b a\n", _words_input(30, 8, 1501), _words_input(500, 40, 1502), _words_input(3000, 200, 1503)],
    ),
    Spec(
        question_id="mcb118_g",
        title="Gambler's Target",
        platform="atcoder",
        contest_id="mcb118",
        date="2025-02-22",
        difficulty="hard",
        statement="""\
Takumi has I coins and wants to reach exactly N coins. He repeatedly plays a game: with probability P percent he wins one coin, otherwise he loses one coin. Rounds are independent.
He stops as soon as he has 0 coins or N coins. Find the probability that he stops with N coins.

Input

The input is given from Standard Input in the following format:
N I P

Output

Print the probability with exactly 10 digits after the decimal point.
Your output is judged correct if its absolute or relative error from the true value is at most 10^{-6}.

Constraints


- 2 \\leq N \\leq 200
- 1 \\leq I \\leq N - 1
- 1 \\leq P \\leq 99
- All input values are integers.""",
        reference="""\
from fractions import Fraction
n, i, p = map(int, input().split())
if 2 * p == 100:
    ans = Fraction(i, n)
else:
    r = Fraction(100 - p, p)
    ans = (1 - r ** i) / (1 - r ** n)
scaled = round(ans * 10**10)
text = str(scaled).rjust(11, "0")
print(text[:-10] + "." + text[-10:])
""",
        public=["2 1 50\n", "10 3 60\n", "5 4 30\n"],
        private=["3 1 50\n", "200 100 51\n", "200 199 1\n", "200 1 99\n", "100 30 45\n", "7 3 80\n"],
    ),
    Spec(
        question_id="mccf04_c",
        title="Exact Change",
        platform="codeforces",
        contest_id="mccf04",
        date="2025-03-15",
        difficulty="medium",
        statement="""\
A vending machine must return exactly x units of change. It has an unlimited supply of coins of n different values c_1, c_2, \\ldots, c_n.
For each test case, find the minimum number of coins that sum to exactly x, or report that it is impossible.

Input

The first line contains an integer t (1 \\le t \\le 100), the number of test cases.
Each test case consists of two lines. The first line contains two integers n and x (1 \\le n \\le 10, 0 \\le x \\le 10^4). The second line contains n distinct integers c_1, \\ldots, c_n (1 \\le c_i \\le 10^4).

Output

For each test case, print the minimum number of coins, or -1 if the amount cannot be formed.""",
        reference="""\
import sys
data = sys.stdin.read().split()
t = int(data[0])
pos = 1
INF = float("inf")
for _ in range(t):
    n, x = int(data[pos]), int(data[pos + 1])
    coins = [int(v) for v in data[pos + 2:pos + 2 + n]]
    pos += 2 + n
    best = [0] + [INF] * x
    for amount in range(1, x + 1):
        for c in coins:
            if c <= amount and best[amount - c] + 1 < best[amount]:
                best[amount] = best[amount - c] + 1
    print(best[x] if best[x] != INF else -1)
""",
        public=[
            _change_input([([1, 5, 10, 25], 63), ([2], 3), ([1, 2, 5], 11)]),
            _change_input([([7], 0), ([3, 5], 7)]),
        ],
        private=[
            _change_input([([1, 3, 4], 6)]),
            _change_input([([1, 5, 10, 25], 30), ([9, 6, 1], 12), ([2, 4], 7)]),
            _change_input([([1, 7, 10], 14), ([5, 12], 29), ([10000], 10000), ([3], 10000)]),
            _change_input([([37, 53, 91, 4, 1], 9999), ([97, 89, 83], 5000), ([11, 13], 1)]),
        ],
    ),
    Spec(
        question_id="mccf05_a",
        title="Split the Sum",
        platform="codeforces",
        contest_id="mccf05",
        date="2025-01-18",
        difficulty="easy",
        statement="""\
For each test case you are given an integer n. Find two positive integers a and b such that a + b = n and a \\le b.

Input

The first line contains an integer t (1 \\le t \\le 100), the number of test cases.
Each of the next t lines contains one integer n (2 \\le n \\le 10^9).

Output

For each test case, print two integers a and b on one line. If there are several answers, print any of them.""",
        reference="""\
import sys
data = sys.stdin.read().split()
for v in data[1:1 + int(data[0])]:
    n = int(v)
    print(n // 2, n - n // 2)
""",
        public=["3\n2\n7\n10\n", "2\n1000000000\n3\n"],
        private=["1\n5\n", "4\n4\n9\n100\n999999999\n", "5\n2\n3\n4\n5\n6\n"],
        checker="""\
def check(input, output, expected):
    ns = [int(v) for v in input.split()[1:]]
    lines = output.strip().split("\\n")
    if len(lines) != len(ns):
        return False
    for n, line in zip(ns, lines):
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return False
        a, b = int(parts[0]), int(parts[1])
        if not (0 < a <= b and a + b == n):
            return False
    return True
""",
    ),
]

# ----------------------------------------------------------------------------------------------
# functional problems (LeetCode style)
# ----------------------------------------------------------------------------------------------


def _lip_grid(m: int, n: int, seed: int) -> list[list[int]]:
    r = _rng(seed)
    return [[r.randint(0, 50) for _ in range(n)] for _ in range(m)]


def _random_word(r: random.Random, n: int, alphabet: str) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def _mst_case(n: int, m: int, seed: int, connected: bool = True) -> list[Any]:
    r = _rng(seed)
    edges = []
    if connected:
        order = list(range(n))
        r.shuffle(order)
        for k in range(1, n):
            edges.append([order[k], order[r.randrange(k)], r.randint(1, 1000)])
    while len(edges) < m:
        u, v = r.randrange(n), r.randrange(n)
        if u != v:
            edges.append([u, v, r.randint(1, 1000)])
    r.shuffle(edges)
    return [n, edges]


def _intervals(k: int, seed: int) -> list[list[int]]:
    r = _rng(seed)
    out = []
    for _ in range(k):
        a = r.randint(0, 1000)
        out.append([a, a + r.randint(0, 40)])
    return out


def _tags(n: int, vocab: int, seed: int) -> list[str]:
    r = _rng(seed)
    names = sorted({_random_word(r, r.randint(2, 5), "abcdefg") for _ in range(vocab)})
    return [r.choice(names) for _ in range(n)]


FUNCTIONAL_SPECS: list[Spec] = [
    Spec(
        question_id="90001",
        title="longest-vowel-run",
        platform="leetcode",
        contest_id="mc-weekly-001",
        date="2024-08-17",
        difficulty="easy",
        func_name="longestVowelRun",
        signature="(self, s: str) -> int",
        params=["s"],
        statement="""\
You are given a string s consisting of lowercase English letters.
A vowel run is a non-empty substring of s made only of the letters 'a', 'e', 'i', 'o' and 'u'.
Return the length of the longest vowel run in s, or 0 if s contains no vowel.""",
        constraints="1 <= s.length <= 10^5\ns consists of lowercase English letters.",
        reference="""\
class Solution:
    def longestVowelRun(self, s: str) -> int:
        best = cur = 0
        for ch in s:
            if ch in "aeiou":
                cur += 1
                best = max(best, cur)
            else:
                cur = 0
        return best
""",
        public=[["beautiful"], ["rhythm"], ["queueing"]],
        private=[["a"], ["z"], ["aeiouaeiou"], ["xaxeexiiixoooox"],
                 [_random_word(_rng(9001), 500, "aeioubcd")], [_random_word(_rng(9002), 3000, "aeiouxyz")]],
    ),
    Spec(
        question_id="90002",
        title="handshakes-with-grudges",
        platform="leetcode",
        contest_id="mc-weekly-003",
        date="2024-09-14",
        difficulty="easy",
        func_name="countHandshakes",
        signature="(self, n: int, grudges: List[List[int]]) -> int",
        params=["n", "grudges"],
        statement="""\
There are n guests at a party, numbered from 0 to n - 1. Every two guests shake hands exactly once, unless they hold a grudge against each other.
You are given a 2D array grudges where grudges[i] = [a_i, b_i] means guests a_i and b_i will not shake hands. The same pair may appear several times, in either order.
Return the total number of handshakes.""",
        constraints="2 <= n <= 10^5\n0 <= grudges.length <= 1000\ngrudges[i].length == 2\n0 <= a_i, b_i < n\na_i != b_i",
        reference="""\
class Solution:
    def countHandshakes(self, n: int, grudges: List[List[int]]) -> int:
        pairs = {(min(a, b), max(a, b)) for a, b in grudges}
        return n * (n - 1) // 2 - len(pairs)
""",
        public=[[4, [[0, 1]]], [3, []], [5, [[1, 2], [2, 1], [3, 4]]]],
        private=[[2, [[0, 1]]], [2, []], [100000, [[0, 99999], [5, 6]]],
                 [1000, [[i, (i * 7 + 1) % 1000] for i in range(0, 1000, 3)]],
                 [7, [[0, 1], [1, 0], [0, 1], [2, 3]]]],
    ),
    Spec(
        question_id="90003",
        title="merge-booking-intervals",
        platform="leetcode",
        contest_id="mc-biweekly-002",
        date="2024-10-05",
        difficulty="medium",
        func_name="mergeBookings",
        signature="(self, bookings: List[List[int]]) -> List[List[int]]",
        params=["bookings"],
        statement="""\
A meeting room has a list of bookings, where bookings[i] = [start_i, end_i] means the room is reserved for the closed time range from start_i to end_i.
Two bookings belong to the same block if their ranges overlap or touch (one ends exactly when the other starts). Blocks are formed transitively.
Return the blocks as a list of [start, end] ranges sorted by start.""",
        constraints="1 <= bookings.length <= 10^4\n0 <= start_i <= end_i <= 10^6",
        reference="""\
class Solution:
    def mergeBookings(self, bookings: List[List[int]]) -> List[List[int]]:
        out = []
        for s, e in sorted(bookings):
            if out and s <= out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out
""",
        public=[[[[1, 3], [2, 6], [8, 10], [15, 18]]], [[[1, 4], [4, 5]]]],
        private=[[[[5, 5]]], [[[6, 8], [1, 2], [2, 3], [9, 9]]], [[[0, 100], [10, 20], [30, 40]]],
                 [_intervals(40, 9031)], [_intervals(800, 9032)]],
    ),
    Spec(
        question_id="90004",
        title="top-k-frequent-tags",
        platform="leetcode",
        contest_id="mc-weekly-009",
        date="2024-10-26",
        difficulty="medium",
        func_name="topTags",
        signature="(self, tags: List[str], k: int) -> List[str]",
        params=["tags", "k"],
        statement="""\
You are given an array of strings tags, where each string is a tag attached to a post, and an integer k.
Return the k most frequent tags. Order the answer by frequency from highest to lowest; tags with the same frequency are ordered lexicographically.""",
        constraints="1 <= tags.length <= 10^4\n1 <= tags[i].length <= 10\ntags[i] consists of lowercase English letters.\n1 <= k <= number of distinct tags",
        reference="""\
class Solution:
    def topTags(self, tags: List[str], k: int) -> List[str]:
        count = collections.Counter(tags)
        return sorted(count, key=lambda t: (-count[t], t))[:k]
""",
        public=[[["py", "go", "py", "rs", "py", "go"], 2], [["x"], 1]],
        private=[[["b", "a", "c", "a", "b"], 2], [["delta", "alpha", "charlie", "bravo"], 3],
                 [_tags(60, 10, 9041), 4], [_tags(2000, 60, 9042), 10]],
    ),
    Spec(
        question_id="90005",
        title="trimmed-mean",
        platform="leetcode",
        contest_id="mc-weekly-011",
        date="2024-11-09",
        difficulty="easy",
        func_name="trimmedMean",
        signature="(self, nums: List[int]) -> float",
        params=["nums"],
        statement="""\
You are given an integer array nums with at least three elements.
Remove one occurrence of the minimum value and one occurrence of the maximum value, then return the average of the remaining elements.
Answers within 10^-5 of the actual answer are considered accepted.""",
        constraints="3 <= nums.length <= 1000\n-10^4 <= nums[i] <= 10^4",
        reference="""\
class Solution:
    def trimmedMean(self, nums: List[int]) -> float:
        return (sum(nums) - min(nums) - max(nums)) / (len(nums) - 2)
""",
        public=[[[1, 2, 3, 4]], [[5, 1, 4, 4, 2]], [[7, 7, 7]]],
        private=[[[-1, 0, 1]], [[1, 2, 2, 9]], [[10, -3, 8, 8, 2, 6, 1]],
                 [_ints(97, -10**4, 10**4, 9051)],
                 [_ints(1000, -50, 50, 9052)]],
    ),
    Spec(
        question_id="90006",
        title="exactly-k-heads",
        platform="leetcode",
        contest_id="mc-biweekly-006",
        date="2024-11-30",
        difficulty="medium",
        func_name="probabilityOfHeads",
        signature="(self, prob: List[float], k: int) -> float",
        params=["prob", "k"],
        statement="""\
You have n biased coins; the i-th coin lands heads with probability prob[i].
You toss every coin once. Return the probability that exactly k coins land heads.
Answers within 10^-5 of the correct answer will be accepted.""",
        constraints="1 <= prob.length <= 1000\n0 <= prob[i] <= 1\n0 <= k <= prob.length",
        reference="""\
class Solution:
    def probabilityOfHeads(self, prob: List[float], k: int) -> float:
        dp = [1.0] + [0.0] * k
        for p in prob:
            for j in range(k, 0, -1):
                dp[j] = dp[j] * (1 - p) + dp[j - 1] * p
            dp[0] *= 1 - p
        return dp[k]
""",
        public=[[[0.5], 0], [[0.5, 0.5, 0.5, 0.5, 0.5], 0], [[0.2, 0.9], 1]],
        private=[[[1.0], 1], [[0.3, 0.3, 0.3], 2], [[0.1, 0.25, 0.5, 0.75, 0.9], 3],
                 [[x / 100 for x in _ints(60, 0, 100, 9061)], 30],
                 [[x / 100 for x in _ints(400, 0, 100, 9062)], 205]],
    ),
    Spec(
        question_id="90007",
        title="longest-climb-in-terrain",
        platform="leetcode",
        contest_id="mc-weekly-017",
        date="2024-12-21",
        difficulty="hard",
        func_name="longestClimb",
        signature="(self, heights: List[List[int]]) -> int",
        params=["heights"],
        statement="""\
You are given an m x n integer matrix heights describing a terrain.
A climb is a sequence of cells where each cell is adjacent (up, down, left or right) to the previous one and has a strictly greater height.
Return the number of cells in the longest climb.""",
        constraints="1 <= m, n <= 200\n0 <= heights[i][j] <= 10^9",
        reference="""\
class Solution:
    def longestClimb(self, heights: List[List[int]]) -> int:
        m, n = len(heights), len(heights[0])
        cells = sorted((heights[i][j], i, j) for i in range(m) for j in range(n))
        best = [[1] * n for _ in range(m)]
        for h, i, j in cells:
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                a, b = i + di, j + dj
                if 0 <= a < m and 0 <= b < n and heights[a][b] < h:
                    best[i][j] = max(best[i][j], best[a][b] + 1)
        return max(map(max, best))
""",
        public=[[[[9, 9, 4], [6, 6, 8], [2, 1, 1]]], [[[3, 4, 5], [3, 2, 6], [2, 2, 1]]], [[[1]]]],
        private=[[[[7, 7], [7, 7]]], [[[1, 2, 3, 4, 5]]], [[[i * 10 + j for j in range(10)] for i in range(10)]],
                 [_lip_grid(12, 15, 9071)], [_lip_grid(40, 40, 9072)]],
        compress_private=True,
    ),
    Spec(
        question_id="90008",
        title="shortest-covering-substring",
        platform="leetcode",
        contest_id="mc-weekly-020",
        date="2025-01-11",
        difficulty="medium",
        func_name="shortestCover",
        signature="(self, s: str, t: str) -> str",
        params=["s", "t"],
        statement="""\
You are given two strings s and t.
A substring of s covers t if every character appears in the substring at least as many times as it appears in t.
Return the shortest substring of s that covers t. If several substrings have the same shortest length, return the one that starts first. If no substring covers t, return the empty string "".""",
        constraints="1 <= s.length, t.length <= 10^5\ns and t consist of lowercase English letters.",
        reference="""\
class Solution:
    def shortestCover(self, s: str, t: str) -> str:
        need = collections.Counter(t)
        missing = len(t)
        best = (float("inf"), 0)
        left = 0
        for right, ch in enumerate(s):
            if need[ch] > 0:
                missing -= 1
            need[ch] -= 1
            while missing == 0:
                if right - left + 1 < best[0]:
                    best = (right - left + 1, left)
                need[s[left]] += 1
                if need[s[left]] > 0:
                    missing += 1
                left += 1
        return "" if best[0] == float("inf") else s[best[1]:best[1] + best[0]]
""",
        public=[["xaybzcab", "abc"], ["aa", "aaa"], ["abc", "c"]],
        private=[["a", "a"], ["bbaab", "ab"], ["abcabc", "cba"], ["zzzz", "y"],
                 [_random_word(_rng(9081), 400, "abcd"), "aabbd"],
                 [_random_word(_rng(9082), 3000, "abcdefgh"), "hhggffeeh"]],
    ),
    Spec(
        question_id="90009",
        title="count-palindromic-subsequences",
        platform="leetcode",
        contest_id="mc-biweekly-010",
        date="2025-01-25",
        difficulty="hard",
        func_name="countPalindromes",
        signature="(self, s: str) -> int",
        params=["s"],
        statement="""\
Given a string s, return the number of non-empty subsequences of s that are palindromes. Two subsequences are different if they use different sets of indices, even if they spell the same string.
Since the answer may be very large, return it modulo 10^9 + 7.""",
        constraints="1 <= s.length <= 1000\ns consists of lowercase English letters.",
        reference="""\
class Solution:
    def countPalindromes(self, s: str) -> int:
        MOD = 10**9 + 7
        n = len(s)
        dp = [[0] * n for _ in range(n)]
        for i in range(n - 1, -1, -1):
            dp[i][i] = 1
            for j in range(i + 1, n):
                inner = dp[i + 1][j - 1] if i + 1 <= j - 1 else 0
                val = dp[i + 1][j] + dp[i][j - 1] - inner
                if s[i] == s[j]:
                    val += inner + 1
                dp[i][j] = val % MOD
        return dp[0][n - 1]
""",
        public=[["aab"], ["abc"], ["aaaa"]],
        private=[["z"], ["abba"], ["racecar"], [_random_word(_rng(9091), 60, "ab")],
                 [_random_word(_rng(9092), 300, "abc")]],
    ),
    Spec(
        question_id="90010",
        title="reverse-word-order",
        platform="leetcode",
        contest_id="mc-weekly-025",
        date="2025-02-15",
        difficulty="easy",
        func_name="reverseWords",
        signature="(self, s: str) -> str",
        params=["s"],
        statement="""\
You are given a string s made of words separated by spaces. The string may contain leading or trailing spaces and several spaces between two words.
Return a string with the words in reverse order, separated by exactly one space and without leading or trailing spaces.""",
        constraints="1 <= s.length <= 10^4\ns consists of English letters, digits and spaces.\ns contains at least one word.",
        reference="""\
class Solution:
    def reverseWords(self, s: str) -> str:
        return " ".join(reversed(s.split()))
""",
        public=[["the sky  is blue"], ["  hello world  "]],
        private=[["one"], ["a b c d e"], ["   Trailing  and   Leading   "],
                 [" ".join(f"w{i}" for i in range(500))]],
    ),
    Spec(
        question_id="90011",
        title="spiral-traversal",
        platform="leetcode",
        contest_id="mc-weekly-028",
        date="2025-03-08",
        difficulty="medium",
        func_name="spiralOrder",
        signature="(self, matrix: List[List[int]]) -> List[int]",
        params=["matrix"],
        statement="""\
Given an m x n matrix, return all of its elements in clockwise spiral order, starting from the top-left corner and moving right first.""",
        constraints="1 <= m, n <= 100\n-1000 <= matrix[i][j] <= 1000",
        reference="""\
class Solution:
    def spiralOrder(self, matrix: List[List[int]]) -> List[int]:
        top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
        out = []
        while top <= bottom and left <= right:
            for j in range(left, right + 1):
                out.append(matrix[top][j])
            for i in range(top + 1, bottom + 1):
                out.append(matrix[i][right])
            if top < bottom and left < right:
                for j in range(right - 1, left - 1, -1):
                    out.append(matrix[bottom][j])
                for i in range(bottom - 1, top, -1):
                    out.append(matrix[i][left])
            top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
        return out
""",
        public=[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]]],
        private=[[[[5]]], [[[1], [2], [3]]], [[[1, 2, 3]]],
                 [[[i * 7 + j for j in range(7)] for i in range(5)]],
                 [[_ints(30, -1000, 1000, 9111 + i) for i in range(20)]]],
    ),
    Spec(
        question_id="90012",
        title="cheapest-network",
        platform="leetcode",
        contest_id="mc-weekly-033",
        date="2025-04-12",
        difficulty="hard",
        func_name="cheapestNetwork",
        signature="(self, n: int, cables: List[List[int]]) -> int",
        params=["n", "cables"],
        statement="""\
There are n servers numbered from 0 to n - 1. You are given an array cables where cables[i] = [u_i, v_i, cost_i] means a cable between servers u_i and v_i can be installed for cost_i.
Return the minimum total cost of installing cables so that every pair of servers is connected, directly or through other servers. If this is impossible, return -1.""",
        constraints="1 <= n <= 10^4\n0 <= cables.length <= 10^5\n0 <= u_i, v_i < n\nu_i != v_i\n1 <= cost_i <= 10^5",
        reference="""\
class Solution:
    def cheapestNetwork(self, n: int, cables: List[List[int]]) -> int:
        parent = list(range(n))
        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        total = 0
        used = 0
        for u, v, c in sorted(cables, key=lambda e: e[2]):
            ru, rv = find(u), find(v)
            if ru != rv:
                parent[ru] = rv
                total += c
                used += 1
        return total if used == n - 1 else -1
""",
        public=[[4, [[0, 1, 3], [1, 2, 1], [2, 3, 4], [0, 3, 2]]], [3, [[0, 1, 5]]], [1, []]],
        private=[[2, [[0, 1, 7], [1, 0, 2]]], [5, [[0, 1, 1], [2, 3, 1], [3, 4, 1]]],
                 _mst_case(30, 60, 9121), _mst_case(200, 1000, 9122), _mst_case(200, 150, 9123, connected=False)],
    ),
    Spec(
        question_id="90013",
        title="window-average-range",
        platform="leetcode",
        contest_id="mc-weekly-036",
        date="2025-05-03",
        difficulty="medium",
        func_name="averageRange",
        signature="(self, nums: List[int], k: int) -> List[float]",
        params=["nums", "k"],
        statement="""\
You are given an integer array nums and an integer k.
For every contiguous subarray of length exactly k, compute its average. Return [lowest, highest], the smallest and the largest of these averages.
Answers within 10^-5 of the actual values are accepted.""",
        constraints="1 <= k <= nums.length <= 10^5\n-10^4 <= nums[i] <= 10^4",
        reference="""\
class Solution:
    def averageRange(self, nums: List[int], k: int) -> List[float]:
        window = sum(nums[:k])
        lo = hi = window
        for i in range(k, len(nums)):
            window += nums[i] - nums[i - k]
            lo = min(lo, window)
            hi = max(hi, window)
        return [lo / k, hi / k]
""",
        public=[[[1, 12, -5, -6, 50, 3], 4], [[4, 4, 4], 1]],
        private=[[[5], 1], [[1, 2], 2], [[3, -1, 4, -1, 5, -9, 2, 6], 3],
                 [_ints(300, -10**4, 10**4, 9131), 7],
                 [_ints(2000, -100, 100, 9132), 333]],
    ),
]

SPECS: list[Spec] = STDIN_SPECS + FUNCTIONAL_SPECS


# ----------------------------------------------------------------------------------------------
# running references
# ----------------------------------------------------------------------------------------------

def run_stdin_reference(reference: str, stdin: str, timeout: float = 60.0) -> str:
    """Run a reference solution with ``python3`` and return its stdout."""
    proc = subprocess.run([sys.executable, "-c", reference], input=stdin, capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"reference failed (exit {proc.returncode}): {proc.stderr[-500:]}")
    return proc.stdout


def load_functional_reference(spec: Spec) -> Callable[..., Any]:
    """Exec a functional reference and return its bound method."""
    namespace: dict[str, Any] = {}
    exec(FUNCTIONAL_PRELUDE + spec.reference, namespace)  # noqa: S102 - our own reference code
    return getattr(namespace["Solution"](), spec.func_name)


def functional_input(args: list[Any]) -> str:
    """LiveCodeBench functional input: one JSON value per line."""
    return "\n".join(json.dumps(a) for a in args)


def compute_tests(spec: Spec, inputs: list[Any]) -> list[dict[str, str]]:
    """Expected outputs for ``inputs`` obtained by running the reference."""
    tests = []
    if spec.functional:
        method = load_functional_reference(spec)
        for args in inputs:
            result = method(*copy.deepcopy(args))
            tests.append({"input": functional_input(args), "output": json.dumps(result), "testtype": "functional"})
    else:
        for stdin in inputs:
            tests.append({"input": stdin, "output": run_stdin_reference(spec.reference, stdin), "testtype": "stdin"})
    return tests


def compress_tests(tests: list[dict[str, str]]) -> str:
    """LiveCodeBench's compressed encoding: base64(zlib(pickle(json_string)))."""
    payload = pickle.dumps(json.dumps(tests))
    return base64.b64encode(zlib.compress(payload)).decode()


def _leetcode_value(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"))


def question_content(spec: Spec, public: list[dict[str, str]]) -> str:
    """Statement plus examples rendered from the public tests (LeetCode or AtCoder layout)."""
    if spec.functional:
        parts = [spec.statement, " "]
        for k, (args, test) in enumerate(zip(spec.public, public), 1):
            shown = ", ".join(f"{name} = {_leetcode_value(a)}" for name, a in zip(spec.params, args))
            parts.append(f"Example {k}:\n\nInput: {shown}\nOutput: {_leetcode_value(json.loads(test['output']))}\n")
        parts.append(" \nConstraints:\n\n" + spec.constraints)
        return "\n".join(parts)
    parts = [spec.statement]
    for k, test in enumerate(public, 1):
        parts.append(f"Sample Input {k}\n\n{test['input']}\nSample Output {k}\n\n{test['output']}")
    return "\n\n".join(parts)


def build_record(spec: Spec) -> dict[str, Any]:
    """One LiveCodeBench ``code_generation_lite`` record."""
    public = compute_tests(spec, spec.public)
    private = compute_tests(spec, spec.private)
    if spec.functional:
        starter = f"class Solution:\n    def {spec.func_name}{spec.signature}:\n        "
        metadata = {"func_name": spec.func_name}
    else:
        starter, metadata = "", {}
    if spec.checker:
        metadata["checker"] = spec.checker
    return {
        "question_title": spec.title,
        "question_content": question_content(spec, public),
        "platform": spec.platform,
        "question_id": spec.question_id,
        "contest_id": spec.contest_id,
        "contest_date": f"{spec.date}T00:00:00",
        "starter_code": starter,
        "difficulty": spec.difficulty,
        "public_test_cases": json.dumps(public),
        "private_test_cases": compress_tests(private) if spec.compress_private else json.dumps(private),
        "metadata": json.dumps(metadata),
    }


def spec_by_id() -> dict[str, Spec]:
    return {s.question_id: s for s in SPECS}


def render() -> str:
    """The whole JSONL file as text (records sorted by contest date, then id)."""
    records = [build_record(s) for s in sorted(SPECS, key=lambda s: (s.date, s.question_id))]
    return "".join(json.dumps(r) + "\n" for r in records)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT_PATH, help="output JSONL path")
    ap.add_argument("--check", action="store_true", help="only compare with the file on disk")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print(f"{args.out}: {'up to date' if same else 'DIFFERS from the generator output'}")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {len(SPECS)} problems to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
