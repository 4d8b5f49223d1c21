"""User-facing errors: the CLI prints them as one line and exits with code 2."""


class UserError(Exception):
    """Bad input or configuration; the message says what, why and how to fix it."""


class InfraError(Exception):
    """The sandbox infrastructure failed (not the solution's fault)."""
