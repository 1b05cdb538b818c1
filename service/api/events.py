"""The event log (paginated) and its live twin, a server-sent-event stream.

The stream is a plain generator: each open stream is one greenlet of the production server
(gunicorn's gevent worker, ``service.api.worker``) that mostly sleeps in a blocking Redis
read (XREAD BLOCK via ``wait_for_events``, at most one heartbeat long, on a Redis pool of
its own), so open streams cost memory, not the capacity commands need. Streams are counted
per process, client address and game (``service.api.streams``: 503/429 beyond the limits);
a browser authenticates with a stream ticket (``?ticket=``) instead of a header.
"""

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

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import ok, operation, query
from service.api.http import json_response, load_query, not_modified
from service.api.language import language
from service.api.problems import bad_request
from service.api.schemas import EventListQuerySchema, StreamQuerySchema
from service.api.streams import caller_from_ticket, stream_gate
from service.application.game_service import GameService
from service.application.rendering import events_json
from service.errors import StoreUnavailable

log = logging.getLogger(__name__)
blueprint = Blueprint("events", __name__)
_LAST_EVENT_ID = re.compile(r"^[0-9]{1,12}$")
STREAM_BATCH = 200


@blueprint.get("/games/<gid:game_id>/events")
@operation(
    "listEvents",
    tags=["events"],
    summary="The event log, oldest first, redacted for the caller.",
    description=(
        "Another seat's draws appear without their tiles or cards. "
        "Page with `after` = the previous page's `next_after`."
    ),
    parameters=[
        "PlayerSeat",
        "IfNoneMatch",
        "AcceptLanguage",
        query(EventListQuerySchema),
    ],
    responses={
        200: ok(
            "One page of events.",
            "EventPage",
            headers={"ETag": "ETag", "Content-Language": "ContentLanguage"},
        )
    },
    problems=[
        "NotModified",
        "RateLimited",
        "BadRequest",
        "Unauthorized",
        "NotFound",
        "Unavailable",
        "Forbidden",
    ],
)
def list_events(game_id: str) -> Response:
    caller = caller_for(game_id)
    query = load_query(EventListQuerySchema())
    games = services().games
    current = games.repository.get(game_id)
    words = language()  # before the ETag: the page's descriptions are in this language
    unchanged = not_modified(current.version)  # spare reading and redacting the page
    if unchanged is not None:
        return unchanged
    page = games.queries.events(game_id, after_version=query["after"], limit=query["limit"])
    next_after = page[-1].version if page and page[-1].version < current.version else None
    body = {
        "version": current.version,
        "items": events_json(page, caller, current, games=games, language=words),
        "next_after": next_after,
    }
    return json_response(body, version=current.version)


