"""MicroCoder-GRPO on TRL: no KL, clip-higher, conditional truncation masking, scheduled temperature.

Needs the ``train`` extra (torch, transformers, trl, accelerate). Main entry points:
``MicroCoderGRPOConfig``, ``MicroCoderGRPOTrainer`` and the ``microcoder-train`` CLI.
"""
from __future__ import annotations

__all__ = ["MicroCoderGRPOConfig", "MicroCoderGRPOTrainer"]


def __getattr__(name: str):
    if name == "MicroCoderGRPOConfig":
        from microcoder_train.config import MicroCoderGRPOConfig

        return MicroCoderGRPOConfig
    if name == "MicroCoderGRPOTrainer":
        from microcoder_train.trainer import MicroCoderGRPOTrainer

        return MicroCoderGRPOTrainer
    raise AttributeError(f"module 'microcoder_train' has no attribute {name!r}")
