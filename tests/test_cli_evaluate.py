"""End-to-end `microcoder-eval evaluate` on the shipped sample data and on bad input."""
import json
import subprocess
import sys

import pytest

from microcoder_eval.cli import main

from conftest import DATA, real

PROBLEMS = str(DATA / "lcb_sample_problems.jsonl")
SAMPLES = str(DATA / "lcb_sample_completions.jsonl")


def _run(tmp_path, *extra, out="results.jsonl"):
    return main(["evaluate", "--problems", PROBLEMS, "--samples", SAMPLES, "--out", str(tmp_path / out),
                 "--no-progress", "--workers", "2", *extra])


def test_sample_data_labels_all_right(tmp_path, capsys):
    assert _run(tmp_path) == 0
    printed = capsys.readouterr().out
    assert "| pass@1 |" in printed and "Agreement with the true labels" in printed and "pass@5" not in printed
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    agree = summary["label_agreement"]
    assert agree["compared"] >= 80 and agree["disagreements"] == [], agree["disagreements"][:3]
    assert {"exact", "whitespace", "numeric", "type_coercion"} <= set(summary["accepted_by_rule"])
    assert (tmp_path / "results.summary.png").stat().st_size > 1000
    assert (tmp_path / "results.summary.md").read_text().startswith("# Evaluation report")
    rows = [json.loads(l) for l in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == agree["compared"]
    assert {r["status"] for r in rows} >= {"passed", "wrong_answer", "runtime_error", "time_limit",
                                           "memory_limit", "no_code"}
    # every expected status from the sample file is what we report
    expected = [json.loads(l) for l in open(SAMPLES)]
    got = {(r["question_id"], r["sample_index"]): r["status"] for r in rows}
    idx: dict[str, int] = {}
    for e in expected:
        k = idx.get(e["question_id"], 0)
        idx[e["question_id"]] = k + 1
        assert got[(e["question_id"], k)] == e["expect_status"], (e["question_id"], k, e.get("note"))


# The shipped `lcb_grader_verdict`s are those of LiveCodeBench's grader before 2025-05-23 (15808c7).
# At the current revision (16de2a1) its stdin mock is not iterable, which flips these categories.
FLIPPED_AT_16DE2A1 = {"stdin_for_line_in_sys_stdin"}


@pytest.mark.parametrize("version", ["15808c7", "16de2a1"])
def test_lcb_mode_agrees_with_lcb_verdicts_except_hostile_eq(tmp_path, version):
    assert _run(tmp_path, "--mode", "lcb", "--lcb-version", version) == 0
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    assert summary["window"]["lcb_version"] == version
    assert f"LiveCodeBench grader revision: `{version}`" in (tmp_path / "results.summary.md").read_text()
    rows = [json.loads(l) for l in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert rows and {r["environment"] for r in rows} == {f"lcb@{version}"}
    meta = json.loads((tmp_path / "results.jsonl.meta.json").read_text())
    assert meta["settings"]["config"]["lcb_version"] == version
    expected = [json.loads(l) for l in open(SAMPLES)]
    idx: dict[str, int] = {}
    allowed, flipped = set(), set()
    for e in expected:
        k = idx.get(e["question_id"], 0)
        idx[e["question_id"]] = k + 1
        if e.get("category") == "always_equal_object":
            allowed.add((e["question_id"], k))
        if version == "16de2a1" and e.get("category") in FLIPPED_AT_16DE2A1:
            flipped.add((e["question_id"], k))
    bad = {(d["question_id"], d["sample_index"]) for d in summary["lcb_agreement"]["disagreements"]}
    # the only deliberate difference: we never compare inside the untrusted process
    assert bad - flipped <= allowed, bad
    assert flipped <= bad  # the revision's own difference shows


def test_resume_skips_finished_samples(tmp_path):
    assert _run(tmp_path) == 0
    out = tmp_path / "results.jsonl"
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:10]) + "\n" + lines[10][:25])  # interrupted mid-line
    assert _run(tmp_path) == 0
    again = out.read_text().splitlines()
    assert len(again) == len(lines)
    assert again[:10] == lines[:10]
    keys = [(json.loads(l)["question_id"], json.loads(l)["sample_index"]) for l in again]
    assert len(set(keys)) == len(keys)


