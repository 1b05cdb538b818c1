"""Why a version of a game is what it is: the command that produced it, who sent it and
when, the rule trail the domain recorded for it, the game right before that command and
right after the version, and the legal commands the sending seat had then. The API redacts
what the caller may not see (``service.api.explanations``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.application import chain
from service.application.mapper import EventMapper, StoredEvent
from service.application.repository import GameRepository, LoadedGame
from service.errors import VersionNotFound
from service.store.port import EventStore

WINDOW = 64  # events read back per step to find the first event of a command


@dataclass(frozen=True)
class Explanation:
    game: LoadedGame  # the game now
    event: StoredEvent  # the event at the version explained
    command_version: int  # the version of the first event of its command
    command: dict[str, Any] | None  # what was asked (None: not recorded, an older event)
    rules: list[str] | None  # the event's rule trail (None: not recorded)
    before: LoadedGame | None  # the game right before the command (None: the start events)
    after: LoadedGame  # the game right after the version explained
    alternatives: list[dict[str, Any]] | None  # the seat's legal commands then (JSON)


class Explainer:
    def __init__(self, store: EventStore, repository: GameRepository, mapper: EventMapper) -> None:
        self._store = store
        self._repository = repository
        self._mapper = mapper

    def explain(self, game_id: str, version: int) -> Explanation:
        game = self._repository.get(game_id)
        if not 1 <= version <= game.version:
            raise VersionNotFound(game_id, version, game.version)
        group = self._command_events(game, version)
        first, event = group[0], group[-1]
        command = first.metadata.get(chain.COMMAND_KEY)
        trail = event.metadata.get(chain.TRAIL_KEY)
        after = self._repository.get_at(game_id, version)
        before = None if first.version == 1 else self._repository.get_at(game_id, first.version - 1)
        seat = first.metadata.get("seat")
        alternatives = None
        domain_event = event.type.startswith(f"{game.kind}.")
        if before is not None and isinstance(seat, int) and domain_event:
            rules = game.rules
            alternatives = [
                rules.commands.to_json(c) for c in rules.legal_commands(before.state, seat)
            ]
        return Explanation(
            game,
            event,
            first.version,
            command if isinstance(command, dict) else None,
            list(trail) if isinstance(trail, list) else None,
            before,
            after,
            alternatives,
        )

    def _command_events(self, game: LoadedGame, version: int) -> list[StoredEvent]:
        """The events of the command that produced ``version``, up to it: back to the one
        that carries the command (or, for older events, the first with its command id)."""
        found: list[StoredEvent] = []
        last = version
        while last >= 1:
            low = max(1, last - WINDOW + 1)
            records = self._store.read_range(game.game_id, low, last)
            for record in reversed(records):
                stored = self._mapper.decode(game.kind, record)
                if found and stored.metadata.get("command_id") != found[0].metadata.get(
                    "command_id"
                ):
                    return found
                found.insert(0, stored)
                if chain.COMMAND_KEY in stored.metadata:
                    return found
            last = low - 1
        return found
