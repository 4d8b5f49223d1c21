"""Training prompts for GRPO: problems with tests -> a ``datasets.Dataset`` TRL can sample.

Each row holds ``prompt`` (the same LiveCodeBench prompt the generation/evaluation side uses, as
chat messages, or plain text for base models) and the problem as a
LiveCodeBench record (``question_id``, ``public_test_cases``, ``private_test_cases``, ``metadata``,
...), which is what the evaluator reward reads back as dataset columns.

Accepted inputs: LiveCodeBench ``code_generation_lite`` records (local .jsonl/.json/.parquet or
an HF dataset name; release/date/platform/difficulty filters apply), or RL training rows that
carry tests the way ``microcoder_eval.test_formats`` reads them (``tests`` / ``ground_truth`` /
``input_output`` / ``test_cases``) plus a statement column (``question_content``, ``question``,
``problem``, ``description``) or a ready ``prompt``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from microcoder_eval.errors import UserError
from microcoder_eval.generation.prompts import PROMPT_STYLES as CHAT_STYLES
from microcoder_eval.generation.prompts import build_messages, plain_prompt
from microcoder_eval.lcb import load_problems, read_records
from microcoder_eval.problem import Problem
from microcoder_eval.test_formats import problem_from_row

PROMPT_STYLES = (*CHAT_STYLES, "plain")
STATEMENT_KEYS = ("question_content", "question", "problem", "description")


def build_prompt(problem: Problem, style: str = "lcb") -> list[dict[str, str]] | str:
    """The evaluation prompt (``microcoder_eval.generation.prompts``) as chat messages, or
    ``plain``: LCB's single-user-turn text without a chat template (base models)."""
    if style == "plain":
        return plain_prompt(build_messages(problem, "lcb_user"))
    if style not in CHAT_STYLES:
        raise UserError(f"prompt style {style!r} is unknown; choose one of {', '.join(PROMPT_STYLES)}")
    return build_messages(problem, style)


def _is_lcb(rec: dict[str, Any]) -> bool:
    return "public_test_cases" in rec or "private_test_cases" in rec


def _problem_from_training_row(rec: dict[str, Any], where: Any, source: str) -> Problem:
    try:
        problem = problem_from_row(rec)
    except ValueError as e:
        raise UserError(f"{source} record {where}: {e}") from None
    statement = next((str(rec[k]) for k in STATEMENT_KEYS if rec.get(k)), "")
    if not statement and not rec.get("prompt"):
        raise UserError(f"{source} record {where} has tests but no problem statement: add a "
                        f"{'/'.join(STATEMENT_KEYS)} or prompt column")
    problem.question_content = statement
    problem.starter_code = str(rec.get("starter_code") or "")
    problem.question_title = str(rec.get("question_title") or rec.get("title") or "")
    return problem


def load_train_problems(source: str | Path, *, release: str | None = None, start_date: str | None = None,
                        end_date: str | None = None, platform: str | None = None,
                        difficulty: str | None = None) -> tuple[list[Problem], list[Any]]:
    """Problems and, per problem, a ready prompt from the file (or ``None``)."""
    path = Path(source)
    if not path.exists() and path.suffix.lower() not in {".jsonl", ".json", ".parquet"}:
        probs = load_problems(str(source), release, start_date, end_date, platform, difficulty)  # HF hub
        return probs, [None] * len(probs)
    records = list(read_records(path))
    if not records:
        raise UserError(f"{source} holds no records; pass a file with at least one problem")
    if all(_is_lcb(r) for _, r in records):
        probs = load_problems(path, release, start_date, end_date, platform, difficulty)
        return probs, [None] * len(probs)
    if release or start_date or end_date:
        raise UserError("--release/--start_date/--end_date filter LiveCodeBench records only; "
                        f"{source} holds training rows without contest dates")
    plats = {p.strip().lower() for p in platform.split(",")} if platform else None
    diffs = {d.strip().lower() for d in difficulty.split(",")} if difficulty else None
    problems, prompts = [], []
    for where, rec in records:
        if not isinstance(rec, dict):
            raise UserError(f"{source} record {where} is a {type(rec).__name__}, expected a JSON object")
        prob = _problem_from_training_row(rec, where, str(source))
        if (plats and prob.platform not in plats) or (diffs and prob.difficulty not in diffs):
            continue
        problems.append(prob)
        prompts.append(rec.get("prompt") or None)
    return problems, prompts


def build_train_dataset(source: str | Path, prompt_style: str = "lcb", max_problems: int | None = None,
                        **filters: Any):
    """A ``datasets.Dataset`` with ``prompt`` plus the LCB record columns the reward reads."""
    from datasets import Dataset

    if prompt_style not in PROMPT_STYLES:
        raise UserError(f"prompt style {prompt_style!r} is unknown; choose one of {', '.join(PROMPT_STYLES)}")
    problems, prompts = load_train_problems(source, **filters)
    if max_problems is not None:
        problems, prompts = problems[:max_problems], prompts[:max_problems]
    rows = []
    for prob, given in zip(problems, prompts):
        if not prob.tests:
            continue  # nothing to reward against
        row = prob.to_lcb_record()
        prompt = given if given is not None else build_prompt(prob, prompt_style)
        if isinstance(prompt, str) and prompt_style != "plain":
            prompt = [{"role": "user", "content": prompt}]
        row["prompt"] = prompt
        rows.append(row)
    if not rows:
        raise UserError(f"no problems with tests left in {source} after filtering; widen the filters")
    return Dataset.from_list(rows)
