"""Turning loaded games and stored events into JSON for one caller.

Redaction goes through the domain only: ``rules.view`` and ``rules.event_view``. A state
has one shape for every caller: the admin's view, and every view once a game has ended
(history included), is the complete one. Events are rendered per viewer by
``service.application.rendering`` (the webhook deliveries use it too).
"""

from __future__ import annotations

from datetime import UTC, datetime

from domain.common.codec import JSON
from service.api.auth import Caller
from service.application.clocks import ClockReading
from service.application.mapper import GameInfo
from service.application.players import lists_of, seats_of
from service.application.rendering import event_json, events_json, taken_back
from service.application.repository import LoadedGame
from service.application.undo import UndoRecord

__all__ = [
    "bot_json",
    "clock_json",
    "command_json",
    "event_json",
    "events_json",
    "game_json",
    "info_json",
    "state_json",
    "taken_back",
    "undo_json",
    "viewer_label",
]


def viewer_label(caller: Caller) -> str:
    return caller.actor


def game_json(game: LoadedGame) -> JSON:
    info = game.info
    dynasties = game.rules.dynasties
    seats = [
        (
            {
                "seat": seat,
                "name": name,
                "open": seat in info.open_seats,
                "dynasty": dynasties[seat],
            }
            if seat < len(dynasties)
            else {"seat": seat, "name": name, "open": seat in info.open_seats}
        )
        | bot_json(info, seat)
        for seat, name in enumerate(info.seat_names)
    ]
    status = "open" if info.open_seats else "active"
    if game.rules.is_over(game.state):
        status = "over"
    return (
        {
            "game_id": game.game_id,
            "kind": game.kind,
            "seats": seats,
            "options": dict(info.options),
            "status": status,
            "version": game.version,
            "created_at": info.created_at,
        }
        | ({} if info.clock is None else {"clock": info.clock.to_json()})
        | ({"rated": True} if info.rated else {})
        | rematch_json(info)
    )


def rematch_json(info: GameInfo) -> JSON:
    """A game's rematch links, when it has any: the game it is a rematch of, its rematch."""
    links = {"rematch_of": info.rematch_of, "rematch": info.rematch}
    return {name: value for name, value in links.items() if value is not None}


def state_json(game: LoadedGame, caller: Caller, *, public: bool = False) -> JSON:
    """The state of ``game`` as ``caller`` may see it (``public``: history after the end)."""
    rules = game.rules
    state = rules.view(game.state, caller.seat, complete=caller.admin or public)
    return {
        "game_id": game.game_id,
        "version": game.version,
        "viewer": viewer_label(caller),
        "over": rules.is_over(game.state),
        "state": state,
    }


def command_json(rules_json: JSON) -> JSON:
    """A command as a client sends it: ``seat`` comes from the token, so it is left out."""
    return {key: value for key, value in rules_json.items() if key != "seat"}


def bot_json(info: GameInfo, seat: int) -> JSON:
    """``{"bot": {...}}`` for a seat a bot plays, else nothing."""
    bot = info.bots.get(seat)
    return {} if bot is None else {"bot": bot.to_json()}


def info_json(info: GameInfo) -> JSON:
    """A game of a listing, from its stored info record (no fold needed)."""
    return {
        "game_id": info.game_id,
        "kind": info.kind,
        "seats": [
            {"seat": seat, "name": name, "open": seat in info.open_seats} | bot_json(info, seat)
            for seat, name in enumerate(info.seat_names)
        ],
        "options": dict(info.options),
        "status": info.status,
        "version": info.version,
        "created_at": info.created_at,
    } | ({} if info.clock is None else {"clock": info.clock.to_json()})


def undo_json(record: UndoRecord, game: LoadedGame) -> JSON:
    """An undo request with its outcome; ``awaiting``: the seats of ``game`` whose answer
    is still needed."""
    return {
        "request_id": record.request_id,
        "to_version": record.to_version,
        "reason": record.reason,
        "requested_by": record.requested_by,
        "status": record.status,
        "self_undo": record.self_undo,
        "approved_by": list(record.approved_by),
        "rejected_by": list(record.rejected_by),
        "awaiting": record.awaiting(len(game.info.seat_names)),
        "requested_at": record.requested_at,
        "applied_at": record.applied_at,
    }


def clock_json(reading: ClockReading) -> JSON:
    """The awaited seats' remaining time and deadlines (``pending``'s ``clock``)."""
    return {
        "since": datetime.fromtimestamp(reading.since, UTC).isoformat(),
        "seats": [
            {
                "seat": seat,
                "remaining_ms": round(reading.remaining_s[seat] * 1000),
                "deadline": datetime.fromtimestamp(reading.deadlines[seat], UTC).isoformat(),
            }
            for seat in sorted(reading.deadlines)
        ],
    }


def player_game_json(game: LoadedGame, player_id: str) -> JSON:
    """One of a player's games (``GET /players/me/games``): its seats (which are the
    player's), version, whose turn, and ``lists``: the player's lists it belongs in (the
    caller removes it)."""
    info, rules, state = game.info, game.rules, game.state
    mine = seats_of(info.players, player_id)
    awaited = sorted(rules.awaited(state))
    number, active = rules.turn(state)
    lists = lists_of(info.players, info.status, awaited).get(player_id, frozenset())
    return {
        "game_id": game.game_id,
        "kind": game.kind,
        "status": info.status,
        "version": game.version,
        "seats": [
            {"seat": seat, "name": name, "mine": seat in mine, "open": seat in info.open_seats}
            | bot_json(info, seat)
            for seat, name in enumerate(info.seat_names)
        ],
        "my_seats": list(mine),
        "turn": {"number": number, "seat": active},
        "awaited": awaited,
        "awaiting_me": any(seat in mine for seat in awaited) and info.status == "active",
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "clock": None,
        "lists": sorted(name for name in lists if name is not None),
    }
