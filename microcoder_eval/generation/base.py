"""What every generation backend takes (SampleRequest) and yields (Completion)."""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from microcoder_eval.generation.prompts import Messages


@dataclass(frozen=True)
class SampleRequest:
    """One sample to draw: sample ``sample_index`` of problem ``question_id``."""

    question_id: str
    sample_index: int
    messages: Messages
    seed: int | None = None


@dataclass
class Completion:
    """One finished sample as the backend produced it (thinking policy not yet applied)."""

    question_id: str
    sample_index: int
    text: str
    finish_reason: str  # "stop" | "length" | whatever the server reports
    completion_tokens: int | None = None
    reasoning: str | None = None  # reasoning returned separately by a server (reasoning_content)
    think_open: bool = False  # the rendered prompt opened a <think> block


class Backend(abc.ABC):
    """Turns SampleRequests into Completions; yields each as soon as it is done (any order)."""

    @abc.abstractmethod
    def generate(self, requests: Sequence[SampleRequest]) -> Iterator[Completion]:
        """Yield one Completion per request."""

    def close(self) -> None:
        """Release models, threads or connections."""

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
