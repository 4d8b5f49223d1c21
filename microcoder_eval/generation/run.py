"""``run``: generate completions, evaluate them (streamed, resumable), report pass@k for the window."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from microcoder_eval.config import EvalConfig
from microcoder_eval.generation.config import GenerateConfig, RunConfig
from microcoder_eval.generation.runner import generate, select_problems


def results_path(gen: GenerateConfig, run: RunConfig) -> str:
    """``--results`` or ``<out stem>.results.jsonl`` next to the completions."""
    if run.results:
        return run.results
    out = Path(gen.out)
    return str(out.with_name(out.stem + ".results.jsonl"))


def usable_ks(ks: list[int], n: int) -> list[int]:
    """k values that n samples support (pass@k needs n >= k); at least pass@1."""
    return [k for k in ks if k <= n] or [1]


def run_pipeline(gen: GenerateConfig, run: RunConfig, evalcfg: EvalConfig, backend: Any = None,
                 quiet: bool = False) -> dict[str, Any]:
    """Generate, evaluate and summarise; returns the report dict (see microcoder_eval.report)."""
    from microcoder_eval.evaluate_cli import EvaluateJob
    from microcoder_eval.evaluation_job import run_evaluation

    problems = select_problems(gen)
    gsum = generate(gen, problems, backend=backend)
    if not quiet:
        print(gsum.line(), file=sys.stderr)
    ks = usable_ks(run.k_values, gen.n)
    job = EvaluateJob(problems=gen.problems, samples=gen.out, out=results_path(gen, run), release=gen.release,
                      start_date=gen.start_date, end_date=gen.end_date, platform=gen.platform,
                      difficulty=gen.difficulty, skip_missing=True, overwrite=gen.overwrite,
                      ks=",".join(map(str, ks)), progress=gen.progress and not quiet)
    summary = run_evaluation(job, evalcfg, quiet=quiet)
    summary["generation"] = {"model": gen.model, "problems": gen.problems, "backend": gen.backend, "n": gen.n,
                             "temperature": gen.temperature, "top_p": gen.top_p, "max_tokens": gen.max_tokens,
                             "prompt_style": gen.prompt_style, "thinking": gen.thinking,
                             "enable_thinking": gen.enable_thinking or None, "seed": gen.seed,
                             "completions": gen.out, "finish_reasons": dict(gsum.finish_reasons)}
    if run.leaderboard_name:
        from microcoder_eval.leaderboard.entries import run_entry, write_run

        summary["leaderboard_run"] = str(write_run(run_entry(summary, run.leaderboard_name),
                                                   run.leaderboard_dir))
    return summary


def header(summary: dict[str, Any]) -> str:
    """One line naming the model and sampling settings above the report table."""
    g = summary.get("generation") or {}
    return (f"Model `{g.get('model')}` ({g.get('backend')}), n={g.get('n')}, temperature={g.get('temperature')}, "
            f"top_p={g.get('top_p')}, max_tokens={g.get('max_tokens')}, prompt `{g.get('prompt_style')}`\n\n")
