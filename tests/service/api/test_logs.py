"""Structured request logs from the real server: one JSON line per request, carrying the
request id (the client's ``X-Request-ID``, else a generated one sent back)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import requests

from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def request_lines(server: LiveServer, request_id: str, wait_s: float = 5) -> list[dict[str, Any]]:
    """The server's JSON request lines for ``request_id`` (waiting up to ``wait_s`` for the
    write)."""
    deadline = time.monotonic() + wait_s
    while True:
        found = []
        for line in server.log.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            if record.get("logger") == "tigris.requests" and record["request_id"] == request_id:
                found.append(record)
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_command_is_one_json_line_with_the_clients_request_id(live_server: LiveServer) -> None:
    # Given: a game on the real server
    created = requests.post(
        f"{live_server.url}/games",
        json={"kind": "cards", "seats": ["Ann", "Bob"], "seed": 5},
        headers=ADMIN,
        timeout=10,
    ).json()
    game_id = created["game"]["game_id"]
    # When: a client asks who is awaited, with a request id of its own
    request_id = f"client-{uuid.uuid4().hex}"
    response = requests.get(
        f"{live_server.url}/games/{game_id}/pending",
        headers={"X-Request-ID": request_id},
        timeout=10,
    )
    # Then: the id comes back, and the server logged one line for it
    assert response.status_code == 200
    assert response.headers["X-Request-ID"] == request_id
    (line,) = request_lines(live_server, request_id)
    assert line["method"] == "GET"
    assert line["path"] == "/games/{game_id}/pending"  # the template: no game id logged
    assert game_id not in json.dumps(line)
    assert line["status"] == 200
    assert 0 <= line["duration_ms"] < 10_000
    assert line["client"] == "127.0.0.1"
    assert line["level"] == "INFO"
    assert line["time"]


def test_without_a_usable_request_id_one_is_generated_and_logged(
    live_server: LiveServer,
) -> None:
    # When: a request without an id, and one whose id is not printable ASCII
    plain = requests.get(f"{live_server.url}/games/{'0' * 32}", timeout=10)
    odd = requests.get(
        f"{live_server.url}/healthz", headers={"X-Request-ID": "two words"}, timeout=10
    )
    # Then: each gets a fresh id, sent back and logged with its status
    assert plain.status_code == 404
    generated = plain.headers["X-Request-ID"]
    assert len(generated) == 32 and generated != odd.headers["X-Request-ID"]
    assert odd.headers["X-Request-ID"] != "two words"
    (line,) = request_lines(live_server, generated)
    assert (line["path"], line["status"]) == ("/games/{game_id}", 404)
    (health,) = request_lines(live_server, odd.headers["X-Request-ID"])
    assert (health["path"], health["status"]) == ("/healthz", 200)


def test_the_log_level_setting_applies_to_the_request_lines(redis_url: str, tmp_path: Path) -> None:
    # Given: the real server with TIGRIS_LOG_LEVEL=warning (request lines are INFO)
    with start_live_server(redis_url, tmp_path, {"TIGRIS_LOG_LEVEL": "warning"}) as server:
        # When: a client makes requests with an id of its own
        request_id = f"client-{uuid.uuid4().hex}"
        for _ in range(3):
            answer = requests.get(
                f"{server.url}/healthz", headers={"X-Request-ID": request_id}, timeout=10
            )
            assert answer.status_code == 200
        # Then: no request line is written (they were always written at INFO before)
        time.sleep(1)
        assert answer.headers["X-Request-ID"] == request_id
        assert request_lines(server, request_id, wait_s=0) == []
        assert "tigris.requests" not in server.log.read_text(errors="replace")
