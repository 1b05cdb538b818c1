"""The API's own JSON shapes (beside the domain's, which ``service.contract`` generates):
request bodies and answers, as ``components.schemas`` of the contract. A request body that a
marshmallow schema of ``service.api.schemas`` loads may be declared by that schema instead
(apispec's MarshmallowPlugin writes its component: ``SeatClaim``, ``UndoRequestCreate``,
``UndoAnswer``)."""

from __future__ import annotations

from typing import Any

from service.api.declare import ref, seat_number
from service.api.schemas import TEXT_DESCRIPTION, TEXT_PATTERN

_WEBHOOK: dict[str, Any] = {
    "type": "object",
    "required": [
        "id",
        "url",
        "events",
        "seat",
        "status",
        "disabled_reason",
        "failures",
        "delivered_version",
        "created_at",
        "next_attempt_at",
    ],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        "url": {"type": "string"},
        "events": {"type": "array", "items": {"type": "string"}},
        "seat": {"type": ["integer", "null"]},
        "status": ref("WebhookStatus"),
        "disabled_reason": {"type": ["string", "null"]},
        "failures": {
            "type": "integer",
            "minimum": 0,
            "description": "Failed deliveries in a row.",
        },
        "delivered_version": {
            "type": "integer",
            "minimum": 0,
            "description": "The last game version delivered.",
        },
        "created_at": {"type": "string", "format": "date-time"},
        "next_attempt_at": {
            "type": ["string", "null"],
            "format": "date-time",
            "description": (
                "After a failed attempt, when the next one is due (no attempt "
                "before); null otherwise."
            ),
        },
    },
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "StreamTicket": {
        "type": "object",
        "required": ["ticket", "expires_in", "stream"],
        "additionalProperties": False,
        "properties": {
            "ticket": {
                "type": "string",
                "pattern": "^[A-Za-z0-9_-]{16,128}$",
                "description": "The ticket (secret; show it to no one else).",
            },
            "expires_in": {
                "type": "integer",
                "minimum": 1,
                "description": "Seconds the ticket stays valid.",
            },
            "stream": {
                "type": "string",
                "description": "The stream's path with the ticket, to give to `EventSource`.",
            },
        },
    },
    "GameId": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
    "Status": {
        "type": "string",
        "description": (
            "`open`: seats wait to be claimed (no command is accepted "
            "yet); `active`: being played; `over`: ended."
        ),
        "enum": ["open", "active", "over"],
    },
    "Health": {
        "type": "object",
        "required": ["status"],
        "additionalProperties": False,
        "properties": {"status": {"type": "string", "enum": ["ok", "ready"]}},
    },
    "Problem": {
        "type": "object",
        "description": (
            "RFC 9457 problem details. Every error has `type`, `title`, "
            "`status` and `detail`; `instance` (the request's path) "
            "whenever the request got as far as the application; `field` "
            "whenever one part of the input is to blame (a body field, "
            "also inside a command, a query parameter or a header)."
        ),
        "required": ["type", "title", "status", "detail"],
        "properties": {
            "type": {
                "type": "string",
                "pattern": "^/problems/[a-z0-9-]+$",
                "description": (
                    "A URI reference naming the problem type: `/problems/<slug>` "
                    "(`not-found`, `too-large`, `invalid-request`, "
                    "`illegal-command`, ...)."
                ),
            },
            "title": {"type": "string"},
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "detail": {"type": "string"},
            "instance": {"type": "string"},
            "rule": {
                "type": "string",
                "description": "The rule id of the rules digest, for refused commands.",
            },
            "rule_url": {
                "type": "string",
                "description": (
                    "The rule's text in the rules documentation "
                    "(`/rules/board#B-TILE-1`), for refused commands."
                ),
            },
            "description": {
                "type": "string",
                "minLength": 1,
                "description": (
                    "The broken rule in one sentence, in the response's `Content-Language` "
                    "(negotiated from `Accept-Language`), for refused commands."
                ),
            },
            "field": {
                "type": "string",
                "description": (
                    "The offending field (a body path such as `at[0]`, a query "
                    "parameter or a header), for malformed input."
                ),
            },
            "errors": {
                "type": "object",
                "description": (
                    "Field → messages, for invalid bodies (a nested field → its own fields)."
                ),
                "additionalProperties": {
                    "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object"}]
                },
            },
            "current_version": {"type": "integer", "minimum": 0},
            "open_seats": {
                "type": "array",
                "description": "The seats still open, for `game-not-started`.",
                "items": seat_number(),
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": "The stream limit reached, for 429 on a stream.",
            },
            "rate_limit": {
                "type": "string",
                "description": (
                    "The rate limit reached (`600 per 1 minute`), for 429 rate-limited."
                ),
            },
        },
    },
    "GameCreate": {
        "type": "object",
        "required": ["kind", "seats"],
        "additionalProperties": False,
        "properties": {
            "kind": ref("Kind"),
            "seats": {
                "type": "array",
                "description": (
                    "The seats in seat (play) order: a player's name (a named "
                    "seat, whose token comes\n"
                    "back at once), or an object with a `type`: `human` (the same, "
                    "with its `name`) or\n"
                    "`open` (a seat for a player to claim later with\n"
                    "`POST /games/{game_id}/seats/{seat}/claim`; `name` optional, "
                    "`Open seat <n>` until\n"
                    'claimed), or a bot seat `{"bot": …, "think_ms"?: …, "name"?: '
                    "…}` (`BotSeatCreate`: a\n"
                    "server-side bot plays it). A game with an open seat has "
                    "status `open` and accepts\n"
                    "no command until every seat is claimed.\n"
                ),
                "minItems": 2,
                "maxItems": 4,
                "items": ref("SeatSpec"),
            },
            "options": {
                "description": (
                    "Rule options of the game; an option the game's kind does not "
                    "know is refused with\n"
                    "422 naming it. Defaults are filled in and returned in the "
                    "game's metadata. The board\n"
                    "game (`board`) has `open_scoring` (victory points public; "
                    "default `false`). The card\n"
                    "game (`cards`) has four variants, each `true` or `false` "
                    "(default `false`):\n"
                    "`leader_colour_must_differ` (C-LEADER-1: two leaders of one "
                    "colour never share a\n"
                    "kingdom), `allow_withdraw` (C-LEADER-2: a leader may go back "
                    "to its supply as an\n"
                    "action, `WithdrawLeader`), `open_vp_piles` (C-VP-1: "
                    "victory-point piles are\n"
                    "public) and `trader_takes_one` (C-TRADER-1 as the Hungarian "
                    "and Italian texts have\n"
                    "it: after a join the trader swaps one treasure, not all but "
                    "one as in the German\n"
                    "original, the default).\n"
                ),
                "allOf": [ref("GameOptions")],
            },
            "seed": {
                "type": "integer",
                "minimum": 0,
                "maximum": 9007199254740991,
                "description": "Admin token only.",
            },
            "clock": ref("Clock"),
        },
    },
    "SeatName": {
        "type": "string",
        "minLength": 1,
        "maxLength": 40,
        "pattern": TEXT_PATTERN,
        "description": TEXT_DESCRIPTION,
    },
    "SeatSpec": {
        "description": "A seat of a new game; a bare name is a named (`human`) seat.",
        "oneOf": [
            ref("SeatName"),
            ref("HumanSeat"),
            ref("OpenSeat"),
            ref("PlayerSeatCreate"),
            ref("BotSeatCreate"),
        ],
    },
    "HumanSeat": {
        "type": "object",
        "description": ("A seat played by the named player; its token comes back with the game."),
        "required": ["type", "name"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "enum": ["human"]}, "name": ref("SeatName")},
    },
    "OpenSeat": {
        "type": "object",
        "description": ("A seat left for a player to claim; its token comes back with the claim."),
        "required": ["type"],
        "additionalProperties": False,
        "properties": {"type": {"type": "string", "enum": ["open"]}, "name": ref("SeatName")},
    },
    "SeatClaimed": {
        "type": "object",
        "required": ["game", "seat", "events"],
        "additionalProperties": False,
        "properties": {
            "game": ref("Game"),
            "seat": ref("SeatToken"),
            "events": {
                "type": "array",
                "description": "The claim's event (`service.SeatClaimed`).",
                "items": ref("Event"),
            },
            "next": ref("PendingView"),
            "legal": ref("CallerLegalCommands"),
        },
    },
    "SeatLeft": {
        "type": "object",
        "required": ["game", "events"],
        "additionalProperties": False,
        "properties": {
            "game": ref("Game"),
            "events": {
                "type": "array",
                "description": "The leave's event (`service.SeatLeft`).",
                "items": ref("Event"),
            },
        },
    },
    "WebhookCreate": {
        "type": "object",
        "required": ["url"],
        "additionalProperties": False,
        "properties": {
            "url": {
                "type": "string",
                "minLength": 1,
                "maxLength": 2000,
                "description": "An http or https URL on a public address.",
            },
            "events": {
                "type": "array",
                "maxItems": 100,
                "items": {"type": "string", "minLength": 1, "maxLength": 100},
                "description": (
                    "Event types to send (`board.TilePlaced`, "
                    "`service.GameReverted`, ...); empty or absent, every event."
                ),
            },
            "seat": {
                **seat_number(type=["integer", "null"]),
                "description": (
                    "The seat whose view the events show. With a seat token, that "
                    "token's seat (absent, or the same seat); with the admin "
                    "token, any seat, or absent or null for a spectator's view."
                ),
            },
        },
    },
    "WebhookStatus": {
        "type": "string",
        "enum": ["active", "disabled"],
        "description": (
            "`disabled` after a 410 Gone or too many failed deliveries in "
            "a row (see `disabled_reason`); enabling makes it `active` "
            "again."
        ),
    },
    "Webhook": _WEBHOOK,
    "WebhookCreated": {
        "type": "object",
        "description": (
            "A new subscription (a `Webhook`) and its signing secret, shown only here."
        ),
        "required": [*_WEBHOOK["required"], "secret"],
        "additionalProperties": False,
        "properties": {
            **_WEBHOOK["properties"],
            "secret": {
                "type": "string",
                "pattern": "^whsec_",
                "description": "The signing secret (Standard Webhooks); shown only here.",
            },
        },
    },
    "WebhookPayload": {
        "type": "object",
        "description": "The body of a webhook delivery (`webhooks.gameEvents`).",
        "required": ["type", "timestamp", "data"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "game.events"},
            "timestamp": {
                "type": "string",
                "format": "date-time",
                "description": "When this attempt was made.",
            },
            "data": {
                "type": "object",
                "required": ["game_id", "version", "events"],
                "additionalProperties": False,
                "properties": {
                    "game_id": ref("GameId"),
                    "version": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "The version of the batch's last event.",
                    },
                    "events": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 100,
                        "description": (
                            "The batch's events the subscription receives, in order, as "
                            "its seat (or a spectator) may see them."
                        ),
                        "items": ref("Event"),
                    },
                },
            },
        },
    },
    "WebhookDelivery": {
        "type": "object",
        "required": [
            "webhook_id",
            "first_version",
            "last_version",
            "events",
            "at",
            "status",
            "ok",
            "error",
            "duration_ms",
        ],
        "additionalProperties": False,
        "properties": {
            "webhook_id": {
                "type": "string",
                "description": (
                    "The `webhook-id` header sent (the same for every attempt at this batch)."
                ),
            },
            "first_version": {"type": "integer"},
            "last_version": {"type": "integer"},
            "events": {"type": "integer", "minimum": 1},
            "at": {"type": "string", "format": "date-time"},
            "status": {
                "type": ["integer", "null"],
                "description": "The receiver's status code; null if none came.",
            },
            "ok": {"type": "boolean"},
            "error": {"type": ["string", "null"]},
            "duration_ms": {"type": "number", "minimum": 0},
        },
    },
    "ArchiveOutcome": {
        "type": "object",
        "required": ["game_id", "outcome", "object", "bytes", "events"],
        "additionalProperties": False,
        "properties": {
            "game_id": {"type": "string"},
            "outcome": {
                "type": "string",
                "enum": ["archived", "already", "not-due", "moved", "missing"],
            },
            "object": {
                "type": ["string", "null"],
                "description": "The archive object's name (content-addressed).",
            },
            "bytes": {
                "type": "integer",
                "minimum": 0,
                "description": "Its size (0 unless archived now).",
            },
            "events": {"type": "integer", "minimum": 0},
        },
    },
    "Rehydration": {
        "type": "object",
        "required": ["game_id", "outcome", "version"],
        "additionalProperties": False,
        "properties": {
            "game_id": {"type": "string"},
            "outcome": {"type": "string", "enum": ["rehydrated", "not-archived"]},
            "version": {"type": "integer", "minimum": 1},
        },
    },
    "Audit": {
        "type": "object",
        "required": ["runs", "games_checked", "mismatches", "last_run", "recent"],
        "additionalProperties": False,
        "properties": {
            "runs": {"type": "integer", "minimum": 0},
            "games_checked": {"type": "integer", "minimum": 0},
            "mismatches": {"type": "integer", "minimum": 0},
            "last_run": {
                "oneOf": [
                    {"type": "null"},
                    {
                        "type": "object",
                        "required": ["at", "games", "mismatches", "duration_ms"],
                        "additionalProperties": False,
                        "properties": {
                            "at": {"type": "string", "format": "date-time"},
                            "games": {"type": "integer", "minimum": 0},
                            "mismatches": {"type": "integer", "minimum": 0},
                            "duration_ms": {"type": "number", "minimum": 0},
                        },
                    },
                ]
            },
            "recent": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["game_id", "version", "reason", "at"],
                    "additionalProperties": False,
                    "properties": {
                        "game_id": {"type": "string"},
                        "version": {"type": "integer"},
                        "reason": {"type": "string"},
                        "at": {"type": "string", "format": "date-time"},
                    },
                },
            },
        },
    },
    "Clock": {
        "description": (
            "A turn clock: a `DecisionClock` (`per_decision_s` seconds for "
            "each decision) or a\n"
            "`GameClock` (`initial_s` seconds per seat plus `increment_s` "
            "after each of its\n"
            "commands); the field each requires tells them apart. When an "
            "awaited seat's time\n"
            "runs out, a `random` or `greedy` bot (`on_expiry`) moves for "
            "it, as an event whose\n"
            "actor is `clock`; a move made in time wins.\n"
        ),
        "oneOf": [ref("DecisionClock"), ref("GameClock")],
    },
    "DecisionClock": {
        "type": "object",
        "description": "`per_decision_s` seconds for each decision.",
        "required": ["per_decision_s"],
        "additionalProperties": False,
        "properties": {
            "per_decision_s": {"type": "integer", "minimum": 1, "maximum": 604800},
            "on_expiry": ref("ExpiryPolicy"),
        },
    },
    "GameClock": {
        "type": "object",
        "description": (
            "`initial_s` seconds per seat, plus `increment_s` after each of its commands."
        ),
        "required": ["initial_s"],
        "additionalProperties": False,
        "properties": {
            "initial_s": {"type": "integer", "minimum": 1, "maximum": 604800},
            "increment_s": {"type": "integer", "minimum": 0, "maximum": 604800, "default": 0},
            "on_expiry": ref("ExpiryPolicy"),
        },
    },
    "ExpiryPolicy": {
        "type": "string",
        "description": "The bot that moves for a seat whose time ran out.",
        "enum": ["random", "greedy"],
        "default": "random",
    },
    "BotKind": {
        "type": "string",
        "description": (
            "A server-side bot: `random`, `greedy` (one command ahead) or "
            "`mcts` (Monte Carlo search)."
        ),
        "enum": ["random", "greedy", "mcts"],
    },
    "ClockState": {
        "type": "object",
        "required": ["since", "seats"],
        "additionalProperties": False,
        "properties": {
            "since": {
                "type": "string",
                "format": "date-time",
                "description": "When the awaited seats became awaited.",
            },
            "seats": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["seat", "remaining_ms", "deadline"],
                    "additionalProperties": False,
                    "properties": {
                        "seat": seat_number(),
                        "remaining_ms": {"type": "integer", "minimum": 0},
                        "deadline": {"type": "string", "format": "date-time"},
                    },
                },
            },
        },
    },
    "BotSeatCreate": {
        "type": "object",
        "description": (
            "A seat played by a server-side bot: `random`, `greedy` (one "
            "command ahead) or `mcts`\n"
            "(Monte Carlo search for `think_ms` per move). It decides from "
            "its seat's view only;\n"
            "its moves are background jobs, made as soon as the seat is "
            "awaited.\n"
        ),
        "required": ["bot"],
        "additionalProperties": False,
        "properties": {
            "bot": ref("BotKind"),
            "think_ms": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 500},
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 40,
                "pattern": TEXT_PATTERN,
                "description": (
                    "Default: `<bot> bot`. One line of visible text, as a player's name."
                ),
            },
        },
    },
    "BotSeat": {
        "type": "object",
        "required": ["bot", "think_ms"],
        "additionalProperties": False,
        "properties": {
            "bot": ref("BotKind"),
            "think_ms": {"type": "integer", "minimum": 0, "maximum": 10000},
        },
    },
    "Seat": {
        "type": "object",
        "required": ["seat", "name", "open"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "open": {"type": "boolean", "description": "True while the seat waits to be claimed."},
            "dynasty": {"type": "string"},
            "bot": ref("BotSeat"),
        },
    },
    "OpenSeatCreated": {
        "type": "object",
        "required": ["seat", "name", "open"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "open": {"type": "boolean", "enum": [True]},
        },
    },
    "SeatToken": {
        "type": "object",
        "required": ["seat", "name", "token", "authorization"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "token": {
                "type": "string",
                "minLength": 32,
                "description": "The secret; shown only here.",
            },
            "authorization": {
                "type": "string",
                "description": "The header value to send: `Bearer <token>`.",
            },
            "player": ref("PlayerId"),
        },
    },
    "BotSeatCreated": {
        "type": "object",
        "description": (
            "A seat a server-side bot plays. It has no token: only its bot "
            "moves for it (as actor\n"
            "`bot:<seat>`), and no one may read its view as that seat.\n"
        ),
        "required": ["seat", "name", "bot"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "bot": ref("BotSeat"),
        },
    },
    "Game": {
        "type": "object",
        "required": ["game_id", "kind", "seats", "options", "status", "version", "created_at"],
        "additionalProperties": False,
        "properties": {
            "game_id": ref("GameId"),
            "kind": ref("Kind"),
            "seats": {"type": "array", "items": ref("Seat")},
            "options": ref("GameOptions"),
            "status": ref("Status"),
            "version": {"type": "integer", "minimum": 0},
            "created_at": {"type": "string", "format": "date-time"},
            "clock": ref("Clock"),
            "rated": {
                "type": "boolean",
                "const": True,
                "description": "Present (true) when the game counts for its players' ratings.",
            },
            # the finished game this one is the rematch of; a finished game's rematch
            "rematch_of": ref("GameId"),
            "rematch": ref("GameId"),
        },
    },
    "Rematch": {
        "type": "object",
        "required": ["game", "seat"],
        "additionalProperties": False,
        "properties": {
            "game": ref("Game"),
            "seat": {
                "oneOf": [ref("SeatToken"), {"type": "null"}],
                "description": (
                    "The caller's seat in the rematch with its new token, once: when this "
                    "request made the rematch and the seat has neither a player nor a bot. "
                    "Otherwise null: a player's key plays its bound seat, and a seat left "
                    "open is claimed (`POST /games/{game_id}/seats/{seat}/claim`)."
                ),
            },
        },
    },
    "GameCreated": {
        "type": "object",
        "required": ["game", "seats"],
        "additionalProperties": False,
        "properties": {
            "game": ref("Game"),
            "seats": {
                "type": "array",
                "description": (
                    "Every seat; a named seat with its token, an open seat without "
                    "one (its token comes\n"
                    "with its claim), a bot seat without one (it never has one).\n"
                ),
                "items": {
                    "oneOf": [
                        ref("SeatToken"),
                        ref("OpenSeatCreated"),
                        ref("BotSeatCreated"),
                        ref("PlayerSeatCreated"),
                    ]
                },
            },
            "next": ref("PendingView"),
            "legal": {
                "type": "array",
                "description": "The legal commands of each awaited seat whose token this "
                "answer holds or that is bound to the creating player's key, in serving order "
                "(ascending seat); empty while the game waits "
                "for open seats. Absent, like `next`, under `Prefer: return=minimal`.",
                "items": ref("LegalCommands"),
            },
        },
    },
    "Invitation": {
        "type": "object",
        "required": ["game_id", "seat", "player", "code", "link"],
        "additionalProperties": False,
        "description": (
            "An open seat reserved for one player. The code is shown once, here: pass it "
            "(or the link) to the invited player, whose key redeems it."
        ),
        "properties": {
            "game_id": ref("GameId"),
            "seat": seat_number(),
            "player": ref("PlayerId"),
            "code": {"type": "string", "pattern": "^inv\\.[A-Za-z0-9_.-]+$"},
            "link": {
                "type": "string",
                "description": "Where the invited player redeems it: `POST` with its key.",
            },
        },
    },
    "PlayerId": {
        "type": "string",
        "pattern": "^[0-9a-f]{32}$",
        "description": "A player's id.",
    },
    "PlayerSeatCreate": {
        "type": "object",
        "description": (
            "A seat bound to a player: no seat token comes back, the player's key plays it "
            "(and lists the game in `GET /players/me/games`). Only that player's key or the "
            "admin token may bind a seat to a player (else 403); an unknown player is a 400. "
            "The name defaults to the player's."
        ),
        "required": ["type", "player"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "enum": ["player"]},
            "player": ref("PlayerId"),
            "name": ref("SeatName"),
        },
    },
    "PlayerSeatCreated": {
        "type": "object",
        "description": "A seat bound to a player; its key plays it (no seat token).",
        "required": ["seat", "name", "player"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "player": ref("PlayerId"),
        },
    },
    "Player": {
        "type": "object",
        "required": ["player_id", "name", "created_at"],
        "additionalProperties": False,
        "properties": {
            "player_id": ref("PlayerId"),
            "name": {"type": "string"},
            "created_at": {"type": "string", "format": "date-time"},
        },
    },
    "PlayerCreated": {
        "type": "object",
        "required": ["player_id", "name", "created_at", "key", "authorization"],
        "additionalProperties": False,
        "properties": {
            "player_id": ref("PlayerId"),
            "name": {"type": "string"},
            "created_at": {"type": "string", "format": "date-time"},
            "key": {
                "type": "string",
                "pattern": "^pk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$",
                "description": "The player's secret key; shown only here (only its hash is kept).",
            },
            "authorization": {
                "type": "string",
                "description": "The header value to send: `Bearer <key>`.",
            },
        },
    },
    "PlayerGameSeat": {
        "type": "object",
        "required": ["seat", "name", "mine", "open"],
        "additionalProperties": False,
        "properties": {
            "seat": seat_number(),
            "name": {"type": "string"},
            "mine": {"type": "boolean", "description": "Bound to the calling player."},
            "open": {"type": "boolean"},
            "bot": ref("BotSeat"),
        },
    },
    "PlayerGame": {
        "type": "object",
        "required": [
            "game_id",
            "kind",
            "status",
            "version",
            "seats",
            "my_seats",
            "turn",
            "awaited",
            "awaiting_me",
            "created_at",
            "updated_at",
            "clock",
        ],
        "additionalProperties": False,
        "properties": {
            "game_id": ref("GameId"),
            "kind": ref("Kind"),
            "status": ref("Status"),
            "version": {"type": "integer", "minimum": 1},
            "seats": {"type": "array", "items": ref("PlayerGameSeat")},
            "my_seats": {"type": "array", "items": seat_number()},
            "turn": {
                "type": "object",
                "required": ["number", "seat"],
                "additionalProperties": False,
                "properties": {
                    "number": {"type": "integer", "minimum": 0},
                    "seat": seat_number(type=["integer", "null"]),
                },
            },
            "awaited": {
                "type": "array",
                "description": "The seats whose input the game awaits.",
                "items": seat_number(),
            },
            "awaiting_me": {
                "type": "boolean",
                "description": "A seat of the player is awaited (the game is active).",
            },
            "created_at": {"type": "string", "format": "date-time"},
            "updated_at": {"type": "string", "format": "date-time"},
            "clock": {
                "description": (
                    "The awaited seats' time left, for a running game with a turn clock; else null."
                ),
                "oneOf": [ref("ClockState"), {"type": "null"}],
            },
        },
    },
    "Rating": {
        "type": "object",
        "required": ["mu", "sigma", "ordinal", "games"],
        "additionalProperties": False,
        "description": (
            "A rating of openskill's Plackett-Luce model: `mu` (the skill estimate), `sigma` "
            "(its uncertainty), `ordinal` (mu - 3 sigma, the conservative rating leaderboards "
            "are ordered by) and the rated games it counts."
        ),
        "properties": {
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "ordinal": {"type": "number"},
            "games": {"type": "integer", "minimum": 1},
        },
    },
    "Leaderboard": {
        "type": "object",
        "required": ["kind", "items", "total", "next_offset"],
        "additionalProperties": False,
        "properties": {
            "kind": ref("Kind"),
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["rank", "player_id", "name", "rating"],
                    "additionalProperties": False,
                    "properties": {
                        "rank": {"type": "integer", "minimum": 1},
                        "player_id": ref("PlayerId"),
                        "name": {"type": "string"},
                        "rating": ref("Rating"),
                    },
                },
            },
            "total": {"type": "integer", "minimum": 0, "description": "Players rated."},
            "next_offset": {
                "type": ["integer", "null"],
                "description": "The `offset` of the next page; null at the end.",
            },
        },
    },
    "PlayerRatings": {
        "type": "object",
        "required": ["player_id", "name", "ratings"],
        "additionalProperties": False,
        "properties": {
            "player_id": ref("PlayerId"),
            "name": {"type": "string"},
            "ratings": {
                "type": "object",
                "description": "By kind; a kind the player has no rated game of is absent.",
                "additionalProperties": ref("Rating"),
            },
        },
    },
    "RatingHistory": {
        "type": "object",
        "required": ["player_id", "kind", "items", "total", "next_offset"],
        "additionalProperties": False,
        "properties": {
            "player_id": ref("PlayerId"),
            "kind": ref("Kind"),
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": [
                        "game_id",
                        "version",
                        "ended_at",
                        "seat",
                        "place",
                        "before",
                        "after",
                    ],
                    "additionalProperties": False,
                    "properties": {
                        "game_id": ref("GameId"),
                        "version": {"type": "integer", "minimum": 1},
                        "ended_at": {"type": "string", "format": "date-time"},
                        "seat": {"type": "integer", "minimum": 0},
                        "place": {"type": "integer", "minimum": 1},
                        "before": {"oneOf": [ref("Rating"), {"type": "null"}]},
                        "after": ref("Rating"),
                    },
                },
            },
            "total": {"type": "integer", "minimum": 0},
            "next_offset": {"type": ["integer", "null"]},
        },
    },
    "PlayerGamePage": {
        "type": "object",
        "required": ["items", "next_cursor"],
        "additionalProperties": False,
        "properties": {
            "items": {"type": "array", "items": ref("PlayerGame")},
            "next_cursor": {"type": ["string", "null"]},
        },
    },
    "GamePage": {
        "type": "object",
        "required": ["items", "next_cursor"],
        "additionalProperties": False,
        "properties": {
            "items": {"type": "array", "items": ref("Game")},
            "next_cursor": {"type": ["string", "null"]},
        },
    },
    "EventPage": {
        "type": "object",
        "required": ["version", "items", "next_after"],
        "additionalProperties": False,
        "properties": {
            "version": {"type": "integer", "minimum": 0},
            "items": {"type": "array", "items": ref("Event")},
            "next_after": {
                "type": ["integer", "null"],
                "description": "The `after` of the next page; null at the end.",
            },
        },
    },
    "CommandResult": {
        "type": "object",
        "description": "A command's result and what comes next. `next` is the pending "
        "decision right after the command, as `GET /games/{game_id}/pending` answers it at "
        "that version but without `clock` (read it there). `next` and `legal` are there "
        "unless the request said `Prefer: return=minimal`.",
        "required": ["version", "events"],
        "additionalProperties": False,
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "events": {"type": "array", "items": ref("Event")},
            "next": ref("PendingView"),
            "legal": ref("CallerLegalCommands"),
        },
    },
    "CallerLegalCommands": {
        "description": "The caller's seat's legal commands right after a write, as "
        "`GET /games/{game_id}/legal-commands` answers them at that version; `null` when that "
        "seat is not awaited (or the game is over, has not started, or the caller plays no "
        "seat). For a player key holding several seats: those of the first of its seats "
        "awaited, in serving order (ascending seat; `seat` says which). Never the legal "
        "commands of a seat the caller does not hold.",
        "oneOf": [ref("LegalCommands"), {"type": "null"}],
    },
    "Viewer": {
        "type": "string",
        "description": "`seat:<n>`, `spectator` or `admin`.",
        "pattern": "^(seat:[0-3]|spectator|admin)$",
    },
    "StateView": {
        "type": "object",
        "required": ["game_id", "version", "viewer", "over", "state"],
        "additionalProperties": False,
        "properties": {
            "game_id": ref("GameId"),
            "version": {"type": "integer", "minimum": 1},
            "viewer": ref("Viewer"),
            "over": {"type": "boolean"},
            "state": ref("GameView"),
        },
    },
    "PendingView": {
        "type": "object",
        "description": "Who is awaited, on what (`pending`), and their clock. `awaited` is "
        "in ascending seat order: the order in which a client holding several awaited seats "
        "serves them. The answers of writes carry it as `next` (without `clock`).",
        "required": ["version", "awaited", "over", "turn", "pending"],
        "additionalProperties": False,
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "awaited": {"type": "array", "items": seat_number()},
            "over": {"type": "boolean"},
            "turn": {
                "type": "object",
                "required": ["number", "seat"],
                "additionalProperties": False,
                "properties": {"number": {"type": "integer"}, "seat": {"type": "integer"}},
            },
            "pending": ref("PendingDecision"),
            "clock": ref("ClockState"),
        },
    },
    "ResultView": {
        "type": "object",
        "description": "The final table (`result`) of a game that is over.",
        "required": ["version", "result"],
        "additionalProperties": False,
        "properties": {"version": {"type": "integer", "minimum": 1}, "result": ref("GameResult")},
    },
    "UndoRequest": {
        "type": "object",
        "required": [
            "request_id",
            "to_version",
            "reason",
            "requested_by",
            "status",
            "self_undo",
            "approved_by",
            "rejected_by",
            "awaiting",
            "requested_at",
        ],
        "additionalProperties": False,
        "properties": {
            "request_id": {"type": "string"},
            "to_version": {"type": "integer", "minimum": 1},
            "reason": {"type": "string"},
            "requested_by": {"type": "string"},
            "status": {"type": "string", "enum": ["open", "applied", "rejected", "lapsed"]},
            "self_undo": {
                "type": "boolean",
                "description": ("True for an undo of one's own action applied without approval."),
            },
            "approved_by": {"type": "array", "items": {"type": "string"}},
            "rejected_by": {"type": "array", "items": {"type": "string"}},
            "awaiting": {
                "type": "array",
                "description": "The seats (`seat:<n>`) whose answer is still needed.",
                "items": {"type": "string"},
            },
            "requested_at": {
                "type": "integer",
                "minimum": 1,
                "description": "The version of the request's event.",
            },
            "applied_at": {
                "type": ["integer", "null"],
                "description": "The version of the revert event, once applied.",
            },
            "next": {
                "$ref": "#/components/schemas/PendingView",
                "description": "Only in the answers of `POST` (a request, an answer), unless "
                "`Prefer: return=minimal`.",
            },
            "legal": {
                "$ref": "#/components/schemas/CallerLegalCommands",
                "description": "Only in the answers of `POST` (a request, an answer), unless "
                "`Prefer: return=minimal`.",
            },
        },
    },
    "RecordHeader": {
        "type": "object",
        "description": "The first line of a game record.",
        "required": [
            "format",
            "game_id",
            "kind",
            "seats",
            "options",
            "complete",
            "events",
            "genesis",
            "head",
        ],
        "additionalProperties": False,
        "properties": {
            "format": {"type": "string", "enum": ["tigris-record/1"]},
            "game_id": {"type": "string"},
            "kind": ref("Kind"),
            "seats": {
                "type": "array",
                "description": (
                    "The seats' current names (as created, renamed by the lobby's claims)."
                ),
                "items": {"type": "string"},
            },
            "options": {
                "type": "object",
                "description": "The game's options in their normal form.",
            },
            "complete": {
                "type": "boolean",
                "description": "False for a record redacted for its caller.",
            },
            "events": {"type": "integer", "minimum": 1},
            "genesis": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": (
                    "SHA-256 of the canonical `{format, game_id, kind, seats, "
                    "options}`, with the seat names the game was created with (its "
                    "`CreateGame`), never changed by a claim."
                ),
            },
            "head": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": "The last event's hash.",
            },
            "bots": {
                "type": "object",
                "description": (
                    "Only in the record of a game with bot seats; seat number → "
                    "its bot. An imported game keeps them as bot seats (with no "
                    "token)."
                ),
                "minProperties": 1,
                "propertyNames": {"pattern": "^[0-3]$"},
                "additionalProperties": ref("BotSeat"),
            },
        },
    },
    "RecordEvent": {
        "type": "object",
        "description": "One event line of a game record.",
        "required": ["version", "type", "schema", "data", "meta", "command", "hash"],
        "additionalProperties": False,
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "type": {"type": "string"},
            "schema": {
                "type": "integer",
                "minimum": 1,
                "description": "The schema version the data was stored with.",
            },
            "data": {
                "type": "object",
                "description": "The event's data as stored (or as the caller may see it).",
            },
            "meta": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "command_id": {"type": "string"},
                    "actor": {"type": "string"},
                    "seat": {"type": ["integer", "null"]},
                    "recorded_at": {"type": "string"},
                    "rules": {"type": "array", "items": {"type": "string"}},
                },
            },
            "command": {
                "type": ["object", "null"],
                "description": (
                    "The command that produced this event and the ones after it up "
                    "to the next command (`CreateGame` for the start events, "
                    "`ClaimSeat` for a lobby claim); null on those others."
                ),
                "required": ["type"],
                "properties": {"type": {"type": "string"}},
            },
            "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
    },
    "RecordProblem": {
        "type": "object",
        "required": ["type", "title", "status"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "instance": {"type": "string"},
            "version": {
                "type": "integer",
                "minimum": 0,
                "description": (
                    "The first version where the record and the rules disagree (0 the header)."
                ),
            },
        },
    },
    "RuleLink": {
        "type": "object",
        "required": ["id", "url", "description"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^[BC]-[A-Z]+-[A-Z0-9]+$"},
            "url": {"type": "string", "description": "The rule's text: `/rules/<kind>#<id>`."},
            "description": {
                "type": ["string", "null"],
                "description": (
                    "The rule in one sentence, in the response's `Content-Language`; null "
                    "when none is written."
                ),
            },
        },
    },
    "ServiceCommand": {
        "type": "object",
        "description": (
            "A command of the service itself, as recorded: the creation "
            "(`CreateGame`: seats as created, options, seed where the "
            "caller may see it, open seats if any), a lobby claim "
            "(`ClaimSeat`: seat, name) or an undo step."
        ),
        "required": ["type"],
        "properties": {
            "type": {
                "type": "string",
                "enum": [
                    "CreateGame",
                    "ClaimSeat",
                    "RequestUndo",
                    "AnswerUndo",
                    "Revert",
                    "AppendServiceEvents",
                ],
            }
        },
    },
    "Explanation": {
        "type": "object",
        "required": [
            "game_id",
            "version",
            "type",
            "event",
            "command_version",
            "command",
            "actor",
            "seat",
            "recorded_at",
            "rules",
            "before",
            "after",
            "alternatives",
            "complete",
        ],
        "additionalProperties": False,
        "properties": {
            "game_id": {"type": "string"},
            "version": {"type": "integer", "minimum": 1},
            "type": {"type": "string", "description": "The type of the event at `version`."},
            "event": {
                "description": (
                    "The event at `version` as the events endpoint shows it to the caller. "
                    "For a conflict's outcome (`board.ConflictResolved`, "
                    "`cards.ConflictResolved`) it names the attacker and defender, each "
                    "strength (base and committed), the winner and loser and, on the board, "
                    "every piece removed and the points scored (points only for a seat that "
                    "may see them)."
                ),
                "allOf": [ref("Event")],
            },
            "command_version": {
                "type": "integer",
                "minimum": 1,
                "description": "The version of the first event of the command.",
            },
            "command": {
                "description": (
                    "The command as sent (null when hidden from the caller or not "
                    "recorded); for the start events, a lobby claim and undo "
                    "events the service's own command (`ServiceCommand`)."
                ),
                "oneOf": [ref("Command"), ref("ServiceCommand"), {"type": "null"}],
            },
            "actor": {"type": "string"},
            "seat": {"type": ["integer", "null"]},
            "recorded_at": {"type": ["string", "null"]},
            "rules": {
                "type": ["array", "null"],
                "description": (
                    "The rule trail of the event (null for events stored before trails were kept)."
                ),
                "items": ref("RuleLink"),
            },
            "before": {
                "description": ("The game right before the command (null for the start events)."),
                "oneOf": [ref("StateView"), {"type": "null"}],
            },
            "after": ref("StateView"),
            "alternatives": {
                "type": ["array", "null"],
                "description": (
                    "The legal commands the seat had then (null when hidden or for "
                    "undo and start events)."
                ),
                "items": ref("Command"),
            },
            "complete": {"type": "boolean"},
        },
    },
}


