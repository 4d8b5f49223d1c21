"""MicroCoderGRPOTrainer: TRL's GRPOTrainer plus conditional truncation masking, a temperature
schedule that reaches sampling and scoring, DAPO's dynamic sampling and soft overlong punishment,
a reward computed concurrently with the log-prob scoring, and MicroCoder metrics and training
report (pinned to trl==1.16.*).

Hooks overridden (each calls ``super()``):
- ``__init__``: TRL's fused LM heads are installed with a temperature read at call time; the
  overlong penalty is appended to the reward functions; ``lora_r`` builds a peft config.
- ``_generate``: starts the reward on a background thread as soon as the completions exist.
- ``_calculate_rewards``: collects that result (or runs TRL's path), with truncated completions
  emptied for code judges, and keeps the batch's completions and rewards for the masking step.
- ``_generate_and_score_completions``: sets the scheduled temperature before generation (probing
  candidates first for the ``diversity`` schedule), masks the returned ``advantages``, and with
  dynamic sampling refills the groups that carry no signal.
- ``log``: the per-step ``token_entropy`` diversity; ``train``: writes the training report.
- ``_save_checkpoint`` / ``_load_optimizer_and_scheduler``: persist the schedule's state.

"Not incorrect" (SPEC §4): when a reward function exposes per-sample verdicts (the evaluator
reward's ``last_results``, or a ``last_statuses`` list), a completion is incorrect iff its
extracted code got wrong_answer, time_limit, memory_limit or runtime_error; ``no_code`` (e.g. cut
off before the closing fence), ``passed`` and infrastructure errors are not incorrect. Without
verdicts: incorrect iff a complete code block was extracted and the first reward function scored
it below ``truncation_pass_reward``.
"""
from __future__ import annotations

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch
from accelerate.utils import gather, gather_object
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR
from trl import GRPOTrainer
from trl.trainer import grpo_trainer as _trl_grpo_module
from trl.trainer.utils import is_async_callable

from microcoder_eval.errors import UserError
from microcoder_eval.extraction import extract_code
from microcoder_eval.reward import completion_text
from microcoder_train.config import MicroCoderGRPOConfig
from microcoder_train.diversity import SEQUENCE_METRICS, group_diversity
from microcoder_train.masking import (
    conditional_truncation_mask,
    incorrect_from_rewards,
    incorrect_from_statuses,
    pad_completions,
)
from microcoder_train.report import write_training_report
from microcoder_train.shaping import OverlongPenalty
from microcoder_train.temperature import (
    TemperatureController,
    TemperatureSchedule,
    select_temperature,
)

logger = logging.getLogger("microcoder_train")
SCHEDULE_STATE_FILE = "microcoder_temperature.json"
PROBE_FILE = "temperature_probe.json"


def default_reward():
    """The evaluator reward (``microcoder_eval.reward.EvaluatorReward``) with its default policy."""
    from microcoder_eval.reward import EvaluatorReward

    return EvaluatorReward()


def reward_statuses(reward_func: Any, n: int) -> list | None:
    """Per-sample verdict statuses of the reward's last call, if it exposes them and they line up."""
    statuses = getattr(reward_func, "last_statuses", None)
    if statuses is None:
        results = getattr(reward_func, "last_results", None)
        if results is not None:
            statuses = [getattr(r, "status", None) if r is not None else None for r in results]
    if statuses is None or len(statuses) != n:
        return None
    return list(statuses)


def judges_code(reward_func: Any) -> bool:
    """Reward functions that judge the completion's final code: the evaluator reward, or any
    function with a true ``judges_code`` attribute. Only these see truncated completions emptied."""
    from microcoder_eval.reward import EvaluatorReward

    return isinstance(reward_func, EvaluatorReward) or bool(getattr(reward_func, "judges_code", False))


def _without_answer(completion: Any) -> Any:
    """The completion as a code judge should see a truncated one: its text emptied (no code block)."""
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return [*completion[:-1], {**completion[-1], "content": ""}]
    return ""


