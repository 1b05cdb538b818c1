"""``/players/me/feed`` and ``/players/me/webhooks``: one feed per player of what concerns
it in all of its games (``service.application.feed``), as a resumable server-sent-event
stream, as pages of JSON, and as signed webhooks (``service.jobs.feed``).

The stream works as a game's (``service.api.events``): a generator on a greenlet that
sleeps in a blocking read (XREAD BLOCK on the store's own pool of blocking connections),
a ``: keep-alive`` comment every heartbeat, counted by the process's stream gate (per
client address, per player as per game, and in all: 429/503), resumed with
``Last-Event-ID`` (the last entry number seen)."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import redis
from flask import Blueprint, Response, request, stream_with_context

from service.api.background import triggers
from service.api.context import caller_for, services
from service.api.declare import body, ok, operation, query, ref
from service.api.http import json_response, load_body, load_query
from service.api.players import _player
from service.api.problems import ApiProblem, bad_request, conflict, not_found, unauthorized
from service.api.schemas import FeedQuerySchema, FeedStreamQuerySchema, PlayerWebhookCreateSchema
from service.api.streams import stream_gate
from service.api.webhooks import deliveries_page, subscription_json
from service.application.feed import PlayerFeeds, entry_json
from service.application.webhooks import PlayerWebhooks, WebhookLimits, WebhookNotFound
from service.errors import StoreUnavailable
from service.store.port import TooManyWebhooks

log = logging.getLogger(__name__)
blueprint = Blueprint("feed", __name__)
_LAST_EVENT_ID = re.compile(r"^[0-9]{1,12}$")
STREAM_BATCH = 200
_PROBLEMS = ["RateLimited", "BadRequest", "Unauthorized", "Unavailable"]


def _page(feeds: PlayerFeeds, player_id: str, after: int, limit: int) -> dict[str, Any]:
    entries, oldest, last = feeds.page(player_id, after, limit)
    return {
        "items": [entry_json(e) for e in entries],
        "next_after": entries[-1].seq if entries else after,
        "oldest_id": oldest,
        "last_id": last,
    }


@blueprint.get("/players/me/feed/entries")
@operation(
    "listMyFeed",
    tags=["players"],
    summary="The calling player's feed entries after `after`, oldest first.",
    description=(
        "The same entries as the feed's stream (`GET /players/me/feed`), for clients "
        "without server-sent events: page with `after` = the previous page's "
        "`next_after`. Entries are numbered 1, 2, ... per player; a feed keeps its newest "
        "`TIGRIS_PLAYER_FEED_LENGTH` (1000 by default): `oldest_id` is the oldest kept, so "
        "a client whose `after` is below `oldest_id - 1` knows it missed some."
    ),
    parameters=[query(FeedQuerySchema)],
    responses={200: ok("One page.", "FeedPage", headers={"Cache-Control": "PrivateNoStore"})},
    problems=_PROBLEMS,
)
def list_my_feed() -> Response:
    record = _player(caller_for(None))
    params = load_query(FeedQuerySchema())
    page = _page(services().games.feeds, record.player_id, params["after"], params["limit"])
    response = json_response(page)
    response.headers["Cache-Control"] = "private, no-store"
    return response


@blueprint.get("/players/me/feed")
@operation(
    "streamMyFeed",
    tags=["players"],
    summary="The calling player's feed live, as server-sent events; resumable.",
    description=(
        "One stream for all of the player's games. Each message has `id: <entry number>`, "
        "`event: <entry type>` (`game_started`, `your_turn`, `undo_requested`, `game_over`, "
        "`invitation_received`) and `data:` the entry (schema `FeedEntry`). Resume with "
        "the `Last-Event-ID` header (or `after`): nothing is lost or repeated while the "
        "feed keeps the entries (its newest `TIGRIS_PLAYER_FEED_LENGTH`, 1000 by "
        "default). Entries are derived from the games' events after each write; an entry "
        "never tells more than the player's seats may see. A comment line "
        "(`: keep-alive`) follows every heartbeat interval without an entry; the stream "
        "closes after `wait` seconds without one. The caller is the player of an "
        "`Authorization` header, or the holder of a feed ticket (`ticket`, from `POST "
        "/players/me/feed/tickets`) for clients such as a browser's `EventSource` that "
        "cannot send headers; not both. Open streams are limited per server process, per "
        "client address and per player (429), and in all (503)."
    ),
    parameters=[
        {
            "name": "Last-Event-ID",
            "in": "header",
            "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
        },
        query(FeedStreamQuerySchema),
    ],
    responses={200: ok("An event stream.", {"type": "string"}, media="text/event-stream")},
    problems=["BadRequest", "Unauthorized", "TooManyStreams", "StreamsUnavailable"],
)
def stream_my_feed() -> Response:
    params = load_query(FeedStreamQuerySchema())
    if params["ticket"] is None:
        player_id = _player(caller_for(None)).player_id
    elif "Authorization" in request.headers:
        raise bad_request("send a feed ticket or an Authorization header, not both", "ticket")
    else:
        found_player = services().credentials.feed_ticket_player(params["ticket"])
        if found_player is None:
            raise unauthorized("unknown or expired feed ticket")
        player_id = found_player
    after = params["after"]
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id is not None:
        if not _LAST_EVENT_ID.match(last_event_id.strip()):
            raise bad_request("Last-Event-ID must be an entry number", "Last-Event-ID")
        after = int(last_event_id)
    found = services()
    gate = stream_gate()
    release = gate.enter(request.remote_addr or "", f"player:{player_id}")
    try:
        stream = _stream(
            found.games.feeds,
            player_id,
            after=after or 0,
            wait_s=params["wait"],
            heartbeat_s=found.settings.sse_heartbeat_s,
            release=release,
            work=gate.work,
        )
        response = Response(stream_with_context(stream), mimetype="text/event-stream")
    except BaseException:
        release()
        raise
    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _stream(
    feeds: PlayerFeeds,
    player_id: str,
    *,
    after: int,
    wait_s: float,
    heartbeat_s: float,
    release: Callable[[], None],
    work: AbstractContextManager[Any],
) -> Iterator[str]:
    try:
        yield "retry: 2000\n\n"
        deadline = time.monotonic() + wait_s
        while True:
            with work:
                entries = feeds.store.read(player_id, after, STREAM_BATCH)
                messages = [
                    f"id: {e.seq}\nevent: {e.data['type']}\n"
                    f"data: {json.dumps(entry_json(e), separators=(',', ':'))}\n\n"
                    for e in entries
                ]
            if messages:
                yield from messages
                after = entries[-1].seq
                deadline = time.monotonic() + wait_s
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if not feeds.store.wait(player_id, after, min(heartbeat_s, remaining)):
                yield ": keep-alive\n\n"
    except (StoreUnavailable, redis.RedisError) as exc:
        log.warning("feed stream of player %s ended: store unavailable (%s)", player_id, exc)
    finally:
        release()


@blueprint.post("/players/me/feed/tickets")
@operation(
    "createFeedTicket",
    tags=["players"],
    summary="A short-lived ticket to open the calling player's feed stream.",
    description=(
        "For clients that cannot send an `Authorization` header on a stream (a browser's "
        "`EventSource`): the player's key goes in the header here, and the returned ticket "
        "in the stream's URL (`?ticket=`), so the key never appears in a URL or a log. A "
        "ticket is random, valid for this player's feed only and for `expires_in` seconds "
        "(as a game's stream tickets, 60 by default), for any number of openings in that "
        "time; only its hash is stored."
    ),
    responses={
        201: ok(
            "A new ticket.",
            "StreamTicket",
            headers={"Cache-Control": {"schema": {"type": "string", "const": "no-store"}}},
        )
    },
    problems=_PROBLEMS,
)
def create_feed_ticket() -> Response:
    record = _player(caller_for(None))
    found = services()
    ttl = found.settings.stream_ticket_ttl_s
    ticket = found.credentials.issue_feed_ticket(record.player_id, ttl)
    response = json_response(
        {"ticket": ticket, "expires_in": ttl, "stream": f"/players/me/feed?ticket={ticket}"},
        201,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------- a player's webhooks
def _webhooks() -> PlayerWebhooks:
    found = triggers()
    if found is None or found.player_hooks is None:
        raise ApiProblem(
            503,
            "jobs-unavailable",
            "Background jobs unavailable",
            "webhooks need a queue Redis (RQ_REDIS_URL)",
        )
    settings = found.settings
    limits = WebhookLimits(
        per_game=settings.webhooks_per_game,
        per_token=settings.webhooks_per_token,
        allow_private=settings.webhook_allow_private,
    )
    return PlayerWebhooks(
        services().games.feeds, found.player_hooks, limits, on_enabled=found.player_enabled
    )


def _private(answer: Any, status: int = 200) -> Response:
    response = json_response(answer, status)
    response.headers["Cache-Control"] = "private, no-store"
    return response


@blueprint.post("/players/me/webhooks")
@operation(
    "createMyWebhook",
    tags=["players"],
    summary="Subscribe a URL to the calling player's feed (Standard Webhooks, signed).",
    description=(
        "Every feed entry from now on is POSTed to `url` (in batches, in order; the "
        "payload is the `playerFeed` webhook), filtered by `events` (entry types; empty: "
        "all), signed and retried exactly as a game's webhooks are (`createWebhook`): the "
        "same headers, schedule, 410 and URL checks. `delivered_version` is the number of "
        "the last entry delivered; `seat` is null. A player has at most "
        "`TIGRIS_WEBHOOKS_PER_TOKEN` (5) webhooks: 409 `too-many-webhooks`."
    ),
    request_body=body(PlayerWebhookCreateSchema, example={"url": "https://example.org/me"}),
    responses={
        201: ok(
            "The subscription, with its secret (shown once).",
            "WebhookCreated",
            headers={"Location": "Location"},
        )
    },
    problems=[*_PROBLEMS, "Conflict", "TooLarge", "UnsupportedMediaType", "Unprocessable"],
)
def create_my_webhook() -> Response:
    record = _player(caller_for(None))
    data = load_body(PlayerWebhookCreateSchema())
    hooks = _webhooks()
    try:
        sub = hooks.subscribe(record.player_id, data["url"], data["events"])
    except TooManyWebhooks as exc:
        raise conflict(
            "too-many-webhooks",
            "Too many webhooks",
            f"this player has {exc.limit} webhook subscriptions already (the most it may "
            "have): delete one first",
            limit=exc.limit,
            scope="player",
        ) from None
    response = _private({**subscription_json(sub), "secret": sub.secret}, 201)
    response.headers["Location"] = f"/players/me/webhooks/{sub.sub_id}"
    return response


@blueprint.get("/players/me/webhooks")
@operation(
    "listMyWebhooks",
    tags=["players"],
    summary="The calling player's webhooks, oldest first (never their secrets).",
    responses={
        200: ok(
            "The subscriptions.",
            {
                "type": "object",
                "required": ["items"],
                "additionalProperties": False,
                "properties": {"items": {"type": "array", "items": ref("Webhook")}},
            },
            headers={"Cache-Control": "PrivateNoStore"},
        )
    },
    problems=_PROBLEMS,
)
def list_my_webhooks() -> Response:
    record = _player(caller_for(None))
    subs = _webhooks().visible(record.player_id)
    return _private({"items": [subscription_json(sub) for sub in subs]})


@blueprint.get("/players/me/webhooks/<rid:webhook_id>")
@operation(
    "getMyWebhook",
    tags=["players"],
    summary="One of the calling player's webhooks and its state (never its secret).",
    responses={
        200: ok("The subscription.", "Webhook", headers={"Cache-Control": "PrivateNoStore"})
    },
    problems=[*_PROBLEMS, "NotFound"],
)
def get_my_webhook(webhook_id: str) -> Response:
    record = _player(caller_for(None))
    try:
        sub = _webhooks().get(record.player_id, webhook_id)
    except WebhookNotFound as exc:
        raise not_found(str(exc)) from None
    return _private(subscription_json(sub))


@blueprint.post("/players/me/webhooks/<rid:webhook_id>/enable")
@operation(
    "enableMyWebhook",
    tags=["players"],
    summary="Re-enable one of the player's disabled webhooks (after a 410 or failures).",
    description=(
        "Active again, its failures forgotten; deliveries resume after `delivered_version` "
        "(the last entry delivered), the batch that failed first (under the same "
        "`webhook-id`). Enabling an active one changes nothing."
    ),
    responses={
        200: ok("The subscription, active.", "Webhook", headers={"Cache-Control": "PrivateNoStore"})
    },
    problems=[*_PROBLEMS, "NotFound"],
)
def enable_my_webhook(webhook_id: str) -> Response:
    record = _player(caller_for(None))
    try:
        sub = _webhooks().enable(record.player_id, webhook_id)
    except WebhookNotFound as exc:
        raise not_found(str(exc)) from None
    return _private(subscription_json(sub))


@blueprint.delete("/players/me/webhooks/<rid:webhook_id>")
@operation(
    "deleteMyWebhook",
    tags=["players"],
    summary="Remove one of the calling player's webhooks (and its delivery log).",
    responses={204: ok("Removed.")},
    problems=[*_PROBLEMS, "NotFound"],
)
def delete_my_webhook(webhook_id: str) -> Response:
    record = _player(caller_for(None))
    try:
        _webhooks().delete(record.player_id, webhook_id)
    except WebhookNotFound as exc:
        raise not_found(str(exc)) from None
    return Response(status=204)


@blueprint.get("/players/me/webhooks/<rid:webhook_id>/deliveries")
@operation(
    "getMyWebhookDeliveries",
    tags=["players"],
    summary="A webhook's delivery log (the last 100 attempts, newest first).",
    responses={
        200: deliveries_page(),
    },
    problems=[*_PROBLEMS, "NotFound"],
)
def my_webhook_deliveries(webhook_id: str) -> Response:
    record = _player(caller_for(None))
    try:
        items = _webhooks().deliveries(record.player_id, webhook_id)
    except WebhookNotFound as exc:
        raise not_found(str(exc)) from None
    return _private({"items": items})
