"""The gunicorn worker of the service: gevent, with timeouts for slow clients and
problem+json answers for the errors gunicorn meets before the application runs.

Why gevent: an open event stream spends its life waiting (on Redis, then on the client's
socket). With gevent each connection is a greenlet, so thousands of open streams, idle
keep-alive connections or stalled clients cost memory, never a thread that a command or
a health check needs. The application stays plain synchronous Flask; redis-py (with the
hiredis parser) runs on gevent's patched sockets, so every Redis wait yields too.

What slow or hostile clients get:

- headers: a connection must deliver a complete request head within the keep-alive time
  (``TIGRIS_HEADER_TIMEOUT``, gunicorn's ``keepalive``; each connection's deadline is spread
  up to half of it further) of opening, or of its previous response, or it is closed; so
  stalled half-requests and idle keep-alive connections go;
- every single read or write on a client socket that makes no progress for
  ``TIGRIS_CLIENT_TIMEOUT`` seconds (default 30) ends the connection: a body that stalls
  (400, see ``service.api.streams``), a stream client that never reads (its stream is
  dropped once the socket buffers are full and the next write times out);
- errors gunicorn raises before the application (request line too long 414, header
  fields too large 431, malformed request line, header or framing 400, unsupported
  transfer coding 501) are answered as ``application/problem+json``, never with HTML or
  a stack trace, and the connection is closed.
"""

from __future__ import annotations

import gc
import json
import random
import resource
import socket
import warnings
import weakref
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

import gevent  # type: ignore[import-untyped]
import gevent.socket  # type: ignore[import-untyped]
from gevent.monkey import MonkeyPatchWarning  # type: ignore[import-untyped]
from gunicorn import util  # type: ignore[import-untyped]
from gunicorn.http import errors as http_errors  # type: ignore[import-untyped]
from gunicorn.workers.base_async import AsyncWorker  # type: ignore[import-untyped]
from gunicorn.workers.ggevent import GeventWorker  # type: ignore[import-untyped]

DEFAULT_CLIENT_TIMEOUT_S = 30.0
MAX_DETAIL = 200
OPEN_FILES_WANTED = 65536
# After a 413, gunicorn reads off an unread body up to this size to keep the connection.
DRAIN_LIMIT = 1 << 20
# The paths of the event streams: a game's, and a player's feed (``service.api.feed``).
STREAM_PATH_ENDS = ("/events/stream", "/players/me/feed")


def client_timeout_s(env: Mapping[str, str] | None = None) -> float:
    """``TIGRIS_CLIENT_TIMEOUT`` of ``env`` (default: the environment)."""
    from service.api.server import ServerSettings

    return ServerSettings.from_env(env).client_timeout


def raise_open_files_limit(wanted: int = OPEN_FILES_WANTED) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (within the hard
    limit): every open stream holds a client socket and a Redis connection."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return int(soft)


def watch_client(sock: Any, stream: Any) -> None:
    """End ``stream`` (the greenlet writing an event stream to ``sock``) as soon as its
    client closes the connection (an end of file or a reset), so that the stream leaves
    the stream limits at once rather than at its next write (the next heartbeat or event,
    up to ``TIGRIS_SSE_HEARTBEAT`` seconds later). The stream's client sends nothing after
    its request, so the socket turns readable only when it closes; bytes there instead (a
    pipelined request) are left for gunicorn, and the watch ends.

    The greenlet is killed as ``handle_exit`` kills the streams of a stopping worker: the
    ``GreenletExit`` runs the stream's ``finally`` (its release), redis-py drops the
    connection of a wait it interrupts, and gunicorn closes the socket."""
    while True:
        gevent.socket.wait_read(sock.fileno())
        try:
            peeked = sock.recv(1, socket.MSG_PEEK)
        except TimeoutError:  # readable but nothing to read after all: watch on
            continue
        except OSError:  # a reset, or the socket is unusable: the client is gone
            peeked = b""
        if not peeked:
            stream.kill(block=False)
        return


