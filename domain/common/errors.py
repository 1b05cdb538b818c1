"""Typed errors of the rules engines.

Every refusal names the rule it enforces, so a client (or a referee) can look
it up in the rules digest. All subclass ``ValueError``, as python-chess does.
"""

from __future__ import annotations


class RulesError(ValueError):
    """A command that the rules forbid. ``rule`` is the digest id (``B-WAR-4``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class IllegalCommand(RulesError):
    """The command breaks a rule of the game."""


class NotAwaited(RulesError):
    """The seat sending the command is not the one whose input is awaited,
    or the command is not the kind of input awaited now."""


class GameOver(RulesError):
    """The game has ended; no command is accepted any more."""


class FormatError(ValueError):
    """Malformed input (a command, event or position that cannot be read).

    Not a rules matter: the data does not even describe a command.
    ``field`` names the offending field when known.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message if field is None else f"{field}: {message}")
        self.message = message
        self.field = field
