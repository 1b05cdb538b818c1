"""Command handling: create games, decide commands and append their events.

Flow of a command (``handle``): decode it for the game's kind (the caller's seat is put
in) → decide on this process's latest copy of the game (``GameRepository.cached``) → append
with that copy's version as the expected one, atomically with the idempotency record and
the game's status → remember the new state. The append's version check makes deciding on a
copy that may be behind safe, and the store's script answers a known idempotency key
before anything else, so a command is usually one store round trip. A copy found behind
(the caller's ``If-Match`` is later, or the append says the stream is longer: another
process appended) catches up by reading only the events it lacks
(``GameRepository.catch_up``) and the command is decided again on it. Without a copy, or
when the copy refused the command or is still behind, the checked path runs: read the
game's info → answer from the idempotency record if the key was used → load (snapshot +
events since) → decide → append → remember.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.common.errors import FormatError, RulesError
from domain.common.protocol import GameRules
from service.application import chain
from service.application.bots import BotSeat
from service.application.clocks import ClockSpec
from service.application.mapper import (
    CommandMeta,
    EventMapper,
    GameInfo,
    StoredEvent,
    game_info,
    new_info,
    reverts_field,
)
from service.application.observer import (
    UNKNOWN,
    NullObserver,
    Observer,
    outcome_of,
)
from service.application.players import Membership, PlayerGames, lists_of
from service.application.record import CREATE_GAME
from service.application.repository import GameRepository, LoadedGame
from service.application.tokens import derived_tokens, hash_token, new_salt, new_tokens
from service.application.writes import Observers, Write
from service.errors import (
    ConcurrencyError,
    GameExists,
    GameNotStarted,
    IdempotencyConflict,
    SeatHasResigned,
    StoreUnavailable,
)
from service.events import GameReverted
from service.store.port import (
    AppendResult,
    EventStore,
    GameRecord,
    Idempotency,
    RatingStore,
    check_game_id,
)

# The actor of a write a seat's own token or player key sends (``seat:<n>``): once the seat
# has resigned, only the server's actors (``zombie:<n>``, ``clock``, ...) act for it.
SEAT_ACTOR = "seat:"


@dataclass(frozen=True)
class CreatedGame:
    """A new game with its named seats' tokens (index = seat); ``replayed``: an earlier attempt
    with the same idempotency key had created it."""

    game: LoadedGame
    # None for an open seat (its token comes with its claim) and for a bot seat (none ever:
    # only its bot plays it)
    tokens: tuple[str | None, ...]
    replayed: bool


@dataclass(frozen=True)
class CommandOutcome:
    game: LoadedGame
    events: list[StoredEvent]
    replayed: bool
    webhooks: int | None = None  # the game's webhook subscriptions, if the append said


def command_hash(kind: str, command_json: Mapping[str, Any], actor: str) -> str:
    """What "the same command" means for idempotency: same game kind, actor and command."""
    canonical = json.dumps(
        {"kind": kind, "actor": actor, "command": command_json},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def create_command(
    seat_names: Sequence[str],
    options: Mapping[str, Any],
    seed: int,
    open_seats: Sequence[int] = (),
) -> dict[str, Any]:
    """What a game's start events are recorded as coming from (the seed is the setup
    event's; a record shown while the game runs leaves it out); ``open_seats``, the seats
    left to claim in the lobby, only when there are any."""
    command: dict[str, Any] = {"type": CREATE_GAME, "seats": list(seat_names)}
    command["options"] = dict(options)
    command["seed"] = seed
    if open_seats:
        command["open_seats"] = sorted(open_seats)
    return command


def check_rated(seats: int, players: Mapping[int, str]) -> None:
    """A rated game's seats: every one bound to a player, no player in two (a rating is a
    person's; a seat open, a bot's or held by a token has none)."""
    unbound = [seat for seat in range(seats) if seat not in players]
    if unbound:
        raise FormatError(
            f"a rated game needs every seat bound to a player; seats {unbound} are not",
            "rated",
        )
    if len(set(players.values())) != len(players):
        raise FormatError("a rated game needs a different player in every seat", "rated")


def status_of(rules: GameRules[Any, Any, Any], state: Any) -> str:
    return "over" if rules.is_over(state) else "active"


def open_seat_name(seat: int) -> str:
    """The name an open seat created without one carries until it is claimed."""
    return f"Open seat {seat}"


class CommandHandler:
    """The only writer of game streams; every successful append (a creation, a command's
    events, undo events) is told to ``writes`` (``Observers``), once, after it is stored."""

    def __init__(
        self,
        store: EventStore,
        repository: GameRepository,
        mapper: EventMapper,
        clock: Callable[[], datetime],
        *,
        idempotency_ttl_s: int,
        observer: Observer | None = None,
        writes: Observers | None = None,
        player_games: PlayerGames | None = None,
        ratings: RatingStore | None = None,
    ) -> None:
        self._store = store
        self._ratings = ratings
        self._repository = repository
        self._mapper = mapper
        self._clock = clock
        self._idempotency_ttl_s = idempotency_ttl_s
        self._observer: Observer = observer or NullObserver()
        self._writes = Observers() if writes is None else writes
        self._player_games = player_games

    # ------------------------------------------------------------------ creation
    def create_game(  # noqa: PLR0917 (a game's setup, as the API receives it)
        self,
        kind: str,
        seat_names: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        meta: CommandMeta,
        game_id: str | None = None,
        *,
        token_hashes: Sequence[str] = (),
        created_ms: int | None = None,
        bots: Mapping[int, BotSeat] | None = None,
        clock: ClockSpec | None = None,
        open_seats: Sequence[int] = (),
        players: Mapping[int, str] | None = None,
        rated: bool = False,
        rematch_of: str | None = None,
    ) -> LoadedGame:
        """Create a game (``rematch_of``: the finished game it is a rematch of). ``players``:
        seats bound to players (``service.application.players``;
        they get no token, their player's key plays them), in the players' game lists before
        the write. ``open_seats``: seats left for players to claim (the game's
        status is "open" until every one is claimed; no command is accepted before); their
        entries of ``token_hashes`` are not stored (an open seat's token comes with its
        claim). ``bots``: the seats server-side bots play, which have no token (their
        entries of ``token_hashes`` are not stored either); ``clock``: the time control.
        ``token_hashes`` (one per seat) are stored in the same atomic write as the start
        events and info, so no game exists without its seats' tokens; the game is indexed
        *before* that write, so a game that answers is always listed (an index entry whose
        game never got written is dropped by ``list_games``). ``created_ms`` fixes the
        creation time (an idempotent retry keeps its first one). A taken ``game_id`` is
        ``GameExists``. ``rated``: its result updates its players' ratings
        (``service.application.ratings``); every seat must then be bound to a player of its
        own (else a FormatError naming ``rated``)."""
        rules = self._repository.rules(kind)
        game_id = uuid.uuid4().hex if game_id is None else check_game_id(game_id)
        names = tuple(seat_names)
        if not rules.min_seats <= len(names) <= rules.max_seats:
            raise FormatError(
                f"{kind} needs {rules.min_seats}-{rules.max_seats} seats, got {len(names)}",
                "seat_names",
            )
        if not all(isinstance(n, str) and n.strip() for n in names):
            raise FormatError(
                f"seat names must be non-empty strings: {list(names)!r}", "seat_names"
            )
        open_set = frozenset(open_seats)
        if not open_set <= set(range(len(names))):
            raise FormatError(f"open seats {sorted(open_set)} beyond {len(names)} seats", "seats")
        for seat in bots or {}:
            if not 0 <= seat < len(names):
                raise FormatError(f"no seat {seat} for a bot", "seats")
            if seat in open_set:
                raise FormatError(f"seat {seat} cannot be both open and a bot's", "seats")
        bound = dict(players or {})
        for seat in bound:
            if not 0 <= seat < len(names) or seat in open_set or seat in (bots or {}):
                raise FormatError(f"seat {seat} cannot be bound to a player", "seats")
        if rated:
            check_rated(len(names), bound)
        normalized = rules.normalize_options(options)
        if seed is None:
            seed = secrets.randbits(63)  # the seed decides the bag: unguessable
        events = rules.start(list(names), normalized, seed)
        state = rules.fold(events)
        if token_hashes and len(token_hashes) != len(names):
            raise ValueError(f"{len(token_hashes)} token hashes for {len(names)} seats")
        if created_ms is None:
            created_ms = int(self._clock().timestamp() * 1000)
        created_at = datetime.fromtimestamp(created_ms / 1000, UTC).isoformat()
        status = "open" if open_set else status_of(rules, state)
        info = new_info(
            kind,
            names,
            normalized,
            created_ms,
            created_at,
            len(events),
            status,
            sorted(open_set),
            bots,
            clock,
            bound,
            rematch_of,
            rated=rated,
        )
        envelopes = self._mapper.envelopes(kind, events, meta, created_at)
        creation = create_command(names, normalized, seed, sorted(open_set))
        start = chain.genesis(game_id, kind, names, normalized)  # the names given here
        sealed = self._mapper.sealed(envelopes, rules.explain(None, events), 1, start, creation)
        self._store.index_game(game_id, created_ms, kind=kind, status=status)
        membership = Membership(
            game_id, created_ms, {}, lists_of(bound, status, rules.awaited(state))
        )
        if bound and self._player_games is not None:
            self._player_games.entering(membership)
        if rated and self._ratings is not None:  # before: the sweep counts it if a job is lost
            self._ratings.expect(kind, game_id)
        tokenless = open_set | set(bots or {}) | set(bound)  # to claim, a bot's, a player's
        tokens = {digest: seat for seat, digest in enumerate(token_hashes) if seat not in tokenless}
        try:
            result = self._store.append(game_id, sealed.events, 0, info=info, seat_tokens=tokens)
        except ConcurrencyError as exc:
            raise GameExists(0, exc.actual, game_id) from None
        record = GameRecord(game_id, info, result.last)
        game = LoadedGame(
            game_id, kind, rules, state, result.last, game_info(record), head=sealed.head
        )
        if bound and self._player_games is not None:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self._player_games.left(membership)
        stored = self._mapper.appended(game_id, result, sealed, events)
        self._writes.appended(Write(game, result.first, tuple(stored), result.webhooks))
        return game

    def create_seated_game(  # noqa: PLR0917 (create_game's arguments)
        self,
        kind: str,
        seat_names: Sequence[str],
        options: Mapping[str, Any],
        seed: int | None,
        meta: CommandMeta,
        idempotency_key: str | None = None,
        bots: Mapping[int, BotSeat] | None = None,
        clock: ClockSpec | None = None,
        *,
        open_seats: Sequence[int] = (),
        players: Mapping[int, str] | None = None,
        rated: bool = False,
    ) -> CreatedGame:
        """Create a game and its named seats' tokens (returned once; only hashes are
        stored); ``open_seats`` are left for players to claim (``SeatClaims``).

        With an ``idempotency_key`` the creation can be retried safely: the first attempt
        records (for the idempotency TTL) the game id, the creation time and a salt from
        which the tokens are derived (``service.application.tokens``); a retry with the
        same key and body creates that same game if no earlier attempt got that far, or
        answers with it, and its tokens, if one did. The same key with another body is an
        IdempotencyConflict."""
        count = len(seat_names)
        if idempotency_key is None:
            tokens = new_tokens(count)
            game = self.create_game(
                kind,
                seat_names,
                options,
                seed,
                meta,
                token_hashes=[hash_token(t) for t in tokens],
                bots=bots,
                clock=clock,
                open_seats=open_seats,
                players=players,
                rated=rated,
            )
            return CreatedGame(game, _named(tokens, open_seats, bots, players), replayed=False)
        body: dict[str, Any] = {"seats": list(seat_names), "options": dict(options), "seed": seed}
        if open_seats:
            body["open_seats"] = sorted(open_seats)
        if bots:
            body["bots"] = {str(seat): bots[seat].to_json() for seat in sorted(bots)}
        if clock is not None:
            body["clock"] = clock.to_json()
        if players:
            body["players"] = {str(seat): players[seat] for seat in sorted(players)}
        if rated:
            body["rated"] = True
        digest = command_hash(kind, body, meta.actor)
        proposal = {
            "hash": digest,
            "game_id": uuid.uuid4().hex,
            "created_ms": str(int(self._clock().timestamp() * 1000)),
            "salt": new_salt(),
        }
        record = self._store.reserve_creation(idempotency_key, proposal, self._idempotency_ttl_s)
        if record.get("hash") != digest:
            raise IdempotencyConflict(idempotency_key)
        game_id = record["game_id"]
        tokens = derived_tokens(record["salt"], game_id, count)
        try:
            game = self.create_game(
                kind,
                seat_names,
                options,
                seed,
                meta,
                game_id,
                token_hashes=[hash_token(t) for t in tokens],
                created_ms=int(record["created_ms"]),
                bots=bots,
                clock=clock,
                open_seats=open_seats,
                players=players,
                rated=rated,
            )
        except GameExists:
            self._observer.idempotent_replay(kind)
            game = self._repository.get(game_id)
            return CreatedGame(game, _named(tokens, open_seats, bots, players), replayed=True)
        return CreatedGame(game, _named(tokens, open_seats, bots, players), replayed=False)

    # ------------------------------------------------------------------ commands
    def handle(
        self,
        game_id: str,
        command: Mapping[str, Any] | object,
        *,
        meta: CommandMeta,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> CommandOutcome:
        """Decide ``command`` (client JSON or a command object) as ``meta``'s seat, and
        append its events. ``expected_version``: the version the caller saw (If-Match).
        Every call is reported to the observer with its kind, type, outcome and duration."""
        labels = _Labels()
        started = time.perf_counter()
        outcome: CommandOutcome | None = None
        failure: BaseException | None = None
        try:
            outcome = self._handle(
                game_id, command, labels, meta, expected_version, idempotency_key
            )
            return outcome
        except BaseException as exc:
            failure = exc
            raise
        finally:
            replayed = outcome is not None and outcome.replayed
            self._observer.command(
                labels.kind,
                labels.command_type,
                outcome_of(failure, replayed=replayed),
                time.perf_counter() - started,
            )

    def _handle(  # noqa: PLR0917 (handle's arguments)
        self,
        game_id: str,
        command: Mapping[str, Any] | object,
        labels: _Labels,
        meta: CommandMeta,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> CommandOutcome:
        cached = self._repository.cached(game_id)
        if cached is not None:
            # The fast path: decide on this process's latest copy without first reading
            # the stream's version; the append's version check proves the copy current
            # (and the script answers a known idempotency key before anything else).
            # Should the copy be behind or the command fail on it, the checked path
            # below answers as if this attempt had never been made: nothing was written.
            labels.kind = cached.kind
            decoded, command_json, digest = self._command(cached.kind, command, meta)
            labels.command_type = type(decoded).__name__
            path = "cached"
            if expected_version is not None and expected_version > cached.version:
                # The caller has seen a later version (from another process): this copy
                # is behind; read only the events it lacks.
                cached, path = self._repository.catch_up(cached), "catch_up"
            for attempt in range(2):
                try:
                    outcome = self._decide_and_append(
                        cached, decoded, command_json, digest, meta, expected_version,
                        idempotency_key,
                    )  # fmt: skip
                except GameNotStarted:
                    break
                except RulesError:
                    # Perhaps refused only because the copy is behind: catch up once and
                    # decide again; a copy already current leaves it to the checked path.
                    caught = None if attempt else self._repository.catch_up(cached)
                    if caught is None or caught.version == cached.version:
                        break
                    cached, path = caught, "catch_up"
                except ConcurrencyError as exc:
                    # Stale: the append found the stream longer than the copy. Catch up
                    # once and try again; a caller's If-Match that is simply out of date
                    # (or a second race) goes to the checked path.
                    if attempt or exc.expected != cached.version or exc.actual <= cached.version:
                        break
                    cached, path = self._repository.catch_up(cached), "catch_up"
                else:
                    self._observer.command_path(path)
                    return outcome
        self._observer.command_path("checked")
        record = self._repository.record(game_id)
        kind = labels.kind = record.fields["kind"]
        decoded, command_json, digest = self._command(kind, command, meta)
        labels.command_type = type(decoded).__name__
        if idempotency_key is not None:
            replayed = self._replay_if_known(game_id, kind, idempotency_key, digest)
            if replayed is not None:
                return replayed
        try:
            # The record read above fixes the version we decide at; should the game move
            # on meanwhile, the append's version check refuses (or replays a twin).
            game = self._repository.at(record, record.version)
            return self._decide_and_append(
                game, decoded, command_json, digest, meta, expected_version, idempotency_key
            )
        except (RulesError, ConcurrencyError):
            # A twin of this request may have been appended since the lookup above,
            # moving the game on: then the answer is the twin's outcome, not an error.
            replayed = None
            if idempotency_key is not None:
                replayed = self._replay_if_known(game_id, kind, idempotency_key, digest)
            if replayed is None:
                raise
            return replayed

    def append(
        self,
        game: LoadedGame,
        events: Sequence[object],
        state: Any,
        meta: CommandMeta,
        idempotency: Idempotency | None = None,
        *,
        command: Mapping[str, Any] | None = None,
        trails: Sequence[Sequence[str]] | None = None,
        awaiting: Sequence[str] = (),
    ) -> CommandOutcome:
        """Append ``events`` (decided on ``game``, leading to ``state``) if the game is
        still at ``game``'s version: atomically with the idempotency record and the info
        fields that change (status, update time, revert history). ``command`` (JSON: what
        was asked) is kept with the first event, ``trails`` (the rule ids of each event)
        with each; every event carries its link in the game's hash chain
        (``service.application.chain``), from ``game``'s head. Nothing is appended to a
        game whose seats are not all claimed yet (``GameNotStarted``). ``awaiting``: the
        actors an undo request these events leave open awaits (told to ``writes``)."""
        if game.info.status == "open":
            raise GameNotStarted(game.game_id, game.info.open_seats)
        recorded_at = meta.recorded_at or self._clock().astimezone(UTC).isoformat()
        envelopes = self._mapper.envelopes(game.kind, events, meta, recorded_at)
        prev = self._repository.head_of(game)
        sealed = self._mapper.sealed(envelopes, trails, game.version + 1, prev, command)
        status = status_of(game.rules, state)
        info_fields = {"status": status, "updated_at": recorded_at}
        reverts = game.info.reverts
        new_reverts = [
            (game.version + n, event.to_version)
            for n, event in enumerate(events, start=1)
            if isinstance(event, GameReverted)
        ]
        if new_reverts and reverts is not None:
            # Kept in the game's info by the same atomic write, so that a page of the log
            # knows which events were taken back without reading the rest of the log.
            reverts = (*reverts, *new_reverts)
            info_fields["reverts"] = reverts_field(reverts)
        before = game.info.status
        created_ms = game.info.created_ms
        # A status change is indexed before it is true and unindexed after: listing skips
        # and repairs an entry that disagrees with the game's info (GameQueries).
        if status != before:
            self._store.index_game(game.game_id, created_ms, kind=game.kind, status=status)
        player_games, membership = self._player_games, self._membership(game, state, status)
        if player_games is not None and membership is not None:
            player_games.entering(membership)
        try:
            result = self._store.append(
                game.game_id, sealed.events, game.version, idempotency=idempotency, info=info_fields
            )
        except ConcurrencyError:
            self._observer.append_conflict(game.kind)
            raise
        if status != before and not result.replayed:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                self._store.index_game(game.game_id, created_ms, kind=game.kind, status=status)
                self._store.unindex_game(
                    game.game_id, created_ms, [(None, before), (game.kind, before)]
                )
        if player_games is not None and membership is not None and not result.replayed:
            with contextlib.suppress(StoreUnavailable):  # stored: listing repairs the rest
                player_games.left(membership)
        if result.replayed:  # a concurrent twin with the same key won the race
            self._observer.idempotent_replay(game.kind)
            return self._outcome_of_replay(game.game_id, result)
        changed = {"status": status, "updated_at": recorded_at, "version": result.last}
        info = GameInfo(**{**game.info.__dict__, **changed, "reverts": reverts})
        after = LoadedGame(
            game.game_id,
            game.kind,
            game.rules,
            state,
            result.last,
            info,
            game.snapshot_version,
            sealed.head,
        )
        self._repository.remember(after)
        stored = self._mapper.appended(game.game_id, result, sealed, events)
        write = Write(after, result.first, tuple(stored), result.webhooks, tuple(awaiting))
        self._writes.appended(write)
        return CommandOutcome(after, stored, replayed=False, webhooks=result.webhooks)

    def _membership(self, game: LoadedGame, state: Any, status: str) -> Membership | None:
        """How an append leading ``game`` to ``state`` moves it in its players' lists
        (None: it has no players, or nothing moves)."""
        players = game.info.players
        if not players or self._player_games is None:
            return None
        rules = game.rules
        change = Membership(
            game.game_id,
            game.info.created_ms,
            lists_of(players, game.info.status, rules.awaited(game.state)),
            lists_of(players, status, rules.awaited(state)),
        )
        return change if change.changed else None

    def _command(
        self, kind: str, command: Mapping[str, Any] | object, meta: CommandMeta
    ) -> tuple[object, dict[str, Any], str]:
        """The command decoded for a ``kind`` game, its JSON (as stored) and its
        idempotency hash."""
        decoded, command_json = self._decoded(kind, command, meta)
        return decoded, command_json, command_hash(kind, command_json, meta.actor)

    def _decoded(
        self, kind: str, command: Mapping[str, Any] | object, meta: CommandMeta
    ) -> tuple[object, dict[str, Any]]:
        """The command decoded for a ``kind`` game, and its JSON (as stored)."""
        rules = self._repository.rules(kind)
        if isinstance(command, Mapping):
            body = dict(command)
            if meta.seat is not None:
                body["seat"] = meta.seat  # the caller's seat, never the one claimed in the body
            decoded = rules.commands.from_json(body)
        else:
            decoded = command
        try:
            command_json = rules.commands.to_json(decoded)
        except KeyError:  # an object, but not a command of this game
            raise FormatError(f"not a {kind} command: {decoded!r}", "type") from None
        return decoded, command_json

    def _decide_and_append(  # noqa: PLR0917 (one step of handle)
        self,
        game: LoadedGame,
        decoded: object,
        command_json: Mapping[str, Any],
        digest: str,
        meta: CommandMeta,
        expected_version: int | None,
        idempotency_key: str | None,
    ) -> CommandOutcome:
        if game.info.status == "open":  # seats to claim: no command is judged yet
            raise GameNotStarted(game.game_id, game.info.open_seats)
        check_expected(game, expected_version)
        rules = game.rules
        refuse_resigned(game, meta)
        events = rules.decide(game.state, decoded)
        state = game.state
        trails = []  # the rule trail of each event, from the states evolve gives anyway
        for event in events:
            after = rules.evolve(state, event)
            trails.append(rules.explain_event(state, event, after))
            state = after
        idempotency = (
            None
            if idempotency_key is None
            else Idempotency(idempotency_key, digest, self._idempotency_ttl_s)
        )
        return self.append(
            game, events, state, meta, idempotency, command=command_json, trails=trails
        )

    def _replay_if_known(
        self, game_id: str, kind: str, key: str, digest: str
    ) -> CommandOutcome | None:
        found = self._store.lookup_idempotency(game_id, key)
        if found is None:
            return None
        recorded_hash, result = found
        if recorded_hash != digest:
            raise IdempotencyConflict(key)
        self._observer.idempotent_replay(kind)
        return self._outcome_of_replay(game_id, result)

    def _outcome_of_replay(self, game_id: str, result: AppendResult) -> CommandOutcome:
        game = self._repository.get(game_id)
        events = [
            self._mapper.decode(game.kind, r)
            for r in self._store.read_range(game_id, result.first, result.last)
        ]
        return CommandOutcome(game, events, replayed=True)


def _named(
    tokens: Sequence[str],
    open_seats: Sequence[int],
    bots: Mapping[int, BotSeat] | None,
    players: Mapping[int, str] | None = None,
) -> tuple[str | None, ...]:
    """The tokens of the named seats; None for the open ones, the bots' and the players'."""
    tokenless = set(open_seats) | set(bots or {}) | set(players or {})
    return tuple(None if seat in tokenless else token for seat, token in enumerate(tokens))


class _Labels:
    """The labels of a command being handled, filled in as they become known."""

    __slots__ = ("command_type", "kind")

    def __init__(self) -> None:
        self.kind = UNKNOWN
        self.command_type = UNKNOWN


def refuse_resigned(game: LoadedGame, meta: CommandMeta) -> None:
    """SeatHasResigned when ``meta`` is a resigned seat's own write (its token or player
    key): the server acts for that seat now (``zombie:<n>``, ``clock``; see
    domain/RESIGNATION.md)."""
    seat = meta.seat
    if (
        seat is not None
        and meta.actor.startswith(SEAT_ACTOR)
        and seat in game.rules.resigned(game.state)
    ):
        raise SeatHasResigned(game.game_id, seat)


def check_expected(game: LoadedGame, expected_version: int | None) -> None:
    """The caller's precondition (If-Match): the game is at ``expected_version`` (None: any)."""
    if expected_version is not None and expected_version != game.version:
        raise ConcurrencyError(expected_version, game.version, game.game_id)
