"""The production server (``python -m service``: gunicorn's gevent worker, real Redis) with
its default settings keeps serving commands while 200 event streams are open, and every
stream gets the new events. More transport tests: tests/service/api/test_transport.py."""

from __future__ import annotations

import random
import socket
import time
from urllib.parse import urlparse

import requests

from tests.service.api.conftest import ADMIN_TOKEN, LiveServer

STREAMS = 200
COMMANDS = 20


def _open_stream(url: str, path: str, source: str = "127.0.0.1") -> socket.socket:
    parsed = urlparse(url)
    sock = socket.create_connection(
        (parsed.hostname, parsed.port), timeout=30, source_address=(source, 0)
    )
    head = f"GET {path} HTTP/1.1\r\nHost: {parsed.netloc}\r\nAccept: text/event-stream\r\n\r\n"
    sock.sendall(head.encode())
    return sock


def _read_until(sock: socket.socket, marker: bytes, deadline: float) -> bytes:
    data = b""
    while marker not in data:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_two_hundred_open_streams_do_not_block_commands(live_server: LiveServer) -> None:
    url = live_server.url
    created = requests.post(
        f"{url}/games",
        json={"kind": "board", "seats": ["A", "B", "C"], "seed": 5},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201
    game_id = created.json()["game"]["game_id"]
    tokens = [seat["token"] for seat in created.json()["seats"]]
    version = created.json()["game"]["version"]

    # From four loopback addresses: one address may hold 64 streams per worker process.
    streams = [
        _open_stream(url, f"/games/{game_id}/events/stream?wait=60", f"127.0.0.{2 + n % 4}")
        for n in range(STREAMS)
    ]
    try:
        deadline = time.monotonic() + 60
        # Every stream is being served (it has sent its whole backlog, up to the last event).
        for sock in streams:
            head = _read_until(sock, f"id: {version}\n".encode(), deadline)
            assert head.startswith(b"HTTP/1.1 200"), head[:200]

        rng = random.Random(5)
        latencies = []
        session = requests.Session()
        for _ in range(COMMANDS):
            pending = session.get(f"{url}/games/{game_id}/pending", timeout=10).json()
            seat = pending["awaited"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = session.get(f"{url}/games/{game_id}/legal-commands", headers=auth, timeout=10)
            started = time.monotonic()
            posted = session.post(
                f"{url}/games/{game_id}/commands",
                json=rng.choice(legal.json()["commands"]),
                headers={**auth, "If-Match": legal.headers["ETag"]},
                timeout=10,
            )
            latencies.append(time.monotonic() - started)
            assert posted.status_code == 200, posted.text
            version = posted.json()["version"]

        assert max(latencies) < 5, latencies  # served promptly, not queued behind streams
        deadline = time.monotonic() + 60
        for sock in streams:
            assert f"id: {version}\n".encode() in _read_until(
                sock, f"id: {version}\n".encode(), deadline
            )
    finally:
        for sock in streams:
            sock.close()


def test_a_response_leaves_in_one_send_until_it_grows_large() -> None:
    # Given the socket wrapper the worker puts around one ordinary response
    from service.api.worker import COALESCE_LIMIT, CoalescingSocket

    left, right = socket.socketpair()
    with left, right:
        right.setblocking(False)
        out = CoalescingSocket(left)
        # When gunicorn writes the head and a small body
        out.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
        out.sendall(b"{}")
        # Then nothing has left yet, and all of it leaves together at the flush
        try:
            early = right.recv(100)
        except BlockingIOError:
            early = b""
        assert early == b""
        out.flush()
        assert right.recv(100) == b"HTTP/1.1 200 OK\r\n\r\n{}"
        # And a body over the limit is not held back, nor is a direct send (100 Continue)
        out.sendall(b"x" * COALESCE_LIMIT)
        received = b""
        while len(received) < COALESCE_LIMIT:
            received += right.recv(COALESCE_LIMIT)
        assert received == b"x" * COALESCE_LIMIT
        out.sendall(b"held")
        assert out.send(b"now") == 3
        assert right.recv(100) == b"heldnow"
