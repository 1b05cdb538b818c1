"""``/ratings/<kind>`` and ``/players/<id>/ratings``: the ratings read model
(``service.application.ratings``), a projection of the rated games: the leaderboard of a
kind, a player's current ratings and a player's history of one kind. Public, as a
tournament's standings are: they show only display names and numbers."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from domain.games import all_games
from service.api.context import caller_for, services
from service.api.declare import ok, operation, query, ref
from service.api.http import json_response, load_query
from service.api.problems import not_found
from service.api.schemas import RatingPageQuerySchema
from service.application.ratings import rating_json
from service.store.port import PlayerRecord, RatingHistoryEntry, is_player_id

blueprint = Blueprint("ratings", __name__)

KIND: dict[str, Any] = {
    "name": "kind",
    "in": "path",
    "required": True,
    "description": "The game's kind.",
    "schema": ref("Kind"),
}
PLAYER: dict[str, Any] = {
    "name": "player_id",
    "in": "path",
    "required": True,
    "description": "The player's id.",
    "schema": ref("PlayerId"),
}


def _kind(kind: str) -> str:
    if kind not in all_games():
        raise not_found(f"no game of kind {kind!r}")
    return kind


def _player(player_id: str) -> PlayerRecord:
    record = services().games.players.get(player_id) if is_player_id(player_id) else None
    if record is None:
        raise not_found(f"no player {player_id!r}")
    return record


def _next(offset: int, count: int, total: int) -> int | None:
    return offset + count if offset + count < total else None


@blueprint.get("/ratings/<kind>")
@operation(
    "getLeaderboard",
    tags=["ratings"],
    summary="The players' ratings of a kind, best first (a page at a time).",
    description=(
        "Every player with a rated game of the kind, ordered by the conservative rating "
        "`ordinal` (mu - 3 sigma of openskill's Plackett-Luce model), best first; equal "
        "ordinals in a fixed order. The ratings are a projection of the rated games' "
        "events: a game counts once it is over, a moment after its last move (a "
        "background job), so a leaderboard read right after a game may not show it yet."
    ),
    path_parameters=[KIND],
    parameters=[query(RatingPageQuerySchema)],
    responses={200: ok("One page.", "Leaderboard")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "NotFound", "Unavailable"],
)
def get_leaderboard(kind: str) -> Response:
    caller_for(None)
    _kind(kind)
    page = load_query(RatingPageQuerySchema())
    offset, limit = page["offset"], page["limit"]
    games = services().games
    entries, total = games.ratings.store.leaderboard(kind, offset, limit)
    items = []
    for rank, (player_id, rating) in enumerate(entries, start=offset + 1):
        record = games.players.get(player_id)
        items.append(
            {
                "rank": rank,
                "player_id": player_id,
                "name": "" if record is None else record.name,
                "rating": rating_json(rating),
            }
        )
    answer = {
        "kind": kind,
        "items": items,
        "total": total,
        "next_offset": _next(offset, len(entries), total),
    }
    return json_response(answer)


@blueprint.get("/players/<player_id>/ratings")
@operation(
    "getPlayerRatings",
    tags=["ratings"],
    summary="A player's current rating of each kind it has played rated games of.",
    path_parameters=[PLAYER],
    responses={200: ok("The player's ratings, by kind.", "PlayerRatings")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "NotFound", "Unavailable"],
)
def get_player_ratings(player_id: str) -> Response:
    caller_for(None)
    record = _player(player_id)
    store = services().games.ratings.store
    ratings = {}
    for kind in sorted(all_games()):
        found = store.ratings(kind, [record.player_id]).get(record.player_id)
        if found is not None:
            ratings[kind] = rating_json(found)
    return json_response({"player_id": record.player_id, "name": record.name, "ratings": ratings})


def _entry(entry: RatingHistoryEntry) -> dict[str, Any]:
    return {
        "game_id": entry.game_id,
        "version": entry.version,
        "ended_at": entry.ended_at,
        "seat": entry.seat,
        "place": entry.place,
        "before": rating_json(entry.before),
        "after": rating_json(entry.after),
    }


@blueprint.get("/players/<player_id>/ratings/<kind>/history")
@operation(
    "getRatingHistory",
    tags=["ratings"],
    summary="A player's rated games of a kind, newest first: the rating before and after each.",
    description=(
        "`before` is null for the player's first rated game of the kind (the model's "
        "starting rating applied)."
    ),
    path_parameters=[PLAYER, KIND],
    parameters=[query(RatingPageQuerySchema)],
    responses={200: ok("One page.", "RatingHistory")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "NotFound", "Unavailable"],
)
def get_rating_history(player_id: str, kind: str) -> Response:
    caller_for(None)
    record = _player(player_id)
    _kind(kind)
    page = load_query(RatingPageQuerySchema())
    offset, limit = page["offset"], page["limit"]
    entries, total = services().games.ratings.store.history(kind, record.player_id, offset, limit)
    answer = {
        "player_id": record.player_id,
        "kind": kind,
        "items": [_entry(e) for e in entries],
        "total": total,
        "next_offset": _next(offset, len(entries), total),
    }
    return json_response(answer)
