"""Sampling-temperature schedules and the plumbing that makes TRL honour a changing temperature.

TRL reads ``args.temperature`` once, at start-up, in three places: the transformers
``GenerationConfig`` (and the generation kwargs that override the model's own config), the vLLM
backend (``VLLMGeneration.temperature``, used for colocate sampling params and server requests),
and the fused LM head that divides the logits by the temperature when scoring training
log-probs (policy and reference model). :class:`TemperatureController` updates all of them.
"""
from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

TEMPERATURE_SCHEDULES = ("fixed", "staged", "diversity")


@dataclass
class TemperatureSchedule:
    """Which temperature to sample (and score) the generation made at a global step with.

    ``fixed``: always ``base``. ``staged``: ``low`` before ``switch_step``, ``high`` from it on.
    ``diversity``: ``chosen`` once :func:`select_temperature` has picked it from the probe
    (``base`` until then); with a ``switch_step``, ``max(chosen, high)`` from that step on.
    """

    kind: str = "fixed"
    base: float = 1.0
    low: float = 0.6
    high: float = 1.2
    switch_step: int | None = None
    chosen: float | None = None
    probe: dict[str, float] = field(default_factory=dict)  # str(temperature) -> diversity

    def temperature_at(self, step: int) -> float:
        if self.kind == "fixed":
            return self.base
        if self.kind == "staged":
            if self.switch_step is None:
                raise ValueError("staged schedule has no switch_step")
            return self.low if step < self.switch_step else self.high
        if self.kind == "diversity":
            t = self.chosen if self.chosen is not None else self.base
            if self.switch_step is not None and step >= self.switch_step:
                t = max(t, self.high)  # the paper's low-to-high staging, starting from the probed temperature
            return t
        raise ValueError(f"unknown temperature schedule {self.kind!r}")

    @property
    def needs_probe(self) -> bool:
        return self.kind == "diversity" and self.chosen is None

    def state_dict(self) -> dict:
        return {"kind": self.kind, "switch_step": self.switch_step, "chosen": self.chosen, "probe": self.probe}

    def load_state_dict(self, state: dict) -> None:
        if state.get("kind") != self.kind:
            raise ValueError(
                f"checkpoint was trained with temperature_schedule={state.get('kind')!r}, not {self.kind!r}"
            )
        self.switch_step = state.get("switch_step", self.switch_step)
        self.chosen = state.get("chosen")
        self.probe = dict(state.get("probe") or {})


def select_temperature(diversity_by_temperature: dict[float, float], target: float) -> float:
    """The lowest candidate whose measured diversity reaches ``target``; if none does, the most
    diverse one (ties: the lower temperature)."""
    if not diversity_by_temperature:
        raise ValueError("no candidate temperatures were probed")
    ordered = sorted(diversity_by_temperature.items())
    for t, d in ordered:
        if d >= target:
            return t
    return max(ordered, key=lambda td: (td[1], -td[0]))[0]


class TemperatureController:
    """Holds the current temperature and pushes it into every place TRL reads it."""

    def __init__(self, temperature: float):
        self.value = float(temperature)

    # -- scoring: a fused LM head whose temperature is read at call time -----------------
    def dynamic_fused_head(self, add_fused_lm_head):
        """A drop-in for TRL's ``add_fused_lm_head`` that scores at ``self.value`` on every call.

        TRL's head bakes its temperature into a closure; this installs a dispatcher on
        ``model.forward`` that builds (once per temperature, with TRL's own function and the
        same arguments) and calls the head for the current temperature.
        """
        controller = self

        def install(model, temperature: float = 1.0, cast_lm_head_to_fp32: bool = False, outputs=("log_probs",)):
            plain = model.forward
            heads: dict[float, object] = {}

            def head_for(t: float):
                if t not in heads:
                    # TRL's function wraps and replaces ``model.forward``; by now that may be a wrapper
                    # around the dispatcher (accelerate's autocast + fp32-output wrapper under bf16/fp16),
                    # so put back whatever was there, not the bare dispatcher.
                    current = model.__dict__.get("forward", bound)
                    model.forward = plain
                    try:
                        add_fused_lm_head(model, temperature=t, cast_lm_head_to_fp32=cast_lm_head_to_fp32,
                                          outputs=tuple(outputs))
                        heads[t] = model.forward
                    finally:
                        model.forward = current
                return heads[t]

            @functools.wraps(type(model).forward)
            def dispatch(self, *args, fused_lm_head: bool = False, **kwargs):
                if fused_lm_head:
                    return head_for(controller.value)(*args, fused_lm_head=True, **kwargs)
                return plain(*args, **kwargs)

            bound = types.MethodType(dispatch, model)
            model.forward = bound
            head_for(float(temperature))  # build the start-up head now, as TRL does

        return install

    @contextlib.contextmanager
    def patch_trl_fused_head(self, grpo_trainer_module) -> Iterator[None]:
        """While ``GRPOTrainer.__init__`` runs, make it install dynamic-temperature heads."""
        original = getattr(grpo_trainer_module, "add_fused_lm_head", None)
        if original is None:
            raise RuntimeError(
                "trl.trainer.grpo_trainer has no add_fused_lm_head: this TRL version is not supported "
                "(microcoder_train is pinned to trl==1.16.*)"
            )
        grpo_trainer_module.add_fused_lm_head = self.dynamic_fused_head(original)
        try:
            yield
        finally:
            grpo_trainer_module.add_fused_lm_head = original

    # -- sampling -------------------------------------------------------------------------
    def apply(self, trainer, temperature: float) -> None:
        """Set the temperature for sampling (transformers and vLLM) and for scoring log-probs."""
        t = float(temperature)
        self.value = t
        trainer.temperature = t
        gen_config = getattr(trainer, "generation_config", None)
        if gen_config is not None:
            gen_config.temperature = t
        gen_kwargs = getattr(trainer, "generation_kwargs", None)
        if isinstance(gen_kwargs, dict):
            gen_kwargs["temperature"] = t
        vllm = getattr(trainer, "vllm_generation", None) if getattr(trainer, "use_vllm", False) else None
        if vllm is not None:
            vllm.temperature = t


def parse_temperatures(values: Sequence[float | str] | str) -> list[float]:
    """Accept ``[0.6, 1.0]``, ``"0.6,1.0"`` or CLI tokens such as ``["0.6,0.8", "1.0"]``; return floats."""
    if isinstance(values, str):
        values = [values]
    out: list[float] = []
    for v in values:
        if isinstance(v, str):
            out.extend(float(x) for x in v.replace(" ", "").split(",") if x)
        else:
            out.append(float(v))
    return out
