"""Resumable JSONL results file: appended while a run goes, compacted to one row per sample at the end.

While judging, every verdict is appended and flushed at once, so an interrupted run loses at most
the line being written (a torn last line, cut on resume). A rerun appends the samples it judges
again (``infra_error`` rows, changed inputs); when the run ends the file is compacted to one row per
sample (the last one) by writing a temporary file, fsyncing it and renaming it over the old one,
so a crash at any moment leaves either the old or the new file, never a torn one.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

from microcoder_eval.errors import UserError
from microcoder_eval.verdict import SampleResult, Status


T = TypeVar("T")


def read_appended_jsonl(path: Path, parse: Callable[[bytes, int], T],
                        skipped: list[int] | None = None, offsets: list[int] | None = None) -> list[T]:
    """Records of an append-only JSONL file written by an interrupted-or-finished run.

    ``parse(line, lineno)`` turns one complete line into a record. A complete line it rejects with
    ``ValueError``/``KeyError``/``TypeError`` is corrupt: it is skipped (its number appended to
    ``skipped``) and one warning line for the whole file goes to stderr; the rows after it are kept.
    Any other exception from ``parse`` propagates. Only a torn last line (no newline: the run was
    interrupted while writing it) is cut off the file, so it never precedes new appends.
    ``offsets`` gets the byte offset of each returned record's line.
    """
    out: list[T] = []
    bad: list[tuple[int, str]] = []
    complete = 0
    with path.open("rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                break  # torn last line from an interrupted run
            start = complete
            complete += len(line)
            if not line.strip():
                continue
            try:
                out.append(parse(line, lineno))
                if offsets is not None:
                    offsets.append(start)
            except (ValueError, KeyError, TypeError) as e:
                bad.append((lineno, f"{type(e).__name__}: {e}"[:120]))
    if bad:
        if skipped is not None:
            skipped.extend(n for n, _ in bad)
        first, why = bad[0]
        print(f"microcoder-eval: warning: {path}: skipped {len(bad)} corrupt line(s) (first: line {first}, "
              f"{why}); the rows around them are kept and the samples they held are judged again",
              file=sys.stderr)
    if complete != path.stat().st_size:
        with path.open("r+b") as f:
            f.truncate(complete)
    return out


def fingerprint(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


def atomic_write(path: Path, data: bytes | Callable[[Any], None]) -> None:
    """Replace ``path`` with ``data`` (bytes, or a function writing to a binary file): write a
    temporary file beside it, fsync, rename, fsync the folder.

    A crash at any moment leaves either the old file or the new one. On failure the temporary file
    is removed and the error propagates (the old file is untouched).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - some filesystems refuse fsync on folders
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _disk_error(path: Path, e: OSError, kept: int) -> UserError:
    """The one-line error for a results file that cannot be written (full disk, size limit, ...)."""
    why = {errno.ENOSPC: "the disk is full", errno.EFBIG: "the file hit a size limit",
           errno.EDQUOT: "the disk quota is used up"}.get(e.errno or 0, e.strerror or str(e))
    return UserError(f"cannot write {path}: {why} ({errno.errorcode.get(e.errno or 0, 'OSError')}); "
                     f"the {kept} results already written are kept; make room and rerun the same command "
                     "to resume")