def pre_app_problem(exc: BaseException) -> tuple[int, str, str]:
    """Status, title and detail for an error gunicorn raised before the application."""
    if isinstance(exc, http_errors.InvalidResponseHeader | http_errors.InvalidResponseHeaderName):
        return 500, "Internal Server Error", "an unexpected error occurred"
    detail = str(exc)[:MAX_DETAIL]
    if isinstance(exc, http_errors.LimitRequestLine):
        return 414, "URI Too Long", f"request line too long: {detail}"
    if isinstance(exc, http_errors.LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", f"request header fields: {detail}"
    if isinstance(exc, http_errors.UnsupportedTransferCoding):
        return 501, "Not Implemented", f"unsupported transfer coding: {detail}"
    if isinstance(exc, http_errors.ExpectationFailed):
        return 417, "Expectation Failed", detail
    if isinstance(exc, http_errors.ForbiddenProxyRequest):
        return 403, "Forbidden", "request forbidden"
    if isinstance(exc, http_errors.ConfigurationProblem):
        return 500, "Internal Server Error", "an unexpected error occurred"
    if isinstance(exc, http_errors.ParseException):
        return 400, "Bad Request", f"malformed request ({type(exc).__name__}): {detail}"
    return 500, "Internal Server Error", "an unexpected error occurred"


def problem_bytes(status: int, title: str, detail: str) -> bytes:
    slug = title.lower().replace(" ", "-")  # the type names the problem, as the app's do
    body = json.dumps(
        {"type": f"/problems/{slug}", "title": title, "status": status, "detail": detail}
    ).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {title}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def closing_when_asked(app: Any, *, mark: str | None = None) -> Any:
    """Wrap a WSGI app so that gunicorn closes the connection (and says so with
    ``Connection: close``) after a response that asks for it with ``Connection: close``
    (gunicorn otherwise drops that hop-by-hop header), and after a 413 whose unread body
    is unknown or larger than ``DRAIN_LIMIT``; a smaller one is read off by gunicorn
    before the next request, so that keep-alive connection stays usable. ``mark``: a key
    set to True in every request's environ."""

    def wrapped(environ: dict[str, Any], start_response: Any) -> Any:
        if mark is not None:
            environ[mark] = True

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            close = any(
                name.lower() == "connection" and value.strip().lower() == "close"
                for name, value in headers
            )
            if status.startswith("413"):
                length = str(environ.get("CONTENT_LENGTH") or "")
                close = close or not (length.isdigit() and int(length) <= DRAIN_LIMIT)
            response: Any = getattr(start_response, "__self__", None)
            if close and response is not None and hasattr(response, "force_close"):
                response.force_close()
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return wrapped


COALESCE_LIMIT = 64 * 1024  # bytes a response may hold back before it is sent anyway


class CoalescingSocket:
    """The client socket while one ordinary (not streamed) response is written: gunicorn
    sends the head and then each piece of the body with a ``sendall`` of its own; here they
    are held until the response is done (or ``COALESCE_LIMIT`` bytes are waiting) and leave
    in one send: one system call and one TCP segment per small response instead of two."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._pending: list[bytes] = []
        self._size = 0

    def sendall(self, data: bytes, *flags: Any) -> None:
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= COALESCE_LIMIT:
            self.flush()

    def send(self, data: bytes, *flags: Any) -> int:  # e.g. "100 Continue": at once
        self.flush()
        sent: int = self._sock.send(data, *flags)
        return sent

    def sendfile(self, *args: Any, **kwargs: Any) -> Any:
        self.flush()
        return self._sock.sendfile(*args, **kwargs)

    def flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._size = 0
            self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class TigrisWorker(GeventWorker):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's gevent worker with per-operation socket timeouts and problem+json errors."""

    client_timeout = DEFAULT_CLIENT_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.streams: weakref.WeakSet[Any] = weakref.WeakSet()  # greenlets serving a stream

    def patch(self) -> None:
        # The master imported redis (hence ssl) before forking, so gevent warns that ssl
        # is patched late; the service speaks plain TCP or a unix socket to Redis and
        # clients, and redis-py reaches sockets through the (patched) socket module.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MonkeyPatchWarning)
            super().patch()

    def init_process(self) -> None:
        self.client_timeout = client_timeout_s()
        raise_open_files_limit()
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        # The application as loaded (the contract, schemas, rules tables: ~100,000 objects)
        # lives as long as the worker: out of the collector's sight, so that a full
        # collection scans only what requests made. Measured under bench_isolation's load:
        # full collections of 120-210 ms, each a stall of every request in the worker,
        # became 30-65 ms.
        gc.collect()
        gc.freeze()
        loaded: Any = getattr(self, "wsgi")  # noqa: B009  # set by gunicorn, untyped
        # An event stream's frames may be written to its socket by the process's reader of
        # its game (``Direct``), which knows gunicorn's HTTP/1.x framing on a plain socket.
        from service.api.fanout import DIRECT_WRITES

        plain = not self.cfg.is_ssl and getattr(self.cfg, "protocol", "http") == "http"
        self.wsgi = closing_when_asked(loaded, mark=DIRECT_WRITES if plain else None)

    def timeout_ctx(self) -> Any:
        # gunicorn's deadline for a request head (the keep-alive time), spread by up to half
        # of it: connections opened together (a slowloris' burst) are not all closed at the
        # same instant, to come back at once; hundreds of closes and accepts together stall
        # a worker's other requests (health checks over 100 ms in bench_isolation).
        return gevent.Timeout(self.cfg.keepalive * (1 + random.random() / 2), False)

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        # gunicorn's gevent worker makes the socket blocking without any limit; here each
        # read or write gets the client timeout instead (the head has its own deadline,
        # timeout_ctx: the keep-alive time).
        client.settimeout(self.client_timeout)
        AsyncWorker.handle(self, listener, client, addr)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        # The path as the application routes it (percent-decoded, as Werkzeug decodes it).
        streaming = unquote(str(getattr(req, "path", "") or "")).endswith(STREAM_PATH_ENDS)
        watch = None
        if streaming:
            self.streams.add(gevent.getcurrent())
            watch = gevent.spawn(watch_client, sock, gevent.getcurrent())
        out = None if streaming else CoalescingSocket(sock)
        try:
            try:
                return super().handle_request(listener_name, req, out or sock, addr)
            finally:
                if out is not None:  # before gunicorn closes or reuses the connection
                    out.flush()
        except TimeoutError:
            # A client that stopped reading (or sending): drop the connection quietly.
            self.log.debug("client socket timed out; closing the connection")
            raise StopIteration() from None
        finally:
            if watch is not None:
                # Before gunicorn reads the next request or closes the socket.
                watch.kill(block=True)
            if streaming:
                self.streams.discard(gevent.getcurrent())

    def handle_exit(self, sig: Any, frame: Any) -> None:
        # A graceful stop lets commands in flight finish, but an event stream never does:
        # end the streams at once (their clients reconnect with Last-Event-ID elsewhere).
        super().handle_exit(sig, frame)
        gevent.spawn(self._end_streams)

    def _end_streams(self) -> None:
        gevent.killall(list(self.streams), block=False)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, title, detail = pre_app_problem(exc)
        peer = addr[0] if addr else ""
        if status >= 500:
            self.log.exception("Error handling request from %s", peer)
        else:
            self.log.warning("Invalid request from ip=%s: %s (%d)", peer, detail, status)
        try:
            util.write_nonblock(client, problem_bytes(status, title, detail))
        except Exception:
            self.log.debug("Failed to send error message.")
