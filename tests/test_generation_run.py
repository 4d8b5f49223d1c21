"""`run` end to end on the shipped sample problems: canned HTTP answers -> evaluate -> pass@k report."""
from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from microcoder_eval.cli import main
from microcoder_eval.lcb import load_problems
from microcoder_eval.leaderboard.entries import load_runs

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "lcb_sample_problems.jsonl"
WINDOW = ["--release", "release_v6", "--start-date", "2025-02-01", "--end-date", "2025-05-01"]


def reference_solutions() -> dict[str, str]:
    """The sample set's own reference programs (data/make_sample_data.py computes outputs with them)."""
    spec = importlib.util.spec_from_file_location("make_sample_data", ROOT / "data" / "make_sample_data.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses in the module look themselves up there
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    return {qid: s.reference for qid, s in mod.spec_by_id().items()}


# per problem in the window: which sample seeds (= sample index, base seed 0) get the right program
PLAN = {"90010": {0}, "mcb118_g": {0, 1}, "90011": "prose", "mccf04_c": {0, 1}, "90012": {1}}
WRONG = {True: "```python\nclass Solution:\n    def {f}(self, *a):\n        return 0\n```",
         False: "```python\nprint(-1)\n```"}


class CannedServer:
    """Answers each chat request with the reference program or a wrong/no-code one, per PLAN."""

    def __init__(self) -> None:
        problems = {p.question_id: p for p in load_problems(SAMPLE)}
        refs = reference_solutions()
        self.requests: list[dict[str, Any]] = []
        outer = self

        def answer(body: dict[str, Any]) -> str:
            user = body["messages"][-1]["content"]
            qid = next(q for q, p in problems.items() if p.question_content in user)
            plan = PLAN[qid]
            if plan == "prose":
                return "I would use a two-pointer sweep here."
            if body["seed"] in plan:
                return f"Here is my solution.\n```python\n{refs[qid]}```\n"
            p = problems[qid]
            return WRONG[p.is_functional].replace("{f}", p.func_name or "")

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer(body)},
                                                "finish_reason": "stop"}],
                                   "usage": {"completion_tokens": 42}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def canned(monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    srv = CannedServer()
    yield srv
    srv.close()


def test_run_reports_pass_at_k_for_the_v6_window_and_writes_a_leaderboard_entry(canned, tmp_path, capsys):
    lb = tmp_path / "lb"
    (lb / "runs").mkdir(parents=True)
    shutil.copy(ROOT / "leaderboards" / "reference.json", lb / "reference.json")
    out = tmp_path / "c.jsonl"
    argv = ["run", "--problems", str(SAMPLE), *WINDOW, "--backend", "openai", "--base-url", canned.url,
            "--model", "canned", "-n", "2", "--ks", "1,2,5", "--out", str(out), "--no-progress",
            "--workers", "2", "--leaderboard-name", "canned-v6", "--leaderboard-dir", str(lb)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    # the window the problems were drawn from is in the report
    assert "release `release_v6`" in printed and "[2025-02-01, 2025-05-01)" in printed
    assert "Model `canned` (openai), n=2" in printed
    assert len(canned.requests) == 10  # 5 problems in the window x 2 samples

    summary = json.loads((tmp_path / "c.results.summary.json").read_text())
    assert summary["num_problems"] == 5 and summary["num_samples"] == 10
    # pass@1 per problem: 90010 .5, mcb118_g 1, 90011 0, mccf04_c 1, 90012 .5
    assert summary["overall"]["pass@1"] == 60.0
    assert summary["overall"]["pass@2"] == 80.0
    assert "pass@5" not in summary["overall"]  # k > n is dropped, not reported as a fake number
    diff = summary["by_difficulty"]
    assert (diff["easy"]["pass@1"], diff["medium"]["pass@1"], diff["hard"]["pass@1"]) == (50.0, 50.0, 75.0)
    plat = summary["by_platform"]
    assert (plat["leetcode"]["pass@1"], plat["atcoder"]["pass@1"], plat["codeforces"]["pass@1"]) == (33.33, 100.0, 100.0)
    assert summary["status_counts"]["no_code"] == 2
    assert "| pass@1 | 60.0 | 50.0 | 50.0 | 75.0 |" in printed

    (entry,) = load_runs(lb / "runs")
    assert entry["model"] == "canned" and entry["kind"] == "ours" and entry["grader"] == "flex"
    assert entry["scores"]["pass@1"] == {"all": 60.0, "easy": 50.0, "medium": 50.0, "hard": 75.0}
    assert entry["window"]["start_date"] == "2025-02-01" and entry["settings"]["n"] == 2
    assert main(["leaderboard", "--dir", str(lb)]) == 0
    board = (lb / "README.md").read_text()
    ours = board[board.index("**Our runs (this repository)**"):]
    row = next(line for line in ours.splitlines() if "| canned |" in line)
    assert row.startswith("| 1 | canned | as released | **60.0** | 50.0 | 50.0 | 75.0 | – | ")
    assert row.endswith(" tok | flex | 2 | microcoder-eval run canned |") or "| flex | 2 |" in row

    # a rerun resumes: no new requests, same numbers
    assert main(argv) == 0
    assert len(canned.requests) == 10
    again = json.loads((tmp_path / "c.results.summary.json").read_text())
    assert again["overall"] == summary["overall"]


def test_run_in_lcb_mode_uses_the_strict_grader(canned, tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    argv = ["run", "--problems", str(SAMPLE), *WINDOW, "--backend", "openai", "--base-url", canned.url,
            "--model", "canned", "-n", "1", "--out", str(out), "--no-progress", "--workers", "2", "--mode", "lcb"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "mode `lcb`" in printed
    summary = json.loads((tmp_path / "c.results.summary.json").read_text())
    # seed 0 gets the reference for 90010, mcb118_g, mccf04_c
    assert summary["overall"]["pass@1"] == 60.0 and summary["num_samples"] == 5
