"""Issue 12: each program runs in its platform's environment (flex), and lcb mode reproduces each
named LiveCodeBench grader revision."""
import textwrap

import pytest

from microcoder_eval.config import EvalConfig
from microcoder_eval.errors import UserError
from microcoder_eval.evaluator import Evaluator
from microcoder_eval.problem import Problem, TestCase, TestType
from microcoder_eval.verdict import Status

ADD = Problem("add", public_tests=[TestCase("1 2\n", "3\n"), TestCase("40 2\n", "42\n")])
DEEP = Problem("deep", public_tests=[TestCase("100000\n", "100000\n")])
FUNC = Problem("f", func_name="solve", public_tests=[
    TestCase("[4, 6]\n3", "2", TestType.FUNCTIONAL), TestCase("[5, 10]\n1", "5", TestType.FUNCTIONAL)])


def run(ev, problem, code):
    return ev.evaluate_code(problem, textwrap.dedent(code))


# ---------------------------------------------------------------- stdin: the plain script
@pytest.mark.parametrize("code", [
    "a, b = map(int, input().split())\nh = []\nheapq.heappush(h, a + b)\nprint(h[0])",
    "a, b = map(int, input().split())\nprint(gcd(a, b) * 0 + a + b)",
    "d = defaultdict(int)\nprint(sum(map(int, input().split())))",
    "print(sum(map(int, sys.stdin.readline().split())))",
    "print(sum(map(int, input().split()))); setrecursionlimit(10)",
])
def test_stdin_program_without_its_imports_fails_as_on_the_platform(evaluator, code):
    res = run(evaluator, ADD, code)
    assert res.status is Status.RUNTIME_ERROR and "NameError" in res.detail, res.detail
    assert res.environment == "script"


RECURSE = "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nprint(depth(int(input())))"


def test_deep_recursion_needs_setrecursionlimit_as_on_the_platform(evaluator):
    res = run(evaluator, DEEP, RECURSE)
    assert res.status is Status.RUNTIME_ERROR and "RecursionError" in res.detail, res.detail
    # the program that raises the limit itself recurses 10^5 deep (the stack is large)
    res = run(evaluator, DEEP, "import sys\nsys.setrecursionlimit(10 ** 6)\n" + RECURSE)
    assert res.status is Status.PASSED, res.detail


def test_stdin_program_sees_the_default_recursion_limit_and_a_clean_namespace(evaluator):
    code = ("import sys\nprint(sys.getrecursionlimit())\n"
            "print(sorted(k for k in globals() if not k.startswith('__')))")
    p = Problem("env", public_tests=[TestCase("", "1000\n['sys']\n")])
    res = run(evaluator, p, code)
    assert res.status is Status.PASSED, res.detail


# ---------------------------------------------------------------- functional: LeetCode's imports
def test_functional_solution_gets_leetcodes_automatic_imports(evaluator):
    code = """
    class Solution:
        def solve(self, nums: List[int], k: int) -> int:
            h: Optional[list] = []
            for x in nums:
                heappush(h, x)
            c = Counter(nums)
            assert bisect_left(sorted(nums), nums[0]) == 0 and inf > 0 and deque([1])
            assert list(accumulate([1, 2])) == [1, 3] and isqrt(16) == 4 and ascii_lowercase
            assert math.comb(4, 2) == 6 and collections.OrderedDict() == {} and array.array('i', [1])
            assert pow(2, 10, 1000) == 24  # the builtin, not math.pow: star-imports hide no builtin
            return reduce(gcd, nums) if c else 0
    """
    res = run(evaluator, FUNC, code)
    assert res.status is Status.PASSED, res.detail
    assert res.environment == "leetcode"


@pytest.mark.parametrize("code", [
    "class Solution:\n    def solve(self, nums, k):\n        return sys.maxsize and 2",  # no sys
    "class Solution:\n    def solve(self, nums, k):\n        return json.loads('2')",    # no json
])
def test_functional_solution_gets_nothing_more(evaluator, code):
    res = run(evaluator, FUNC, code)
    assert res.status is Status.RUNTIME_ERROR and "NameError" in res.detail, res.detail


def test_functional_recursion_is_not_cut_at_1000(evaluator):
    p = Problem("d", func_name="depth", public_tests=[TestCase("5000", "5000", TestType.FUNCTIONAL)])
    code = "class Solution:\n    def depth(self, n):\n        return 0 if n == 0 else 1 + self.depth(n - 1)"
    assert run(evaluator, p, code).status is Status.PASSED


