"""User-facing errors: the CLI prints them as one line and exits with code 2."""
from __future__ import annotations


class UserError(Exception):
    """Bad input or configuration, or a run that cannot go on; the message says what, why and how to fix it.

    ``detail`` (optional, any length: a traceback, a library's multi-line message) is not printed:
    the CLI writes it to a log file and names that file at the end of its one error line.
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class ExecutorError(UserError):
    """An executor (local sandbox pool, Ray) failed to start or broke down while judging."""


class InfraError(Exception):
    """The sandbox infrastructure failed (not the solution's fault)."""
