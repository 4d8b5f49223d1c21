"""Results that tell the truth when judging fails: scores over judged samples only, exit status 3
for unjudged samples, one row per sample after a run (atomic compaction), corrupt lines skipped,
a full disk or a failed executor ending in the one error line with nothing lost or left behind.

Most tests swap the executor for a scripted one (no sandbox), so they run in well under a second.
"""
import errno
import json
import os
import re
import subprocess
import sys

import pytest

from microcoder_eval import evaluation_job, results_store
from microcoder_eval.cli import main
from microcoder_eval.problem import Problem
from microcoder_eval.report import summarize, to_markdown, write_png
from microcoder_eval.verdict import SampleResult, Status

from conftest import DATA

PROBLEMS = str(DATA / "lcb_sample_problems.jsonl")
SAMPLES = str(DATA / "lcb_sample_completions.jsonl")


class Scripted:
    """Executor stand-in: passes every item, except positions named in ``lost`` (infra_error)."""

    calls: list[list[tuple[str, int]]] = []

    def __init__(self, lost=(), fail_at=None):
        self.lost, self.fail_at = set(lost), fail_at

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def evaluate_iter(self, items, extract=False, sample_indices=None):
        Scripted.calls.append([(p.question_id, i) for (p, _), i in zip(items, sample_indices)])
        for pos, ((p, code), idx) in enumerate(zip(items, sample_indices)):
            if self.fail_at is not None and pos == self.fail_at:
                raise RuntimeError("cluster went away\nsecond line of a long library message")
            status = Status.INFRA_ERROR if (p.question_id, idx) in self.lost else Status.PASSED
            yield pos, SampleResult(p.question_id, idx, status, [], len(p.tests), code,
                                    "worker died twice" if status is Status.INFRA_ERROR else "")


@pytest.fixture
def samples(tmp_path):
    """Ten samples: five problems x two."""
    qids = []
    for line in open(PROBLEMS):
        q = json.loads(line)["question_id"]
        if q not in qids:
            qids.append(q)
        if len(qids) == 5:
            break
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"question_id": q, "code": f"print({i})"}) + "\n"
                            for q in qids for i in range(2)))
    return path, [(q, i) for q in qids for i in range(2)]


def _use(monkeypatch, **kw):
    Scripted.calls = []
    monkeypatch.setattr(evaluation_job, "make_executor", lambda config, hide=(): Scripted(**kw))


def _argv(tmp_path, samples_path, *extra):
    return ["evaluate", "--problems", PROBLEMS, "--samples", str(samples_path), "--out", str(tmp_path / "r.jsonl"),
            "--no-progress", "--ks", "1,2", *extra]


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---------------------------------------------------------------- scores and exit status
def test_summary_scores_judged_samples_only():
    probs = [Problem("a", difficulty="easy", platform="atcoder"), Problem("b", difficulty="hard", platform="leetcode"),
             Problem("c", difficulty="hard", platform="leetcode")]
    res = [SampleResult("a", 0, Status.PASSED), SampleResult("a", 1, Status.INFRA_ERROR, detail="sandbox died"),
           SampleResult("b", 0, Status.WRONG_ANSWER), SampleResult("b", 1, Status.PASSED),
           SampleResult("c", 0, Status.INFRA_ERROR), SampleResult("c", 1, Status.INFRA_ERROR)]
    s = summarize(probs, res, ks=(1, 2))
    # a: 1/1 judged passed, b: 1/2; c has no judged sample and is left out (not a 0)
    assert s["overall"]["pass@1"] == 75.0 and s["overall"]["problems"] == 2
    assert s["overall"]["pass@2"] is None  # a has only one judged sample
    assert (s["num_samples"], s["num_judged"], s["num_unjudged"], s["infra_errors"]) == (6, 3, 3, 3)
    assert s["unjudged_problems"] == ["c"]
    assert [(u["question_id"], u["sample_index"]) for u in s["unjudged"]] == [("a", 1), ("c", 0), ("c", 1)]
    assert s["status_counts"]["infra_error"] == 3
    md = to_markdown(s)
    assert "(judged 3, unjudged 3)" in md and "**3 sample(s) could not be judged**" in md
    assert "## Unjudged samples (3)" in md and "| a | 1 | sandbox died |" in md
    assert "left out of pass@k): c" in md