def test_result_rows_record_the_environment(evaluator):
    d = run(evaluator, ADD, "print(sum(map(int, input().split())))").to_dict()
    assert d["environment"] == "script"


# ---------------------------------------------------------------- lcb mode: both grader revisions
@pytest.fixture(scope="module")
def lcb_both():
    evs = {v: Evaluator(EvalConfig(workers=1, timeout_s=2.0, memory_mb=1024, mode="lcb", lcb_version=v))
           for v in ("16de2a1", "15808c7")}
    yield evs
    for ev in evs.values():
        ev.close()


# (code, passes under 16de2a1 (current), passes under 15808c7 (before 2025-05-23))
REVISION_CASES = [
    ("a, b = map(int, input().split())\nprint(a + b)", True, True),
    ("import sys\na, b = map(int, sys.stdin.readline().split())\nprint(a + b)", True, True),
    ("import sys\nprint(sum(map(int, sys.stdin.read().split())))", True, True),
    # sys.stdin.buffer: AttributeError before 16de2a1; whole input (read) or first line (readline) since
    ("import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))", True, False),
    ("import sys\nprint(sum(map(int, sys.stdin.buffer.readline().split())))", True, False),
    # iterating stdin: the StringIO iterates, 16de2a1's mock is not iterable
    ("import sys\nfor line in sys.stdin:\n    print(sum(map(int, line.split())))", False, True),
    # 16de2a1: .read() returns the whole input each time; a StringIO is consumed by the first read
    ("import sys\nsys.stdin.read()\nprint(sum(map(int, sys.stdin.read().split())))", True, False),
    ("a, b = map(int, open(0).read().split())\nprint(a + b)", False, False),
    ("print(sum(map(int, input().split())))\nimport sys\nsys.exit(1)", True, True),
    ("print(heappop([sum(map(int, input().split()))]))", True, True),  # LCB's prelude, both
    # the verdicts below are LiveCodeBench's own (testing_util.py run at each commit on these tests)
    ('import threading\ndef main():\n    import sys\n    print(sum(map(int, sys.stdin.buffer.read().split())))\n'
     't = threading.Thread(target=main)\nt.start()\nt.join()', True, False),
    ('import sys\ninput = sys.stdin.buffer.readline\nprint(sum(map(int, input().split())))', True, False),
    ('import sys\nprint(sum(int(x) for l in sys.stdin.buffer.readlines() for x in l.split()))', False, False),
    ('import sys\nprint(sum(int(x) for l in sys.stdin.readlines() for x in l.split()))', True, True),
    ('import sys\nprint(sum(map(int, next(sys.stdin).split())))', False, True),
    ('import sys\nprint(sum(map(int, sys.stdin.__iter__().__next__().split())))', True, True),
    ('import sys\nprint(sys.stdin.fileno())', False, False),
    ('import os\nprint(sum(map(int, os.read(0, 100).split())))', False, False),
    ('import io, sys\nprint(sum(map(int, io.TextIOWrapper(sys.stdin.buffer).read().split())))', False, False),
    ('import sys\ndata = sys.stdin.read()\nrest = sys.stdin.read()\nprint(sum(map(int, (data + rest).split())))', False, True),
    ('import sys\nl = sys.stdin.buffer.readline()\nl2 = sys.stdin.buffer.readline()\nprint(sum(map(int, l.split())))',
     True, False),
    ("import sys\nprint(sum(map(int, iter(sys.stdin.readline, '').__next__().split())))", True, True),
    ("import sys\nprint(len(sys.stdin.buffer.read().split(b'\\n')) * 0 + sum(map(int, input().split())))", True, False),
]


@pytest.mark.parametrize("code,current,before", REVISION_CASES)
def test_lcb_revisions_on_the_same_samples(lcb_both, code, current, before):
    got = {v: run(ev, ADD, code) for v, ev in lcb_both.items()}
    assert got["16de2a1"].passed is current, got["16de2a1"].detail
    assert got["15808c7"].passed is before, got["15808c7"].detail
    assert got["16de2a1"].environment == "lcb@16de2a1" and got["15808c7"].environment == "lcb@15808c7"


