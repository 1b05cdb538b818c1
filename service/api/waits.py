"""Waiting for one's turn, so that a client holding one seat plays with one call per move.

A seat that is not awaited after its command would otherwise have to ask again (poll, or
follow the event stream) to learn when its turn comes back. Instead the answer may be held:
``Prefer: wait=N`` (RFC 7240) on ``POST /games/{id}/commands`` holds the answer, after the
command is appended (never before), until one of the caller's seats is awaited again, the
game is over, or ``N`` seconds have passed (cut to ``ApiSettings.max_wait_s``); the answer
then holds everything appended meanwhile, as the caller may see it, and ``next``/``legal``
at that version, with ``Preference-Applied: wait=N``. ``?wait=N`` on
``GET /games/{id}/pending`` and ``GET /games/{id}/legal-commands`` does the same for a
seat's first turn (``after``: only at a version past it).

A held request sleeps in a blocking Redis read of the game's stream (XREAD BLOCK through
``GameQueries.wait_for_events``, at most one heartbeat long at a time) on the streams' own
Redis pool, never polling; it takes a slot of the stream gate (``service.api.streams``) while
it waits, so that held answers and event streams together never exceed that pool. When the
gate is full the answer is not held: it comes at once, without ``Preference-Applied`` (a
server may ignore a preference, RFC 7240 section 2), and the client asks again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Response, request

from service.api.context import services
from service.api.problems import ApiProblem, bad_request
from service.api.settings import MAX_HOLD_S
from service.api.streams import stream_gate
from service.application.game_service import GameService
from service.application.repository import LoadedGame

WAIT = "wait"


def preferred_wait() -> int | None:
    """The seconds of ``Prefer: wait=N`` (delta-seconds: a whole number, 0 to
    ``MAX_HOLD_S``), None without one; any other value is a 400 naming ``Prefer``, raised
    before anything is written."""
    found: int | None = None
    for value in request.headers.getlist("Prefer"):
        for part in value.split(","):
            name, equals, raw = part.split(";", 1)[0].strip().partition("=")
            if name.strip().lower() != WAIT:
                continue
            raw = raw.strip()
            if len(raw) >= 2 and raw[0] == raw[-1] == '"':
                raw = raw[1:-1]
            if not equals or not raw.isascii() or not raw.isdigit() or int(raw) > MAX_HOLD_S:
                raise bad_request(
                    f"Prefer: wait must be a whole number of seconds from 0 to {MAX_HOLD_S} "
                    f"(RFC 7240 delta-seconds), not {raw!r}",
                    "Prefer",
                )
            if found is not None and found != int(raw):
                raise bad_request("Prefer names two different waits", "Prefer")
            found = int(raw)
    return found


def granted(asked: int | None) -> int | None:
    """The seconds a wait of ``asked`` seconds may last here: cut to the setting."""
    return None if asked is None else min(asked, services().settings.max_wait_s)


def settled(game: LoadedGame, seats: tuple[int, ...], after: int | None = None) -> bool:
    """Whether a wait of a caller holding ``seats`` is over at ``game``'s version: the game
    is over, or (past ``after``, if given, and started) one of ``seats`` is awaited; a
    caller holding no seat waits for a version past ``after`` (without one, not at all)."""
    rules = game.rules
    if rules.is_over(game.state):
        return True
    if after is not None and game.version <= after:
        return False
    if not seats:  # a spectator (or the admin) waits for a version past ``after`` only
        return after is None or game.version > after
    if game.info.open_seats:
        return False
    return not set(seats).isdisjoint(rules.awaited(game.state))


def hold(
    games: GameService,
    game: LoadedGame,
    seats: tuple[int, ...],
    wait_s: float,
    *,
    after: int | None = None,
) -> LoadedGame:
    """The game once ``settled`` for ``seats``, or as it is after ``wait_s`` seconds. Each
    round blocks on the game's stream until an event follows the version in hand (one
    XREAD BLOCK, at most the store's longest block), then loads the game again."""
    deadline = time.monotonic() + wait_s
    game_id = game.game_id
    while not settled(game, seats, after):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        games.queries.wait_for_events(game_id, game.version, remaining, game=game, limit=1)
        game = games.repository.get(game_id)
    return game


def waited(
    game: LoadedGame, seats: tuple[int, ...], wait_s: int | None, after: int | None
) -> tuple[LoadedGame, int | None]:
    """A read's ``?wait=``: the game once settled (or as it is when no slot is free or
    ``wait_s`` passed) and the wait applied (None: not held)."""
    if wait_s is None or settled(game, seats, after):
        return game, wait_s
    with wait_slot(game.game_id) as slot:
        if not slot:
            return game, None
        return hold(services().games, game, seats, wait_s, after=after), wait_s


@contextmanager
def wait_slot(game_id: str) -> Iterator[bool]:
    """A slot of the stream gate for one held answer (True), or False when the gate is
    full (then the answer is not held)."""
    try:
        release = stream_gate().enter(request.remote_addr or "", game_id)
    except ApiProblem:
        yield False
        return
    try:
        yield True
    finally:
        release()


def applied(response: Response, seconds: int | None) -> Response:
    """``Preference-Applied: wait=N`` on ``response`` when a wait of ``seconds`` was
    honoured (RFC 7240 section 3)."""
    if seconds is not None:
        response.headers["Preference-Applied"] = f"{WAIT}={seconds}"
    return response
