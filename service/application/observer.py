"""What the application layer reports about its work: to metrics (``Observer``,
``service.api.metrics``), and every successful write to what follows it (``WriteObserver``:
background jobs, ``service.jobs.triggers``).

The application stays free of any metrics library: it calls an ``Observer``, and the HTTP
layer plugs in one that counts into Prometheus. ``NullObserver`` (the default) does nothing.

Command outcomes: ``accepted`` (events appended), ``replayed`` (answered from an
idempotency record), ``refused`` (a rule said no), ``conflict`` (the caller's ``If-Match``
or the game moved on), ``invalid`` (malformed or wrong for the game), ``not_found``,
``idempotency_conflict`` (the key was used for another command), ``unavailable`` (the store
did not answer), ``error`` (anything else).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from domain.common.errors import FormatError, RulesError
from service.errors import (
    ConcurrencyError,
    GameNotFound,
    IdempotencyConflict,
    StoreUnavailable,
)

if TYPE_CHECKING:  # the repository reports to this module's Observer
    from service.application.mapper import StoredEvent
    from service.application.repository import LoadedGame

log = logging.getLogger("tigris.writes")

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


# ----------------------------------------------------------------------------- writes
@dataclass(frozen=True)
class Write:
    """One successful append, as what follows a write sees it.

    ``game``: the game after the write; ``first``: the version of its first new event (the
    last is ``game.version``); ``events``: the new events, decoded (empty for an imported
    record, whose events are not decoded one by one); ``webhooks``: the game's webhook
    subscription count, if the append returned it (0: none to read); ``awaiting``: the
    actors (``seat:<n>``) whose answer an undo request left open by this write awaits."""

    game: LoadedGame
    first: int
    events: tuple[StoredEvent, ...] = ()
    webhooks: int | None = None
    awaiting: tuple[str, ...] = ()

    @property
    def game_id(self) -> str:
        return self.game.game_id

    @property
    def version(self) -> int:
        return self.game.version


class WriteObserver(Protocol):
    """What follows a write (background jobs, deliveries, ...): told of every successful
    append, once, after it is stored; never of a refused command or an idempotent replay.
    An append is acknowledged whatever an observer does: the periodic sweep catches up on
    what a failing observer left undone."""

    def appended(self, write: Write) -> None: ...


class Observers:
    """Every ``WriteObserver`` of the application, called in turn; one that raises is
    logged and the others are still called (the write stands)."""

    def __init__(self, observers: Iterable[WriteObserver] = ()) -> None:
        self._observers: list[WriteObserver] = list(observers)

    def add(self, observer: WriteObserver) -> None:
        self._observers.append(observer)

    def __len__(self) -> int:
        return len(self._observers)

    def appended(self, write: Write) -> None:
        for observer in self._observers:
            try:
                observer.appended(write)
            except Exception:
                log.exception(
                    "%r failed after version %d of game %s (the sweep catches up)",
                    observer,
                    write.version,
                    write.game_id,
                )
