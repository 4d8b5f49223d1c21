"""A built wheel, installed (not editable) in a fresh venv, runs the README's main command.

No downloads: the wheel is built without build isolation, and the fresh venv sees the running
environment's installed dependencies through a ``.pth`` line (a path only, so that environment's
editable install of this project is not activated); the wheel itself goes into the fresh venv.
"""
import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="venv layout below is Linux's")


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_NO_INDEX"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd, **kw):
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=_env(), **kw)
    assert res.returncode == 0, f"{cmd} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def installed():
    # not under /tmp: the sandbox mounts an empty /tmp in its view, so an interpreter living there
    # could not start inside it (real installs live in /opt/venv, ~/.venv, ...)
    import shutil
    import tempfile

    (ROOT / "build").mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="test-wheel-", dir=ROOT / "build"))
    try:
        yield _install(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _install(tmp: Path):
    wheels = tmp / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", wheels, ROOT])
    (wheel,) = wheels.glob("microcoder-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    py = venv / "bin" / "python"
    purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "zz_test_deps.pth").write_text("\n".join(deps) + "\n")
    # --ignore-installed: the dependency path also holds this project's editable install
    _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--ignore-installed", wheel])
    return venv, wheel


def test_wheel_carries_the_shipped_data(installed):
    import zipfile

    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("data/lcb_sample_problems.jsonl", "data/lcb_sample_completions.jsonl",
                 "leaderboards/reference.json"):
        assert f"microcoder_eval/_shipped/{name}" in names


def test_installed_wheel_runs_the_readme_main_command(installed, tmp_path):
    venv, _ = installed
    where = _run([venv / "bin" / "python", "-c", "import microcoder_eval; print(microcoder_eval.__file__)"],
                 cwd=tmp_path).stdout.strip()
    assert where.startswith(str(venv)), where  # the wheel's copy, not the checkout
    # the README's command, verbatim, from a folder that has no data/ next to it
    res = _run([venv / "bin" / "microcoder-eval", "evaluate", "--out", "results.jsonl"], cwd=tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 100
    assert (tmp_path / "results.summary.json").is_file()
    assert "pass@1" in res.stdout
    # the leaderboard renders the shipped reference numbers into ./leaderboards (not site-packages)
    _run([venv / "bin" / "microcoder-eval", "leaderboard"], cwd=tmp_path)
    assert (tmp_path / "leaderboards" / "README.md").is_file()