def test_lcb_version_is_validated_and_current_is_the_default():
    assert EvalConfig().lcb_version == "16de2a1" == EvalConfig(lcb_version="current").lcb_version
    with pytest.raises(UserError):
        EvalConfig(lcb_version="main")


# ---------------------------------------------------------------- lcb mode stops at the first failure
class _StreamingWorker:
    """Stands in for a sandbox worker with the streaming hook: hands over one result line per test
    as the child would write it, and stops the child when the parent says so."""

    def __init__(self, lines):
        self.lines, self.delivered, self.requests = lines, 0, []

    def run_streaming(self, req, deadline_s, on_line):
        import json

        self.requests.append(json.loads(json.dumps(req)))
        stopped = False
        for k, line in enumerate(self.lines[: len(req["inputs"])]):
            self.delivered += 1
            if not on_line(k, line):
                stopped = k + 1 < len(req["inputs"])
                break
        return {"exit": None if stopped else 0, "signal": 9 if stopped else None, "timed_out": False,
                "stopped": stopped, "time_s": 0.01, "times": [0.001] * self.delivered, "max_rss_kb": 1024}


class _Pool:
    def __init__(self, worker):
        self.w = worker

    def worker(self):
        import contextlib

        return contextlib.nullcontext(self.w)

    def close(self):
        pass


@pytest.fixture()
def streaming_evaluator():
    ev = Evaluator(EvalConfig(workers=1, mode="lcb"))
    ev.pool.close()
    yield ev
    ev.close()


def test_lcb_mode_stops_the_child_at_the_first_mismatch(streaming_evaluator):
    tests = [TestCase(f"{i} 1\n", f"{i + 1}\n") for i in range(5)]
    p = Problem("many", public_tests=tests)
    out = ['{"stdout": "1\\n"}', '{"stdout": "7\\n"}', '{"stdout": "3\\n"}', '{"stdout": "4\\n"}',
           '{"stdout": "5\\n"}']
    w = _StreamingWorker(out)
    streaming_evaluator.pool = _Pool(w)
    res = streaming_evaluator.evaluate_code(p, "print(1)")
    assert res.status is Status.WRONG_ANSWER and [t.status for t in res.tests] == [Status.PASSED, Status.WRONG_ANSWER]
    assert w.delivered == 2  # tests 2..4 never ran to completion: the child was stopped
    req = w.requests[0]
    assert req["stream"] is True and req["lcb_version"] == "16de2a1"
    # the sandbox gets inputs only: no expected output is in what it was sent
    assert req["inputs"] == [t.input for t in tests] and not {"output", "outputs", "expected"} & set(req)


def test_lcb_streaming_passes_when_every_line_matches(streaming_evaluator):
    p = Problem("two", public_tests=[TestCase("1\n", "1\n"), TestCase("2\n", "2\n")])
    w = _StreamingWorker(['{"stdout": "1"}', '{"stdout": "2\\n"}'])
    streaming_evaluator.pool = _Pool(w)
    res = streaming_evaluator.evaluate_code(p, "print(input())")
    assert res.passed and w.delivered == 2 and len(res.tests) == 2


def test_lcb_streaming_judges_lines_the_worker_did_not_stream(streaming_evaluator):
    p = Problem("two", public_tests=[TestCase("1\n", "1\n"), TestCase("2\n", "2\n")])
    w = _StreamingWorker(['{"stdout": "1"}'])
    real = w.run_streaming

    def run_streaming(req, deadline_s, on_line):  # the second line only in the final reply
        reply = real(req, deadline_s, on_line)
        return dict(reply, result='{"stdout": "1"}\n{"stdout": "3"}\n')

    w.run_streaming = run_streaming
    streaming_evaluator.pool = _Pool(w)
    res = streaming_evaluator.evaluate_code(p, "print(input())")
    assert [t.status for t in res.tests] == [Status.PASSED, Status.WRONG_ANSWER]


def test_lcb_streaming_child_dying_mid_run_is_judged_from_its_ending(streaming_evaluator):
    p = Problem("die", public_tests=[TestCase("1\n", "1\n"), TestCase("2\n", "2\n")])
    w = _StreamingWorker(['{"stdout": "1"}'])  # the child died before reporting test 1
    streaming_evaluator.pool = _Pool(w)
    res = streaming_evaluator.evaluate_code(p, "print(input())")
    assert [t.status for t in res.tests] == [Status.PASSED, Status.RUNTIME_ERROR]
