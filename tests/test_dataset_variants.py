"""Near-duplicate removal keeps different problems that share most of their text (easy/hard versions),
and a build that leaves nothing to export stops with one line."""
from __future__ import annotations

import json

import pytest

from conftest import real
from microcoder_eval.cli import main
from microcoder_eval.dataset.dedup import evidence, find_duplicates
from microcoder_eval.dataset.text import constraint_bounds, version_labels

pytest.importorskip("datasketch")

BODY = ("You are given an array a of n integers. In one operation you may choose two adjacent elements and "
        "replace them with their sum. Find the minimum number of operations needed to make the array "
        "non-decreasing. The first line contains a single integer t, the number of test cases. Each test case "
        "starts with the integer n followed by the n integers of the array, separated by spaces. For each "
        "test case print one integer, the minimum number of operations. ")


def stmt(bound: str, version: str = "") -> str:
    head = f"This is the {version} version of the problem. " if version else ""
    return head + BODY + f"Constraints: 1 \\le n \\le {bound}, and the values fit in 32 bits."


def test_bounds_and_versions_are_read_in_their_usual_spellings():
    assert constraint_bounds("$1 \\le n \\le 2 \\cdot 10^5$") == constraint_bounds("1 ≤ n ≤ 200 000") == {200000}
    assert constraint_bounds("$k \\leq 10^{12}$, at most $\\mathbf{7}$ queries") == {10**12, 7}
    assert constraint_bounds("the sum of n does not exceed $10\\,000$") == {10000}
    assert version_labels("C2. Photo (Hard Version)") == {"hard"}
    assert version_labels("This is an easier version of the problem") == {"easy"}


def test_easy_and_hard_versions_differing_in_one_constraint_are_both_kept():
    items = [("easy", stmt("2000"), 3), ("hard", stmt("2 \\cdot 10^5"), 3)]
    variants: list = []
    assert find_duplicates(items, 0.8, 5, 128, variants=variants) == {}
    assert variants == [("hard", "easy", "different_constraints", variants[0][3])] and variants[0][3] >= 0.8
    # the same constraint written another way is still the same problem
    items.append(("hard_copy", stmt("200\\,000"), 1))
    assert {k: v[:2] for k, v in find_duplicates(items, 0.8, 5, 128).items()} == {2: ("near_duplicate", "hard")}


def test_declared_versions_and_conflicting_tests_tell_problems_apart():
    a, b = stmt("5000", "easy"), stmt("5000", "hard")  # same text and bound, different declared version
    ev = [evidence(a), evidence(b)]
    assert find_duplicates([("e", a, 1), ("h", b, 1)], 0.8, 5, 128, evidences=ev) == {}
    # same statement text, but a shared input has different answers: different problems
    ev = [evidence(BODY, tests=[("3\n1 2 3\n", "0\n")]), evidence(BODY + " ", tests=[("3\n1 2 3\n", "1\n")])]
    assert find_duplicates([("x", BODY, 1), ("y", BODY + " extra words here", 1)], 0.8, 5, 128, evidences=ev) == {}
    # agreeing shared tests: duplicates
    ev = [evidence(BODY, tests=[("3\n1 2 3\n", "0\n")]), evidence(BODY, tests=[("3\n1 2 3\n", "0\n")])]
    assert set(find_duplicates([("x", BODY, 2), ("y", BODY + " extra words here", 1)], 0.8, 5, 128,
                               evidences=ev)) == {1}


def test_real_codeforces_versions_kept_and_true_duplicates_dropped():
    """rllm's Codeforces test set: 17 near-identical pairs are easy/hard (or "different problems")
    versions; the 11 near-identical pairs with identical tests are Div. 1 / Div. 2 copies."""
    from microcoder_eval.dataset.readers import read_source

    _, outs = read_source(real("train_formats/rllm_deepcoder_style/codeforces_test_408.json"))
    probs = [o.problem for o in outs if o.problem]
    meta = [(p.question_id, p.question_content, len(p.tests)) for p in probs]
    evs = [evidence(p.question_content, p.question_title, [(t.input, t.output) for t in p.tests]) for p in probs]
    variants: list = []
    dropped = find_duplicates(meta, 0.8, 5, 128, evidences=evs, variants=variants)
    by_id = {p.question_id: p for p in probs}
    tests = lambda qid: [(t.input, t.output) for t in by_id[qid].tests]  # noqa: E731
    assert len(dropped) == 11
    for i, (_, kept, _) in dropped.items():  # every dropped copy has exactly the kept problem's tests
        assert tests(meta[i][0]) == tests(kept)
    hard = {a for a, _, why, _ in variants if why == "different_version"}
    assert len(hard) >= 11 and not hard & {meta[i][0] for i in dropped}
    assert all("hard" in by_id[a].question_content.lower() for a in hard)


def test_zero_surviving_problems_is_one_line_exit_2(tmp_path, capsys):
    fix = "tests/fixtures/dataset/plain.jsonl"
    assert main(["build-dataset", fix, "--out", str(tmp_path / "o"), "--min-tests", "1000",
                 "--no-verify", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith("microcoder-eval: error: no problems left to export: stage 'min_tests' dropped all 8")
    assert "too_few_tests=8" in err and "lower --min-tests" in err
    first = json.loads((tmp_path / "o" / "stages" / "02_min_tests" / "dropped.jsonl").read_text().splitlines()[0])
    assert first["reason"] == "too_few_tests"