@blueprint.get("/games/<gid:game_id>/events/stream")
@operation(
    "streamEvents",
    tags=["events"],
    summary="The same events live, as server-sent events; resumable.",
    description=(
        "Each message has `id: <version>`, `event: game-event` and "
        "`data:` the event (schema\n"
        "`Event`) redacted for the caller. Resume with the "
        "`Last-Event-ID` header (or `after`).\n"
        "A comment line (`: keep-alive`) is sent after every heartbeat "
        "interval without an event\n"
        "(15 s by default), so an idle stream stays open; the stream "
        "closes after `wait` seconds\n"
        "without a new event, or once the game is over and every event "
        "was sent.\n"
        "\n"
        "The caller is a spectator, the seat or admin of an "
        "`Authorization` header, or the holder\n"
        "of a stream ticket (`ticket`, from `POST "
        "/games/{game_id}/stream-tickets`) for clients\n"
        "such as a browser's `EventSource` that cannot send headers; "
        "not both. Open streams are\n"
        "limited per server process, per client address and per game "
        "(429), and in all (503);\n"
        "both carry `Retry-After`.\n"
    ),
    parameters=[
        "PlayerSeat",
        "AcceptLanguage",
        {
            "name": "Last-Event-ID",
            "in": "header",
            "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
        },
        query(StreamQuerySchema),
    ],
    responses={200: ok("An event stream.", {"type": "string"}, media="text/event-stream")},
    problems=[
        "BadRequest",
        "Unauthorized",
        "NotFound",
        "TooManyStreams",
        "StreamsUnavailable",
        "Forbidden",
    ],
)
def stream_events(game_id: str) -> Response:
    query = load_query(StreamQuerySchema())
    if query["ticket"] is None:
        caller = caller_for(game_id)
    elif "Authorization" in request.headers:
        raise bad_request("send a stream ticket or an Authorization header, not both", "ticket")
    else:
        caller = caller_from_ticket(game_id, query["ticket"])
    after = query["after"]
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id is not None:
        if not _LAST_EVENT_ID.match(last_event_id.strip()):
            raise bad_request("Last-Event-ID must be an event version", "Last-Event-ID")
        after = int(last_event_id)  # a reconnecting client knows best where it stopped
    found = services()
    found.games.repository.get(game_id)  # 404 before the stream starts
    gate = stream_gate()
    release = gate.enter(request.remote_addr or "", game_id)  # or 429/503
    try:
        stream = _stream(
            found.games,
            game_id,
            caller,
            after=after or 0,
            wait_s=query["wait"],
            heartbeat_s=found.settings.sse_heartbeat_s,
            release=release,
            work=gate.work,
            language=language(),
        )
        response = Response(stream_with_context(stream), mimetype="text/event-stream")
    except BaseException:
        release()
        raise
    # The server closes the response however the stream ends (even never started).
    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # tell proxies not to buffer the stream
    return response


def _stream(
    games: GameService,
    game_id: str,
    caller: Caller,
    *,
    after: int,
    wait_s: float,
    heartbeat_s: float,
    release: Callable[[], None],
    work: AbstractContextManager[Any],
    language: str,
) -> Iterator[str]:
    try:
        yield from _events(
            games,
            game_id,
            caller,
            after=after,
            wait_s=wait_s,
            heartbeat_s=heartbeat_s,
            work=work,
            language=language,
        )
    except (StoreUnavailable, redis.RedisError) as exc:
        # The headers are sent: no problem can be answered any more. The stream ends
        # cleanly and the client reconnects with Last-Event-ID (``retry:`` above).
        log.warning("event stream of %s ended: store unavailable (%s)", game_id, exc)
    finally:
        release()


def _events(
    games: GameService,
    game_id: str,
    caller: Caller,
    *,
    after: int,
    wait_s: float,
    heartbeat_s: float,
    work: AbstractContextManager[Any],
    language: str,
) -> Iterator[str]:
    yield "retry: 2000\n\n"
    deadline = time.monotonic() + wait_s
    while True:
        # The one read of the game's info in this iteration; only events up to its version
        # are sent now, so that they are shown as of a state no older than themselves.
        current = games.repository.get(game_id)
        ahead = current.version - after
        if ahead <= 0:
            if current.rules.is_over(current.state):
                return  # nothing can follow the end
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            # One event is enough to wake up: the batch is read below, under ``work``.
            if not games.queries.wait_for_events(
                game_id, after, min(heartbeat_s, remaining), game=current, limit=1
            ):
                yield ": keep-alive\n\n"
            continue  # what arrived is sent next time round, with the game as it is then
        # Building a batch is CPU work (decode, redact, encode): a few streams at a time
        # per process, so that a burst of events fanned out to many streams cannot starve
        # commands (streams that wait catch up with bigger batches). Written outside it.
        with work:
            batch = games.queries.events(
                game_id, after_version=after, limit=min(ahead, STREAM_BATCH), game=current
            )
            messages = [
                f"id: {event.version}\nevent: game-event\n"
                f"data: {json.dumps(item, separators=(',', ':'))}\n\n"
                for event, item in zip(
                    batch,
                    events_json(batch, caller, current, games=games, language=language),
                    strict=True,
                )
            ]
        yield from messages
        after = batch[-1].version
        deadline = time.monotonic() + wait_s
