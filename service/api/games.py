"""``/games``: create (with named or open seats), list and read games; claim open seats and
leave them."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from marshmallow import ValidationError

from service.api.auth import Caller
from service.api.context import act_as, caller_for, services
from service.api.declare import (
    BODILESS_WRITE_PROBLEMS,
    BODY_WRITE_PROBLEMS,
    ETAG_AS_IF_MATCH,
    GAME_READ_PROBLEMS,
    body,
    links,
    ok,
    operation,
    query,
    seat_path,
)
from service.api.http import (
    command_meta,
    idempotency_key,
    json_response,
    load_body,
    load_query,
    request_id,
)
from service.api.language import language
from service.api.moves import minimal, next_move, pending_json, serving_order
from service.api.presenters import events_json, game_json, info_json
from service.api.problems import bad_request, forbidden, unauthorized
from service.api.schemas import (
    GameCreateSchema,
    GameListQuerySchema,
    InvitationCreateSchema,
    SeatClaimSchema,
)
from service.application.bots import BotSeat
from service.application.clocks import ClockSpec
from service.application.commands import open_seat_name
from service.application.invitations import parse_code
from service.application.lobby import claim_meta, leave_meta

blueprint = Blueprint("games", __name__)


@blueprint.post("/games")
@operation(
    "createGame",
    tags=["games"],
    summary="Create a game; returns one secret token per named seat.",
    description=(
        "A seat is named (its token comes back here) or open (claimed "
        "later by a player with\n"
        "`POST /games/{game_id}/seats/{seat}/claim`, which returns its "
        "token). A game starts at\n"
        "once when no seat is open, else when the last open seat is "
        "claimed: until then its\n"
        "status is `open`, it is listed by `GET /games?open=true`, and "
        "commands and undo\n"
        "requests are refused (409 `game-not-started`).\n"
        "\n"
        "`seed` fixes the bag order and the start player; it is "
        "accepted only with the admin token\n"
        "(otherwise 403). The tokens are shown once and stored only as "
        "hashes, in the same atomic\n"
        "write that creates the game: a game never exists without its "
        "seats' tokens, and a game\n"
        "that answers is always listed.\n"
        "\n"
        "Send an `Idempotency-Key` (use a random, unguessable one: "
        "whoever repeats the key and the\n"
        "body receives the tokens) to make the creation safe to retry: "
        "when an answer is lost (a\n"
        "503, a dropped connection), the retry with the same key and "
        "body creates that same game\n"
        "if the first attempt did not, or answers with it and its "
        "tokens\n"
        "(`Idempotent-Replayed: true`) for 48 hours. The same key with "
        "another body is a 422.\n"
    ),
    parameters=["IdempotencyKey", "XRequestId", "PreferMinimal"],
    # Its examples name the games on offer: service/api/examples.json (no service module
    # names a game).
    request_body=body("GameCreate"),
    responses={
        201: ok(
            (
                "Created (or, with `Idempotent-Replayed: true`, created by an "
                "earlier attempt with the same key)."
            ),
            "GameCreated",
            headers={
                "ETag": "ETag",
                "Location": "Location",
                "Idempotent-Replayed": {
                    "description": (
                        "`true` when an earlier request with the same Idempotency-Key "
                        "created this game."
                    ),
                    "schema": {"type": "string", "enum": ["true", "false"]},
                },
            },
            links=links(
                "$response.body#/game/game_id",
                "getGame",
                ("claimSeat", {"seat": "$response.body#/seats/1/seat"}),
                "getState",
                "getLegalCommands",
                "getPending",
                "listEvents",
                ("getStateAt", {"version": "$response.body#/game/version"}),
                "getResult",
                "listUndoRequests",
                ("postCommand", ETAG_AS_IF_MATCH),
                ("requestUndo", ETAG_AS_IF_MATCH),
            ),
        )
    },
    problems=[
        "RateLimited",
        "BadRequest",
        "Unauthorized",
        "Forbidden",
        "TooLarge",
        "UnsupportedMediaType",
        "Unprocessable",
        "Unavailable",
    ],
)
def create_game() -> Response:
    caller = caller_for(None)
    body = load_body(GameCreateSchema())
    if body["seed"] is not None and not caller.admin:
        raise forbidden("only the admin token may choose a game's seed")
    found = services()
    meta = command_meta("admin" if caller.admin else "system", None)
    # One atomic write stores the game with its seats' token hashes (and the index entry
    # goes first): see CommandHandler.create_game. With an Idempotency-Key a retry after a
    # lost answer gets the same game and the same tokens back.
    names, bots, open_seats = seats_of(body["seats"])
    players = bound_players(body["seats"], caller, names)
    clock = None if body["clock"] is None else ClockSpec(**body["clock"])
    created = found.games.commands.create_seated_game(
        body["kind"],
        names,
        body["options"],
        body["seed"],
        meta,
        idempotency_key(),
        bots,
        clock,
        open_seats=open_seats,
        players=players,
        rated=body["rated"],
    )
    game, tokens = created.game, created.tokens
    seats = [
        created_seat_json(seat, name, token, bots.get(seat), players.get(seat))
        for seat, (name, token) in enumerate(zip(names, tokens, strict=True))
    ]
    answer: dict[str, object] = {"game": game_json(game), "seats": seats}
    if not minimal():
        # What the creator needs to play at once: the first decision, and the legal
        # commands of each awaited seat whose token it just got or that is bound to its
        # own player key (none of another's).
        held = [
            seat
            for seat, token in enumerate(tokens)
            if token is not None
            or (caller.player is not None and players.get(seat) == caller.player)
        ]
        answer |= {"next": pending_json(game), "legal": serving_order(game, held)}
    response = json_response(answer, 201, version=game.version)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secrets
    response.headers["Idempotent-Replayed"] = "true" if created.replayed else "false"
    return response


def seats_of(specs: list[dict[str, Any]]) -> tuple[list[str], dict[int, BotSeat], list[int]]:
    """Seat names, the bot seats and the open seats of a creation body's ``seats``
    (as ``SeatSpec`` loads them)."""
    names: list[str] = []
    bots: dict[int, BotSeat] = {}
    open_seats: list[int] = []
    for seat, spec in enumerate(specs):
        if spec["type"] == "bot":
            bots[seat] = BotSeat(spec["bot"], spec["think_ms"])
            names.append(spec["name"] or f"{spec['bot']} bot")
        elif spec["type"] == "open":
            open_seats.append(seat)
            names.append(spec["name"] or open_seat_name(seat))
        elif spec["type"] == "player":
            names.append(spec["name"] or "")  # the player's name: see ``bound_players``
        else:
            names.append(spec["name"])
    return names, bots, open_seats


def bound_players(specs: list[dict[str, Any]], caller: Caller, names: list[str]) -> dict[int, str]:
    """The seats a creation body binds to players (seat -> player id), each authorised by
    that player's key or the admin token; a seat named by no ``name`` takes the player's
    (filled into ``names``)."""
    bound: dict[int, str] = {}
    for seat, spec in enumerate(specs):
        if spec["type"] != "player":
            continue
        player_id = spec["player"]
        if not caller.admin and caller.player != player_id:
            raise forbidden(
                f"seat {seat} names player {player_id}: only that player's key or the admin "
                "token may bind a seat to it"
            )
        record = services().games.players.get(player_id)
        if record is None:
            # A well-formed body naming what does not exist: unprocessable, as schemas' 422s.
            raise ValidationError({"seats": [f"seat {seat} names no known player {player_id!r}"]})
        names[seat] = names[seat] or record.name
        bound[seat] = player_id
    return bound


@blueprint.get("/games")
@operation(
    "listGames",
    tags=["games"],
    summary=("List games, newest first, with filters and cursor pagination."),
    parameters=[
        query(GameListQuerySchema),
    ],
    responses={200: ok("One page.", "GamePage")},
    problems=["RateLimited", "BadRequest", "Unauthorized", "Unavailable"],
)
def list_games() -> Response:
    caller_for(None)
    query = load_query(GameListQuerySchema())
    status = query["status"]
    if query["open"]:  # open=true: games with a seat to claim
        if status not in (None, "open"):  # no game is open and active (or over)
            return json_response({"items": [], "next_cursor": None})
        status = "open"
    found = services()
    try:
        infos, next_cursor = found.games.queries.list_games(
            kind=query["kind"],
            status=status,
            cursor=query["cursor"],
            limit=query["limit"],
        )
    except ValueError:
        raise bad_request("unknown or expired cursor", "cursor") from None
    items = [info_json(info) for info in infos]
    return json_response({"items": items, "next_cursor": next_cursor})


@blueprint.post("/games/<gid:game_id>/seats/<int:seat>/claim")
@operation(
    "claimSeat",
    tags=["games"],
    summary="Claim an open seat; returns its secret token once.",
    description=(
        "Anyone may claim an open seat (no token needed) under a name. "
        "The claim is the event\n"
        "`service.SeatClaimed` in the game's stream, stored atomically "
        "with the seat's token\n"
        "hash: a seat is claimed once, however many requests race for "
        "it (the others get 409\n"
        "`seat-not-open`). The claim of the last open seat starts the "
        "game (status `active`;\n"
        "no undo reaches before it). With an `Idempotency-Key` a retry "
        "with the same key and\n"
        "name answers with the same seat and token "
        "(`Idempotent-Replayed: true`) for 48 hours;\n"
        "the same key with another claim is a 422. `X-Request-ID` "
        "becomes the event's\n"
        "correlation id.\n"
    ),
    security=[],
    parameters=["IdempotencyKey", "XRequestId", "PreferMinimal", "AcceptLanguage"],
    path_parameters=[seat_path("The open seat to claim (0-3).")],
    request_body=body(SeatClaimSchema, example={"name": "Bob"}),
    responses={
        201: ok(
            (
                "Claimed (or, with `Idempotent-Replayed: true`, claimed by an "
                "earlier attempt with the same key)."
            ),
            "SeatClaimed",
            headers={
                "ETag": "ETag",
                "Content-Language": "ContentLanguage",
                "Location": "Location",
                "Idempotent-Replayed": {
                    "description": (
                        "`true` when an earlier request with the same Idempotency-Key "
                        "made this claim."
                    ),
                    "schema": {"type": "string", "enum": ["true", "false"]},
                },
            },
        )
    },
    problems=[
        "RateLimited",
        "BadRequest",
        "Unauthorized",
        "NotFound",
        "Conflict",
        "PreconditionFailed",
        "TooLarge",
        "UnsupportedMediaType",
        "Unprocessable",
        "Unavailable",
        "Forbidden",
    ],
)
def claim_seat(game_id: str, seat: int) -> Response:
    """Claim an open seat for a player: its token comes back once (only its hash is kept).
    Anyone may claim (no token needed); a seat is claimed once, whoever races for it."""
    caller = caller_for(game_id)
    key = idempotency_key()
    correlation_id = request_id()
    body = load_body(SeatClaimSchema())
    name = body["name"]
    player = None
    if caller.player is not None:  # a player's key binds the seat to the player
        player = caller.player
        if name is None:
            found = services().games.players.get(player)
            name = found.name if found is not None else None
    if name is None:
        raise ValidationError({"name": ["Missing data for required field."]})
    claimed = services().games.lobby.claim(
        game_id, seat, name, claim_meta(correlation_id, seat), key, player=player
    )
    game = claimed.game
    # The claimer holds the seat it claimed, and a player's key every seat bound to it.
    claimer_seats = tuple(sorted({seat, *caller.seats})) if player is not None else (seat,)
    answer = {
        "game": game_json(game),
        "seat": seat_token_json(seat, game.info.seat_names[seat], claimed.token)
        | ({} if player is None else {"player": player}),
        "events": events_json(claimed.events, caller_for(game_id), game, language=language()),
    } | next_move(game, claimer_seats)
    response = json_response(answer, 201, version=game.version)
    response.headers["Location"] = f"/games/{game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    response.headers["Idempotent-Replayed"] = "true" if claimed.replayed else "false"
    return response


@blueprint.post("/games/<gid:game_id>/seats/<int:seat>/leave")
@operation(
    "leaveSeat",
    tags=["games"],
    summary="Leave a game before it starts: the seat opens again.",
    description=(
        "The holder of a seat (its token, or the player bound to it) leaves a game that "
        "still waits for players\n"
        "(status `open`). The leave is the event `service.SeatLeft` in the game's stream, "
        "stored atomically with\n"
        "the revocation of every token of the seat and the end of its player's binding: "
        "the seat is open again\n"
        "(named `Open seat <n>`) for anyone to claim, and the game leaves the player's "
        "lists. A game that has\n"
        "started is not left but resigned (the command `Resign`): 409 `game-started`; "
        "an open seat has nobody\n"
        "to leave it: 409 `seat-not-taken`; another seat's token or player: 403.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["XRequestId", "AcceptLanguage"],
    path_parameters=[seat_path("The caller's seat, to leave (0-3).")],
    responses={
        200: ok(
            "Left: the seat is open again.",
            "SeatLeft",
            headers={"ETag": "ETag", "Content-Language": "ContentLanguage"},
        )
    },
    problems=BODILESS_WRITE_PROBLEMS,
)
def leave_seat(game_id: str, seat: int) -> Response:
    """The caller's ``seat`` leaves ``game_id`` before it starts (its tokens revoked)."""
    caller = caller_for(game_id)
    if caller.player is not None:
        caller = act_as(caller, seat)  # 403 for a seat that is not the player's
    held = caller.require_seat("leave a seat")
    if held != seat:
        raise forbidden(f"this token holds seat {held}, not seat {seat}")
    found = services()
    revoked = found.credentials.revoked(game_id, seat)
    left = found.games.lobby.leave(game_id, seat, leave_meta(request_id(), seat), revoked)
    game = left.game
    answer = {
        "game": game_json(game),
        "events": events_json(left.events, caller, game, language=language()),
    }
    return json_response(answer, version=game.version)


