"""What keeps event streams from taking the server: per-process limits, and stream tickets.

Limits (per server process, see ``ApiSettings``): at most ``max_streams`` open streams in
all (then 503), ``streams_per_client`` per client address and ``streams_per_game`` per
game (then 429); every refusal is a problem with ``Retry-After``. And at most
``stream_concurrency`` streams or game followers of a process build a batch of events at
the same time (the CPU part of streaming: a stream's own catch-up, a follower's rendering
per viewer class, ``service.api.fanout``): a burst of events then delays the streams, which
catch up with bigger batches, rather than the commands. The counts live in the
process because the streams do: a stream that ends, however it ends (finished, client
gone, write timed out, worker killed), leaves the count with its process. A client that
closes its stream frees the slot at once: the worker watches every stream's socket
(``service.api.worker.watch_client``), not only its next heartbeat's write.

Stream tickets let a browser follow a seat's private view: ``EventSource`` cannot send an
``Authorization`` header, and a token in a URL would end up in logs and histories. A seat
(or the admin) posts its token in the header to ``/games/{id}/stream-tickets`` and gets a
random ticket, valid for ``stream_ticket_ttl_s`` seconds and for that game only, that the
stream accepts as ``?ticket=``. Only the ticket's hash is stored, with the TTL
(``service.application.tokens.Credentials``, through the token store); it may be used again
until it expires (so that ``EventSource``'s own reconnects work), and afterwards the page
asks for a new one.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable

from flask import Blueprint, Response, current_app
from gunicorn.http.errors import ParseException  # type: ignore[import-untyped]
from werkzeug.exceptions import ClientDisconnected

from service.api.auth import Caller
from service.api.context import caller_for, services
from service.api.declare import ok, operation
from service.api.fanout import FanOut
from service.api.http import json_response
from service.api.problems import ApiProblem, problem_response, unauthorized
from service.api.settings import ApiSettings

GATE_EXTENSION = "tigris.streams"
FANOUT_EXTENSION = "tigris.fanout"
RETRY_AFTER_S = 30
_TICKET = re.compile(r"^[A-Za-z0-9_-]{16,128}$")

blueprint = Blueprint("stream_tickets", __name__)


class WorkSlots:
    """At most ``size`` holders at a time (``with slots:``), waiting ones served in turn.
    Plain ``threading`` parts, so it works alike with threads and with gevent's patched
    locks; a waiter woken but killed before taking the slot (a worker stopping) cannot
    strand the others: each waiter looks again at least once a second."""

    def __init__(self, size: int) -> None:
        self._condition = threading.Condition()
        self._free = size

    def __enter__(self) -> None:
        with self._condition:
            while self._free <= 0:
                self._condition.wait(timeout=1.0)
            self._free -= 1

    def __exit__(self, *exc: object) -> None:
        with self._condition:
            self._free += 1
            self._condition.notify()


class StreamGate:
    """Counts of the open streams of this process, by client address and by game."""

    def __init__(
        self, settings: ApiSettings, on_change: Callable[[int], None] | None = None
    ) -> None:
        self._settings = settings
        # Told the number of open streams after every change (the metrics' gauge).
        self._on_change = on_change
        self._lock = threading.Lock()
        self._total = 0
        self._clients: Counter[str] = Counter()
        self._games: Counter[str] = Counter()
        # At most this many streams of the process build a batch of events at once.
        self.work = WorkSlots(settings.stream_concurrency)

    @property
    def open_streams(self) -> int:
        return self._total

    def enter(self, client: str, game_id: str) -> Callable[[], None]:
        """Count a new stream, or raise a 503/429 problem; returns its (idempotent) release."""
        settings = self._settings
        retry = {"Retry-After": str(RETRY_AFTER_S)}
        with self._lock:
            if self._total >= settings.max_streams:
                raise ApiProblem(
                    503,
                    "stream-capacity",
                    "Stream capacity reached",
                    "this server has as many open event streams as it serves; retry later",
                    headers=retry,
                )
            if self._clients[client] >= settings.streams_per_client:
                raise ApiProblem(
                    429,
                    "too-many-streams",
                    "Too many open streams",
                    f"this client has {settings.streams_per_client} open event streams here; "
                    "close one or retry later",
                    headers=retry,
                    limit=settings.streams_per_client,
                )
            if self._games[game_id] >= settings.streams_per_game:
                raise ApiProblem(
                    429,
                    "too-many-streams",
                    "Too many open streams",
                    f"this game has {settings.streams_per_game} open event streams here; "
                    "retry later",
                    headers=retry,
                    limit=settings.streams_per_game,
                )
            self._total += 1
            self._clients[client] += 1
            self._games[game_id] += 1
            if self._on_change is not None:
                self._on_change(self._total)
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                self._total -= 1
                for counter, key in ((self._clients, client), (self._games, game_id)):
                    counter[key] -= 1
                    if counter[key] <= 0:
                        del counter[key]
                if self._on_change is not None:
                    self._on_change(self._total)

        return release


def stream_gate() -> StreamGate:
    gate = current_app.extensions[GATE_EXTENSION]
    assert isinstance(gate, StreamGate)
    return gate


def fan_out() -> FanOut:
    """The followers of this process's watched games (``service.api.fanout``)."""
    hub = current_app.extensions[FANOUT_EXTENSION]
    assert isinstance(hub, FanOut)
    return hub


