"""A stream its client closed stops counting against the stream limits at once, not at the
next heartbeat (``service.api.worker`` watches the client socket of every open stream).
The real server (gunicorn, one gevent worker) with a two-stream limit per client address
and the longest heartbeat, so that nothing but the closed socket can free the slot within
the test's bounded wait. Raw sockets on loopback; every loop is bounded."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator

import pytest
import requests

from service.api.settings import MAX_HEARTBEAT_S
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server
from tests.service.api.test_transport import _connect, _read_answer, _stream_request

STREAMS_PER_CLIENT = 2
# Far below the heartbeat (300 s): a slot freed by the heartbeat's failed write would come
# too late for this bound, only one freed when the socket closes is in time.
BOUND_S = 30.0
assert BOUND_S * 5 < MAX_HEARTBEAT_S


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    extra = {
        "TIGRIS_WORKERS": "1",  # the limits are per process: one process, one count
        "TIGRIS_STREAMS_PER_CLIENT": str(STREAMS_PER_CLIENT),
        "TIGRIS_SSE_HEARTBEAT": f"{MAX_HEARTBEAT_S:g}",
    }
    with start_live_server(redis_url, tmp_path_factory.mktemp("server"), extra) as live:
        yield live


def _game(server: LiveServer) -> str:
    created = requests.post(
        f"{server.url}/games",
        json={"kind": "board", "seats": ["A", "B"], "seed": 5},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game"]["game_id"]
    return game_id


def _open(server: LiveServer, source: str, game_id: str) -> tuple[socket.socket, int]:
    """A stream request from ``source``: its socket and the status answered."""
    sock = _connect(server, source)
    sock.sendall(_stream_request(game_id))
    return sock, _read_answer(sock, time.monotonic() + 10).status


@pytest.mark.parametrize("how", ["close", "reset"])
def test_a_closed_stream_frees_its_slot_at_once(server: LiveServer, how: str) -> None:
    source = "127.0.0.61" if how == "close" else "127.0.0.62"
    game_id = _game(server)
    opened: list[socket.socket] = []
    try:
        # Given a client address with as many open (idle) streams as it may have
        for _ in range(STREAMS_PER_CLIENT):
            sock, status = _open(server, source, game_id)
            opened.append(sock)
            assert status == 200
        refused, status = _open(server, source, game_id)
        refused.close()
        assert status == 429
        # When the client closes one of them (a FIN, or a reset)
        gone = opened.pop(0)
        if how == "reset":
            gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        gone.close()
        # Then a new stream from that address is accepted well before any heartbeat
        deadline = time.monotonic() + BOUND_S
        status = 0
        while time.monotonic() < deadline:
            sock, status = _open(server, source, game_id)
            if status == 200:
                opened.append(sock)
                break
            sock.close()
            time.sleep(0.1)
        assert status == 200, f"still refused ({status}) {BOUND_S:g} s after the close"
        # and the limit still holds for the streams that stay open
        extra, status = _open(server, source, game_id)
        extra.close()
        assert status == 429
    finally:
        for sock in opened:
            sock.close()
    assert "Traceback" not in server.log.read_text(errors="replace")