def test_resume_refuses_other_settings(tmp_path, capsys):
    assert _run(tmp_path) == 0
    assert _run(tmp_path, "--mode", "lcb") == 2
    assert "other settings" in capsys.readouterr().err
    assert _run(tmp_path, "--mode", "lcb", "--overwrite") == 0


def test_lcb_generations_file_format(tmp_path):
    recs = [json.loads(l) for l in open(PROBLEMS)][:3]
    sub = [{"question_id": r["question_id"], "code_list": ["print(1)", "x = (", "import sys"],
            "output_list": ["```python\nprint(1)\n```", "no code", "```python\nimport sys\n```"]} for r in recs]
    path = tmp_path / "lcb.json"
    path.write_text(json.dumps(sub))
    assert main(["evaluate", "--problems", PROBLEMS, "--samples", str(path), "--out", str(tmp_path / "r.jsonl"),
                 "--no-progress", "--skip-missing"]) == 0
    rows = [json.loads(l) for l in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(rows) == 9
    assert main(["evaluate", "--problems", PROBLEMS, "--samples", str(path), "--out", str(tmp_path / "r2.jsonl"),
                 "--no-progress", "--use-raw-output"]) == 0
    rows = [json.loads(l) for l in (tmp_path / "r2.jsonl").read_text().splitlines()]
    assert sum(r["status"] == "no_code" for r in rows) == 3


@pytest.mark.parametrize("setup,needle", [
    (lambda d: ["--problems", str(d / "missing.jsonl")], "does not exist"),
    (lambda d: ["--samples", str(d / "missing.jsonl")], "does not exist"),
    (lambda d: ["--samples", _write(d, "s.jsonl", '{"question_id": "nope", "completion": "x"}\n')], "unknown question_id"),
    (lambda d: ["--samples", _write(d, "s.jsonl", '{"question_id": "mcb101_a"\n')], "malformed JSON"),
    (lambda d: ["--samples", _write(d, "s.jsonl", '{"completion": "x"}\n')], "missing question_id"),
    (lambda d: ["--samples", _write(d, "s.jsonl", '{"question_id": "mcb101_a", "text": "x"}\n')], "needs 'completion'"),
    (lambda d: ["--problems", _write(d, "p.jsonl", '{"question_id": 1, "public_test_cases": "[{]"}\n')], "bad test cases"),
    (lambda d: ["--timeout-s", "-1"], "timeout_s=-1"),
    (lambda d: ["--mode", "fuzzy"], "mode 'fuzzy'"),
    (lambda d: ["--start-date", "2030-01-01"], "no problems left"),
    (lambda d: ["--ks", "a,b"], "--ks"),
    (lambda d: ["--problems", _mkdir(d, "adir")], "not a file"),
    (lambda d: ["--samples", _write_bytes(d, "bad.jsonl", b"\xff\xfe\n")], "not UTF-8"),
    (lambda d: ["--problems", _write_bytes(d, "bad.jsonl", b"\xff\xfe\n")], "not UTF-8"),
    (lambda d: ["--out", _mkdir(d, "outdir")], "is a directory"),
    (lambda d: ["--executor", "spark"], "executor 'spark'"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, setup, needle):
    args = ["evaluate", "--problems", PROBLEMS, "--samples", SAMPLES, "--out", str(tmp_path / "o.jsonl"), "--no-progress"]
    extra = setup(tmp_path)
    for i in range(0, len(extra), 2):
        flag = extra[i]
        if flag in args:
            args[args.index(flag) + 1] = extra[i + 1]
        else:
            args += extra[i:i + 2]
    proc = subprocess.run([sys.executable, "-m", "microcoder_eval.cli", *args], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in proc.stderr, proc.stderr


def _mkdir(d, name):
    (d / name).mkdir(exist_ok=True)
    return str(d / name)


def _write_bytes(d, name, data):
    (d / name).write_bytes(data)
    return str(d / name)


def _write(d, name, text):
    (d / name).write_text(text)
    return str(d / name)


def test_real_o1_preview_outputs_never_fail_what_lcb_passed(tmp_path):
    probs = real("lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl")
    gens = real("lcb_generations/lcb_submissions_O1-Preview-2024-09-12_N1_codegeneration_1_0.2_eval_all.json")
    out = tmp_path / "o1.jsonl"
    assert main(["evaluate", "--problems", str(probs), "--samples", str(gens), "--out", str(out),
                 "--no-progress", "--skip-missing", "--timeout-s", "6"]) == 0
    summary = json.loads((tmp_path / "o1.summary.json").read_text())
    assert summary["num_samples"] >= 278
    # public tests only: a sample LCB passed on all tests must pass here
    assert [d for d in summary["lcb_agreement"]["disagreements"] if d["lcb_verdict"]] == []


@pytest.mark.parametrize("version", ["15808c7", "16de2a1"])
def test_real_o1_preview_lcb_mode_at_each_revision(tmp_path, version):
    """Measured against LiveCodeBench's own testing_util at both commits on these public tests:
    279/279 verdicts agree at each revision. Here: no sample LCB passed on all its tests fails
    on the public ones, and the revision is recorded in every row."""
    probs = real("lcb_problems/lcb_v5window_2408-2502_reconstructed_279_public_tests_only.jsonl")
    gens = real("lcb_generations/lcb_submissions_O1-Preview-2024-09-12_N1_codegeneration_1_0.2_eval_all.json")
    out = tmp_path / "o1.jsonl"
    assert main(["evaluate", "--problems", str(probs), "--samples", str(gens), "--out", str(out), "--no-progress",
                 "--skip-missing", "--timeout-s", "6", "--mode", "lcb", "--lcb-version", version]) == 0
    summary = json.loads((tmp_path / "o1.summary.json").read_text())
    assert summary["num_samples"] >= 278 and summary["window"]["lcb_version"] == version
    assert [d for d in summary["lcb_agreement"]["disagreements"] if d["lcb_verdict"]] == []
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert {r["environment"] for r in rows} == {f"lcb@{version}"}


def test_resume_rejudges_infra_errors(tmp_path):
    assert _run(tmp_path) == 0
    out = tmp_path / "results.jsonl"
    lines = out.read_text().splitlines()
    first = json.loads(lines[0])
    first.update(status="infra_error", passed=False, tests=[], detail="sandbox died")
    out.write_text(json.dumps(first) + "\n" + "\n".join(lines[1:]) + "\n")
    assert _run(tmp_path) == 0
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    again = [r for r in rows if (r["question_id"], r["sample_index"]) == (first["question_id"], first["sample_index"])]
    assert [r["status"] for r in again][-1] != "infra_error"
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    assert summary["num_samples"] == len(lines) and summary["infra_errors"] == 0


def test_resume_with_other_worker_count_is_allowed(tmp_path):
    assert _run(tmp_path) == 0
    assert main(["evaluate", "--problems", PROBLEMS, "--samples", SAMPLES, "--out", str(tmp_path / "results.jsonl"),
                 "--no-progress", "--workers", "1"]) == 0


def test_resume_rejudges_samples_whose_text_changed(tmp_path):
    rows = [json.loads(l) for l in open(SAMPLES)][:5]
    samples = tmp_path / "s.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["evaluate", "--problems", PROBLEMS, "--samples", str(samples), "--out", str(tmp_path / "r.jsonl"),
            "--no-progress"]
    assert main(args) == 0
    first = json.loads((tmp_path / "r.summary.json").read_text())["status_counts"]
    assert first.get("passed", 0) >= 3
    for r in rows:
        r["completion"] = "```python\nprint('garbage')\n```"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(args) == 0
    again = json.loads((tmp_path / "r.summary.json").read_text())
    assert again["status_counts"] == {"wrong_answer": 5} and again["num_samples"] == 5


def test_problems_file_is_blanked_even_when_its_folder_cannot_be_hidden(tmp_path, monkeypatch):
    import os

    if os.geteuid() != 0:
        pytest.skip("private mounts need root")
    rec = json.loads(open(PROBLEMS).readline())
    probs = tmp_path / "p.jsonl"
    probs.write_text(json.dumps(rec) + "\n")
    os.chmod(tmp_path, 0o755)
    os.chmod(probs, 0o644)
    leak = ("import json\nrec = json.loads(open(%r).readline())\n"
            "print(json.loads(rec['public_test_cases'])[0]['output'])" % str(probs))
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"question_id": rec["question_id"], "code": leak}) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the folder is on sys.path: it cannot be hidden
    assert main(["evaluate", "--problems", str(probs), "--samples", str(samples), "--out", str(tmp_path / "r.jsonl"),
                 "--no-progress"]) == 0
    row = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert row["status"] != "passed", row