@blueprint.post("/games/<gid:game_id>/stream-tickets")
@operation(
    "createStreamTicket",
    tags=["events"],
    summary=("A short-lived ticket to open this game's event stream as the caller's seat."),
    description=(
        "For clients that cannot send an `Authorization` header on a "
        "stream (a browser's\n"
        "`EventSource`): the seat (or admin) token goes in the header "
        "here, and the returned\n"
        "ticket in the stream's URL (`?ticket=`), so the token never "
        "appears in a URL or a log.\n"
        "A ticket is random, valid for this game only and for "
        "`expires_in` seconds (60 by\n"
        "default), for any number of stream openings in that time "
        "(`EventSource` reconnects);\n"
        "only its hash is stored. Spectators need no ticket (401).\n"
    ),
    security=[{"bearerAuth": []}],
    parameters=["PlayerSeat"],
    responses={
        201: ok(
            "A new ticket.",
            "StreamTicket",
            headers={"Cache-Control": {"schema": {"type": "string", "const": "no-store"}}},
        )
    },
    problems=["RateLimited", "Unauthorized", "NotFound", "Unavailable", "BadRequest", "Forbidden"],
)
def create_ticket(game_id: str) -> Response:
    caller = caller_for(game_id)
    found = services()
    found.games.queries.game_info(game_id)  # 404 for an unknown game, whoever asks
    if caller.is_spectator:
        raise unauthorized(
            "a seat or admin token is required for a stream ticket "
            "(a spectator's stream needs none)"
        )
    ttl = found.settings.stream_ticket_ttl_s
    # A store failure is the usual 503 problem (service.api.problems).
    ticket = found.credentials.issue_ticket(game_id, caller.seat, ttl)
    response = json_response(
        {
            "ticket": ticket,
            "expires_in": ttl,
            "stream": f"/games/{game_id}/events/stream?ticket={ticket}",
        },
        201,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


def caller_from_ticket(game_id: str, ticket: str) -> Caller:
    """The seat (or admin) a ticket of this game stands for; 401 if unknown or expired."""
    refused = unauthorized("unknown or expired stream ticket for this game")
    if not _TICKET.match(ticket):
        raise refused
    found = services()
    holder = found.credentials.ticket_holder(game_id, ticket)
    if holder is None:
        found.games.queries.game_info(game_id)  # an unknown game is a 404 whatever the ticket
        raise refused
    return Caller(admin=True) if holder.is_admin else Caller(seat=holder.seat)


def install_transport_errors(app: object) -> None:
    """A request body whose framing breaks while the application reads it (a malformed
    chunk, a truncated chunked body), that stalls or that ends early is the client's
    error: 400, never 500, and the connection is closed (``Connection: close``, see
    ``service.api.worker``), since where the next request starts is unknown."""
    from flask import Flask

    assert isinstance(app, Flask)

    @app.errorhandler(ParseException)
    def _framing(exc: ParseException) -> Response:
        response = problem_response(
            ApiProblem(
                400,
                "bad-request",
                "Bad request",
                f"malformed request body framing: {type(exc).__name__}",
            )
        )
        response.headers["Connection"] = "close"
        return response

    @app.errorhandler(ClientDisconnected)
    @app.errorhandler(TimeoutError)
    def _incomplete(exc: Exception) -> Response:
        # The body stalled (service.api.worker's socket timeout) or ended before its
        # declared length: the client's error, and the connection cannot be reused.
        response = problem_response(
            ApiProblem(
                400,
                "bad-request",
                "Bad request",
                "the request body stalled or ended before its declared length",
            )
        )
        response.headers["Connection"] = "close"
        return response
