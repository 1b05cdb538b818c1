"""What comes next, for the answers of writes: the next pending decision and the caller's
legal commands, so that a client plays a whole game with one call per move.

``GET /games/{id}/pending`` and ``GET /games/{id}/legal-commands`` build their bodies here
too: a write's ``next`` and ``legal`` are exactly what those reads answer at its version
(``next`` without the turn clock, which runs down while the version stands still).
"""

from __future__ import annotations

import functools
from typing import Any

from flask import request

from domain.common.codec import JSON, TypeRegistry
from service.api.presenters import command_json
from service.application.repository import LoadedGame

# RFC 7240: ``Prefer: return=minimal`` asks for the write's result without what comes next.
MINIMAL = "return=minimal"
# Legal commands encoded per process: a board game's few hundred placements recur from
# version to version, and encoding them again was most of a write's CPU.
WIRE_CACHE_SIZE = 32_768


def pending_json(game: LoadedGame) -> JSON:
    """Who is awaited and on what, at ``game``'s version (``PendingView`` without ``clock``).
    ``awaited`` lists the seats in ascending order: the order in which a client holding
    several of them serves them."""
    rules, state = game.rules, game.state
    number, active = rules.turn(state)
    return {
        "version": game.version,
        "awaited": sorted(rules.awaited(state)),
        "over": rules.is_over(state),
        "turn": {"number": number, "seat": active},
        "pending": rules.pending(state),
    }


def legal_json(game: LoadedGame, seat: int) -> JSON:
    """Every command ``seat`` may send at ``game``'s version (``LegalCommands``)."""
    registry = game.rules.commands
    commands = [wire(registry, command) for command in game.rules.legal_commands(game.state, seat)]
    return {"kind": game.kind, "version": game.version, "seat": seat, "commands": commands}


def wire(registry: TypeRegistry[Any], command: Any) -> JSON:
    """``command`` as a client sends it, encoded once per process (commands are frozen
    values); the answer is shared: read it, never change it."""
    try:
        return _wire(registry, command)
    except TypeError:  # a command with an unhashable field: encoded each time
        return command_json(registry.to_json(command))


@functools.lru_cache(maxsize=WIRE_CACHE_SIZE)
def _wire(registry: TypeRegistry[Any], command: Any) -> JSON:
    return command_json(registry.to_json(command))


def awaited_legal(game: LoadedGame, seat: int | None) -> JSON | None:
    """``seat``'s legal commands when it is awaited (and the game has started), else None:
    never another seat's (they may show its hidden hand)."""
    if seat is None or game.info.open_seats or seat not in game.rules.awaited(game.state):
        return None
    return legal_json(game, seat)


def minimal() -> bool:
    """True when the request says ``Prefer: return=minimal`` (any of its preferences)."""
    return any(
        part.split(";", 1)[0].strip().lower() == MINIMAL
        for value in request.headers.getlist("Prefer")
        for part in value.split(",")
    )


def next_legal(game: LoadedGame, seats: tuple[int, ...]) -> JSON | None:
    """The legal commands of the first awaited seat of ``seats`` (the caller's), in serving
    order (ascending seat number), else None: never a seat the caller does not hold."""
    found = serving_order(game, list(seats))
    return found[0] if found else None


def next_move(game: LoadedGame, seats: tuple[int, ...]) -> JSON:
    """``next`` and ``legal`` of a write's answer for the caller holding ``seats`` (a seat
    token: its seat; a player key: every seat bound to it; the admin: none), or nothing
    under ``Prefer: return=minimal``. ``legal`` is the next awaited held seat's (its
    ``seat`` says which), so that a key holding several seats needs no read either."""
    if minimal():
        return {}
    return {"next": pending_json(game), "legal": next_legal(game, seats)}


def serving_order(game: LoadedGame, seats: list[int]) -> list[JSON]:
    """The legal commands of each of ``seats`` (whose tokens the caller holds) that is
    awaited, in serving order (ascending seat number)."""
    found = (awaited_legal(game, seat) for seat in sorted(seats))
    return [legal for legal in found if legal is not None]
