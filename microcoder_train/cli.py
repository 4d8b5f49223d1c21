"""``microcoder-train``: MicroCoder-GRPO (or a GRPO/DAPO baseline) on coding problems with the evaluator reward.

    microcoder-train --model M --dataset D --output-dir O [--recipe microcoder|grpo|dapo] [config flags]

Every MicroCoderGRPOConfig / TrainingArguments field is a flag (``--help`` lists them); the
evaluator reward's RewardConfig fields are flags prefixed ``--reward_``. Checkpoints go to
``O/checkpoint-*``; ``--resume_from_checkpoint last`` (or a checkpoint path) resumes.
GPU generation: ``--use_vllm --vllm_mode colocate``, or ``--vllm_mode server`` with
``trl vllm-serve --model M`` running.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path

from microcoder_eval.errors import UserError

SCRIPT_NAME = "microcoder-train"
COMMA_LIST_FLAGS = ("diversity_candidate_temperatures",)


@dataclass
class ScriptArguments:
    """What to train and on which problems."""

    model: str = field(metadata={"help": "Model to train: a local folder (or an HF hub id when online)."})
    dataset: str = field(metadata={"help": "Training problems: LCB records (.jsonl/.json/.parquet or an HF name) or "
                                           "RL rows with tests (tests/ground_truth/input_output) and a statement."})
    recipe: str | None = field(default=None, metadata={
        "help": "Start from a named recipe: 'microcoder' (no KL, clip-higher, truncation masking, staged "
                "temperature), 'grpo' (KL 0.04, symmetric clip) or 'dapo' (no KL, clip-higher, truncated "
                "completions masked). Explicit flags override it.",
        "choices": ["microcoder", "grpo", "dapo"]})
    prompt_style: str = field(default="lcb", metadata={
        "help": "Prompt, as microcoder-eval generate builds it: 'lcb' (system + user message), 'lcb_user' (one user "
                "message), 'qwq' (Qwen's QwQ/Qwen3 LCB harness) or 'plain' (text without chat template, base models).",
        "choices": ["lcb", "lcb_user", "qwq", "plain"]})
    max_problems: int | None = field(default=None, metadata={"help": "Use at most this many problems."})
    release: str | None = field(default=None, metadata={"help": "LCB release (e.g. release_v5) to restrict to."})
    start_date: str | None = field(default=None, metadata={"help": "LCB contest date window start (inclusive)."})
    end_date: str | None = field(default=None, metadata={"help": "LCB contest date window end (exclusive)."})
    platform: str | None = field(default=None, metadata={"help": "Comma-separated platforms to keep."})
    difficulty: str | None = field(default=None, metadata={"help": "Comma-separated difficulties to keep."})


def _reward_arguments_class():
    """RewardConfig's fields as ``reward_*`` flags (kept in sync with the reward automatically)."""
    from microcoder_eval.reward import RewardConfig

    hints = typing.get_type_hints(RewardConfig)
    specs = []
    for f in dataclasses.fields(RewardConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        specs.append((f"reward_{f.name}", hints[f.name], field(default=default, metadata=dict(f.metadata))))
    return dataclasses.make_dataclass("RewardArguments", specs)


def build_parser():
    from transformers import HfArgumentParser

    from microcoder_train.config import MicroCoderGRPOConfig

    class Parser(HfArgumentParser):
        def error(self, message: str):  # one line instead of a usage block listing ~250 flags
            print(f"{SCRIPT_NAME}: error: {message} (see {SCRIPT_NAME} --help)", file=sys.stderr)
            sys.exit(2)

    parser = Parser((ScriptArguments, _reward_arguments_class(), MicroCoderGRPOConfig),
                    prog=SCRIPT_NAME, description=__doc__.splitlines()[0])
    for action in parser._actions:
        if action.dest in COMMA_LIST_FLAGS:  # '0.6,0.8,1.0' as well as '0.6 0.8 1.0'; the config parses them
            action.type = str
    return parser


def parse_args(argv: list[str] | None):
    from microcoder_train.config import recipe

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--recipe", default=None)
    known, _ = pre.parse_known_args(argv)
    if known.recipe:
        parser.set_defaults(**recipe(known.recipe))
    script, reward_args, config = parser.parse_args_into_dataclasses(args=argv)
    return script, reward_args, config


def resolve_checkpoint(value: str | None, output_dir: str) -> str | None:
    """``last``/``true`` -> newest checkpoint in output_dir (None if there is none); a path must exist."""
    from transformers.trainer_utils import get_last_checkpoint

    if value is None or str(value).lower() in ("", "none", "false"):
        return None
    if str(value).lower() in ("last", "true"):
        return get_last_checkpoint(output_dir) if Path(output_dir).is_dir() else None
    if not Path(value).is_dir():
        raise UserError(f"--resume_from_checkpoint {value!r} is not a checkpoint folder; pass a path such as "
                        f"{output_dir}/checkpoint-500 or 'last'")
    return value


def check_launcher(env: dict[str, str] | None = None) -> None:
    """``accelerate launch --cpu --num_processes N`` starts ONE process (accelerate runs several CPU
    processes only through mpirun, with ``--mpirun_hostfile``) yet exports MASTER_PORT: refuse that
    rather than silently train on one rank."""
    env = dict(os.environ if env is None else env)
    mpi = any(k in env for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))
    if (env.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true") and "MASTER_PORT" in env
            and "WORLD_SIZE" not in env and not mpi):
        raise UserError("accelerate launch --cpu --num_processes N starts a single process; for N CPU processes "
                        "use 'accelerate launch --multi_gpu --num_processes N' (gloo on a machine without GPUs) or "
                        "'torchrun --nproc_per_node N -m microcoder_train.cli ...'")