class ResultsStore:
    """``<out>`` holds one SampleResult per line; ``<out>.meta.json`` the settings it was made with.

    Constructing the store only reads: it checks the settings against an existing file and loads
    the finished samples. Nothing is created or removed on disk until ``open()`` (called once the
    executor is up), so a run that fails to start leaves no empty results file behind.
    """

    def __init__(self, path: str | Path, settings: dict[str, Any], overwrite: bool = False) -> None:
        self.path = Path(path)
        self.meta_path = self.path.with_name(self.path.name + ".meta.json")
        self.settings = settings
        self.overwrite = overwrite
        self.done: dict[tuple[str, int], SampleResult] = {}
        self.input_hashes: dict[tuple[str, int], str | None] = {}
        # (offset, length) of the last line of each sample in the file, in order of first appearance
        self.rows: dict[tuple[str, int], tuple[int, int]] = {}
        self.lines = 0  # complete lines in the file (corrupt ones included)
        self._fd: int | None = None
        self._size = 0  # bytes of complete lines written
        self._write_failed = False
        if self.path.is_dir():
            raise UserError(f"--out {str(self.path)!r} is a directory; give a file path such as {self.path}/results.jsonl")
        _check_writable(self.path)
        self.fp = fingerprint(settings)
        if not overwrite and self.path.exists() and self.path.stat().st_size:
            old = self._old_fingerprint()
            if old != self.fp:
                raise UserError(f"{self.path} holds results made with other settings; pass --overwrite "
                                "to start again or choose another --out")
            self._load()

    def _old_fingerprint(self) -> str | None:
        if not self.meta_path.exists():
            return None
        try:
            return json.loads(self.meta_path.read_text()).get("fingerprint")
        except (ValueError, AttributeError):
            return None

    def _load(self) -> None:
        def parse(line: bytes, lineno: int) -> tuple[SampleResult, str | None, int]:
            row = json.loads(line)
            return SampleResult.from_dict(row), row.get("input_hash"), len(line)

        skipped: list[int] = []
        offsets: list[int] = []
        parsed = read_appended_jsonl(self.path, parse, skipped, offsets)
        for (r, digest, length), offset in zip(parsed, offsets):
            key = (r.question_id, r.sample_index)
            self.rows[key] = (offset, length)
            if r.status is not Status.INFRA_ERROR:  # infrastructure failures are judged again
                self.done[key] = r
                self.input_hashes[key] = digest
            else:
                self.done.pop(key, None)
                self.input_hashes.pop(key, None)
        self.lines = len(parsed) + len(skipped)  # more lines than samples: compacted at the end
        self._size = self.path.stat().st_size

    def is_done(self, key: tuple[str, int], input_hash: str) -> bool:
        """Finished with exactly this problem and completion (a changed input is judged again)."""
        return key in self.done and self.input_hashes.get(key) == input_hash

    def open(self) -> None:
        """Create ``<out>`` (and its folder) for appending and write ``.meta.json``."""
        if self._fd is not None:
            return
        target = self.path.parent
        try:
            target.mkdir(parents=True, exist_ok=True)
            if self.overwrite:
                self.path.unlink(missing_ok=True)
                self.meta_path.unlink(missing_ok=True)
                self.rows.clear()
                self.lines = self._size = 0
            target = self.meta_path
            meta = json.dumps({"fingerprint": self.fp, "settings": self.settings}, indent=2, default=str)
            atomic_write(self.meta_path, meta.encode())
            target = self.path
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as e:
            raise _disk_error(target, e, len(self.rows)) from e

    def add(self, result: SampleResult, input_hash: str | None = None) -> None:
        """Append one row and flush it to the OS (set MICROCODER_FSYNC=1 to fsync every row).

        A write that fails (full disk, file size limit) cuts the partial row off again and raises the
        one-line UserError; every row written before stays.
        """
        if self._fd is None:
            self.open()
        row = result.to_dict()
        row["input_hash"] = input_hash
        line = (json.dumps(row) + "\n").encode()
        try:
            _write_all(self._fd, line)
            if os.environ.get("MICROCODER_FSYNC"):
                os.fsync(self._fd)
        except OSError as e:
            self._write_failed = True
            try:
                os.ftruncate(self._fd, self._size)  # never leave a torn row behind
            except OSError:
                pass
            raise _disk_error(self.path, e, len(self.rows)) from e
        key = (result.question_id, result.sample_index)
        self.rows[key] = (self._size, len(line))
        self._size += len(line)
        self.lines += 1
        self.input_hashes[key] = input_hash
        self.done[key] = result

    def compact(self) -> bool:
        """Rewrite the file with one row per sample (atomically); False when nothing needed it."""
        if self._write_failed or not self.rows or self.lines == len(self.rows):
            return False
        def copy_last_rows(dst: Any) -> None:  # streamed: only offsets are held in memory
            with self.path.open("rb") as src:
                for offset, length in self.rows.values():
                    src.seek(offset)
                    dst.write(src.read(length))

        try:
            atomic_write(self.path, copy_last_rows)
        except OSError as e:
            # the appended file is still complete and readable (its last row per sample wins)
            print(f"microcoder-eval: warning: could not compact {self.path} to one row per sample "
                  f"({e.strerror or e}); it stays as appended, and the next run compacts it", file=sys.stderr)
            return False
        pos = 0
        for key, (_, length) in self.rows.items():  # where each row sits in the compacted file
            self.rows[key] = (pos, length)
            pos += length
        self.lines, self._size = len(self.rows), pos
        return True

    def close(self, compact: bool = True) -> None:
        """Stop appending and (unless a write failed) compact the file to one row per sample."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if compact:
            self.compact()


def _check_writable(path: Path) -> None:
    """Fail before anything runs when ``path`` can never be created (read-only or missing rights)."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UserError(f"--out {str(path)!r}: {parent} is not a folder")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK | (0 if target is path else os.X_OK)):
        raise UserError(f"--out {str(path)!r} cannot be written ({target}: permission denied); choose another --out")
