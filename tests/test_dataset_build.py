"""``microcoder-eval build-dataset`` end to end: real sandbox, every output, resume, one-line errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from microcoder_eval.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "dataset"
FAST = ["--workers", "2", "--timeout-s", "2", "--memory-mb", "1024", "--no-progress"]


def build(out: Path, *extra: str) -> dict:
    argv = ["build-dataset", str(FIX / "plain.jsonl"), "--out", str(out),
            "--decontaminate-against", str(FIX / "eval_lcb.jsonl"), "--eval-start-date", "2025-01-01",
            "--completions", str(FIX / "completions.jsonl"), *FAST, *extra]
    assert main(argv) == 0
    return json.loads((out / "manifest.json").read_text())


def check_chain(manifest: dict) -> None:
    """Every stage starts from the previous stage's output and accounts for each input."""
    prev = None
    for s in manifest["stages"]:
        if not s.get("enabled", True):
            continue
        assert s["input"] == s["output"] + sum(s["dropped"].values())
        if prev is not None:
            assert s["input"] == prev
        prev = s["output"]
    assert prev == manifest["final_count"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "out"
    return out, build(out)


def test_stage_counts_and_reasons(built):
    _, m = built
    check_chain(m)
    got = {s["stage"]: (s["input"], s["output"], s["dropped"]) for s in m["stages"]}
    assert got == {
        "read": (10, 8, {"malformed_json": 1, "no_tests": 1}),
        "min_tests": (8, 8, {}),
        "dedup": (8, 6, {"exact_duplicate": 1, "near_duplicate": 1}),
        "decontaminate": (6, 5, {"contaminated_statement": 1}),
        "verify": (5, 4, {"reference_failed": 1}),
        "difficulty": (4, 2, {"too_easy": 1, "too_few_completions": 1}),
    }
    assert m["decontamination_window"] == {"start": "2025-01-01", "end": None, "release": None, "problems": 1}
    verify = next(s for s in m["stages"] if s["stage"] == "verify")
    assert verify["notes"]["verified"] == 3 and verify["notes"]["kept_unverified"] == 1


def test_outputs_load_back(built):
    import datasets
    import pyarrow.parquet as pq

    from microcoder_eval.lcb import load_problems

    out, m = built
    probs = {p.question_id: p for p in load_problems(out / "problems.jsonl")}
    assert set(probs) == {"p_sum", "p_climb"} and len(probs["p_climb"].tests) == 5
    table = pq.read_table(out / "dataset.parquet").to_pylist()
    rows = {r["question_id"]: r for r in table}
    assert rows["p_sum"]["pass_rate"] == 0.5 and rows["p_climb"]["pass_rate"] == 0.25
    assert rows["p_climb"]["verification"] == "verified" and "a, b = 1, 1" in rows["p_climb"]["verified_solution"]
    assert json.loads(rows["p_climb"]["extra"])["verification"]["reference"] == 1  # the first reference is wrong
    ds = datasets.load_from_disk(str(out / "hf"))
    assert sorted(ds["question_id"]) == ["p_climb", "p_sum"]
    assert m["outputs"]["hf_dataset"] == str(out / "hf")


def test_report_markdown_and_png(built):
    out, m = built
    md = (out / "report.md").read_text()
    assert "contest_date window [2025-01-01, +inf)" in md and "| difficulty | 4 | 2 |" in md
    assert "| (0.2,0.3] | 1 | 1 |" in md and "| 1 | 1 | 0 |" in md and "report.png" in md
    assert (out / "report.png").read_bytes()[:4] == b"\x89PNG"
    assert m["histograms"]["pass_rate"]["before"]["n/a"] == 1  # too few completions: no rate


def test_rerun_reuses_stages_and_a_band_change_only_reruns_difficulty(built, tmp_path, capsys):
    import shutil

    src, first = built
    out = tmp_path / "copy"
    shutil.copytree(src, out)  # leave the shared build untouched for the other tests
    again = build(out)
    assert all(s.get("reused") for s in again["stages"] if s.get("enabled", True))
    assert again["final_count"] == first["final_count"]
    wider = build(out, "--max-pass-rate", "1.0")
    reused = {s["stage"]: s.get("reused") for s in wider["stages"]}
    assert reused == {"read": True, "min_tests": True, "dedup": True, "decontaminate": True, "verify": True,
                      "difficulty": False}
    assert wider["final_count"] == 3
    capsys.readouterr()


def test_window_changes_contamination(tmp_path):
    m = build(tmp_path / "o", "--eval-start-date", "2020-01-01", "--no-verify", "--min-completions", "1",
              "--min-pass-rate", "0", "--max-pass-rate", "1")
    dec = next(s for s in m["stages"] if s["stage"] == "decontaminate")
    assert dec["dropped"] == {"contaminated_statement": 2}  # the 2023 staircase problem is now in the window
    assert next(s for s in m["stages"] if s["stage"] == "verify") == {"stage": "verify", "enabled": False,
                                                                       "why": "--no-verify"}


def test_every_format_in_one_build_with_a_pass_rate_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    verl = tmp_path / "verl.parquet"
    pq.write_table(pa.Table.from_pylist(json.loads((FIX / "verl_rows.json").read_text())), verl)
    inputs = [FIX / "lcb.jsonl", FIX / "taco.jsonl", FIX / "apps_dir", FIX / "deepcoder.json", verl,
              FIX / "codecontests.jsonl", FIX / "leetcodedataset.json", FIX / "plain.jsonl"]
    out = tmp_path / "all"
    assert main(["build-dataset", *map(str, inputs), "--out", str(out), "--no-verify", "--no-dedup",
                 "--pass-rate-column", "pass_rate_col", *FAST]) == 0
    m = json.loads((out / "manifest.json").read_text())
    check_chain(m)
    read = m["stages"][0]
    formats = {Path(k).name: v["format"] for k, v in read["notes"]["inputs"].items()}
    assert formats == {"lcb.jsonl": "lcb", "taco.jsonl": "apps", "apps_dir": "apps", "deepcoder.json": "deepcoder",
                       "verl.parquet": "verl", "codecontests.jsonl": "codecontests",
                       "leetcodedataset.json": "leetcodedataset", "plain.jsonl": "plain"}
    assert read["input"] == 7 + 7 + 4 + 10 + 4 + 3 + 5 + 10 and read["output"] == 2 + 4 + 2 + 5 + 3 + 1 + 3 + 8
    assert sum(read["dropped"].values()) == read["input"] - read["output"]
    assert read["notes"]["solutions_truncated"] == {"problems": 0, "kept_per_problem": 16}
    dropped = (Path(read["files"]["dropped"])).read_text().splitlines()
    assert len(dropped) == sum(read["dropped"].values())  # every skipped record is listed with its reason
    diff = next(s for s in m["stages"] if s["stage"] == "difficulty")
    # plain.jsonl rows carry pass_rate_col; rows of the other files do not have it
    assert diff["output"] == 7 and diff["dropped"]["no_pass_rate"] == 20 and diff["dropped"]["too_easy"] == 1


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    assert main(["build-dataset", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("microcoder-eval: error: input") and len(err.strip().splitlines()) == 1
    bad = tmp_path / "keys.jsonl"
    bad.write_text('{"foo": 1}\n')
    assert main(["build-dataset", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "cannot detect the source format" in capsys.readouterr().err
    assert main(["build-dataset", str(FIX / "plain.jsonl"), "--out", str(tmp_path / "o"),
                 "--min-pass-rate", "0.9", "--max-pass-rate", "0.1"]) == 2
    assert "band" in capsys.readouterr().err