def test_png_names_the_unjudged(tmp_path, monkeypatch):
    import matplotlib.axes

    titles = []
    real = matplotlib.axes.Axes.set_title
    monkeypatch.setattr(matplotlib.axes.Axes, "set_title", lambda self, t, **kw: titles.append(t) or real(self, t, **kw))
    s = summarize([Problem("a")], [SampleResult("a", 0, Status.PASSED), SampleResult("a", 1, Status.INFRA_ERROR)])
    write_png(s, tmp_path / "x.png")
    assert "judged samples only: 1 of 2, 1 unjudged (infra_error)" in titles[0]


def test_unjudged_samples_exit_3_and_a_rerun_judges_only_them(tmp_path, samples, monkeypatch, capsys):
    path, keys = samples
    lost = {keys[1], keys[4], keys[5]}
    _use(monkeypatch, lost=lost)
    assert main(_argv(tmp_path, path)) == 3
    out, err = capsys.readouterr()
    line = [ln for ln in err.splitlines() if "could not be judged" in ln]
    assert line == ["microcoder-eval: 3 of 10 samples could not be judged (infra_error: the sandbox or executor "
                    "failed, not the solution) and are left out of every score; rerun the same command to judge "
                    "them (exit status 3)"]
    summary = json.loads((tmp_path / "r.summary.json").read_text())
    assert summary["num_judged"] == 7 and summary["overall"]["pass@1"] == 100.0  # not 70
    assert sorted(tuple(k) for k in ((u["question_id"], u["sample_index"]) for u in summary["unjudged"])) == sorted(lost)
    assert "could not be judged" in out and "could not be judged" in (tmp_path / "r.summary.md").read_text()

    _use(monkeypatch)  # the rerun: infrastructure works again
    assert main(_argv(tmp_path, path)) == 0
    assert sorted(Scripted.calls[0]) == sorted(lost)  # only the unjudged ones
    rows = _rows(tmp_path / "r.jsonl")
    assert [(r["question_id"], r["sample_index"]) for r in rows] == keys  # one row each, first-seen order
    assert {r["status"] for r in rows} == {"passed"}
    assert json.loads((tmp_path / "r.summary.json").read_text())["num_unjudged"] == 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------- compaction
def test_compaction_failure_keeps_the_appended_file(tmp_path, samples, monkeypatch, capsys):
    path, keys = samples
    _use(monkeypatch, lost={keys[0]})
    assert main(_argv(tmp_path, path)) == 3
    before = (tmp_path / "r.jsonl").read_bytes()
    _use(monkeypatch)

    real_replace = os.replace

    def crash(src, dst):  # the machine dies between writing the new results file and renaming it
        if str(dst).endswith("r.jsonl"):
            raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)

    monkeypatch.setattr(results_store.os, "replace", crash)
    assert main(_argv(tmp_path, path)) == 0
    appended = (tmp_path / "r.jsonl").read_bytes()
    assert appended.startswith(before) and len(appended.splitlines()) == 11  # old rows + the rejudged one
    assert "could not compact" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.undo()
    _use(monkeypatch)
    assert main(_argv(tmp_path, path)) == 0  # nothing to judge; the next run compacts
    assert Scripted.calls == [] and len(_rows(tmp_path / "r.jsonl")) == 10


def test_atomic_write_never_leaves_a_torn_file(tmp_path):
    target = tmp_path / "f.jsonl"
    target.write_bytes(b"old\n")

    def half_then_full_disk(f):  # the disk fills up half-way through the new file
        f.write(b"new con")
        f.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError):
        results_store.atomic_write(target, half_then_full_disk)
    assert target.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["f.jsonl"]
    results_store.atomic_write(target, b"new content\n")
    assert target.read_bytes() == b"new content\n" and os.listdir(tmp_path) == ["f.jsonl"]


