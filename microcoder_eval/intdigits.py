"""Lift Python's 4300-digit int<->str guard for trusted data (expected outputs, dataset files)."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def unlimited_int_digits() -> Iterator[None]:
    """Within the block, int<->str conversions have no digit limit (process-wide while active)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)
