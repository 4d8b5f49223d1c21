"""MicroCoderGRPOConfig: TRL's GRPOConfig plus the MicroCoder-GRPO knobs (SPEC §4), validated."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from trl import GRPOConfig

from microcoder_eval.errors import UserError
from microcoder_train.diversity import DIVERSITY_METRICS, FRACTION_METRICS
from microcoder_train.temperature import TEMPERATURE_SCHEDULES, parse_temperatures

DEFAULT_CANDIDATES = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8)
DEFAULT_ENTROPY_TARGET = 0.5  # nats; see the README's calibration note

# Named recipes: the paper's method and the two baselines it compares against.
RECIPES: dict[str, dict[str, Any]] = {
    # MicroCoder-GRPO: no KL, clip-higher, conditional truncation masking, staged temperature.
    "microcoder": {"beta": 0.0, "epsilon": 0.2, "epsilon_high": 0.28, "loss_type": "dapo",
                   "truncation_mask_rho": 0.2, "temperature_schedule": "staged",
                   "mask_truncated_completions": False},
    # Plain GRPO (DeepSeekMath): KL to the reference model, symmetric clipping, per-sequence loss.
    "grpo": {"beta": 0.04, "epsilon": 0.2, "epsilon_high": 0.2, "loss_type": "grpo",
             "truncation_mask_rho": 0.0, "temperature_schedule": "fixed", "mask_truncated_completions": False},
    # DAPO: no KL, clip-higher, token-level loss, truncated completions dropped from the loss, dynamic
    # sampling (its soft overlong punishment needs a buffer sized to the context: --overlong_buffer_length).
    "dapo": {"beta": 0.0, "epsilon": 0.2, "epsilon_high": 0.28, "loss_type": "dapo",
             "truncation_mask_rho": 0.0, "temperature_schedule": "fixed", "mask_truncated_completions": True,
             "dynamic_sampling": True},
}


def _has_bf16_accelerator() -> bool:
    import torch

    return torch.cuda.is_available() or (hasattr(torch, "xpu") and torch.xpu.is_available())


def recipe(name: str) -> dict[str, Any]:
    """Config overrides of a named recipe (``microcoder``, ``grpo`` or ``dapo``)."""
    if name not in RECIPES:
        raise UserError(f"unknown recipe {name!r}; choose one of {', '.join(RECIPES)}")
    return dict(RECIPES[name])


@dataclass
class MicroCoderGRPOConfig(GRPOConfig):
    """GRPOConfig with MicroCoder-GRPO defaults (no KL, clip-higher ε_high=0.28) and its extra fields."""

    beta: float = field(
        default=0.0,
        metadata={"help": "KL coefficient. MicroCoder-GRPO uses 0.0 (no KL term and no reference model); set > 0 "
                  "for the plain-GRPO baseline."},
    )
    epsilon_high: float | None = field(
        default=0.28,
        metadata={"help": "Upper clipping bound: the ratio is clipped to 1 + epsilon_high (clip-higher, DAPO's 0.28). "
                  "None means symmetric clipping with epsilon."},
    )
    truncation_mask_rho: float = field(
        default=0.2,
        metadata={"help": "Conditional truncation masking probability rho in [0, 1]: a completion that hit "
                  "max_completion_length, is not incorrect and is not repetitive gets advantage 0 with this "
                  "probability (the paper compares 0.1/0.2/0.3). 0 disables masking."},
    )
    repetition_window: int = field(
        default=128,
        metadata={"help": "m in the repetition test: a truncated completion whose last m tokens equal the previous m "
                  "tokens is repetitive and keeps its advantage."},
    )
    truncation_pass_reward: float = field(
        default=1.0,
        metadata={"help": "Used only when the reward exposes no per-sample verdicts: a truncated completion that "
                  "contains a complete code block and scored below this reward (of the first reward function) "
                  "counts as incorrect. Completions cut off before a closed code fence are never incorrect."},
    )
    judge_truncated_completions: bool = field(
        default=False,
        metadata={"help": "A completion that hit max_completion_length has no final answer, so by default code "
                  "judges (the evaluator reward, or reward functions with judges_code=True; others see the text "
                  "unchanged) judge it as having no code: the evaluator's no_code, which is not incorrect, so the "
                  "truncation mask may apply. True judges its last closed code block instead (an earlier draft)."},
    )
    zero_signal_warn_steps: int = field(
        default=5,
        metadata={"help": "Log a warning after this many generation batches in a row in which every group's "
                  "rewards were equal (all advantages and the loss are 0: nothing is learned). 0 disables it; "
                  "microcoder/all_equal_groups and microcoder/zero_advantage are logged every step either way."},
    )
    training_report: bool = field(
        default=True,
        metadata={"help": "After training, write OUT/training_curves.png and OUT/training_summary.md (reward, pass "
                  "rate by difficulty, response length, truncated/masked fractions, diversity, temperature)."},
    )
    concurrent_reward: bool = field(
        default=True,
        metadata={"help": "Compute the reward on a background thread as soon as generation ends, while the step "
                  "scores the old/reference log-probs (beta > 0, vLLM importance sampling, or misaligned "
                  "accumulation); logged: microcoder/reward_s (reward time) and microcoder/reward_wait_s (time the "
                  "step waited for it). Plain synchronous reward functions only; others run as TRL runs them."},
    )
    prompts_per_step: int | None = field(
        default=None,
        metadata={"help": "Prompts (questions) per optimizer step, one of the paper's main levers (64 was best). "
                  "Each gets num_generations completions; gradient_accumulation_steps is derived as "
                  "prompts_per_step x num_generations / (per_device_train_batch_size x processes), which must "
                  "divide evenly. None: TRL's batch (per_device_train_batch_size x processes x accumulation)."},
    )
    dynamic_sampling: bool = field(
        default=False,
        metadata={"help": "DAPO dynamic sampling: drop the groups whose rewards are all equal (no signal) and refill "
                  "the batch with groups of fresh prompts, up to dynamic_sampling_max_rounds extra generation "
                  "rounds; still-missing groups are filled with dropped ones (advantage 0). Logged: "
                  "microcoder/dynamic_sampling_fill_rate (share of the batch's groups with signal) and _rounds."},
    )
    dynamic_sampling_max_rounds: int = field(
        default=3, metadata={"help": "Dynamic sampling: at most this many extra generation rounds per batch."}
    )
    overlong_buffer_length: int = field(
        default=0,
        metadata={"help": "DAPO soft overlong punishment: with buffer L_c > 0, a completion of length L gets an extra "
                  "reward of 0 if L <= max_completion_length - L_c, (max_completion_length - L_c - L) / L_c x "
                  "overlong_penalty_factor inside the buffer, reaching -overlong_penalty_factor at the limit. "
                  "Added as a reward function 'overlong_penalty' (weight 1). 0 disables it."},
    )
    overlong_penalty_factor: float = field(
        default=1.0, metadata={"help": "Soft overlong punishment: the penalty at max_completion_length."}
    )
    lora_r: int = field(
        default=0, metadata={"help": "Train a LoRA adapter of this rank (peft) instead of all weights; 0 = full "
                             "fine-tuning. Needs `pip install peft`."}
    )
    lora_alpha: int | None = field(default=None, metadata={"help": "LoRA alpha (default 2 x lora_r)."})
    lora_dropout: float = field(default=0.0, metadata={"help": "LoRA dropout."})
    lora_target_modules: str = field(
        default="all-linear",
        metadata={"help": "Modules that get LoRA adapters: 'all-linear' or a comma-separated list of module names "
                  "(e.g. q_proj,k_proj,v_proj,o_proj)."},
    )
    temperature_schedule: str = field(
        default="fixed",
        metadata={"help": "Sampling temperature schedule: 'fixed' (always `temperature`), 'staged' "
                  "(`temperature_low` before `temperature_switch_step`, then `temperature_high`) or 'diversity' "
                  "(probe `diversity_candidate_temperatures` on the first batch, keep the lowest whose diversity "
                  "reaches `diversity_target`; with temperature_switch_step set, it then rises to "
                  "temperature_high at that step). The same temperature is used to score training log-probs.",
                  "choices": list(TEMPERATURE_SCHEDULES)},
    )
    temperature_low: float = field(
        default=0.6, metadata={"help": "Staged schedule: temperature before the switch step (paper: 0.6)."}
    )
    temperature_high: float = field(
        default=1.2, metadata={"help": "Staged schedule: temperature from the switch step on (paper: 1.2-1.8)."}
    )
    temperature_switch_step: int | None = field(
        default=None,
        metadata={"help": "Staged schedule: global step at which the temperature rises to temperature_high. None = "
                  "halfway through training (max_steps // 2). Diversity schedule: if set, the probed temperature "
                  "rises to max(probed, temperature_high) at this step (None: no rise)."},
    )
    diversity_candidate_temperatures: list[float] = field(
        default_factory=lambda: list(DEFAULT_CANDIDATES),
        metadata={"help": "Diversity schedule: candidate temperatures probed on the first generation batch."},
    )
    diversity_target: float = field(
        default=DEFAULT_ENTROPY_TARGET,
        metadata={"help": "Diversity schedule: the lowest candidate temperature whose diversity reaches this value "
                  "is kept; if none does, the most diverse candidate. In nats for token_entropy, in [0, 1] for the "
                  "sequence metrics. The default is calibrated only on a synthetic peaked model (see README): "
                  "read OUT/temperature_probe.json and adjust for a real model."},
    )
    diversity_probe_repeats: int = field(
        default=1,
        metadata={"help": "Diversity schedule: how many times the first generation batch is sampled at each "
                  "candidate temperature (the probe batch is generation_batch_size x this many completions)."},
    )
    diversity_metric: str = field(
        default="token_entropy",
        metadata={"help": "Diversity metric of the diversity schedule, logged every step as microcoder/diversity: "
                  "'token_entropy' = mean entropy (nats) of the next-token distribution at the sampling temperature "
                  "over the sampled completion tokens (moves with temperature); 'distinct_ngrams' = distinct token "
                  "n-grams / all n-grams in a prompt's group; 'distinct_completions' = (distinct completions - 1) / "
                  "(G - 1). The two sequence metrics are also logged every step under their own names.",
                  "choices": list(DIVERSITY_METRICS)},
    )
    diversity_ngram: int = field(
        default=4, metadata={"help": "n for the distinct_ngrams diversity metric."}
    )

    def __post_init__(self) -> None:
        self._validate_microcoder()
        self._apply_prompts_per_step()
        if self.bf16 is None and not self.fp16 and not _has_bf16_accelerator():
            self.bf16 = False  # TRL defaults to bf16, which TrainingArguments rejects on a CPU-only machine
        super().__post_init__()
        if (self.truncation_mask_rho > 0 and self.max_completion_length is not None
                and 2 * self.repetition_window > self.max_completion_length):
            raise UserError(
                f"repetition_window={self.repetition_window} is too large for max_completion_length="
                f"{self.max_completion_length}: the repetition test needs 2 x window tokens and could never fire; "
                f"set repetition_window <= {self.max_completion_length // 2}"
            )

    def _apply_prompts_per_step(self) -> None:
        if self.prompts_per_step is None:
            return
        if self.prompts_per_step < 1:
            raise UserError(f"prompts_per_step={self.prompts_per_step} must be >= 1")
        if self.generation_batch_size is not None or self.steps_per_generation is not None:
            raise UserError("prompts_per_step sets the generation batch; do not also set generation_batch_size or "
                            "steps_per_generation")
        world = int(os.environ.get("WORLD_SIZE", "1"))
        completions = self.prompts_per_step * self.num_generations
        per_pass = self.per_device_train_batch_size * world
        if completions % per_pass:
            raise UserError(f"prompts_per_step={self.prompts_per_step} x num_generations={self.num_generations} = "
                            f"{completions} completions do not split into passes of per_device_train_batch_size="
                            f"{self.per_device_train_batch_size} x {world} process(es); pick values that divide")
        self.gradient_accumulation_steps = completions // per_pass

    def to_lora_config(self):
        """A ``peft.LoraConfig`` from the lora_* fields, or None when lora_r is 0."""
        if not self.lora_r:
            return None
        try:
            from peft import LoraConfig
        except ImportError:
            raise UserError("lora_r > 0 needs peft: pip install 'microcoder[train]' (or pip install peft)") from None
        targets: Any = self.lora_target_modules
        if targets != "all-linear":
            targets = [t.strip() for t in targets.split(",") if t.strip()]
        return LoraConfig(r=self.lora_r, lora_alpha=self.lora_alpha or 2 * self.lora_r,
                          lora_dropout=self.lora_dropout, target_modules=targets, task_type="CAUSAL_LM")

    def _validate_microcoder(self) -> None:
        def positive(name: str, value: float) -> None:
            if not value > 0:
                raise UserError(f"{name}={value} is invalid: a temperature must be > 0")

        if not 0.0 <= self.truncation_mask_rho <= 1.0:
            raise UserError(f"truncation_mask_rho={self.truncation_mask_rho} is not a probability: use a value in "
                            "[0, 1] (0 disables masking)")
        if self.repetition_window < 1:
            raise UserError(f"repetition_window={self.repetition_window} must be a positive number of tokens")
        if self.beta < 0:
            raise UserError(f"beta={self.beta} must be >= 0 (0 disables the KL term)")
        if self.epsilon_high is not None and self.epsilon_high < 0:
            raise UserError(f"epsilon_high={self.epsilon_high} must be >= 0 (or None for symmetric clipping)")
        if self.temperature_schedule not in TEMPERATURE_SCHEDULES:
            raise UserError(f"temperature_schedule={self.temperature_schedule!r} is unknown: choose one of "
                            f"{', '.join(TEMPERATURE_SCHEDULES)}")
        positive("temperature", self.temperature)
        positive("temperature_low", self.temperature_low)
        positive("temperature_high", self.temperature_high)
        if self.temperature_switch_step is not None and self.temperature_switch_step < 0:
            raise UserError(f"temperature_switch_step={self.temperature_switch_step} must be >= 0 (or unset for "
                            "halfway)")
        if self.temperature_schedule == "staged" and self.temperature_switch_step is None and self.max_steps <= 0:
            raise UserError("temperature_schedule='staged' needs temperature_switch_step when max_steps is not set "
                            "(the default switch is max_steps // 2)")
        try:
            self.diversity_candidate_temperatures = parse_temperatures(self.diversity_candidate_temperatures)
        except (TypeError, ValueError) as e:
            raise UserError(f"diversity_candidate_temperatures={self.diversity_candidate_temperatures!r} must be a "
                            f"list of numbers: {e}") from None
        if self.temperature_schedule == "diversity" and not self.diversity_candidate_temperatures:
            raise UserError("temperature_schedule='diversity' needs at least one diversity_candidate_temperatures")
        for t in self.diversity_candidate_temperatures:
            positive("diversity_candidate_temperatures entry", t)
        if self.diversity_target < 0 or (self.diversity_metric in FRACTION_METRICS and self.diversity_target > 1):
            raise UserError(f"diversity_target={self.diversity_target} must be in [0, 1] for "
                            f"diversity_metric={self.diversity_metric!r} (a fraction), or >= 0 nats for token_entropy")
        if self.diversity_probe_repeats < 1:
            raise UserError(f"diversity_probe_repeats={self.diversity_probe_repeats} must be >= 1")
        if self.diversity_metric not in DIVERSITY_METRICS:
            raise UserError(f"diversity_metric={self.diversity_metric!r} is unknown: choose one of "
                            f"{', '.join(DIVERSITY_METRICS)}")
        if self.diversity_ngram < 1:
            raise UserError(f"diversity_ngram={self.diversity_ngram} must be >= 1")
        if self.dynamic_sampling_max_rounds < 0:
            raise UserError(f"dynamic_sampling_max_rounds={self.dynamic_sampling_max_rounds} must be >= 0")
        if self.overlong_buffer_length < 0:
            raise UserError(f"overlong_buffer_length={self.overlong_buffer_length} must be >= 0 (0 disables it)")
        if (self.overlong_buffer_length and self.max_completion_length is not None
                and self.overlong_buffer_length > self.max_completion_length):
            raise UserError(f"overlong_buffer_length={self.overlong_buffer_length} exceeds max_completion_length="
                            f"{self.max_completion_length}")
        if self.lora_r < 0:
            raise UserError(f"lora_r={self.lora_r} must be >= 0 (0 = full fine-tuning)")
        if self.truncation_mask_rho > 0 and self.mask_truncated_completions:
            raise UserError("truncation_mask_rho > 0 and mask_truncated_completions=True conflict: TRL would drop "
                            "every truncated completion from the loss. Set truncation_mask_rho=0 (DAPO-style) or "
                            "mask_truncated_completions=False (MicroCoder-style)")
        gen_kwargs = self.generation_kwargs
        if (self.temperature_schedule != "fixed" and isinstance(gen_kwargs, dict)
                and "temperature" in gen_kwargs):
            raise UserError("generation_kwargs sets 'temperature', which would override the "
                            f"{self.temperature_schedule!r} temperature schedule; remove it from generation_kwargs")