@blueprint.post("/games/<gid:game_id>/rematch")
@operation(
    "createRematch",
    tags=["games"],
    summary="Ask for a rematch of a finished game: the same kind, options and players.",
    description=(
        "A seat of a finished game (its token, or its player's key with `?seat=` when the "
        "player holds several)\n"
        "asks for a rematch: a new game of the same kind, options, seat names, bots, clock "
        "and player bindings,\n"
        "linked both ways (`rematch_of` in the new game, `rematch` in the finished one, "
        "written by the event\n"
        "`service.RematchCreated` in the finished game's stream). One rematch per game: the "
        "first request makes it\n"
        "(201) and gets its own seat's new token when that seat has neither player nor bot; "
        "any later request,\n"
        "from any seat, answers the same game (200) without a token. Seats with neither "
        "player, bot nor the\n"
        "first caller are created open under their names, for their players to claim. A "
        "game not over: 409\n"
        "`game-not-over`.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["PlayerSeat", "XRequestId", "AcceptLanguage"],
    responses={
        201: ok(
            "The rematch, made now; the caller's seat token, if it has one, shown once.",
            "Rematch",
            headers={"Location": "Location"},
        ),
        200: ok("The rematch, made by an earlier request.", "Rematch"),
    },
    problems=BODILESS_WRITE_PROBLEMS,
)
def create_rematch(game_id: str) -> Response:
    """The rematch of finished ``game_id``, asked for by one of its seats."""
    caller = caller_for(game_id)
    seat = caller.require_seat("ask for a rematch")
    meta = command_meta(caller.actor, seat)
    made = services().games.rematches.rematch(game_id, seat, meta)
    game = made.game
    name = game.info.seat_names[seat]
    answer = {
        "game": game_json(game),
        "seat": None if made.token is None else seat_token_json(seat, name, made.token),
    }
    response = json_response(answer, 201 if made.created else 200)
    response.headers["Location"] = f"/games/{game.game_id}"
    response.headers["Cache-Control"] = "no-store"  # the body may hold a secret
    return response


def inviter(caller: Caller) -> str:
    """Who makes (and may revoke) an invitation: the admin, a player (by id, whichever of its
    seats it acts as) or a seat's token."""
    if caller.admin:
        return "admin"
    if caller.player is not None:
        return f"player:{caller.player}"
    return f"seat:{caller.require_seat('invite a player')}"


@blueprint.post("/games/<gid:game_id>/seats/<int:seat>/invitation")
@operation(
    "createInvitation",
    tags=["games"],
    summary="Reserve an open seat for one invited player: returns the invitation's code once.",
    description=(
        "A holder of a seat of a game that waits for players (its token or player key), or "
        "the admin, reserves one\n"
        "of its open seats for one player (`service.SeatReserved`). Only that player then "
        "claims the seat: with its\n"
        "key at `POST /games/{game_id}/seats/{seat}/claim`, or by redeeming the code at "
        "`POST /invitations/{code}`;\n"
        "anyone else's claim is a 409 `seat-reserved`. Who made the invitation (or the admin) "
        "revokes it with\n"
        "`DELETE`. A seat already reserved: 409 `seat-reserved`; taken: `seat-not-open`; a "
        "game that started:\n"
        "`game-started`; an unknown player: 422.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["XRequestId"],
    path_parameters=[seat_path("An open seat of the game (0-3).")],
    request_body=body(
        InvitationCreateSchema, example={"player": "5f2b7c1e9a0d4e6f8b3c2a1d0e9f8a7b"}
    ),
    responses={201: ok("Reserved; the code, once.", "Invitation")},
    problems=BODY_WRITE_PROBLEMS,
)
def create_invitation(game_id: str, seat: int) -> Response:
    caller = caller_for(game_id)
    if caller.is_spectator and caller.player is None:
        raise unauthorized("a seat token, a player key with a seat, or the admin invites")
    if caller.player is not None and not caller.seats:
        raise forbidden("this player holds no seat of this game")
    player = load_body(InvitationCreateSchema())["player"]
    meta = command_meta("admin" if caller.admin else f"seat:{caller.seat}", caller.seat)
    if caller.player is not None and caller.seat is None:
        meta = command_meta(f"seat:{caller.seats[0]}", caller.seats[0])
    made = services().games.invitations.invite(game_id, seat, player, meta, inviter(caller))
    answer = {
        "game_id": game_id,
        "seat": seat,
        "player": player,
        "code": made.code,
        "link": f"/invitations/{made.code}",
    }
    response = json_response(answer, 201, version=made.game.version)
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    return response


@blueprint.delete("/games/<gid:game_id>/seats/<int:seat>/invitation")
@operation(
    "revokeInvitation",
    tags=["games"],
    summary="Revoke an open seat's invitation: the seat is open to anyone again.",
    description=(
        "Only who made the invitation (the same seat token or player key) or the admin "
        "revokes it (else 403\n"
        "`not-inviter`); `service.ReservationRevoked` opens the seat to any claim again. No "
        "invitation there: 404\n"
        "`invitation-not-found`.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["XRequestId"],
    path_parameters=[seat_path("An open seat of the game (0-3).")],
    responses={204: {"description": "Revoked."}},
    problems=["RateLimited", "BadRequest", "Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def revoke_invitation(game_id: str, seat: int) -> Response:
    caller = caller_for(game_id)
    if caller.is_spectator and caller.player is None:
        raise unauthorized("a seat token, a player key or the admin revokes an invitation")
    by = inviter(caller)
    acting = caller.seat if caller.seat is not None else (caller.seats or (None,))[0]
    meta = command_meta("admin" if caller.admin else f"seat:{acting}", acting)
    services().games.invitations.revoke(game_id, seat, meta, by)
    return Response(status=204)


@blueprint.post("/invitations/<code>")
@operation(
    "redeemInvitation",
    tags=["games"],
    summary="Redeem an invitation: the invited player claims its reserved seat.",
    description=(
        "With the invited player's key: claims the seat the code reserves, bound to the "
        "player (as a claim with\n"
        "its key; the name defaults to the player's). Another player's key: 403 "
        "`not-invited`; a wrong, revoked\n"
        "or redeemed code: 404 `invitation-not-found`.\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["XRequestId", "AcceptLanguage"],
    path_parameters=[
        {
            "name": "code",
            "in": "path",
            "required": True,
            "description": "The invitation's code.",
            "schema": {"type": "string", "maxLength": 200},
        }
    ],
    request_body=body(SeatClaimSchema, example={"name": "Bea"}),
    responses={201: ok("Claimed: the seat is the player's.", "SeatClaimed")},
    problems=BODY_WRITE_PROBLEMS,
)
def redeem_invitation(code: str) -> Response:
    holder = caller_for(None)
    player = None if holder.player is None else services().games.players.get(holder.player)
    if player is None:
        raise unauthorized("the invited player's key is required to redeem an invitation")
    name = load_body(SeatClaimSchema())["name"] or player.name
    found = services().games.invitations
    game_id, seat = parse_code(code)
    claimed = found.redeem(code, player.player_id, name, claim_meta(request_id(), seat))
    game = claimed.game
    caller = Caller(seat=seat, player=player.player_id, seats=(seat,))
    answer = {
        "game": game_json(game),
        "seat": seat_token_json(seat, name, claimed.token) | {"player": player.player_id},
        "events": events_json(claimed.events, caller, game, language=language()),
    }
    response = json_response(answer, 201, version=game.version)
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    assert game_id == game.game_id
    return response


def created_seat_json(
    seat: int, name: str, token: str | None, bot: BotSeat | None, player: str | None = None
) -> dict[str, object]:
    """A seat of a new game: a bot's (no token: only its bot plays it), a player's (no
    token: its player's key plays it), an open one (its token comes with its claim), or a
    named one with its token."""
    if player is not None:
        return {"seat": seat, "name": name, "player": player}
    if bot is not None:
        return {"seat": seat, "name": name, "bot": bot.to_json()}
    if token is None:
        return {"seat": seat, "name": name, "open": True}
    return seat_token_json(seat, name, token)


def seat_token_json(seat: int, name: str, token: str) -> dict[str, object]:
    return {"seat": seat, "name": name, "token": token, "authorization": f"Bearer {token}"}


@blueprint.get("/games/<gid:game_id>")
@operation(
    "getGame",
    tags=["games"],
    summary="A game's metadata.",
    parameters=["PlayerSeat", "IfNoneMatch"],
    responses={200: ok("The game.", "Game", headers={"ETag": "ETag"})},
    problems=GAME_READ_PROBLEMS,
)
def get_game(game_id: str) -> Response:
    caller_for(game_id)
    game = services().games.repository.get(game_id)
    return json_response(game_json(game), version=game.version)
