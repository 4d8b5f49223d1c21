"""Load LiveCodeBench ``code_generation_lite`` records (local JSONL/JSON/parquet or HF hub)."""
from __future__ import annotations

import base64
import io
import json
import os
import pickle
import zlib
from datetime import date, datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from microcoder_eval.errors import UserError
from microcoder_eval.problem import CompareOptions, Problem, TestCase, TestType

# cumulative releases: (name, last contest month inclusive, problem count)
RELEASES: dict[str, tuple[str, str, int]] = {
    "release_v1": ("2023-05-01", "2024-03-31", 400),
    "release_v2": ("2023-05-01", "2024-05-31", 511),
    "release_v3": ("2023-05-01", "2024-07-31", 612),
    "release_v4": ("2023-05-01", "2024-09-30", 713),
    "release_v5": ("2023-05-01", "2025-01-31", 880),
    "release_v6": ("2023-05-01", "2025-04-30", 1055),
}
RELEASES["release_latest"] = RELEASES["release_v6"]
PLATFORMS = ("leetcode", "atcoder", "codeforces")
DIFFICULTIES = ("easy", "medium", "hard")


class _StrOnlyUnpickler(pickle.Unpickler):
    """Unpickler that refuses every global: LCB's payload is a pickled ``str`` only."""

    def find_class(self, module: str, name: str) -> Any:  # noqa: D401
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name} from test payload")


# a compressed test payload may not inflate beyond this (a zlib bomb ends in a clear error)
MAX_TEST_PAYLOAD_BYTES = int(os.environ.get("MICROCODER_MAX_TEST_PAYLOAD_MB", "512")) << 20


def _inflate(data: bytes, limit: int) -> bytes:
    d = zlib.decompressobj()
    out = d.decompress(data, limit + 1)
    if len(out) > limit or d.unconsumed_tail:
        raise ValueError(f"compressed test payload inflates beyond {limit >> 20} MiB (set "
                         "MICROCODER_MAX_TEST_PAYLOAD_MB to allow more)")
    return out


def decode_test_cases(raw: Any) -> list[dict[str, Any]]:
    """Decode ``public/private_test_cases``: a list, a JSON string, or base64(zlib(pickle(json)))."""
    if raw is None or raw == "":
        return []
    if isinstance(raw, list):
        return raw
    if not isinstance(raw, str):
        raise ValueError(f"test cases must be a JSON string or list, got {type(raw).__name__}")
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        pass
    try:
        payload = _StrOnlyUnpickler(io.BytesIO(_inflate(base64.b64decode(raw), MAX_TEST_PAYLOAD_BYTES))).load()
    except Exception as e:  # noqa: BLE001 - any decoding failure is a malformed record
        raise ValueError(f"test cases are neither JSON nor base64(zlib(pickle(json))): {e}") from e
    if isinstance(payload, bytes):
        payload = payload.decode()
    if not isinstance(payload, str):
        raise ValueError(f"compressed test payload is {type(payload).__name__}, expected str")
    return json.loads(payload)


def _tests(raw: Any, functional: bool) -> list[TestCase]:
    out = []
    for t in decode_test_cases(raw):
        if not isinstance(t, dict) or "input" not in t or "output" not in t:
            raise ValueError(f"test case {str(t)[:80]!r} lacks input/output")
        tt = t.get("testtype") or ("functional" if functional else "stdin")
        out.append(TestCase(str(t["input"]), str(t["output"]), TestType(tt)))
    return out


def _metadata(raw: Any) -> dict[str, Any]:
    if not raw:
        return {}
    if isinstance(raw, dict):
        return raw
    meta = json.loads(raw)
    if not isinstance(meta, dict):
        raise ValueError("metadata must be a JSON object")
    return meta


def problem_from_lcb_record(rec: dict[str, Any]) -> Problem:
    """Normalise one LCB record; raises ``ValueError`` naming the bad field."""
    if not isinstance(rec, dict):
        raise ValueError(f"record must be a JSON object, got {type(rec).__name__}")
    qid = rec.get("question_id")
    if qid in (None, ""):
        raise ValueError("record has no question_id")
    try:
        meta = _metadata(rec.get("metadata"))
    except (json.JSONDecodeError, ValueError) as e:
        raise ValueError(f"question {qid}: bad metadata: {e}") from e
    func_name = meta.get("func_name") or None
    checker = meta.get("checker") or None
    if checker is not None and not isinstance(checker, str):
        raise ValueError(f"question {qid}: metadata.checker must be Python source defining check(input, output, "
                         f"expected), got {type(checker).__name__}")
    try:
        public = _tests(rec.get("public_test_cases"), bool(func_name))
        private = _tests(rec.get("private_test_cases"), bool(func_name))
    except (ValueError, json.JSONDecodeError) as e:
        raise ValueError(f"question {qid}: bad test cases: {e}") from e
    cdate = rec.get("contest_date") or ""
    if isinstance(cdate, (datetime, date)):
        cdate = cdate.isoformat()
    # build-dataset's export maps values onto LiveCodeBench's enums and keeps the originals here
    ours = meta.get("microcoder") if isinstance(meta.get("microcoder"), dict) else {}
    rec = {**rec, **{k: ours[k] for k in ("platform", "difficulty", "source") if k in ours}}
    if "contest_date" in ours:
        cdate = str(ours["contest_date"] or "")
    return Problem(
        question_id=str(qid),
        question_title=str(rec.get("question_title") or ""),
        question_content=str(rec.get("question_content") or ""),
        platform=str(rec.get("platform") or "unknown").lower(),
        contest_id=str(rec.get("contest_id") or ""),
        contest_date=str(cdate),
        difficulty=str(rec.get("difficulty") or "unknown").lower(),
        starter_code=str(rec.get("starter_code") or ""),
        public_tests=public,
        private_tests=private,
        func_name=func_name,
        compare=CompareOptions.from_dict(meta.get("compare")),
        time_limit_s=meta.get("time_limit_s"),
        checker=checker,
        source=str(rec.get("source") or "livecodebench"),
    )


