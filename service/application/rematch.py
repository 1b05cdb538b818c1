"""Rematches: a finished game's seat asks for a new game of the same kind, options and
players, linked both ways (the new game's info ``rematch_of``, the old one's ``rematch``).

One rematch per game, whoever asks and however often: its id is derived from the finished
game's (``rematch_id``), and the link comes first. ``Rematches.rematch`` appends to the
finished game a ``service.RematchCreated`` (recorded with the command ``Rematch``; it
changes no state) whose info field ``rematch`` names the new game, checked against the
version it saw (two seats racing: one append wins, the other finds the link); then it makes
sure the new game exists (a creation that a crash cut short is made by the next request).

The new game has the old one's seat names, bots, clock and player bindings (a bound seat
gets no token: its player's key plays it, as at creation). Of the seats with neither, the
caller's (a seat token's) gets a new token, returned once to the caller; the others are
created open under their old names, for their players to claim
(``POST /games/{id}/seats/{seat}/claim``): a seat token is no identity the service could
hand a new token to.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from service.application.chain import REMATCH
from service.application.commands import CommandHandler
from service.application.mapper import CommandMeta, EventMapper, StoredEvent
from service.application.repository import GameRepository, LoadedGame
from service.application.tokens import hash_token, new_tokens
from service.application.writes import Observers, Write
from service.errors import ConcurrencyError, GameExists, GameNotFound, GameNotOver
from service.events import RematchCreated
from service.store.port import EventStore

MAX_ATTEMPTS = 8


def rematch_id(game_id: str) -> str:
    """The id of ``game_id``'s rematch (32 hex digits), the same for every request."""
    return hashlib.sha256(f"rematch:{game_id}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Rematch:
    """The rematch, the caller's new seat token (its seat's, when this request created the
    game and that seat has neither player nor bot; shown once), and whether it was made
    now."""

    game: LoadedGame
    seat: int
    token: str | None
    created: bool


class Rematches:
    def __init__(  # noqa: PLR0917 (the parts a rematch writes with)
        self,
        store: EventStore,
        repository: GameRepository,
        mapper: EventMapper,
        commands: CommandHandler,
        clock: Callable[[], datetime],
        writes: Observers | None = None,
    ) -> None:
        self._store = store
        self._repository = repository
        self._mapper = mapper
        self._commands = commands
        self._clock = clock
        self._writes = Observers() if writes is None else writes

    def rematch(self, game_id: str, seat: int, meta: CommandMeta) -> Rematch:
        """The rematch of finished game ``game_id`` asked for by its ``seat``: GameNotFound,
        GameNotOver."""
        old = self._linked(game_id, meta)
        new_id = old.info.rematch
        assert new_id is not None
        try:
            return Rematch(self._repository.get(new_id), seat, None, created=False)
        except GameNotFound:
            pass
        info = old.info
        tokenless = set(info.bots) | set(info.players)
        mine = seat not in tokenless and seat in range(len(info.seat_names))
        tokens = new_tokens(len(info.seat_names))
        open_seats = [s for s in range(len(info.seat_names)) if s not in tokenless and s != seat]
        try:
            game = self._commands.create_game(
                old.kind,
                info.seat_names,
                info.options,
                None,
                CommandMeta.for_actor(meta.actor, None, correlation_id=meta.correlation_id),
                new_id,
                token_hashes=[hash_token(t) for t in tokens],
                bots=info.bots,
                clock=info.clock,
                open_seats=open_seats,
                players=info.players,
                rematch_of=game_id,
                rated=info.rated,  # the same players: rated as the game before
            )
        except GameExists:  # a racing request made it first
            return Rematch(self._repository.get(new_id), seat, None, created=False)
        return Rematch(game, seat, tokens[seat] if mine else None, created=True)

    def _linked(self, game_id: str, meta: CommandMeta) -> LoadedGame:
        """``game_id`` once its info names its rematch (appending the link if need be)."""
        for _ in range(MAX_ATTEMPTS):
            game = self._repository.get(game_id)
            if not game.rules.is_over(game.state):
                raise GameNotOver(game_id)
            if game.info.rematch is not None:
                return game
            with contextlib.suppress(ConcurrencyError):  # another request linked it: look
                return self._link(game, rematch_id(game_id), meta)
        raise ConcurrencyError(-1, self._store.version(game_id), game_id)

    def _link(self, game: LoadedGame, new_id: str, meta: CommandMeta) -> LoadedGame:
        event = RematchCreated(game_id=new_id)
        recorded_at = meta.recorded_at or self._clock().astimezone(UTC).isoformat()
        envelopes = self._mapper.envelopes(game.kind, [event], meta, recorded_at)
        prev = self._repository.head_of(game)
        command = {"type": REMATCH, "game_id": new_id}
        sealed = self._mapper.sealed(envelopes, None, game.version + 1, prev, command)
        result = self._store.append(
            game.game_id,
            sealed.events,
            game.version,
            info={"rematch": new_id, "updated_at": recorded_at},
        )
        after = LoadedGame(
            game.game_id,
            game.kind,
            game.rules,
            game.state,
            result.last,
            type(game.info)(
                **{
                    **game.info.__dict__,
                    "version": result.last,
                    "updated_at": recorded_at,
                    "rematch": new_id,
                }
            ),
            game.snapshot_version,
            sealed.head,
        )
        self._repository.remember(after)
        stored: list[StoredEvent] = self._mapper.appended(game.game_id, result, sealed, [event])
        self._writes.appended(Write(after, result.first, tuple(stored), result.webhooks))
        return after
