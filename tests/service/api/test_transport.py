"""The real server's transport with its default settings (``python -m service``: gunicorn's
gevent worker, 2 processes): idle streams live on with heartbeats, stream limits per client
address, slow and stalled clients cannot starve commands or health checks, errors met
before the application are problem documents, and what happens to the connection after a
413 or a malformed chunked body. Raw sockets on loopback; every loop is bounded."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pytest
import requests

from tests.service.api.conftest import ADMIN_TOKEN, LiveServer

# The service's defaults (service.api.settings, service.api.server), restated to check them.
DEFAULT_HEARTBEAT_S = 15
DEFAULT_HEADER_TIMEOUT_S = 5
STREAMS_PER_CLIENT_PER_PROCESS = 64
WORKERS = 2


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def problem(self) -> dict[str, Any]:
        assert self.headers.get("content-type") == "application/problem+json", self
        text = self.body.decode("utf-8")
        assert "Traceback" not in text and "<html" not in text.lower()
        document: dict[str, Any] = json.loads(text)
        assert document["status"] == self.status
        assert document["title"]
        return document


def _connect(server: LiveServer, source: str = "127.0.0.1", timeout: float = 10) -> socket.socket:
    parsed = urlparse(server.url)
    return socket.create_connection(
        (parsed.hostname, parsed.port), timeout=timeout, source_address=(source, 0)
    )


def _read_answer(sock: socket.socket, deadline: float) -> Answer:
    """One HTTP/1.1 response with a Content-Length body (or the stream's first bytes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before a response: {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "-1"))
    while length >= 0 and len(rest) < length:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return Answer(status, headers, rest if length < 0 else rest[:length])


def _closed_by_server(sock: socket.socket, deadline: float) -> bool:
    """True once the server has closed ``sock`` (EOF or reset) before ``deadline``."""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except TimeoutError:
            return False
    return False


def _new_game(server: LiveServer) -> tuple[str, list[str], int]:
    created = requests.post(
        f"{server.url}/games",
        json={"kind": "board", "seats": ["A", "B"], "seed": 11},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return body["game"]["game_id"], [s["token"] for s in body["seats"]], body["game"]["version"]


def _play_one(
    server: LiveServer, session: requests.Session, game_id: str, tokens: list[str]
) -> int:
    """Post one legal command; returns the new version."""
    pending = session.get(f"{server.url}/games/{game_id}/pending", timeout=10).json()
    auth = {"Authorization": f"Bearer {tokens[pending['awaited'][0]]}"}
    legal = session.get(f"{server.url}/games/{game_id}/legal-commands", headers=auth, timeout=10)
    posted = session.post(
        f"{server.url}/games/{game_id}/commands",
        json=legal.json()["commands"][0],
        headers={**auth, "If-Match": legal.headers["ETag"]},
        timeout=10,
    )
    assert posted.status_code == 200, posted.text
    version: int = posted.json()["version"]
    return version


def _stream_request(game_id: str, query: str = "") -> bytes:
    return (
        f"GET /games/{game_id}/events/stream{query} HTTP/1.1\r\nHost: test\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()


def test_an_idle_stream_with_the_default_heartbeat_stays_open(live_server: LiveServer) -> None:
    # Given a stream of a game in which nothing happens, on the default 15 s heartbeat
    game_id, tokens, version = _new_game(live_server)
    sock = _connect(live_server, "127.0.0.40")
    try:
        sock.sendall(_stream_request(game_id, f"?after={version}"))
        # When it stays idle for more than 20 s (well past redis-py's 5 s socket timeout)
        started = time.monotonic()
        received = b""
        while time.monotonic() - started < DEFAULT_HEARTBEAT_S + 6:
            sock.settimeout(1.0)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            assert chunk, f"the server closed the idle stream after {time.monotonic() - started}s"
            received += chunk
        # Then it got a heartbeat and is still open: a new event still arrives on it
        assert received.startswith(b"HTTP/1.1 200"), received[:200]
        assert b": keep-alive" in received
        new_version = _play_one(live_server, requests.Session(), game_id, tokens)
        deadline = time.monotonic() + 10
        while f"id: {new_version}\n".encode() not in received and time.monotonic() < deadline:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            assert chunk
            received += chunk
        assert f"id: {new_version}\n".encode() in received
    finally:
        sock.close()
    assert "Traceback" not in live_server.log.read_text(errors="replace")


def test_one_client_address_is_limited_and_others_are_not(live_server: LiveServer) -> None:
    # Given a game, and one client address opening stream after stream
    game_id, tokens, _ = _new_game(live_server)
    most = STREAMS_PER_CLIENT_PER_PROCESS * WORKERS + 1
    opened: list[socket.socket] = []
    refused: Answer | None = None
    try:
        deadline = time.monotonic() + 60
        for _ in range(most):
            sock = _connect(live_server, "127.0.0.41")
            opened.append(sock)
            sock.sendall(_stream_request(game_id))
            answer = _read_answer(sock, deadline)
            if answer.status != 200:
                refused = answer
                break
        # Then past 64 streams per server process that address gets a 429 problem
        assert refused is not None, f"{len(opened)} streams from one address all accepted"
        assert STREAMS_PER_CLIENT_PER_PROCESS < len(opened) <= most
        assert refused.status == 429
        assert refused.problem()["type"] == "/problems/too-many-streams"
        assert int(refused.headers["retry-after"]) > 0
        # And another client still opens a stream, and commands are served
        other = _connect(live_server, "127.0.0.42")
        opened.append(other)
        other.sendall(_stream_request(game_id))
        assert _read_answer(other, time.monotonic() + 10).status == 200
        _play_one(live_server, requests.Session(), game_id, tokens)
    finally:
        for sock in opened:
            sock.close()


def test_stalled_requests_and_streams_leave_health_and_commands_free(
    live_server: LiveServer,
) -> None:
    # Given 100 sockets that sent half a request head and stalled, and 100 open streams
    # (40 of them never read) from four client addresses
    game_id, tokens, _ = _new_game(live_server)
    stalled: list[socket.socket] = []
    streams: list[socket.socket] = []
    try:
        opened_at = time.monotonic()
        for _ in range(100):
            sock = _connect(live_server, "127.0.0.43")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: ")
            stalled.append(sock)
        for n in range(100):
            sock = _connect(live_server, f"127.0.0.{50 + n % 4}")
            sock.sendall(_stream_request(game_id))
            streams.append(sock)
        deadline = time.monotonic() + 30
        for sock in streams[40:]:
            assert _read_answer(sock, deadline).status == 200
        # When health checks and commands are sent meanwhile
        session = requests.Session()
        health: list[float] = []
        commands: list[float] = []
        for _ in range(10):
            started = time.monotonic()
            assert requests.get(f"{live_server.url}/healthz", timeout=5).status_code == 200
            health.append(time.monotonic() - started)
            started = time.monotonic()
            _play_one(live_server, session, game_id, tokens)
            commands.append(time.monotonic() - started)
        # Then they are answered promptly (generous bounds: 2 shared cores, other tests)
        assert max(health) < 1.0, health
        assert max(commands) < 2.0, commands
        # And the stalled sockets are closed by the server after the header timeout
        close_by = opened_at + DEFAULT_HEADER_TIMEOUT_S + 10
        assert all(_closed_by_server(sock, close_by) for sock in stalled)
        assert requests.get(f"{live_server.url}/healthz", timeout=5).status_code == 200
    finally:
        for sock in stalled + streams:
            sock.close()


BAD_CHUNKED = (
    b"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
)


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n", 414),
        (b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n", 431),
        (
            b"GET /healthz HTTP/1.1\r\nHost: test\r\n"
            + b"".join(b"X-H%d: v\r\n" % n for n in range(120))
            + b"\r\n",
            431,
        ),
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET /healthz HTTP/9.9\r\nHost: test\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\nHost: test\r\nBad Header: x\r\n\r\n", 400),
        (BAD_CHUNKED, 400),
        (BAD_CHUNKED.replace(b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}XX0\r\n\r\n"), 400),
    ],
    ids=[
        "long-url",
        "huge-header",
        "too-many-headers",
        "garbage",
        "bad-version",
        "bad-header-name",
        "bad-chunk-size",
        "missing-chunk-end",
    ],
)
def test_errors_before_the_application_are_problems(
    live_server: LiveServer, raw: bytes, status: int
) -> None:
    sock = _connect(live_server)
    try:
        sock.sendall(raw)
        answer = _read_answer(sock, time.monotonic() + 10)
        assert answer.status == status, answer
        answer.problem()
        # And the connection is closed (the next request's start is unknown)
        assert answer.headers.get("connection") == "close"
        assert _closed_by_server(sock, time.monotonic() + 10)
    finally:
        sock.close()
    assert "Traceback" not in live_server.log.read_text(errors="replace")


def _post_games_head(length: int) -> bytes:
    return (
        f"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def test_after_a_413_a_small_body_keeps_the_connection_usable(live_server: LiveServer) -> None:
    # Given a keep-alive connection that posts a body over the 64 KiB limit
    sock = _connect(live_server)
    try:
        size = 70_000
        sock.sendall(_post_games_head(size) + b"x" * size)
        answer = _read_answer(sock, time.monotonic() + 10)
        assert answer.status == 413
        answer.problem()
        assert answer.headers.get("connection") != "close"
        # When the next request comes on the same connection, then it is served
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        assert _read_answer(sock, time.monotonic() + 10).status == 200
    finally:
        sock.close()


def test_after_a_413_a_huge_body_closes_the_connection(live_server: LiveServer) -> None:
    # Given a request declaring a 50 MB body; the client sends only the head
    sock = _connect(live_server)
    try:
        sock.sendall(_post_games_head(50_000_000))
        answer = _read_answer(sock, time.monotonic() + 10)
        # Then the 413 says the connection closes, and it does
        assert answer.status == 413
        answer.problem()
        assert answer.headers.get("connection") == "close"
        assert _closed_by_server(sock, time.monotonic() + 10)
    finally:
        sock.close()


def test_a_body_that_ends_early_is_a_400_problem_and_closes(live_server: LiveServer) -> None:
    # Given a request that declares 100 bytes, sends 10 and ends its side of the connection
    sock = _connect(live_server)
    try:
        sock.sendall(_post_games_head(100) + b'{"kind": "')
        sock.shutdown(socket.SHUT_WR)
        answer = _read_answer(sock, time.monotonic() + 10)
        # Then the answer is a 400 problem (never a 500) and the server closes its side
        assert answer.status == 400
        answer.problem()
        assert _closed_by_server(sock, time.monotonic() + 10)
    finally:
        sock.close()
