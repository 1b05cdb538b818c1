"""Fixtures of the HTTP tests: an app on the real Redis of ``tests/conftest.py``, and a
small client that remembers each game's seat tokens."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, sync_playwright
from werkzeug.test import TestResponse

from domain.common.protocol import GameRules
from domain.games import all_games
from service.api import create_app
from tests.service.api import contract
from tests.service.api.contract import ContractClient

ADMIN_TOKEN = "admin-" + "x" * 40
KINDS = ("board", "cards")


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def admin() -> dict[str, str]:
    return auth(ADMIN_TOKEN)


@dataclass
class Game:
    """A game created through the API, with its seat tokens."""

    game_id: str
    kind: str
    tokens: list[str]
    version: int
    body: dict[str, Any] = field(default_factory=dict)

    def seat(self, seat: int) -> dict[str, str]:
        return auth(self.tokens[seat])

    @property
    def rules(self) -> GameRules[Any, Any, Any]:
        return all_games()[self.kind]


class Api:
    """Thin helpers over the Flask test client."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def create(
        self,
        kind: str,
        seats: int = 2,
        *,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Game:
        body: dict[str, Any] = {
            "kind": kind,
            "seats": [f"P{n}" for n in range(seats)],
            "options": dict(options or {}),
        }
        headers: dict[str, str] = {}
        if seed is not None:
            body["seed"] = seed
            headers = admin()
        response = self.client.post("/games", json=body, headers=headers)
        assert response.status_code == 201, response.get_json()
        data = response.get_json()
        return Game(
            data["game"]["game_id"],
            kind,
            [s["token"] for s in data["seats"]],
            data["game"]["version"],
            data,
        )

    def get(self, path: str, headers: Mapping[str, str] | None = None) -> TestResponse:
        return self.client.get(path, headers=dict(headers or {}))

    def version(self, game: Game) -> int:
        response = self.client.get(f"/games/{game.game_id}")
        assert response.status_code == 200
        return int(response.get_json()["version"])

    def command(
        self,
        game: Game,
        seat: int,
        command: Mapping[str, Any],
        *,
        if_match: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> TestResponse:
        if if_match is None:
            if_match = f'"{self.version(game)}"'
        return self.client.post(
            f"/games/{game.game_id}/commands",
            json=dict(command),
            headers={**game.seat(seat), "If-Match": if_match, **(headers or {})},
        )

    def legal(self, game: Game, seat: int) -> list[dict[str, Any]]:
        response = self.client.get(f"/games/{game.game_id}/legal-commands", headers=game.seat(seat))
        assert response.status_code == 200, response.get_json()
        commands: list[dict[str, Any]] = response.get_json()["commands"]
        return commands

    def awaited(self, game: Game) -> list[int]:
        response = self.client.get(f"/games/{game.game_id}/pending")
        assert response.status_code == 200
        awaited: list[int] = response.get_json()["awaited"]
        return awaited


def problem(response: TestResponse, status: int) -> dict[str, Any]:
    """Assert ``response`` is a problem document with ``status``; return its body."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json()
    assert body["status"] == status
    assert body["title"]
    assert "Traceback" not in response.get_data(as_text=True)
    return body


@pytest.fixture
def app(redis_url: str, key_prefix: str) -> Flask:
    app = create_app(
        {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": key_prefix, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN}
    )
    app.test_client_class = ContractClient
    return app


@pytest.fixture
def client(app: Flask) -> Iterator[FlaskClient]:
    with app.test_client() as test_client:
        yield test_client


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


def admin_events(client: FlaskClient, game: Game) -> list[dict[str, Any]]:
    """The whole event log as the admin sees it (nothing redacted)."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = client.get(f"/games/{game.game_id}/events?after={after}&limit=500", headers=admin())
        assert page.status_code == 200
        events.extend(page.get_json()["items"])
        after = page.get_json()["next_after"]
    return events


def domain_events(game: Game, events: list[dict[str, Any]]) -> list[Any]:
    """Decode the admin's event log into domain events (service events left out)."""
    registry = game.rules.events
    decoded = []
    for event in events:
        prefix, _, name = event["type"].partition(".")
        if prefix != game.kind:
            continue
        decoded.append(
            registry.decode(name, registry.version_of(registry.type_of(name)), event["data"])
        )
    return decoded


def domain_state(client: FlaskClient, game: Game) -> Any:
    """The game's state folded by the domain itself from the admin's event log."""
    return game.rules.fold(domain_events(game, admin_events(client, game)))


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]
    log: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def service_env(
    redis_url: str | None, port: int, extra_env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of ``python -m service`` on ``port``: on ``redis_url``, or with
    ``None`` on its embedded Redis (``TIGRIS_REDIS_DIR`` then belongs in ``extra_env``)."""
    contract.serve(f"http://127.0.0.1:{port}")  # its answers are checked from now on
    env = {
        **os.environ,
        "TIGRIS_KEY_PREFIX": f"live-{uuid.uuid4().hex[:10]}",
        "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
        "TIGRIS_HOST": "127.0.0.1",
        "TIGRIS_PORT": str(port),
        "TIGRIS_WORKERS": "2",
        **(extra_env or {}),
    }
    env.pop("REDIS_URL", None)
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    return env


def launch_service(
    env: Mapping[str, str],
    log: Path,
    *,
    args: Sequence[str] = (),
    new_session: bool = False,
) -> subprocess.Popen[bytes]:
    """``python -m service [args]`` in the background, its output appended to ``log``;
    ``new_session``: in a process group of its own (to kill it with its children)."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "service", *args],
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=new_session,
        )


def wait_ready(
    url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float = 30
) -> None:
    """Until ``/readyz`` answers 200; a process that exits or takes too long is an error."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if requests.get(f"{url}/readyz", timeout=1).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or its workers still booting
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the service did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.2)


def stop_service(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def start_live_server(
    redis_url: str | None, log_dir: Path, extra_env: Mapping[str, str] | None = None
) -> Iterator[LiveServer]:
    """The real service (``python -m service``: gunicorn, gevent workers) on a free
    loopback port, with the service's default settings unless ``extra_env`` says otherwise;
    ``redis_url`` None: on its embedded Redis."""
    port = free_port()
    log = log_dir / "server.log"
    process = launch_service(service_env(redis_url, port, extra_env), log)
    url = f"http://127.0.0.1:{port}"
    wait_ready(url, process, log)
    try:
        yield LiveServer(url, process, log)
    finally:
        stop_service(process)


@pytest.fixture(scope="module")
def live_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The real service with its default settings (heartbeat, timeouts, limits)."""
    with start_live_server(redis_url, tmp_path_factory.mktemp("server")) as server:
        yield server


# Debian's Chromium, driven by Playwright (the browser tests: docs and web client).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's Chromium is missing: run scripts/install-test-deps.sh as root")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
