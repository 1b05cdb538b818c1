"""``POST /games/{id}/commands``: a seat's command, with If-Match and Idempotency-Key."""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Response

from service.api.context import act_as, caller_for, services
from service.api.declare import GAME_WRITE_PROBLEMS, body, links, ok, operation
from service.api.http import (
    command_meta,
    expected_version,
    idempotency_key,
    json_response,
    load_body,
)
from service.api.language import language
from service.api.moves import next_move
from service.api.presenters import events_json
from service.api.problems import forbidden
from service.api.schemas import CommandEnvelopeSchema
from service.api.waits import applied, granted, hold, preferred_wait, wait_slot
from service.application.mapper import StoredEvent
from service.application.repository import LoadedGame

blueprint = Blueprint("commands", __name__)


@cache
def _envelope_schema() -> CommandEnvelopeSchema:
    # Built once: a marshmallow schema is reusable, and building one costs more than a load.
    return CommandEnvelopeSchema()


@blueprint.post("/games/<gid:game_id>/commands")
@operation(
    "postCommand",
    tags=["commands"],
    summary="Send a command for the caller's seat.",
    description=(
        "The body is a command in the domain's wire form: `type` plus "
        "its fields; `seat` is implied\n"
        "by the token (if given it must be the caller's seat). The "
        "legal commands of the caller are\n"
        "listed by `GET /games/{game_id}/legal-commands` in exactly "
        "this form.\n"
        "\n**One call per move.** The reply carries the new version (also in its `ETag`, the "
        "If-Match of the next command), the new events as this seat may see them, the next "
        "pending decision (`next`, as `GET /games/{game_id}/pending` answers it at that "
        "version, without the clock) and, when this seat is awaited next, its legal commands "
        "(`legal`, as `GET /games/{game_id}/legal-commands` answers it; `null` when it is not "
        "awaited, and never another seat's). A player key holding several seats gets the "
        "legal commands of the first of them awaited next, in serving order (ascending seat; "
        "`legal.seat` says which): it plays all of them with one call per move. "
        "`Prefer: return=minimal` leaves `next` and `legal` out. `Prefer: wait=N` holds the "
        "answer until the caller is awaited again (or the game ends, or N seconds pass), with "
        "the events appended meanwhile: a client holding one seat needs no read between its "
        "moves either. A replay (`Idempotent-Replayed: true`) answers with the first attempt's "
        "body: the version, events, `next` and `legal` right after that command (never "
        "held).\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=[
        "PlayerSeat",
        "IfMatch",
        "IdempotencyKey",
        "XRequestId",
        "PreferWrite",
        "AcceptLanguage",
    ],
    request_body=body(
        "Command",
        examples={
            "board.PlaceLeader": {
                "summary": (
                    "board: Place a leader from the supply, or move it if it is on "
                    "the board (B-LEADER-1..4)."
                ),
                "value": {"type": "PlaceLeader", "leader": "black", "at": [1, 14]},
            },
            "board.WithdrawLeader": {
                "summary": (
                    "board: Return a leader from the board to its owner's supply (B-LEADER-5)."
                ),
                "value": {"type": "WithdrawLeader", "leader": "green"},
            },
            "board.PlaceTile": {
                "summary": "board: Place a tile from hand (B-TILE-*).",
                "value": {"type": "PlaceTile", "colour": "red", "at": [6, 7]},
            },
            "board.PlaceCatastrophe": {
                "summary": "board: Place a catastrophe tile (B-CAT-*).",
                "value": {"type": "PlaceCatastrophe", "at": [8, 11]},
            },
            "board.SwapTiles": {
                "summary": (
                    "board: Discard 1 to 6 tiles from hand, given as counts per "
                    "colour, and draw as many (B-SWAP-*)."
                ),
                "value": {"type": "SwapTiles", "black": 2, "red": 1, "blue": 0, "green": 0},
            },
            "board.Pass": {
                "summary": "board: Forgo one action (B-TURN-1).",
                "value": {"type": "Pass"},
            },
            "board.CommitSupport": {
                "summary": (
                    "board: Commit ``count`` tiles of the conflict's colour from "
                    "hand (B-REVOLT-3, B-WAR-5)."
                ),
                "value": {"type": "CommitSupport", "count": 1},
            },
            "board.ChooseWar": {
                "summary": "board: Choose which pending war is resolved next (B-WAR-2).",
                "value": {"type": "ChooseWar", "colour": "red"},
            },
            "board.BuildMonument": {
                "summary": (
                    "board: Build ``monument`` on the 2x2 square whose top-left "
                    "corner is ``at`` (B-MONUMENT-1)."
                ),
                "value": {"type": "BuildMonument", "monument": "blue-green", "at": [3, 14]},
            },
            "board.DeclineMonument": {
                "summary": ("board: Build no monument on the squares offered (B-MONUMENT-3)."),
                "value": {"type": "DeclineMonument"},
            },
            "board.TakeTreasures": {
                "summary": (
                    "board: Take these treasures from the trader's kingdom "
                    "(B-TREASURE-1, B-TREASURE-2)."
                ),
                "value": {"type": "TakeTreasures", "squares": [[2, 5]]},
            },
            "board.Resign": {
                "summary": (
                    "board: Give up the game (B-RESIGN-1): the seat's later decisions are "
                    "made for it, and it ranks last (B-RESIGN-2)."
                ),
                "value": {"type": "Resign"},
            },
            "cards.PlaceLeader": {
                "summary": (
                    "cards: Action: put an own leader from supply, or move it, "
                    "onto a card (C-LEADER-1)."
                ),
                "value": {
                    "type": "PlaceLeader",
                    "leader": "blue",
                    "column": 2,
                    "depth": 0,
                    "bridge": None,
                },
            },
            "cards.WithdrawLeader": {
                "summary": (
                    "cards: Action (variant ``allow_withdraw``): take a leader "
                    "back to supply (C-LEADER-2)."
                ),
                "value": {"type": "WithdrawLeader", "leader": "blue"},
            },
            "cards.PlayCard": {
                "summary": (
                    "cards: Action: a card from hand below a column (C-CARD-1) or "
                    "onto a bridge (C-CARD-2)."
                ),
                "value": {"type": "PlayCard", "colour": "green", "column": 2, "bridge": None},
            },
            "cards.PlayCatastrophe": {
                "summary": (
                    "cards: Action: remove one card from the display with the "
                    "catastrophe card (C-CAT-1)."
                ),
                "value": {"type": "PlayCatastrophe", "column": 6, "depth": 1, "bridge": None},
            },
            "cards.Pass": {
                "summary": ("cards: End the turn without using the remaining actions (C-TURN-1)."),
                "value": {"type": "Pass"},
            },
            "cards.TakePoint": {
                "summary": (
                    "cards: Accept an offered point: a card of ``colour`` from "
                    "hand onto the VP pile."
                ),
                "value": {"type": "TakePoint", "colour": "red"},
            },
            "cards.Decline": {
                "summary": (
                    "cards: Refuse the optional decision offered to ``seat`` "
                    "(point, ship, swap, ship points)."
                ),
                "value": {"type": "Decline"},
            },
            "cards.BuildShip": {
                "summary": (
                    "cards: Build the blue-``ship`` ship (black, red or green) (C-SHIP-1)."
                ),
                "value": {"type": "BuildShip", "ship": "green"},
            },
            "cards.ChooseWar": {
                "summary": (
                    "cards: Pick the colour of the external conflict fought next (C-WAR-1)."
                ),
                "value": {"type": "ChooseWar", "colour": "green"},
            },
            "cards.CommitCards": {
                "summary": (
                    "cards: Lay ``count`` cards of the conflict's colour from hand "
                    "(C-REVOLT-3, C-WAR-4)."
                ),
                "value": {"type": "CommitCards", "count": 1},
            },
            "cards.SwapTreasure": {
                "summary": (
                    "cards: Trader: take the treasure of ``column``, a red card "
                    "from hand replaces it (C-TRADER-1)."
                ),
                "value": {"type": "SwapTreasure", "column": 1},
            },
            "cards.Resign": {
                "summary": (
                    "cards: Give up the game (C-RESIGN-1): the seat's later decisions are "
                    "made for it, and it ranks last (C-RESIGN-2)."
                ),
                "value": {"type": "Resign"},
            },
        },
    ),
    responses={
        200: ok(
            "Accepted; the new events.",
            "CommandResult",
            headers={
                "ETag": "ETag",
                "Content-Language": "ContentLanguage",
                "Idempotent-Replayed": {
                    "description": (
                        "`true` when this is the stored answer to an earlier request "
                        "with the same key."
                    ),
                    "schema": {"type": "string", "enum": ["true", "false"]},
                },
                "Preference-Applied": {
                    "description": "`wait=N` when the answer was held (`Prefer: wait`), N "
                    "the seconds it could be held at most.",
                    "schema": {"type": "string", "pattern": "^wait=[0-9]{1,4}$"},
                },
            },
            links=links("$request.path.game_id", "getState", "listEvents"),
        )
    },
    problems=GAME_WRITE_PROBLEMS,
)
def post_command(game_id: str) -> Response:
    caller = caller_for(game_id)
    if caller.player is None:
        caller.require_seat("send commands")
    expected = expected_version()
    key = idempotency_key()
    wait_s = granted(preferred_wait())  # a bad value is a 400 before anything is written
    command = load_body(_envelope_schema())
    if caller.player is not None:  # a player's key: the command names its seat if need be
        caller = act_as(caller, command.pop("seat", None))
    seat = caller.require_seat("send commands")
    if command.pop("seat", seat) != seat:
        raise forbidden(f"this token plays seat {seat} only")
    meta = command_meta(caller.actor, seat)
    outcome = services().games.commands.handle(
        game_id, command, meta=meta, expected_version=expected, idempotency_key=key
    )
    game, events, held = outcome.game, list(outcome.events), None
    if outcome.replayed and outcome.events and outcome.events[-1].version < game.version:
        # A replay answers as the first attempt did: the game right after its events.
        game = services().games.repository.past(game, outcome.events[-1].version)
    elif wait_s is not None and not outcome.replayed:
        game, events, held = _held(game, events, caller.held, wait_s)
    body = {
        "version": game.version,
        "events": events_json(events, caller, game, language=language()),
    }
    response = json_response(body | next_move(game, caller.held), version=game.version)
    response.headers["Idempotent-Replayed"] = "true" if outcome.replayed else "false"
    return applied(response, held)


def _held(
    game: LoadedGame, events: list[StoredEvent], seats: tuple[int, ...], wait_s: int
) -> tuple[LoadedGame, list[StoredEvent], int | None]:
    """``Prefer: wait``: after the command is appended, the game once one of ``seats`` is
    awaited again (or it is over, or ``wait_s`` passed), the command's events followed by
    those appended meanwhile, and the wait applied (None: the stream gate is full, the
    answer is not held)."""
    with wait_slot(game.game_id) as slot:
        if not slot:
            return game, events, None
        games = services().games
        later = hold(games, game, seats, wait_s)
    if later.version > game.version:
        events += games.queries.events(
            game.game_id, after_version=game.version, limit=later.version - game.version, game=later
        )
    return later, events, wait_s
