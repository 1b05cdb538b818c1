"""What the application layer reports about its work to metrics (``Observer``,
``service.api.metrics``). What follows every successful write is told by
``service.application.writes`` (``WriteObserver``).

The application stays free of any metrics library: it calls an ``Observer``, and the HTTP
layer plugs in one that counts into Prometheus. ``NullObserver`` (the default) does nothing.

Command outcomes: ``accepted`` (events appended), ``replayed`` (answered from an
idempotency record), ``refused`` (a rule said no), ``conflict`` (the caller's ``If-Match``
or the game moved on), ``invalid`` (malformed or wrong for the game), ``not_found``,
``idempotency_conflict`` (the key was used for another command), ``unavailable`` (the store
did not answer), ``error`` (anything else).
"""

from __future__ import annotations

from typing import Protocol

from domain.common.errors import FormatError, RulesError
from service.errors import (
    ConcurrencyError,
    GameNotFound,
    IdempotencyConflict,
    StoreUnavailable,
)

# A command whose type could not be read (it names no command of the game).
UNKNOWN = "unknown"


class Observer(Protocol):
    def command(self, kind: str, command_type: str, outcome: str, seconds: float) -> None:
        """A command was handled, with ``outcome`` (see the module docstring)."""

    def command_path(self, path: str) -> None:
        """How a command found its game: ``cached`` (this process's copy was current),
        ``catch_up`` (the copy was behind and read only the events it lacked) or
        ``checked`` (the game's info read and the game loaded: the cold path)."""

    def append_conflict(self, kind: str) -> None:
        """An append was refused because the stream had moved past the expected version."""

    def idempotent_replay(self, kind: str) -> None:
        """A request was answered from its idempotency record (nothing appended)."""

    def game_load(self, source: str) -> None:
        """A game state was built: ``snapshot`` (from a snapshot, a hit), ``events`` (from
        the start: no usable snapshot, a miss) or ``catch_up`` (a cached copy brought up to
        date with the events it lacked)."""


class NullObserver:
    def command(self, kind: str, command_type: str, outcome: str, seconds: float) -> None:
        pass

    def command_path(self, path: str) -> None:
        pass

    def append_conflict(self, kind: str) -> None:
        pass

    def idempotent_replay(self, kind: str) -> None:
        pass

    def game_load(self, source: str) -> None:
        pass


def outcome_of(exc: BaseException | None, *, replayed: bool = False) -> str:
    """The outcome label of a command that ended with ``exc`` (None: it succeeded)."""
    if exc is None:
        return "replayed" if replayed else "accepted"
    for kind, label in (
        (RulesError, "refused"),
        (ConcurrencyError, "conflict"),
        (IdempotencyConflict, "idempotency_conflict"),
        (GameNotFound, "not_found"),
        (FormatError, "invalid"),
        (StoreUnavailable, "unavailable"),
    ):
        if isinstance(exc, kind):
            return label
    return "error"