def read_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_or_index, record)`` from a .jsonl, .json (list) or .parquet file."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"problems file {str(p)!r} does not exist; pass an existing .jsonl/.json/.parquet path or an HF dataset name")
    if not p.is_file():
        raise UserError(f"problems path {str(p)!r} is not a file; pass a .jsonl/.json/.parquet file")
    try:
        yield from _read_records(p)
    except UnicodeDecodeError as e:
        raise UserError(f"{p}: not UTF-8 text ({e.reason} at byte {e.start}); convert the file to UTF-8") from e


def _read_records(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq  # datasets depends on pyarrow

        for i, rec in enumerate(pq.read_table(p).to_pylist()):
            yield i, rec
        return
    if suffix == ".json":
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise UserError(f"{p}: not valid JSON ({e.msg} at line {e.lineno}); fix the file or save it as JSONL") from e
        if isinstance(data, dict):
            data = data.get("data") or data.get("problems") or [data]
        for i, rec in enumerate(data):
            yield i, rec
        return
    with p.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as e:
                raise UserError(f"{p}:{lineno}: malformed JSON ({e.msg}); fix or delete that line") from e


# files of the hub repo that make up each cumulative release
RELEASE_FILES = {f"release_v{i}": ["test.jsonl"] + [f"test{k}.jsonl" for k in range(2, i + 1)] for i in range(1, 7)}
RELEASE_FILES["release_latest"] = RELEASE_FILES["release_v6"]


def _hf_records(name: str, release: str | None) -> Iterable[dict[str, Any]]:
    """Load from the HF hub (needs network): the repo's JSONL files for the release through
    ``datasets.load_dataset("json", ...)`` (current ``datasets`` no longer runs loading scripts),
    falling back to the scripted ``version_tag`` loader for older ``datasets``."""
    import datasets

    version = release or "release_v6"
    errors = []
    try:
        from huggingface_hub import hf_hub_download

        files = [hf_hub_download(name, f, repo_type="dataset") for f in RELEASE_FILES[version]]
        return iter(datasets.load_dataset("json", data_files=files, split="train"))
    except Exception as e:  # noqa: BLE001
        errors.append(f"{type(e).__name__}: {str(e)[:120]}")
    try:
        return iter(datasets.load_dataset(name, version_tag=version, split="test", trust_remote_code=True))
    except Exception as e:  # noqa: BLE001 - report as a one-line user error
        errors.append(f"{type(e).__name__}: {str(e)[:120]}")
    raise UserError(f"could not load HF dataset {name!r} ({version}): {'; '.join(errors)}; "
                    "download it on a machine with network and pass the local JSONL path")


def _day(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value)[:10]).isoformat()
    except ValueError as e:
        raise UserError(f"{what} {value!r} is not an ISO date; use YYYY-MM-DD") from e


def load_problems(
    source: str | Path,
    release: str | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
    platform: str | list[str] | None = None,
    difficulty: str | list[str] | None = None,
) -> list[Problem]:
    """Load and filter problems. ``end_date`` is exclusive, ``start_date`` inclusive.

    ``release`` limits a full dump to that cumulative release's contest dates (local files) or
    selects the HF ``version_tag`` (hub). Raises ``UserError`` on bad files or filters.
    """
    if release is not None and release not in RELEASES:
        raise UserError(f"unknown release {release!r}; choose one of {', '.join(RELEASES)}")
    start, end = _day(start_date, "start date"), _day(end_date, "end date")
    if start and end and start >= end:
        raise UserError(f"start date {start} is not before end date {end}; the window is [start, end)")
    plats = _as_set(platform, PLATFORMS, "platform")
    diffs = _as_set(difficulty, DIFFICULTIES, "difficulty")
    p = Path(source)
    local = p.exists() or p.suffix.lower() in {".jsonl", ".json", ".parquet"}
    rows: Iterable[tuple[Any, dict[str, Any]]]
    if local:
        rows = read_records(p)
    else:
        rows = ((i, r) for i, r in enumerate(_hf_records(str(source), release)))
    release_end = RELEASES[release][1] if (release and local) else None
    problems: list[Problem] = []
    seen: set[str] = set()
    for where, rec in rows:
        try:
            prob = problem_from_lcb_record(rec)
        except ValueError as e:
            raise UserError(f"{source} record {where}: {e}") from e
        prob.question_id = dedupe_id(prob.question_id, seen)
        day = prob.contest_date[:10]
        if release_end and day and day > release_end:
            continue
        if start and (not day or day < start):
            continue
        if end and (not day or day >= end):
            continue
        if plats and prob.platform not in plats:
            continue
        if diffs and prob.difficulty not in diffs:
            continue
        problems.append(prob)
    return problems


def dedupe_id(qid: str, seen: set[str]) -> str:
    """Return ``qid``, or ``qid#k`` for its k-th repeat (LiveCodeBench's releases do not repeat ids; concatenated or hand-merged files can).

    Sample files that repeat the id in the same order map onto the same ``#k`` names.
    """
    name, k = qid, 1
    while name in seen:
        k += 1
        name = f"{qid}#{k}"
    seen.add(name)
    return name


def _as_set(value: str | list[str] | None, allowed: tuple[str, ...], what: str) -> set[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    items = [v.strip().lower() for v in items if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad:
        raise UserError(f"unknown {what} {bad[0]!r}; choose from {', '.join(allowed)}")
    return set(items)