class _FinalAnswerOnly:
    """Calls a code-judging reward with the truncated completions emptied (for one batch)."""

    def __init__(self, func: Any, truncated: list[bool]):
        self.func, self.truncated = func, truncated
        self.__name__ = getattr(func, "__name__", type(func).__name__)

    def __call__(self, *args, completions=None, **kwargs):
        if completions is not None and len(completions) == len(self.truncated):
            completions = [_without_answer(c) if t else c for c, t in zip(completions, self.truncated)]
        return self.func(*args, completions=completions, **kwargs)

    def __getattr__(self, name):
        return getattr(self.func, name)


@dataclass
class _RewardBatch:
    completions: list
    completion_ids: list[list[int]]
    rewards_per_func: torch.Tensor  # gathered over processes: [B_total, num_funcs]
    statuses: list | None


class MicroCoderGRPOTrainer(GRPOTrainer):
    """GRPO with MicroCoder-GRPO's conditional truncation masking and temperature schedule."""

    _tag_names = ["trl", "grpo", "microcoder-grpo"]

    def __init__(self, model, reward_funcs=None, args: MicroCoderGRPOConfig | None = None, **kwargs):
        if args is None:
            name = model if isinstance(model, str) else model.config._name_or_path
            args = MicroCoderGRPOConfig(f"{str(name).split('/')[-1]}-MicroCoder-GRPO")
        if not isinstance(args, MicroCoderGRPOConfig):
            raise TypeError(f"args must be a MicroCoderGRPOConfig, got {type(args).__name__}")
        if reward_funcs is None:
            reward_funcs = default_reward()
        switch = args.temperature_switch_step
        if args.temperature_schedule == "staged" and switch is None:
            switch = args.max_steps // 2
        self._schedule = TemperatureSchedule(
            kind=args.temperature_schedule, base=args.temperature, low=args.temperature_low,
            high=args.temperature_high, switch_step=switch,
        )
        self._temperature = TemperatureController(self._schedule.temperature_at(0))
        self._reward_batch: _RewardBatch | None = None
        self._zero_signal_streak = 0
        self._round = 0  # generation rounds of the current batch (dynamic sampling adds rounds)
        self._local_keep: torch.Tensor | None = None  # per local group: rewards not all equal
        self._pending_inputs: list | None = None  # the batch being scored (the reward thread needs its columns)
        self._reward_future: tuple | None = None
        self._reward_pool: ThreadPoolExecutor | None = None
        self._reward_compute_s = 0.0
        if args.overlong_buffer_length > 0:
            funcs = list(reward_funcs) if isinstance(reward_funcs, (list, tuple)) else [reward_funcs]
            reward_funcs = [*funcs, OverlongPenalty(args.max_completion_length, args.overlong_buffer_length,
                                                     args.overlong_penalty_factor)]
            if args.reward_weights is not None and len(args.reward_weights) == len(funcs):
                args.reward_weights = [*args.reward_weights, 1.0]
        if args.lora_r and kwargs.get("peft_config") is None:
            kwargs["peft_config"] = args.to_lora_config()
        with self._temperature.patch_trl_fused_head(_trl_grpo_module):
            super().__init__(model=model, reward_funcs=reward_funcs, args=args, **kwargs)
        if args.dynamic_sampling and (args.per_device_train_batch_size * args.steps_per_generation) \
                % self.num_generations:
            raise UserError("dynamic_sampling needs whole prompt groups on each process: per_device_train_batch_size "
                            f"x steps_per_generation = {args.per_device_train_batch_size * args.steps_per_generation} "
                            f"must be a multiple of num_generations={self.num_generations}")
        self._prompt_generator = torch.Generator().manual_seed(args.seed * 7919 + self.accelerator.process_index)

    # -- temperature -------------------------------------------------------------------------
    @property
    def current_temperature(self) -> float:
        """The temperature the next forward pass scores with (and the last generation sampled with)."""
        return self._temperature.value

    @property
    def temperature_schedule(self) -> TemperatureSchedule:
        return self._schedule

    def set_temperature(self, temperature: float) -> None:
        """Sample and score with ``temperature`` from now on (until the schedule sets it again)."""
        self._temperature.apply(self, temperature)

    def _token_entropy(self, prompt_ids: list[list[int]], completion_ids: list[list[int]]) -> float:
        """Mean next-token entropy (nats) over the sampled completion tokens, at the current temperature."""
        pad = self._tokenizer.pad_token_id or 0
        device = self.accelerator.device
        p_width = max(len(p) for p in prompt_ids)
        c_width = max(max((len(c) for c in completion_ids), default=0), 1)
        rows, masks, cmask = [], [], []
        for p, c in zip(prompt_ids, completion_ids):
            p, c = list(p), list(c)
            rows.append([pad] * (p_width - len(p)) + p + c + [pad] * (c_width - len(c)))
            masks.append([0] * (p_width - len(p)) + [1] * (len(p) + len(c)) + [0] * (c_width - len(c)))
            cmask.append([1] * len(c) + [0] * (c_width - len(c)))
        input_ids = torch.tensor(rows, device=device)
        attention_mask = torch.tensor(masks, device=device)
        with torch.no_grad():
            _, entropies, _ = self._get_per_token_logps_and_entropies(
                self.model, input_ids, attention_mask, c_width, batch_size=self.args.per_device_train_batch_size,
                compute_entropy=True)
        local = torch.stack([(entropies.float() * torch.tensor(cmask, device=device)).sum(),
                             torch.tensor(float(sum(map(sum, cmask))), device=device)])
        total = self.accelerator.reduce(local, reduction="sum")
        return float(total[0] / total[1].clamp(min=1))

    def _probe_temperatures(self, inputs: list[dict]) -> None:
        """Diversity schedule: sample the first batch at each candidate and keep the chosen one."""
        args = self.args
        prompt_ids, images, mm_fields = self._tokenize_prompts([x["prompt"] for x in inputs])
        table: dict[float, float] = {}
        for t in sorted(args.diversity_candidate_temperatures):
            self.set_temperature(t)
            scores = []
            for _ in range(args.diversity_probe_repeats):
                completion_ids, _ = self._generate_single_turn(prompt_ids, images, mm_fields, self.num_generations)
                if args.diversity_metric == "token_entropy":
                    scores.append(self._token_entropy(prompt_ids, completion_ids))
                else:
                    all_ids = gather_object(completion_ids)
                    scores.append(group_diversity(all_ids, self.num_generations, args.diversity_metric,
                                                  args.diversity_ngram))
            table[t] = sum(scores) / len(scores)
            self._metrics["train"][f"microcoder/probe_diversity/t={t:g}"].append(table[t])
        self._schedule.chosen = select_temperature(table, args.diversity_target)
        self._schedule.probe = {f"{t:g}": d for t, d in table.items()}
        if self.accelerator.is_main_process:
            logger.info("diversity probe (%s): %s -> temperature %g", args.diversity_metric,
                        ", ".join(f"T={t:g}: {d:.3f}" for t, d in table.items()), self._schedule.chosen)
            os.makedirs(args.output_dir, exist_ok=True)
            with open(os.path.join(args.output_dir, PROBE_FILE), "w") as f:
                json.dump({"metric": args.diversity_metric, "target": args.diversity_target,
                           "diversity": self._schedule.probe, "chosen": self._schedule.chosen}, f, indent=2)

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        mode = "train" if self.model.training else "eval"
        metrics = self._metrics[mode]
        if self.args.diversity_metric == "token_entropy" and metrics.get("entropy"):
            # the loss forward scores at the sampling temperature: TRL's entropy is this step's token entropy
            metrics["microcoder/diversity"] = list(metrics["entropy"])
        super().log(logs, start_time)

    # -- hooks ---------------------------------------------------------------------------------
    def _truncated(self, completion_ids_list) -> list[bool]:
        eos = set(self.eos_token_ids)
        return [len(ids) >= self.max_completion_length and (not len(ids) or int(ids[-1]) not in eos)
                for ids in completion_ids_list]

    def _judging_funcs(self, completion_ids_list) -> list:
        """The reward functions for this batch: code judges see truncated completions emptied.

        A completion cut off at max_completion_length has no final answer: an earlier closed block
        is a draft the model was still revising, so code judges see no code at all."""
        cut = self._truncated(completion_ids_list)
        if self.args.judge_truncated_completions or not any(cut):
            return list(self.reward_funcs)
        return [_FinalAnswerOnly(f, cut) if judges_code(f) else f for f in self.reward_funcs]

    # -- concurrent reward ---------------------------------------------------------------------
    def _can_overlap_reward(self) -> bool:
        if not self.args.concurrent_reward or self.environments is not None or self.rollout_func is not None:
            return False
        return all(not isinstance(f, torch.nn.Module) and not is_async_callable(f) for f in self.reward_funcs)

    def _generate(self, prompts):
        out = super()._generate(prompts)
        self._reward_future = None
        inputs = self._pending_inputs
        completion_ids, completions, extra_fields = out[1], out[3], out[5]
        if (self._can_overlap_reward() and not extra_fields and inputs is not None
                and len(inputs) == len(completions)):
            if self._reward_pool is None:
                self._reward_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="microcoder-reward")
            future = self._reward_pool.submit(self._local_rewards, inputs, prompts, completions, completion_ids)
            self._reward_future = (completion_ids, future)
        return out

    def _local_rewards(self, inputs, prompts, completions, completion_ids_list) -> torch.Tensor:
        """This process's ``[B, num_funcs]`` rewards (TRL's sync-callable path, without the gather);
        runs on the reward thread while the main thread scores log-probs."""
        t0 = time.perf_counter()
        keys = [key for key in inputs[0] if key not in ("prompt", "completion", "completion_ids")]
        reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
        reward_kwargs.update(trainer_state=self.state, log_extra=self._log_completion_extra,
                             log_metric=self._log_metric)
        out = torch.zeros(len(prompts), len(self.reward_funcs))
        for i, (func, name) in enumerate(zip(self._judging_funcs(completion_ids_list), self.reward_func_names)):
            values = func(prompts=prompts, completions=completions, completion_ids=completion_ids_list,
                          **reward_kwargs)
            if len(values) != len(prompts):
                raise ValueError(f"The reward function '{name}' returned {len(values)} rewards, but "
                                 f"{len(prompts)} were expected (one per prompt-completion pair)")
            out[:, i] = torch.tensor([v if v is not None else float("nan") for v in values], dtype=torch.float32)
        self._reward_compute_s = time.perf_counter() - t0
        return out

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        pending, self._reward_future = self._reward_future, None
        t0 = time.perf_counter()
        if pending is not None and pending[0] is completion_ids_list:
            local = pending[1].result()  # the time spent here is what the step waits for the reward
            wait = time.perf_counter() - t0
            rewards_per_func = gather(local.to(self.accelerator.device))
            compute = self._reward_compute_s
        else:
            originals = self.reward_funcs
            self.reward_funcs = self._judging_funcs(completion_ids_list)
            try:
                rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            finally:
                self.reward_funcs = originals
            wait = compute = time.perf_counter() - t0
        mode = "train" if self.model.training else "eval"
        self._metrics[mode]["microcoder/reward_s"].append(compute)
        self._metrics[mode]["microcoder/reward_wait_s"].append(wait)
        statuses = next((st for f in self.reward_funcs if (st := reward_statuses(f, len(completions))) is not None),
                        None)
        self._reward_batch = _RewardBatch(completions, completion_ids_list, rewards_per_func, statuses)
        return rewards_per_func

    def _generate_and_score_completions(self, inputs):
        mode = "train" if self.model.training else "eval"
        if mode == "train":
            if self._schedule.needs_probe:
                self._probe_temperatures(inputs)
            self.set_temperature(self._schedule.temperature_at(self.state.global_step))
        self._round = 0
        output = self._score_round(inputs)
        if mode == "train" and self.args.dynamic_sampling:
            output = self._dynamic_sampling(inputs, output)
        return output

    def _score_round(self, inputs):
        """One generation + reward + advantage round (TRL's), then MicroCoder's masking and metrics."""
        mode = "train" if self.model.training else "eval"
        self._local_keep = None
        self._pending_inputs = inputs
        try:
            output = super()._generate_and_score_completions(inputs)
            batch, self._reward_batch = self._reward_batch, None
            if batch is not None:
                output["advantages"] = self._mask_and_log(output["advantages"], batch, mode)
        finally:
            self._pending_inputs = None
            if self._reward_future is not None:  # an error before the reward was collected: do not leak it
                self._reward_future[1].cancel()
                self._reward_future = None
        self._round += 1
        return output

    # -- DAPO dynamic sampling ---------------------------------------------------------------
    def _fresh_prompts(self, n_groups: int) -> list[dict]:
        """``n_groups`` random training rows, each repeated num_generations times (TRL's batch layout)."""
        dataset = self.train_dataset
        picks = torch.randint(len(dataset), (n_groups,), generator=self._prompt_generator).tolist()
        return [dict(dataset[i]) for i in picks for _ in range(self.num_generations)]

    def _dynamic_sampling(self, inputs, output):
        """Keep the groups with a learning signal, refill with groups of fresh prompts (DAPO)."""
        G = self.num_generations
        n_groups = len(inputs) // G
        rounds = [(output, self._local_keep)]
        have = int(self._local_keep.sum()) if self._local_keep is not None else n_groups
        extra = 0
        while extra < self.args.dynamic_sampling_max_rounds:
            need = torch.tensor([float(n_groups - have)], device=self.accelerator.device)
            if self.accelerator.gather(need).max().item() <= 0:  # every process is full: stop together
                break
            out = self._score_round(self._fresh_prompts(n_groups))
            rounds.append((out, self._local_keep))
            have += int(self._local_keep.sum())
            extra += 1
        chosen: list[tuple[int, int]] = []  # (round, group)
        for r, (_, keep) in enumerate(rounds):
            chosen += [(r, g) for g in range(n_groups) if keep[g]]
        kept = min(len(chosen), n_groups)
        chosen = chosen[:n_groups]
        if len(chosen) < n_groups:  # not enough signal: fill with dropped groups of the first round (advantage 0)
            chosen += [(0, g) for g in range(n_groups) if not rounds[0][1][g]][: n_groups - len(chosen)]
        fill = self.accelerator.gather(torch.tensor([kept / n_groups], device=self.accelerator.device))
        self._metrics["train"]["microcoder/dynamic_sampling_fill_rate"].append(fill.mean().item())
        self._metrics["train"]["microcoder/dynamic_sampling_rounds"].append(float(len(rounds)))
        return self._assemble(rounds, chosen, G)

    def _assemble(self, rounds, chosen, G):
        """A batch made of the ``chosen`` (round, group) rows, re-padded to common widths."""
        first = rounds[0][0]
        unsupported = set(first) - {"prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "advantages",
                                    "num_items_in_batch", "old_per_token_logps", "ref_per_token_logps",
                                    "sampling_per_token_logps", "importance_sampling_ratio", "tool_mask"}
        if unsupported:
            raise NotImplementedError(f"dynamic_sampling does not support batches with {sorted(unsupported)}")
        pad_id = self._tokenizer.pad_token_id or 0
        out: dict[str, Any] = {}
        for key, value in first.items():
            if key == "num_items_in_batch" or value is None:
                continue
            parts = []
            for r, g in chosen:
                parts.append(rounds[r][0][key][g * G : (g + 1) * G])
            if value.dim() == 1:
                out[key] = torch.cat(parts)
                continue
            width = max(p.size(1) for p in parts)
            fill = pad_id if key in ("prompt_ids", "completion_ids") else 0
            left = key.startswith("prompt")
            padded = []
            for p in parts:
                extra = p.new_full((p.size(0), width - p.size(1)), fill)
                padded.append(torch.cat([extra, p] if left else [p, extra], dim=1))
            out[key] = torch.cat(padded)
        loss_mask = out["completion_mask"] if "tool_mask" not in out else out["completion_mask"] * out["tool_mask"]
        out["num_items_in_batch"] = self.accelerator.gather(loss_mask.sum()).sum()
        return out

    def _incorrect(self, batch: _RewardBatch, local_rewards: torch.Tensor) -> torch.Tensor:
        if batch.statuses is not None:
            return incorrect_from_statuses(batch.statuses)
        cut = self._truncated(batch.completion_ids) if not self.args.judge_truncated_completions else None
        has_code = torch.tensor([extract_code(completion_text(c)) is not None and not (cut and cut[i])
                                 for i, c in enumerate(batch.completions)])
        return incorrect_from_rewards(local_rewards, has_code, self.args.truncation_pass_reward)

    def _mask_and_log(self, advantages: torch.Tensor, batch: _RewardBatch, mode: str) -> torch.Tensor:
        args, device = self.args, advantages.device
        n = len(batch.completion_ids)
        start = self.accelerator.process_index * n
        local_rewards = batch.rewards_per_func[start : start + n, 0].detach().float().cpu()
        ids, lengths = pad_completions(batch.completion_ids, pad_value=self._tokenizer.pad_token_id or 0)
        seed = (args.seed * 1_000_003 + self.state.global_step * 1009 + self.accelerator.process_index * 7
                + (mode == "eval") + self._round * 104_729) % (2**63)
        uniform = torch.rand(n, generator=torch.Generator().manual_seed(seed))
        result = conditional_truncation_mask(
            advantages.detach().cpu(), ids, lengths, self._incorrect(batch, local_rewards),
            max_length=self.max_completion_length, eos_token_ids=self.eos_token_ids,
            window=args.repetition_window, rho=args.truncation_mask_rho, uniform=uniform,
        )
        flags = torch.stack([result.masked, result.truncated, result.repetitive & result.truncated], dim=1)
        flags = self.accelerator.gather(flags.float().to(device)).cpu()
        masked, truncated, rep = flags.sum(dim=0).tolist()
        total = flags.size(0)
        metrics = self._metrics[mode]
        metrics["microcoder/masked_fraction"].append(masked / total)
        metrics["microcoder/truncation_rate"].append(truncated / total)
        metrics["microcoder/repetitive_truncated_rate"].append(rep / truncated if truncated else 0.0)
        metrics["microcoder/masked_of_truncated"].append(masked / truncated if truncated else 0.0)
        num_generations = self.num_generations if mode == "train" else self.num_generations_eval
        all_ids = gather_object(batch.completion_ids)
        for name in SEQUENCE_METRICS:
            value = group_diversity(all_ids, num_generations, name, args.diversity_ngram)
            metrics[f"microcoder/{name}"].append(value)
            if name == args.diversity_metric:
                metrics["microcoder/diversity"].append(value)
        metrics["microcoder/temperature"].append(self.current_temperature)
        self._log_pass_by_difficulty(batch, local_rewards, mode)
        metrics["microcoder/response_length"].append(sum(len(x) for x in all_ids) / max(len(all_ids), 1))
        masked_advantages = result.advantages.to(device=device, dtype=advantages.dtype)
        gathered = self.accelerator.gather(masked_advantages.detach().float()).cpu()
        self._log_table_advantages(gathered.tolist(), flags[:, 0].bool().tolist())
        self._log_learning_signal(batch, gathered, num_generations, mode)
        return masked_advantages

    def _log_pass_by_difficulty(self, batch: _RewardBatch, local_rewards: torch.Tensor, mode: str) -> None:
        """``microcoder/pass_rate/<difficulty>`` when the rows carry a ``difficulty`` column."""
        inputs = self._pending_inputs
        if not inputs or len(inputs) != len(batch.completion_ids) or "difficulty" not in inputs[0]:
            return
        if batch.statuses is not None:
            passed = [getattr(st, "value", st) == "passed" for st in batch.statuses]
        else:
            passed = (local_rewards >= self.args.truncation_pass_reward).tolist()
        pairs = gather_object([(str(x.get("difficulty") or "unknown"), bool(p)) for x, p in zip(inputs, passed)])
        for level in sorted({d for d, _ in pairs}):
            hits = [p for d, p in pairs if d == level]
            self._metrics[mode][f"microcoder/pass_rate/{level}"].append(sum(hits) / len(hits))

    def train(self, *args, **kwargs):
        output = super().train(*args, **kwargs)
        if self.args.training_report and self.is_world_process_zero():
            paths = write_training_report(self.state.log_history, self.args.output_dir)
            if paths:
                logger.info("training curves: %s; summary: %s", *paths)
        return output

    def _log_learning_signal(self, batch: _RewardBatch, advantages: torch.Tensor, num_generations: int,
                             mode: str) -> None:
        """``microcoder/all_equal_groups``: share of groups whose rewards are all equal (no signal);
        ``microcoder/zero_advantage``: 1 when every advantage that trains is 0, so the policy-gradient
        loss is 0 and the policy cannot move. A streak of such steps is reported in the log."""
        weights = self.reward_weights.to(batch.rewards_per_func.device).float()
        rewards = (batch.rewards_per_func.float() * weights).nansum(dim=1).cpu()
        groups = rewards.view(-1, num_generations)
        all_equal = (groups.max(dim=1).values - groups.min(dim=1).values).abs() < 1e-6
        local_groups = len(batch.completion_ids) // num_generations
        first_group = self.accelerator.process_index * local_groups
        self._local_keep = ~all_equal[first_group : first_group + local_groups]
        zero = bool((advantages == 0).all())
        metrics = self._metrics[mode]
        metrics["microcoder/all_equal_groups"].append(all_equal.float().mean().item())
        metrics["microcoder/zero_advantage"].append(float(zero))
        if mode != "train":
            return
        self._zero_signal_streak = self._zero_signal_streak + 1 if zero else 0
        every = self.args.zero_signal_warn_steps
        if every and self._zero_signal_streak and self._zero_signal_streak % every == 0 \
                and self.accelerator.is_main_process:
            finite = rewards[~torch.isnan(rewards)]
            if len(finite) and float(finite.abs().max()) == 0.0:
                why = ("every reward is 0: nothing is solved; if this persists the policy has collapsed (lower the "
                       "learning rate, raise the temperature or num_generations, or use --dynamic_sampling)")
            else:
                why = ("every group's completions score alike (e.g. all solved: these prompts are too easy; use "
                       "--dynamic_sampling or harder problems)")
            logger.warning(
                "no learning signal for %d generation batches in a row (step %d, mean reward %.3f): every advantage "
                "and the policy-gradient loss are 0; %s", self._zero_signal_streak, self.state.global_step,
                float(finite.mean()) if len(finite) else float("nan"), why)

    def _log_table_advantages(self, gathered: list[float], masked: list[bool]) -> None:
        """The completions table shows the advantages that train (after masking) and which were masked."""
        logs = self._logs
        table = logs["advantages"]
        if len(table) >= len(gathered):
            for i, value in enumerate(gathered):
                table[len(table) - len(gathered) + i] = value
        logs["extra"]["truncation_masked"].extend(masked)

    # -- checkpoints ---------------------------------------------------------------------------
    def _save_checkpoint(self, model, trial):
        super()._save_checkpoint(model, trial)
        if self.args.should_save:
            folder = os.path.join(self._get_output_dir(trial=trial), f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}")
            with open(os.path.join(folder, SCHEDULE_STATE_FILE), "w") as f:
                json.dump(self._schedule.state_dict(), f, indent=2)

    def _load_optimizer_and_scheduler(self, checkpoint):
        super()._load_optimizer_and_scheduler(checkpoint)
        if checkpoint is not None:
            path = os.path.join(checkpoint, SCHEDULE_STATE_FILE)
            if os.path.exists(path):
                with open(path) as f:
                    self._schedule.load_state_dict(json.load(f))