# ---------------------------------------------------------------- corrupt lines (issue 11)
def test_corrupt_middle_line_is_skipped_with_one_warning_not_truncating(tmp_path, samples, monkeypatch, capsys):
    path, keys = samples
    _use(monkeypatch)
    assert main(_argv(tmp_path, path)) == 0
    out = tmp_path / "r.jsonl"
    lines = out.read_text().splitlines()
    lines[2] = lines[2][:40] + "\x00garbage"  # one damaged row in the middle
    lines[6] = "{not json"  # and another
    out.write_text("\n".join(lines) + "\n" + lines[9][:30])  # plus a torn last line
    capsys.readouterr()
    _use(monkeypatch)
    assert main(_argv(tmp_path, path)) == 0
    err = capsys.readouterr().err
    warn = [ln for ln in err.splitlines() if "corrupt" in ln]
    assert len(warn) == 1 and "skipped 2 corrupt line(s) (first: line 3" in warn[0], err
    # only the two damaged rows are judged again (the torn last line duplicated row 9's sample)
    assert sorted(Scripted.calls[0]) == sorted([keys[2], keys[6]])
    rows = _rows(out)
    assert len(rows) == 10 and sorted((r["question_id"], r["sample_index"]) for r in rows) == sorted(keys)


def test_read_appended_jsonl_keeps_rows_after_a_bad_line(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"x": 1}\n{"x": \n{"x": 3}\n\n{"x": 4}\n{"x": 5')
    skipped = []
    got = results_store.read_appended_jsonl(p, lambda line, n: json.loads(line)["x"], skipped)
    assert got == [1, 3, 4] and skipped == [2]
    assert p.read_bytes().endswith(b'{"x": 4}\n')  # only the torn last line is cut


# ---------------------------------------------------------------- write failures (issue 11)
@pytest.mark.parametrize("code,why", [(errno.ENOSPC, "the disk is full (ENOSPC)"),
                                      (errno.EFBIG, "the file hit a size limit (EFBIG)")])
def test_disk_full_mid_run_is_one_line_exit_2_rows_kept(tmp_path, samples, monkeypatch, capsys, code, why):
    path, keys = samples
    _use(monkeypatch)
    written = []
    real_write = os.write

    def write(fd, data):
        if b'"question_id"' in bytes(data[:64]) and len(written) == 4:  # the fifth result row
            real_write(fd, bytes(data[:17]))  # a partial row reaches the disk first
            raise OSError(code, os.strerror(code))
        if b'"question_id"' in bytes(data[:64]):
            written.append(1)
        return real_write(fd, data)

    monkeypatch.setattr(results_store.os, "write", write)
    assert main(_argv(tmp_path, path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("microcoder-eval: error: cannot write ") and why in err[0], err
    assert "the 4 results already written are kept" in err[0] and "rerun the same command" in err[0]
    rows = _rows(tmp_path / "r.jsonl")  # every line complete: the partial row was cut again
    assert [(r["question_id"], r["sample_index"]) for r in rows] == keys[:4]
    monkeypatch.undo()
    _use(monkeypatch)
    assert main(_argv(tmp_path, path)) == 0
    assert sorted(Scripted.calls[0]) == sorted(keys[4:])
    assert len(_rows(tmp_path / "r.jsonl")) == 10


def test_file_size_limit_from_the_os_ends_in_one_line(tmp_path, samples):
    """A real EFBIG: the CLI in a subprocess under RLIMIT_FSIZE (the sandbox runs for real)."""
    import resource

    path, keys = samples
    limit = 1500  # the .meta.json (~700 bytes) fits, a few result rows (~400 bytes each) fit, not ten

    def cap():  # a hard limit: the CLI raises an inherited soft one to the hard one at start
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    argv = _argv(tmp_path, path, "--workers", "1", "--timeout-s", "2")
    proc = subprocess.run([sys.executable, "-m", "microcoder_eval.cli", *argv], capture_output=True, text=True,
                          timeout=300, preexec_fn=cap)
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()]
    assert proc.returncode == 2, proc.stderr
    assert len(errors) == 1 and "the file hit a size limit (EFBIG)" in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    rows = _rows(tmp_path / "r.jsonl")
    assert 1 <= len(rows) < 10 and (tmp_path / "r.jsonl").stat().st_size <= limit
    assert int(re.search(r"the (\d+) results already written", errors[0]).group(1)) == len(rows)


# ---------------------------------------------------------------- executor failures
def test_executor_that_cannot_start_leaves_nothing_on_disk(tmp_path, samples, monkeypatch, capsys):
    path, _ = samples

    def broken(config, hide=()):
        raise RuntimeError("GCS unreachable\n  at line 2\n  at line 3")

    monkeypatch.setattr(evaluation_job, "make_executor", broken)
    assert main(_argv(tmp_path, path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the local executor could not start (RuntimeError: GCS unreachable)" in err[0], err
    log = re.search(r"details in (\S+\.log)$", err[0]).group(1)
    text = open(log).read()
    assert "Traceback" in text and "at line 3" in text and "--samples" in text
    os.unlink(log)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]  # no results.jsonl, no .meta.json


def test_executor_failing_mid_run_keeps_results_and_names_its_log(tmp_path, samples, monkeypatch, capsys):
    path, keys = samples
    _use(monkeypatch, fail_at=6)
    assert main(_argv(tmp_path, path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the local executor failed while judging (RuntimeError: cluster went away)" in err[0]
    assert "results already on disk are kept" in err[0]
    os.unlink(re.search(r"details in (\S+\.log)$", err[0]).group(1))
    assert [(r["question_id"], r["sample_index"]) for r in _rows(tmp_path / "r.jsonl")] == keys[:6]
    _use(monkeypatch)
    assert main(_argv(tmp_path, path)) == 0 and sorted(Scripted.calls[0]) == sorted(keys[6:])


def test_reward_metrics_count_unjudged_apart():
    from microcoder_eval.reward import EvaluatorReward

    logged = {}
    res = [SampleResult("a", 0, Status.PASSED), SampleResult("a", 1, Status.WRONG_ANSWER),
           SampleResult("a", 2, Status.INFRA_ERROR), None]
    EvaluatorReward.log_metrics(res, lambda k, v: logged.__setitem__(k, v))
    assert logged["verdict/pass_rate"] == 0.5 and logged["verdict/wrong_answer"] == 0.5
    assert "verdict/infra_error" not in logged  # a share of judged samples is always 0: not logged
    assert (logged["verdict/judged"], logged["verdict/unjudged"], logged["verdict/bad_row"]) == (2, 1, 1)
    assert logged["verdict/infra_or_bad_row"] == 0.5


def test_executor_whose_workers_fail_to_start_leaves_nothing_on_disk(tmp_path, samples, monkeypatch, capsys):
    path, _ = samples

    class NoWorkers(Scripted):
        closed = False

        def warm_up(self):
            raise OSError(errno.EAGAIN, "fork failed: Resource temporarily unavailable")

        def __exit__(self, *exc):
            NoWorkers.closed = True

    monkeypatch.setattr(evaluation_job, "make_executor", lambda config, hide=(): NoWorkers())
    assert main(_argv(tmp_path, path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the local executor could not start (BlockingIOError: [Errno 11] fork failed" in err[0], err
    os.unlink(re.search(r"details in (\S+\.log)$", err[0]).group(1))
    assert NoWorkers.closed and sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_exit_line_names_problems_no_rerun_can_judge(capsys):
    from microcoder_eval.evaluate_cli import finish_status

    s = summarize([Problem("a"), Problem("b")], [SampleResult("a", 0, Status.INFRA_ERROR, [], 3),
                                                  SampleResult("b", 0, Status.INFRA_ERROR, [], 0)])
    assert finish_status(s) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2 of 2 samples could not be judged" in err[0]
    assert "1 of them belong to problems with no tests, which no rerun can judge" in err[0]
    assert finish_status(summarize([Problem("a")], [SampleResult("a", 0, Status.PASSED)])) == 0


# ---------------------------------------------------------------- a driver that Ray ends abruptly
def test_supervised_child_dying_without_a_word_is_one_error_line(capfd):
    from microcoder_eval import supervise

    def ray_kills_the_driver():
        print("half a report")
        sys.stdout.flush()
        os._exit(1)  # what Ray's C++ core does when the driver loses its raylet

    assert supervise.supervised(lambda: 3) == 3  # a reported status passes through
    assert supervise.supervised(ray_kills_the_driver, "`microcoder-eval evaluate`") == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("microcoder-eval: error: `microcoder-eval evaluate` ended abruptly: "
                                               "its process exited with status 1 without finishing"), err
    assert "the results already written are kept; rerun the same command to resume" in err[0]


def test_only_ray_runs_are_supervised(monkeypatch):
    from microcoder_eval import supervise

    monkeypatch.setitem(sys.modules, "ray", None)  # not imported here (or not installed)
    assert supervise.wanted("ray") and not supervise.wanted("local")
    monkeypatch.setenv("MICROCODER_SUPERVISE", "0")
    assert not supervise.wanted("ray")
