"""Undo events: appending them, and where a game may be taken back to.

``UndoRequested`` and ``UndoAnswered`` leave a game's state alone; ``GameReverted`` makes it
the state at an earlier version. A game goes back only to a version between two commands,
after its setup.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.common.errors import FormatError
from service.application.commands import CommandHandler, CommandOutcome, check_expected
from service.application.mapper import CommandMeta
from service.application.repository import GameRepository, LoadedGame, Numbered
from service.errors import RevertNotAllowed
from service.events import SERVICE_KIND, GameReverted, ServiceEvent, UndoAnswered, UndoRequested
from service.store.port import EventStore


class UndoWorkflow:
    def __init__(
        self,
        store: EventStore,
        repository: GameRepository,
        commands: CommandHandler,
    ) -> None:
        self._store = store
        self._repository = repository
        self._commands = commands

    def revert(
        self,
        game_id: str,
        to_version: int,
        *,
        reason: str,
        requested_by: str,
        approved_by: Sequence[str],
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        """Take the game back to ``to_version`` at once (an operator's decision)."""
        event = GameReverted(to_version, reason, requested_by, tuple(approved_by))
        return self.append_service_events(
            game_id, [event], meta=meta, expected_version=expected_version
        )

    def append_service_events(
        self,
        game_id: str,
        events: Sequence[ServiceEvent],
        *,
        meta: CommandMeta,
        expected_version: int | None,
    ) -> CommandOutcome:
        """Append undo events (requests, answers, reverts), checked for what they may name."""
        game = self._repository.get(game_id)
        check_expected(game, expected_version)
        if not events:
            raise FormatError("no events to append", "events")
        for event in events:
            if not isinstance(event, GameReverted | UndoRequested | UndoAnswered):
                raise FormatError(f"not a service event: {event!r}", "events")
            if isinstance(event, GameReverted | UndoRequested):
                self.check_revert_target(game, event.to_version)
        return self._append(game, events, meta)

    def check_revert_target(self, game: LoadedGame, to_version: int) -> None:
        """Raise ``RevertNotAllowed`` unless ``game`` may go back to ``to_version``: after
        its setup, before its current version, and between two commands."""
        low = game.info.start_version
        if not isinstance(to_version, int) or not low <= to_version < game.version:
            raise RevertNotAllowed(
                f"can revert only to a version in {low}..{game.version - 1}, not {to_version!r}",
                "to_version",
            )
        # Only between commands: the middle of one command's events (say, after a
        # placement but before its draw) is no position a game can continue from.
        around = self._store.read_range(game.game_id, to_version, to_version + 1)
        if (
            len(around) == 2
            and around[0].metadata.get("command_id") == around[1].metadata.get("command_id")
            and not around[1].type.startswith(f"{SERVICE_KIND}.")
        ):
            raise RevertNotAllowed(
                f"version {to_version} lies inside the events of one command", "to_version"
            )

    def _append(
        self, game: LoadedGame, events: Sequence[ServiceEvent], meta: CommandMeta
    ) -> CommandOutcome:
        """Append checked service events to ``game`` as loaded (the append checks that
        the game is still at its version)."""
        numbered = [Numbered(game.version + n, e) for n, e in enumerate(events, start=1)]
        state = self._repository.fold_onto(game.game_id, game.rules, game.state, numbered)
        return self._commands.append(game, events, state, meta)
