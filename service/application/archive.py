"""Game records in and out of the store: export (``GET /games/{id}/record``) and import
(``POST /games/import``). The format and its verification are ``service.application.record``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.common.protocol import GameRules
from service.application import chain, record
from service.application.commands import CreatedGame
from service.application.mapper import (
    DERIVE_COMMAND_ID,
    CommandMeta,
    EventMapper,
    game_info,
    new_info,
    reverts_field,
)
from service.application.queries import GameQueries
from service.application.repository import GameRepository, LoadedGame
from service.application.tokens import hash_token, new_tokens
from service.application.writes import Observers, Write
from service.events import SERVICE_KIND, GameReverted
from service.store.port import EventStore, GameRecord, NewEvent


@dataclass(frozen=True)
class ExportedRecord:
    game: LoadedGame
    body: bytes
    complete: bool


class GameArchive:
    def __init__(
        self,
        store: EventStore,
        repository: GameRepository,
        queries: GameQueries,
        mapper: EventMapper,
        *,
        games: Mapping[str, GameRules[Any, Any, Any]],
        clock: Callable[[], datetime],
        writes: Observers | None = None,
    ) -> None:
        self._games = games
        self._writes = Observers() if writes is None else writes
        self._store = store
        self._repository = repository
        self._queries = queries
        self._mapper = mapper
        self._clock = clock

    def export(self, game_id: str, *, viewer: int | None, admin: bool) -> ExportedRecord:
        """The game's record: complete for the admin or once the game is over, else as
        ``viewer`` (a seat, or None for a spectator) may see it."""
        game = self._repository.get(game_id)
        rules, info = game.rules, game.info
        complete = record.sees_all(rules, game.state, admin=admin)
        raw = self._store.read_range(game_id, 1, game.version)
        stored = [self._mapper.decode(game.kind, r) for r in raw]
        start = self._repository.genesis_of(game, stored[0].metadata if stored else None)
        hashes = chain.links(
            start,
            (
                (r.version, r.type, r.schema_version, r.data, s.metadata)
                for r, s in zip(raw, stored, strict=True)
            ),
        )
        after: dict[int, Any] = {}
        if not complete:
            reverts = [
                (s.version, s.event.to_version) for s in stored if isinstance(s.event, GameReverted)
            ]
            gone = _taken_back(reverts, game.version)
            after = self._queries.states_after(game, stored, gone)
        lines: list[dict[str, Any]] = [
            record.header_line(
                game_id,
                game.kind,
                info.seat_names,
                info.options,
                complete,
                len(stored),
                hashes[-1],
                start,
                info.bots,
            )
        ]
        for raw_event, event, hash_hex in zip(raw, stored, hashes, strict=True):
            data: dict[str, Any] = raw_event.data
            command = event.metadata.get(chain.COMMAND_KEY)
            if not complete:
                if not event.type.startswith(SERVICE_KIND + "."):
                    state = after.get(event.version, game.state)
                    data = dict(rules.event_view(event.event, viewer, state, event.data))
                    data.pop("type", None)
                command = record.visible_command(command, event.metadata.get("seat"), viewer)
            lines.append(
                record.event_line(
                    event.version,
                    raw_event.type,
                    raw_event.schema_version,
                    data,
                    event.metadata,
                    command,
                    hash_hex,
                )
            )
        return ExportedRecord(game, record.dump(lines), complete)

    def import_record(self, data: bytes, meta: CommandMeta) -> CreatedGame:
        """A new game (new id, new seat tokens) holding a verified record's events, in one
        atomic write; its chain starts from its own genesis; the record's bot seats stay
        bot seats, with no token. Disagreement / Incomplete for a record that does not
        verify."""
        verified = record.verify(data, self._games)
        header, rules = verified.header, verified.rules
        kind, seats, options = header["kind"], header["seats"], header["options"]
        game_id = uuid.uuid4().hex
        created_ms = int(self._clock().timestamp() * 1000)
        created_at = datetime.fromtimestamp(created_ms / 1000, UTC).isoformat()
        envelopes: list[NewEvent] = []
        # The new game's genesis, as every game's, from the names it was created with (the
        # record's CreateGame); its info has the current ones (the header's, which the
        # verification checked against the creation and the claims).
        created_with = chain.creation_seats({"command": verified.events[0]["command"]}, seats)
        prev = chain.genesis(game_id, kind, created_with, options)
        imported_by = meta.command_id if meta.command_id != DERIVE_COMMAND_ID else uuid.uuid4().hex
        for line in verified.events:
            metadata = {
                **line["meta"],
                "event_id": uuid.uuid4().hex,
                "imported_by": imported_by,
            }
            envelope = NewEvent(line["type"], line["schema"], line["data"], metadata)
            sealed = self._mapper.sealed([envelope], None, line["version"], prev, line["command"])
            prev = sealed.head
            envelopes += sealed.events
        open_seats = verified.open_seats
        status = "open" if open_seats else "over" if rules.is_over(verified.state) else "active"
        info = new_info(
            kind,
            seats,
            options,
            created_ms,
            created_at,
            verified.start_version,
            status,
            open_seats,
            verified.bots,
        )
        info["reverts"] = reverts_field(verified.reverts)
        info["imported_from"] = f"{header['game_id']}@{header['head']}"
        tokens = new_tokens(len(seats))
        tokenless = set(open_seats) | set(verified.bots)  # a seat to claim, or a bot's
        named = tuple(None if seat in tokenless else t for seat, t in enumerate(tokens))
        token_hashes = {hash_token(token): seat for seat, token in enumerate(named) if token}
        self._store.index_game(game_id, created_ms, kind=kind, status=status)
        result = self._store.append(game_id, envelopes, 0, info=info, seat_tokens=token_hashes)
        game = LoadedGame(
            game_id,
            kind,
            rules,
            verified.state,
            result.last,
            game_info(GameRecord(game_id, info, result.last)),
            head=prev,
        )
        self._repository.remember(game)
        # The bot seats it awaits move, as in any game.
        self._writes.appended(Write(game, result.first, (), result.webhooks))
        return CreatedGame(game, named, replayed=False)


def _taken_back(reverts: list[tuple[int, int]], current_version: int) -> set[int]:
    """Versions that reverts took off the line that leads to ``current_version``."""
    gone: set[int] = set()
    line = current_version
    for version, to_version in sorted(reverts, reverse=True):
        if version <= line:
            gone.update(range(to_version + 1, version))
            line = to_version
    return gone