def _world() -> tuple[int, int]:
    return int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))


def run(argv: list[str] | None = None) -> int:
    script, reward_args, config = parse_args(argv)
    check_launcher()
    rank, world = _world()
    log = logging.getLogger("microcoder_train")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"{SCRIPT_NAME}: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    from transformers import AutoConfig

    from microcoder_eval.reward import EvaluatorReward, RewardConfig
    from microcoder_train.data import build_train_dataset
    from microcoder_train.trainer import MicroCoderGRPOTrainer

    if script.model.startswith(("/", ".", "~")) and not Path(script.model).expanduser().is_dir():
        raise UserError(f"model folder {script.model!r} does not exist; pass a saved model folder "
                        "(python -m microcoder_train.tiny OUT writes a tiny one)")
    try:
        AutoConfig.from_pretrained(script.model)
    except (OSError, ValueError) as e:
        raise UserError(f"cannot load model {script.model!r}: {str(e).splitlines()[0]}; pass a local model "
                        "folder (python -m microcoder_train.tiny OUT writes a tiny one)") from None
    dataset = build_train_dataset(script.dataset, prompt_style=script.prompt_style, max_problems=script.max_problems,
                                  release=script.release, start_date=script.start_date, end_date=script.end_date,
                                  platform=script.platform, difficulty=script.difficulty)
    resume = resolve_checkpoint(config.resume_from_checkpoint, config.output_dir)
    reward = EvaluatorReward(RewardConfig(**{f.name[len("reward_"):]: getattr(reward_args, f.name)
                                             for f in dataclasses.fields(reward_args)}))
    try:
        trainer = MicroCoderGRPOTrainer(model=script.model, reward_funcs=reward, args=config, train_dataset=dataset)
        if rank == 0:
            print(f"{SCRIPT_NAME}: {len(dataset)} problems, {world} process(es), beta={config.beta}, "
                  f"epsilon_high={config.epsilon_high}, rho={config.truncation_mask_rho}, "
                  f"temperature={config.temperature_schedule}"
                  + (f", resuming from {resume}" if resume else ""), file=sys.stderr)
        trainer.train(resume_from_checkpoint=resume)
        trainer.save_model(config.output_dir)
    finally:
        reward.close()
    if rank == 0:
        print(f"{SCRIPT_NAME}: saved the model to {config.output_dir}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(argv)
    except UserError as e:
        print(f"{SCRIPT_NAME}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{SCRIPT_NAME}: interrupted; rerun with --resume_from_checkpoint last to continue from the last "
              "checkpoint", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
