"""Leaderboard: shipped reference numbers validate, committed outputs are current, bad entries fail."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from microcoder_eval.cli import main
from microcoder_eval.errors import UserError
from microcoder_eval.leaderboard.cli import LeaderboardConfig, build_leaderboard
from microcoder_eval.leaderboard.entries import load_reference, load_runs, run_entry, validate, write_run
from microcoder_eval.leaderboard.render import build, to_markdown

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "leaderboards"

ENTRY = {"model": "M", "method": "GRPO", "benchmark": "LiveCodeBench v6",
         "window": {"label": "v6", "start_date": "2025-02-01", "end_date": "2025-05-01"},
         "scores": {"pass@1": {"all": 20.0}}, "source": {"title": "paper", "url": "https://example.org/p"}}


def test_every_shipped_reference_number_has_a_source_url_and_a_window():
    entries = load_reference(BOARD / "reference.json")
    assert len(entries) >= 8
    for e in entries:
        assert e["kind"] == "reference" and e["source"]["url"].startswith("https://")
        assert e["window"]["label"] or e["window"]["start_date"]
    paper = {(e["model"], e["method"]): e["scores"]["pass@1"]["all"] for e in entries
             if "2603.07777" in e["source"]["url"]}
    # SPEC §4: LCB v6 pass@1 (All) of the MicroCoder-GRPO paper
    assert paper == {("Qwen3-1.7B", "base (no RL)"): 16.1, ("Qwen3-1.7B", "GRPO"): 19.3,
                     ("Qwen3-1.7B", "DAPO"): 20.4, ("Qwen3-1.7B", "MicroCoder-GRPO"): 24.0,
                     ("Qwen3-4B-Instruct-2507", "base (no RL)"): 34.7, ("Qwen3-4B-Instruct-2507", "GRPO"): 36.3,
                     ("Qwen3-4B-Instruct-2507", "DAPO"): 36.3, ("Qwen3-4B-Instruct-2507", "MicroCoder-GRPO"): 38.7}


def test_committed_leaderboard_files_are_what_the_command_builds(tmp_path):
    board, paths = build_leaderboard(LeaderboardConfig(dir=str(BOARD), out_dir=str(tmp_path)))
    assert Path(paths["markdown"]).read_text() == (BOARD / "README.md").read_text(), \
        "leaderboards/README.md is stale: run `microcoder-eval leaderboard`"
    assert Path(paths["json"]).read_text() == (BOARD / "leaderboard.json").read_text()
    assert Path(paths["png"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (BOARD / "leaderboard.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_groups_are_per_window_and_ranked_by_pass_at_1():
    other = {**ENTRY, "window": {"label": "v5", "start_date": "2024-08-01", "end_date": "2025-02-01"}}
    entries = [validate(ENTRY, "a"), validate({**ENTRY, "model": "N", "scores": {"pass@1": {"all": 30.0}}}, "b"),
               validate({**other, "model": "O"}, "c")]
    board = build(entries)
    assert [[e["model"] for e in g["entries"]] for g in board["groups"]] == [["N", "M"], ["O"]]
    md = to_markdown(board)
    assert md.index("2025-02-01 – 2025-05-01") < md.index("2024-08-01 – 2025-02-01")
    assert "| 1 | N | GRPO | **30.0** | – | – | – | – | – | reported | [paper](https://example.org/p) |" in md


def test_published_rows_and_our_runs_are_separate_tables_with_context_lengths():
    ref = validate({**ENTRY, "settings": {"train_context": "4K", "eval_context": "8K"}}, "ref")
    ours = validate({**ENTRY, "model": "mine", "kind": "ours", "grader": "lcb", "source": {"title": "run x"},
                     "settings": {"max_tokens": 8192, "n": 10},
                     "scores": {"pass@1": {"all": 50.0, "easy": 80.0, "medium": 40.0, "hard": 10.0}}}, "ours")
    md = to_markdown(build([ref, ours]))
    assert md.index("**Published (reference)**") < md.index("**Our runs (this repository)**")
    published = md[md.index("**Published"):md.index("**Our runs")]
    assert "| 1 | M | GRPO | **20.0** | – | – | – | 4K | 8K | reported |" in published and "mine" not in published
    assert "| 1 | mine | GRPO | **50.0** | 80.0 | 40.0 | 10.0 | – | 8192 tok | lcb | 10 | run x |" in md
    for table in md.split("\n\n"):  # every table's separator has one cell per header cell
        rows = [r for r in table.splitlines() if r.startswith("|")]
        if rows:
            assert rows[1].count("|") == rows[0].count("|") and all(r.count("|") == rows[0].count("|") for r in rows)


@pytest.mark.parametrize("change, message", [
    (lambda e: e.pop("source"), "'source' must be an object"),
    (lambda e: e["source"].pop("url"), "needs source.url"),
    (lambda e: e.pop("window"), "'window' must be an object"),
    (lambda e: e["window"].update(start_date="Feb 2025"), "is not YYYY-MM-DD"),
    (lambda e: e["scores"]["pass@1"].update(all=120), "must be a percentage"),
    (lambda e: e["scores"]["pass@1"].update(all=None), "pass@1.all is required"),
    (lambda e: e.update(kind="guess"), "kind 'guess'"),
    (lambda e: e.pop("model"), "missing 'model'"),
])
def test_bad_entries_are_rejected_with_the_reason(change, message):
    entry = copy.deepcopy(ENTRY)
    change(entry)
    with pytest.raises(UserError, match=message):
        validate(entry, "x")


def test_our_runs_need_no_url_and_come_from_the_runs_folder(tmp_path):
    summary = {"window": {"release": "release_v6", "start_date": "2025-02-01", "end_date": "2025-05-01",
                          "mode": "lcb"},
               "overall": {"pass@1": 12.5, "pass@5": 30.0, "problems": 8},
               "by_difficulty": {"easy": {"pass@1": 40.0, "pass@5": 70.0}, "hard": {"pass@1": 0.0, "pass@5": 5.0}},
               "num_problems": 8, "num_samples": 80,
               "generation": {"model": "me/model", "backend": "vllm", "n": 10, "problems": "lcb_v6.jsonl"}}
    path = write_run(run_entry(summary, "mine"), tmp_path)
    assert path == tmp_path / "runs" / "mine.json"
    (entry,) = load_runs(tmp_path / "runs")
    assert entry["grader"] == "lcb" and entry["source"]["url"] is None
    assert entry["scores"]["pass@5"] == {"all": 30.0, "easy": 70.0, "medium": None, "hard": 5.0}
    assert entry["benchmark"] == "lcb_v6.jsonl" and entry["window"]["label"].startswith("release_v6, 2025-02-01")


def test_cli_builds_into_a_folder_and_bad_input_exits_2(tmp_path, capsys):
    (tmp_path / "reference.json").write_text(json.dumps({"entries": [ENTRY]}))
    assert main(["leaderboard", "--dir", str(tmp_path)]) == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"README.md", "leaderboard.json", "leaderboard.png"}
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "broken.json").write_text("{not json")
    assert main(["leaderboard", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "broken.json: not valid JSON" in err[0]
    assert main(["leaderboard", "--dir", str(tmp_path / "missing")]) == 2
    assert "reference file" in capsys.readouterr().err
