"""Source readers on original fixtures of every format (malformed records included) and on real files."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import REAL, real
from microcoder_eval.dataset.readers import read_source
from microcoder_eval.dataset.readers import common
from microcoder_eval.dataset.readers.common import SOLUTIONS, WRAPPED, unlimited_int_digits
from microcoder_eval.dataset.records import iter_records
from microcoder_eval.errors import UserError
from microcoder_eval.problem import TestType

FIX = Path(__file__).resolve().parent / "fixtures" / "dataset"


def read(path, fmt="auto"):
    detected, outcomes = read_source(path, fmt)
    outs = list(outcomes)
    return detected, {o.problem.question_id: o.problem for o in outs if o.problem}, \
        [(o.where, o.reason) for o in outs if o.problem is None], len(outs)


@pytest.fixture(scope="module")
def verl_parquet(tmp_path_factory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("verl") / "verl.parquet"
    pq.write_table(pa.Table.from_pylist(json.loads((FIX / "verl_rows.json").read_text())), path)
    return path


def test_lcb_records_incl_compressed_private_tests_and_malformed_lines():
    fmt, probs, skips, n = read(FIX / "lcb.jsonl")
    assert fmt == "lcb" and n == 7
    assert set(probs) == {"lcb_sum", "lcb_vowels"}
    v = probs["lcb_vowels"]
    assert v.func_name == "countVowels" and [t.output for t in v.private_tests] == ["0", "4"]
    assert all(t.testtype is TestType.FUNCTIONAL for t in v.tests)
    assert dict(skips) == {"line 3": "malformed_json", "line 4": "bad_lcb_record", "line 5": "bad_lcb_record",
                           "line 6": "no_tests", "line 7": "not_an_object"}


def test_taco_rows_stdin_call_based_and_wrapped_outputs():
    fmt, probs, skips, n = read(FIX / "taco.jsonl")
    assert fmt == "apps" and n == 7
    stdin = probs["10"]
    assert [(t.input, t.output) for t in stdin.tests] == [("1 1\n", "2\n"), ("7 8", "15")]  # list of lines joined
    assert stdin.extra[SOLUTIONS] and stdin.func_name is None and stdin.platform == "codeforces"
    wrapped = probs["11"]  # Codewars style: every output is [x]
    assert wrapped.func_name == "count_vowels"
    assert [t.output for t in wrapped.tests] == ["2", "0"] and wrapped.extra[WRAPPED] == ["[2]", "[0]"]
    plain_lists = probs["12"]  # a function returning two-element lists is never unwrapped
    assert [t.output for t in plain_lists.tests] == ["[1, 2]", "[3, 6]"] and WRAPPED not in plain_lists.extra
    assert plain_lists.tests[0].input == "1"
    assert probs["16"].tests[0].output == "3\n"  # python-literal input_output string
    assert dict(skips) == {"line 4": "tests_mismatch", "line 5": "no_tests", "line 6": "no_statement"}


def test_raw_apps_folders():
    fmt, probs, skips, n = read(FIX / "apps_dir")
    assert fmt == "apps" and n == 4
    assert probs["0000"].difficulty == "interview" and probs["0000"].extra["fields"]["url"].startswith("https://codeforces")
    first = probs["0001"]
    assert first.func_name == "first_only" and first.starter_code.startswith("def first_only")
    assert first.tests[0].input == "[4, 5, 6]" and first.tests[0].output == "4"
    assert first.extra[WRAPPED] == ["[4]", "[9]"]
    assert dict(skips) == {"0002": "missing_file", "0003": "bad_tests"}
    fmt, probs, _, n = read(FIX / "apps_dir" / "0000")  # a single problem folder
    assert n == 1 and set(probs) == {"0000"}


def test_deepcoder_rows_all_test_encodings():
    fmt, probs, skips, n = read(FIX / "deepcoder.json")
    assert fmt == "deepcoder" and n == 10
    assert probs["deepcoder-0"].tests[0].output == "cba\n"  # JSON string
    assert probs["deepcoder-1"].tests[0].output == "11\n"  # python literal with single quotes
    assert probs["deepcoder-2"].tests[0].input == "0 0\n"  # {inputs, outputs}
    prime = probs["deepcoder-3"]  # PrimeIntellect wrapper + fenced solution
    assert prime.question_content.startswith("Ravi writes") and "Now solve" not in prime.question_content
    assert prime.extra[SOLUTIONS] == ["print(input()[::-1])"]
    assert probs["deepcoder-4"].func_name == "countVowels"  # from the starter code
    assert dict(skips) == {"record 5": "no_tests", "record 6": "bad_testtype",
                           "record 7": "functional_without_func_name", "record 8": "bad_functional_test",
                           "record 9": "not_an_object"}


def test_verl_parquet(verl_parquet):
    fmt, probs, skips, n = read(verl_parquet)
    assert fmt == "verl" and n == 4
    assert probs["fixture-train-0"].question_content.startswith("Mira keeps")
    assert "### Format" not in probs["fixture-train-0"].question_content
    fn = probs["fixture-train-1"]
    assert fn.func_name == "countVowels" and fn.starter_code.startswith("class Solution")
    assert probs["fixture-train-2"].tests[0].output == "3\n"  # prime_code {inputs, outputs} ground truth
    assert probs["fixture-train-0"].source == "fixture"
    assert skips == [("row 3", "no_tests")]


def test_codecontests_rows():
    fmt, probs, skips, n = read(FIX / "codecontests.jsonl")
    assert fmt == "codecontests" and n == 3
    p = probs["fx_sum"]
    assert len(p.public_tests) == 1 and len(p.private_tests) == 3  # private + generated
    assert p.extra[SOLUTIONS] == ["a, b = map(int, input().split())\nprint(a + b)\n"]  # PYTHON3 only
    assert p.platform == "codeforces" and p.difficulty == "A" and p.extra["fields"]["time_limit_s"] == 2.5
    assert dict(skips) == {"line 2": "tests_mismatch", "line 3": "no_tests"}
    _, outcomes = read_source(FIX / "codecontests.jsonl", include_generated_tests=False)
    assert len(next(o.problem for o in outcomes if o.problem).private_tests) == 1


def test_leetcodedataset_check_functions():
    fmt, probs, skips, n = read(FIX / "leetcodedataset.json")
    assert fmt == "leetcodedataset" and n == 5
    p = probs["leetcodedataset-0"]
    # keyword arguments reordered to the signature (nums, k)
    assert [(t.input, t.output) for t in p.tests] == [("[1, 2, 3]\n1", "2"), ("[5]\n0", "1"), ("[]\n3", "0")]
    assert p.starter_code.startswith("class Solution") and "Please" not in p.question_content
    assert p.extra[SOLUTIONS][0].startswith("class Solution")
    assert probs["9001"].difficulty == "easy"
    assert probs["examples-only"].tests[0].input == "[4, 5]\n1"  # HF input_output examples
    assert dict(skips) == {"record 1": "unconvertible_check", "record 4": "functional_without_func_name"}


def test_plain_jsonl_and_format_override():
    fmt, probs, skips, n = read(FIX / "plain.jsonl")
    assert fmt == "plain" and n == 10 and len(probs) == 8
    assert probs["p_vowels"].func_name == "count_vowels"
    assert dict(skips) == {"line 9": "no_tests", "line 10": "malformed_json"}
    # an explicit wrong format never crashes: every record is skipped with a reason
    fmt, probs, skips, n = read(FIX / "lcb.jsonl", "codecontests")
    assert fmt == "codecontests" and n == 7 and not probs and all(r for _, r in skips)


def test_unreadable_inputs_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        read_source(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    with pytest.raises(UserError, match="not valid JSON"):
        read_source(bad)
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"style": "instruct", "question": "q", "test_code": "def test_x(): pass"}) + "\n")
    with pytest.raises(UserError, match="pytest-style"):
        read_source(odd)
    with pytest.raises(UserError, match="unknown"):
        read_source(FIX / "lcb.jsonl", "nope")


def test_integers_beyond_the_4300_digit_limit(tmp_path):
    big = "7" * 5000
    line = '{"question": "Print a very large number exactly as given in the input.", ' \
           f'"tests": {{"inputs": ["x\\n"], "outputs": [{big}]}}}}'
    f = tmp_path / "big.jsonl"
    f.write_text(line + "\n")
    (where, rec), = list(iter_records(f))
    assert where == "line 1" and isinstance(rec, dict)
    _, probs, skips, _ = read(f)
    assert not skips and next(iter(probs.values())).tests[0].output == big


def test_real_taco_factorial_bigint_outputs():
    text = real("train_formats/taco/taco_train_input_output_factorial_bigint.json").read_text()
    with unlimited_int_digits():
        tests, fn, wrapped = common.tests_from_io(json.loads(text), None)
    assert fn == "factorial" and len(tests) == 9
    assert max(len(t.output) for t in tests) > 9000 and wrapped is not None  # outputs wrapped as [x]


# ---------------------------------------------------------------- real files (../shared/real)
REAL_EXPECTED = {
    "lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl": ("lcb", 279, {}),
    "lcb_problems/qwq_eval_livecodebench_v5_2408-2502.jsonl": ("deepcoder", 0, {"external_tests": 279}),
    "lcb_problems/raw_sources/rllm_livecodebench_train_2305-2407_public_only.json": ("deepcoder", 580, {}),
    "lcb_problems/raw_sources/rllm_livecodebench_all_v5_879_public_only.json": ("deepcoder", 879, {}),
    "train_formats/rllm_deepcoder_style/rllm-org_test_livecodebench_verl_879.parquet": ("verl", 879, {}),
    "train_formats/rllm_deepcoder_style/code_contests_test_165_alltests.json": ("deepcoder", 165, {}),
    "train_formats/rllm_deepcoder_style/code_contests_test_165_publictests.json": ("codecontests", 165, {}),
    "train_formats/rllm_deepcoder_style/codeforces_test_408.json": ("deepcoder", 408, {}),
    "train_formats/rllm_deepcoder_style/leetcodedataset_train_1890.json":
        ("leetcodedataset", 1766, {"unconvertible_check": 124}),
    "train_formats/rllm_deepcoder_style/verify_primeintellect_style_10.json": ("deepcoder", 10, {}),
    "train_formats/apps/coderl_APPS_train_raw": ("apps", 5, {}),
    "train_formats/taco/taco_test0_rllm_notebook_printout.json": ("deepcoder", 1, {}),
}


@pytest.mark.parametrize("rel", sorted(REAL_EXPECTED))
def test_real_files(rel):
    fmt_want, n_want, skips_want = REAL_EXPECTED[rel]
    fmt, probs, skips, n = read(real(rel))
    assert fmt == fmt_want
    assert n - len(skips) == n_want and dict(Counter(r for _, r in skips)) == skips_want
    for p in probs.values():
        assert p.question_content and p.tests
        if p.tests[0].testtype is TestType.FUNCTIONAL:
            assert p.func_name


def test_real_functional_problems_get_their_function_name():
    _, probs, _, _ = read(real("train_formats/rllm_deepcoder_style/rllm-org_test_livecodebench_verl_879.parquet"))
    functional = [p for p in probs.values() if p.func_name]
    assert len(functional) == 381  # the LeetCode problems of release_v5 (all starter code in the prompt)
    _, probs, _, _ = read(real("train_formats/apps/coderl_APPS_train_raw"))
    assert probs["2404"].func_name == "findKthPositive" and probs["2404"].tests[0].output == "9"
    assert WRAPPED not in probs["2404"].extra  # LeetCode-origin APPS outputs are not wrapped
    assert probs["4184"].tests[0].output == "false" and probs["4184"].extra[WRAPPED][0] == "[false]"
    assert len(probs["0001"].extra[SOLUTIONS]) > 10


def test_real_same_problems_read_through_different_readers_agree():
    """The LCB-format window file and rllm's list file carry the same public tests (different readers)."""
    from microcoder_eval.dataset.text import normalize

    _, lcb, _, _ = read(real("lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl"))
    _, rllm, _, _ = read(real("lcb_problems/raw_sources/rllm_livecodebench_test_2408-2502_public_only.json"))
    # Pair by id where both sides carry one, else by the whole normalised statement: two AtCoder
    # statements can share their first 300 characters (abc377_c / abc377_f).
    by_id = {p.question_id: p for p in rllm.values() if p.question_id}
    by_text = {normalize(p.question_content): p for p in rllm.values()}
    matched = 0
    for p in lcb.values():
        q = by_id.get(p.question_id) or by_text.get(normalize(p.question_content))
        if q is None:
            continue
        assert normalize(q.question_content) == normalize(p.question_content)
        matched += 1
        assert [(t.input, t.output, t.testtype) for t in p.tests] == [(t.input, t.output, t.testtype) for t in q.tests]
        assert p.func_name == q.func_name
    assert matched >= 270


def test_real_unusable_file_is_a_clear_error():
    with pytest.raises(UserError, match="cannot detect"):
        read_source(real("train_formats/rllm_deepcoder_style/false_id_taco.json"))
    with pytest.raises(UserError, match="pytest-style"):
        read_source(real("train_formats/kodcode/KodCode_leetcode_100_1741214688.json"))


def test_real_dir_present_or_skipped():
    if not REAL.exists():
        pytest.skip(f"real data {REAL} not present (needs ../shared/real)")
    assert (REAL / "train_formats").is_dir()
