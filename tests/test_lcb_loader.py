"""LiveCodeBench record loading: formats, compressed private tests, filters, bad input."""
import base64
import json
import pickle
import zlib

import pytest

from microcoder_eval.errors import UserError
from microcoder_eval.lcb import decode_test_cases, load_problems, problem_from_lcb_record
from microcoder_eval.problem import TestType

from conftest import DATA, real


def _record(qid="q1", date="2025-02-10T00:00:00", platform="atcoder", difficulty="easy", private=None, meta="{}"):
    tests = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    return {"question_id": qid, "question_title": "t", "question_content": "c", "platform": platform,
            "contest_id": "x", "contest_date": date, "difficulty": difficulty, "starter_code": "",
            "public_test_cases": json.dumps(tests), "private_test_cases": private if private is not None else "[]",
            "metadata": meta}


def _compress(tests):
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode()


def test_compressed_private_tests_decode():
    tests = [{"input": "5\n", "output": "6\n", "testtype": "stdin"}]
    assert decode_test_cases(_compress(tests)) == tests
    p = problem_from_lcb_record(_record(private=_compress(tests)))
    assert [t.input for t in p.tests] == ["1\n", "5\n"]


def test_malicious_pickle_is_refused():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    payload = base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode()
    with pytest.raises(ValueError, match="refusing to load global"):
        decode_test_cases(payload)


def test_functional_metadata():
    rec = _record(meta=json.dumps({"func_name": "twoSum"}), platform="leetcode")
    rec["public_test_cases"] = json.dumps([{"input": "[1,2]\n3", "output": "[0, 1]", "testtype": "functional"}])
    p = problem_from_lcb_record(rec)
    assert p.is_functional and p.func_name == "twoSum" and p.tests[0].testtype is TestType.FUNCTIONAL


def test_roundtrip_to_lcb_record():
    p = problem_from_lcb_record(_record(private=_compress([{"input": "a", "output": "b", "testtype": "stdin"}])))
    q = problem_from_lcb_record(p.to_lcb_record())
    assert q.tests == p.tests and q.question_id == p.question_id


def _write(tmp_path, records, name="p.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def test_filters_window_platform_difficulty_release(tmp_path):
    recs = [_record("a", "2024-07-30T00:00:00"), _record("b", "2025-02-01T00:00:00", "leetcode", "hard"),
            _record("c", "2025-04-30T00:00:00", difficulty="medium"), _record("d", "2025-05-01T00:00:00")]
    path = _write(tmp_path, recs)
    ids = lambda **kw: [p.question_id for p in load_problems(path, **kw)]  # noqa: E731
    assert ids(start_date="2025-02-01", end_date="2025-05-01") == ["b", "c"]
    assert ids(platform="atcoder") == ["a", "c", "d"]
    assert ids(difficulty="hard,medium") == ["b", "c"]
    assert ids(release="release_v3") == ["a"]
    assert ids(release="release_v6") == ["a", "b", "c"]


def test_json_and_parquet_files(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    recs = [_record("a"), _record("b")]
    (tmp_path / "p.json").write_text(json.dumps(recs))
    pq.write_table(pa.Table.from_pylist(recs), tmp_path / "p.parquet")
    assert len(load_problems(tmp_path / "p.json")) == 2
    assert len(load_problems(tmp_path / "p.parquet")) == 2


@pytest.mark.parametrize("content,needle", [
    ("{not json\n", "malformed JSON"),
    (json.dumps({"question_title": "no id"}) + "\n", "no question_id"),
    (json.dumps(_record(private="%%%notbase64")) + "\n", "bad test cases"),
    (json.dumps(_record(meta="[1]")) + "\n", "bad metadata"),
])
def test_bad_records_are_user_errors(tmp_path, content, needle):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(UserError, match=needle):
        load_problems(path)


def test_bad_filters_and_missing_file(tmp_path):
    path = _write(tmp_path, [_record()])
    with pytest.raises(UserError, match="unknown release"):
        load_problems(path, release="v9")
    with pytest.raises(UserError, match="not an ISO date"):
        load_problems(path, start_date="Feb 2025")
    with pytest.raises(UserError, match="not before"):
        load_problems(path, start_date="2025-03-01", end_date="2025-02-01")
    with pytest.raises(UserError, match="unknown platform"):
        load_problems(path, platform="topcoder")
    with pytest.raises(UserError, match="does not exist"):
        load_problems(tmp_path / "missing.jsonl")


def test_duplicate_ids_get_suffixes(tmp_path):
    path = _write(tmp_path, [_record("a"), _record("a")])
    assert [p.question_id for p in load_problems(path)] == ["a", "a#2"]


def test_hf_loading_path_reports_a_clean_error(monkeypatch):
    import datasets
    import huggingface_hub

    def fake(*a, **k):
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", fake)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake)
    with pytest.raises(UserError, match="could not load HF dataset"):
        load_problems("livecodebench/code_generation_lite", release="release_v6")


def test_hf_loading_downloads_the_release_files(monkeypatch, tmp_path):
    import huggingface_hub

    fetched = []

    def fake_download(repo, filename, repo_type):
        assert repo == "livecodebench/code_generation_lite" and repo_type == "dataset"
        fetched.append(filename)
        path = tmp_path / filename
        rec = _record(filename, "2025-03-01T00:00:00" if filename == "test6.jsonl" else "2024-01-01T00:00:00")
        path.write_text(json.dumps(rec) + "\n")
        return str(path)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    probs = load_problems("livecodebench/code_generation_lite", release="release_v6", start_date="2025-01-01")
    assert fetched == ["test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl"]
    assert [p.question_id for p in probs] == ["test6.jsonl"]


def test_shipped_sample_problems_load():
    probs = load_problems(DATA / "lcb_sample_problems.jsonl")
    assert len(probs) >= 20
    assert any(p.is_functional for p in probs) and any(not p.is_functional for p in probs)
    assert all(p.tests for p in probs)


def test_real_lcb_window_file():
    probs = load_problems(real("lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl"))
    assert len(probs) == 279
    assert sum(p.is_functional for p in probs) == 104
    assert {p.platform for p in probs} == {"atcoder", "leetcode"}
    assert len(load_problems(real("lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl"),
                             start_date="2024-10-01", platform="leetcode")) == 64