# A player's feed (``service.api.feed``): entries, pages, and what a player's webhook gets.
_ENTRY_TYPES = [
    "game_started",
    "your_turn",
    "undo_requested",
    "game_over",
    "invitation_received",
]
SCHEMAS |= {
    "FeedEntry": {
        "type": "object",
        "description": (
            "One entry of a player's feed, about seats bound to the player. `game_started` "
            "and `game_over` name the player's `seats`; the others one `seat`. "
            "`your_turn`: the seat is awaited from `version` on (send the next command "
            "with `If-Match` that version). `undo_requested`: the seat must answer the "
            "request `request_id`. `game_over`: the `result` (final scoring and places). "
            "`invitation_received`: a seat reserved for the player by `invited_by` (a "
            "player id; null: the admin), with what redeeming it needs (`invitation`). "
            "An entry never holds what the player's seats may not see."
        ),
        "required": ["id", "type", "game_id", "kind", "version", "at"],
        "properties": {
            "id": {"type": "integer", "minimum": 1, "description": "Its number in the feed."},
            "type": {"type": "string", "enum": _ENTRY_TYPES},
            "game_id": ref("GameId"),
            "kind": {"type": "string"},
            "version": {"type": "integer", "minimum": 0},
            "at": {"type": "string", "description": "When its game's event was recorded."},
            "seat": {"type": "integer", "minimum": 0},
            "seats": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "request_id": {"type": "string"},
            "to_version": {"type": "integer", "minimum": 1},
            "requested_by": {"type": "string"},
            "result": {"type": ["object", "null"]},
            "invited_by": {"type": ["string", "null"]},
            "invitation": {"type": "object"},
        },
        "additionalProperties": False,
    },
    "FeedPage": {
        "type": "object",
        "required": ["items", "next_after", "oldest_id", "last_id"],
        "additionalProperties": False,
        "properties": {
            "items": {"type": "array", "items": ref("FeedEntry")},
            "next_after": {
                "type": "integer",
                "minimum": 0,
                "description": "The `after` of the next page.",
            },
            "oldest_id": {
                "type": "integer",
                "minimum": 0,
                "description": "The oldest entry kept (0: none).",
            },
            "last_id": {
                "type": "integer",
                "minimum": 0,
                "description": "The last entry written (0: none).",
            },
        },
    },
    "PlayerFeedPayload": {
        "type": "object",
        "description": "The body of a player's webhook delivery (`webhooks.playerFeed`).",
        "required": ["type", "timestamp", "data"],
        "additionalProperties": False,
        "properties": {
            "type": {"type": "string", "const": "player.feed"},
            "timestamp": {"type": "string", "format": "date-time"},
            "data": {
                "type": "object",
                "required": ["player_id", "last_id", "entries"],
                "additionalProperties": False,
                "properties": {
                    "player_id": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                    "last_id": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "The number of the batch's last entry.",
                    },
                    "entries": {"type": "array", "minItems": 1, "items": ref("FeedEntry")},
                },
            },
        },
    },
}
