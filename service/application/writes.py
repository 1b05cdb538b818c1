"""What follows every successful write (background jobs, deliveries, ...): the write
observer port. Every append path of the application tells its ``Observers`` once, after
the events are stored; never of a refused command or an idempotent replay."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from service.application.mapper import StoredEvent
from service.application.repository import LoadedGame

log = logging.getLogger("tigris.writes")


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
