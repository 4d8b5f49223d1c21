"""Build hook: copy the shipped data (sample problems, completions, reference leaderboard) into the
wheel as package data under ``microcoder_eval/_shipped/``; the metadata lives in pyproject.toml."""
import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# the one list of shipped files, read without importing the package
SHIPPED = runpy.run_path(str(ROOT / "microcoder_eval" / "resources.py"))["SHIPPED"]


class build_py_with_shipped_data(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads data/ and leaderboards/ in place
        dest = Path(self.build_lib) / "microcoder_eval" / "_shipped"
        for folder, names in SHIPPED.items():
            for name in names:
                src = ROOT / folder / name
                if not src.is_file():
                    raise SystemExit(f"setup.py: shipped file {src} is missing")
                out = dest / folder / name
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out)


setup(cmdclass={"build_py": build_py_with_shipped_data})
