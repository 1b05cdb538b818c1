"""The event log (paginated) and its live twin, a server-sent-event stream.

The stream is a plain generator: each open stream is one greenlet of the production server
(gunicorn's gevent worker, ``service.api.worker``). It first catches up from Redis (after
``Last-Event-ID`` or ``after``), rendering for itself; then it joins the process's one
follower of the game (``service.api.fanout``), which reads the game's new events once (in
the process's one blocking read of the games it follows, on a Redis connection of its
own), renders them once per viewer class and hands the frames to every stream of the
game; the stream mostly sleeps until then, so open streams cost memory, not the capacity
commands need. Streams are counted per process,
client address and game (``service.api.streams``: 503/429 beyond the limits); a browser
authenticates with a stream ticket (``?ticket=``) instead of a header.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from typing import Any

import redis
from flask import Blueprint, Response, request, stream_with_context

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import ok, operation, query
from service.api.fanout import (
    STREAM_BATCH,
    Closed,
    Direct,
    Ended,
    FanOut,
    Frames,
    Raw,
    ViewerClass,
    encode,
)
from service.api.http import json_response, load_query, not_modified
from service.api.language import language
from service.api.problems import bad_request
from service.api.schemas import EventListQuerySchema, StreamQuerySchema
from service.api.streams import caller_from_ticket, fan_out, stream_gate
from service.application.game_service import GameService
from service.application.rendering import events_json
from service.application.repository import LoadedGame
from service.errors import StoreUnavailable

log = logging.getLogger(__name__)
blueprint = Blueprint("events", __name__)
_LAST_EVENT_ID = re.compile(r"^[0-9]{1,12}$")


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
            hub=fan_out(),
            direct=Direct.of(request.environ),
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
    hub: FanOut,
    direct: Direct | None,
) -> Iterator[bytes]:
    try:
        yield from _events(
            games,
            game_id,
            ViewerClass(caller.admin, None if caller.admin else caller.seat, language),
            after=after,
            wait_s=wait_s,
            heartbeat_s=heartbeat_s,
            work=work,
            hub=hub,
            direct=direct,
        )
    except (StoreUnavailable, redis.RedisError) as exc:
        # The headers are sent: no problem can be answered any more. The stream ends
        # cleanly and the client reconnects with Last-Event-ID (``retry:`` above).
        log.warning("event stream of %s ended: store unavailable (%s)", game_id, exc)
    finally:
        release()


class _Position:
    """Where a stream stands: the last version it sent."""

    def __init__(self, after: int) -> None:
        self.after = after


def _catch_up(
    games: GameService,
    game_id: str,
    viewer: ViewerClass,
    position: _Position,
    *,
    upto: int | None,
    work: AbstractContextManager[Any],
) -> Generator[bytes, None, LoadedGame]:
    """The events after ``position`` (up to ``upto``, else up to the game's version), read
    from Redis and rendered for this stream alone: on opening, and over a gap in the
    follower's frames. Returns with the game as last read."""
    while True:
        # Only events up to the version of the game just read are sent, so that they are
        # shown as of a state no older than themselves.
        current = games.repository.get(game_id)
        end = current.version if upto is None else min(upto, current.version)
        ahead = end - position.after
        if ahead <= 0:
            return current
        # Building a batch is CPU work (decode, redact, encode): a few streams at a time
        # per process, so that many streams catching up cannot starve commands.
        with work:
            batch = games.queries.events(
                game_id,
                after_version=position.after,
                limit=min(ahead, STREAM_BATCH),
                game=current,
            )
            frames = encode(
                batch,
                events_json(batch, viewer, current, games=games, language=viewer.language),
            )
        if not frames:
            return current
        yield b"".join(frame for _, frame in frames)
        position.after = frames[-1][0]


def _events(
    games: GameService,
    game_id: str,
    viewer: ViewerClass,
    *,
    after: int,
    wait_s: float,
    heartbeat_s: float,
    work: AbstractContextManager[Any],
    hub: FanOut,
    direct: Direct | None = None,
) -> Iterator[bytes]:
    yield b"retry: 2000\n\n"
    deadline = time.monotonic() + wait_s
    position = _Position(after)
    current = yield from _catch_up(games, game_id, viewer, position, upto=None, work=work)
    if position.after >= current.version and current.rules.is_over(current.state):
        return  # nothing can follow the end
    if position.after > after:
        deadline = time.monotonic() + wait_s
    if deadline <= time.monotonic():
        return
    # Live: the process's one follower of this game hands this stream its frames.
    # (From no further than the game: a Last-Event-ID beyond it must not put the process's
    # follower of the game, shared with other streams, ahead of the game.)
    # (Its frames may go straight to its socket while it waits: see ``Direct``.)
    subscription = hub.join(game_id, viewer, min(position.after, current.version), direct)
    try:
        if subscription.joined_at > position.after:  # the follower was ahead
            yield from _catch_up(
                games, game_id, viewer, position, upto=subscription.joined_at, work=work
            )
        sent_at = time.monotonic()  # the stream's last bytes: a heartbeat after them
        while True:
            now = time.monotonic()
            remaining = deadline - now
            if remaining <= 0:
                return
            quiet = max(0.0, min(sent_at + heartbeat_s - now, remaining))
            items = subscription.take(quiet, position.after)
            if subscription.written > position.after:  # written to its socket meanwhile
                position.after = subscription.written
                deadline = subscription.written_at + wait_s
                sent_at = max(sent_at, subscription.written_at)
            for item in items:
                if isinstance(item, Raw):
                    assert direct is not None  # only the reader's writes leave a rest
                    direct.send_rest(item.data)  # before anything else
                    sent_at = time.monotonic()
                    continue
                if isinstance(item, Closed):
                    yield f": closed: {item.reason}\n\n".encode()
                    return
                before = position.after
                if isinstance(item, Frames):
                    fresh = [(v, frame) for v, frame in item.frames if v > position.after]
                    if not fresh:
                        continue
                    if fresh[0][0] > position.after + 1:  # a gap: read it first
                        yield from _catch_up(
                            games, game_id, viewer, position, upto=fresh[0][0] - 1, work=work
                        )
                        fresh = [(v, frame) for v, frame in fresh if v > position.after]
                    if fresh:
                        yield b"".join(frame for _, frame in fresh)
                        position.after = fresh[-1][0]
                else:  # Behind or Ended: read up to its version from Redis
                    yield from _catch_up(
                        games, game_id, viewer, position, upto=item.version, work=work
                    )
                    if isinstance(item, Ended):
                        return
                if position.after > before:
                    sent_at = time.monotonic()
                    deadline = sent_at + wait_s
            if time.monotonic() - sent_at >= heartbeat_s:
                yield b": keep-alive\n\n"
                sent_at = time.monotonic()
    finally:
        hub.leave(subscription)
