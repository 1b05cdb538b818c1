"""Conditional reads (``If-None-Match`` with the version ETag: 304 on every game resource)
and compression (when the client accepts it; never the event stream)."""

from __future__ import annotations

import gzip
import json
import socket
import time
from collections.abc import Callable

import pytest
import requests
from flask import Flask
from flask.testing import FlaskClient

from tests.service.api.conftest import Api, Game, LiveServer, admin

# Every GET of one game that carries the version as its ETag.
RESOURCES = [
    "",
    "/state",
    "/states/1",
    "/pending",
    "/legal-commands",
    "/events",
    "/undo-requests",
]


def paths(game: Game) -> list[str]:
    return [f"/games/{game.game_id}{suffix}" for suffix in RESOURCES]


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_every_game_resource_answers_304_while_the_game_has_not_moved(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind, 2, seed=11)
    for path in paths(game):
        # given the resource as read once
        first = client.get(path, headers=game.seat(0))
        assert first.status_code == 200, (path, first.get_json())
        etag = first.headers["ETag"]
        # when it is read again with its ETag (strong, weak, in a list, or *)
        for header in (etag, f"W/{etag}", f'"999999", {etag}', "*"):
            again = client.get(path, headers={**game.seat(0), "If-None-Match": header})
            # then the answer is a 304 without a body, with the same ETag
            assert again.status_code == 304, (path, header)
            assert again.data == b"" and again.headers["ETag"] == etag
        # and another version's ETag gets the whole body
        stale = client.get(path, headers={**game.seat(0), "If-None-Match": '"1"'})
        assert stale.status_code == 200 and stale.data == first.data
    # once the game moves on, the old ETag no longer matches anywhere
    seat = api.awaited(game)[0]
    version = api.version(game)
    assert api.command(game, seat, api.legal(game, seat)[0]).status_code == 200
    for path in paths(game):
        moved = client.get(path, headers={**game.seat(0), "If-None-Match": f'"{version}"'})
        assert moved.status_code == 200, path
        assert moved.headers["ETag"] != f'"{version}"'


def test_a_result_is_conditional_too(api: Api, client: FlaskClient) -> None:
    # the result of a game that has not ended is a 409, never a 304
    game = api.create("cards", 2)
    etag = f'"{api.version(game)}"'
    refused = client.get(f"/games/{game.game_id}/result", headers={"If-None-Match": etag})
    assert refused.status_code == 409


def test_a_post_ignores_if_none_match(api: Api, client: FlaskClient) -> None:
    game = api.create("board", 2)
    etag = f'"{api.version(game)}"'
    seat = api.awaited(game)[0]
    command = api.legal(game, seat)[0]
    response = api.command(game, seat, command, headers={"If-None-Match": etag})
    assert response.status_code == 200


@pytest.fixture
def raw(app: Flask) -> FlaskClient:
    """A test client that does not check responses against the spec (whose checker cannot
    read a compressed body): the bodies here are compared with checked ones."""
    return FlaskClient(app, app.response_class)


def test_json_is_compressed_when_the_client_accepts_it(api: Api, raw: FlaskClient) -> None:
    client = raw
    game = api.create("board", 2, seed=5)
    seat = api.awaited(game)[0]
    path = f"/games/{game.game_id}/legal-commands"
    plain = client.get(path, headers=game.seat(seat))
    packed = client.get(path, headers={**game.seat(seat), "Accept-Encoding": "gzip"})
    # then the same document comes back gzip-coded, much smaller, its ETag naming the coding
    # (other bytes, another strong validator: flask-compress appends it)
    assert "Content-Encoding" not in plain.headers
    # a response to a client that offered no encoding still tells caches it could vary
    assert "Accept-Encoding" in plain.headers["Vary"]
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert plain.headers["ETag"] == f'"{game.version}-seat{seat}"'
    assert packed.headers["ETag"] == f'"{game.version}-seat{seat}:gzip"'
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) * 4 < len(plain.data)
    # and a 304 stays empty, for either ETag of the same view, and names the one that matched
    for etag in (plain.headers["ETag"], packed.headers["ETag"]):
        again = client.get(
            path, headers={**game.seat(seat), "Accept-Encoding": "gzip", "If-None-Match": etag}
        )
        assert again.status_code == 304 and again.data == b""
        assert again.headers["ETag"] == etag
    # and either is a valid If-Match for a command
    command = client.get(path, headers=game.seat(seat)).get_json()["commands"][0]
    sent = client.post(
        f"/games/{game.game_id}/commands",
        json=command,
        headers={**game.seat(seat), "If-Match": packed.headers["ETag"]},
    )
    assert sent.status_code == 200, sent.get_json()


def test_the_spec_and_problems_are_compressed_too(raw: FlaskClient) -> None:
    client = raw
    spec = client.get("/openapi.yaml", headers={"Accept-Encoding": "br, gzip"})
    assert spec.headers["Content-Encoding"] in {"br", "gzip"}
    tiny = client.get("/games/nosuchgame", headers={"Accept-Encoding": "gzip"})
    assert tiny.status_code == 404 and "Content-Encoding" not in tiny.headers  # under 500 B


def test_the_event_stream_is_never_compressed(live_server: LiveServer) -> None:
    """Over a real socket: the stream's head has no Content-Encoding and an event written
    after the head arrives at once, readable as plain text."""
    created = requests.post(
        f"{live_server.url}/games",
        json={"kind": "cards", "seats": ["Ann", "Bob"]},
        timeout=10,
    )
    assert created.status_code == 201
    game_id = created.json()["game"]["game_id"]
    tokens = [s["token"] for s in created.json()["seats"]]
    host, port = live_server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            (
                f"GET /games/{game_id}/events/stream?after=0&wait=5 HTTP/1.1\r\n"
                f"Host: {host}\r\nAccept-Encoding: gzip, br, zstd, deflate\r\n"
                "Accept: text/event-stream\r\n\r\n"
            ).encode()
        )
        received = b""
        deadline = time.monotonic() + 10
        while b"\r\n\r\n" not in received and time.monotonic() < deadline:
            received += sock.recv(65536)
        head = received.split(b"\r\n\r\n", 1)[0].decode().lower()
        assert "text/event-stream" in head and "content-encoding" not in head
        while b"id: " not in received and time.monotonic() < deadline:
            received += sock.recv(65536)
        assert b"data: " in received  # plain text: the start events, as written
        # when a command is sent now, its event arrives on the open stream
        pending = requests.get(f"{live_server.url}/games/{game_id}/pending", timeout=10).json()
        seat = pending["awaited"][0]
        legal = requests.get(
            f"{live_server.url}/games/{game_id}/legal-commands",
            headers={"Authorization": f"Bearer {tokens[seat]}"},
            timeout=10,
        ).json()
        sent = requests.post(
            f"{live_server.url}/games/{game_id}/commands",
            json=legal["commands"][0],
            headers={"Authorization": f"Bearer {tokens[seat]}", "If-Match": "*"},
            timeout=10,
        )
        assert sent.status_code == 200
        new_version = sent.json()["version"]
        marker = f"id: {new_version}".encode()
        while marker not in received and time.monotonic() < deadline:
            received += sock.recv(65536)
        assert marker in received


def test_admin_events_are_conditional(api: Api, client: FlaskClient) -> None:
    game = api.create("cards", 2)
    first = client.get(f"/games/{game.game_id}/events", headers=admin())
    again = client.get(
        f"/games/{game.game_id}/events",
        headers={**admin(), "If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304
    assert first.headers["ETag"] == f'"{json.loads(first.data)["version"]}-admin"'


def _spectator(game: Game) -> dict[str, str]:
    return {}


VIEWERS: dict[str, Callable[[Game], dict[str, str]]] = {
    "spectator": _spectator,
    "seat0": lambda game: game.seat(0),
    "seat1": lambda game: game.seat(1),
    "admin": lambda game: admin(),
}


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_each_viewer_has_its_own_etag_and_no_other_viewers_etag_is_a_304(
    api: Api, client: FlaskClient, kind: str
) -> None:
    """One representation, one ETag (RFC 9110 8.8.3): a spectator, each seat and the admin
    read different bodies of the same version, so each gets its own ETag; another viewer's
    ETag (or the bare version) in If-None-Match gets the caller's own body, never a 304 that
    would have it keep another viewer's; and every answer says it varies with the token and
    is for no shared cache."""
    game = api.create(kind, 2, seed=7)
    for suffix in ("/state", "/events", ""):
        path = f"/games/{game.game_id}{suffix}"
        # given each viewer's read of the resource
        reads = {viewer: client.get(path, headers=who(game)) for viewer, who in VIEWERS.items()}
        for viewer, read in reads.items():
            assert read.status_code == 200, (path, viewer)
            assert read.headers["ETag"] == f'"{game.version}-{viewer}"'
            assert "Authorization" in read.headers["Vary"]
            assert "Accept-Encoding" in read.headers["Vary"]
            assert read.headers["Cache-Control"] == "private, no-cache"
        for viewer, who in VIEWERS.items():
            others = [r.headers["ETag"] for v, r in reads.items() if v != viewer]
            # when the viewer sends every other viewer's ETag, and the bare version
            for etag in [*others, f'"{game.version}"', ", ".join(others)]:
                answer = client.get(path, headers={**who(game), "If-None-Match": etag})
                # then it gets its own body, whole, with its own ETag
                assert answer.status_code == 200, (path, viewer, etag)
                assert answer.data == reads[viewer].data
                assert answer.headers["ETag"] == reads[viewer].headers["ETag"]
            # and its own ETag is a 304 carrying the same caching headers
            own = client.get(
                path, headers={**who(game), "If-None-Match": reads[viewer].headers["ETag"]}
            )
            assert own.status_code == 304, (path, viewer)
            assert "Authorization" in own.headers["Vary"]
            assert own.headers["Cache-Control"] == "private, no-cache"
    # a seat's and a spectator's bodies differ indeed (hidden hands)
    state = f"/games/{game.game_id}/state"
    assert client.get(state).data != client.get(state, headers=game.seat(0)).data


def test_if_match_takes_every_etag_form_clients_hold(api: Api, client: FlaskClient) -> None:
    """A command's If-Match may be the ETag of any view (any viewer's, any coding) or the
    bare version the web client builds: all name the game's version. Another version in
    any of these forms is a 412."""
    game = api.create("board", 2, seed=3)
    forms = ["{v}", "{v}-spectator", "{v}-seat{s}", "{v}-admin", "{v}-seat{s}:gzip", "{v}-admin:br"]
    for form in forms:
        seat = api.awaited(game)[0]
        version = api.version(game)
        stale = '"' + form.format(v=version + 1, s=seat) + '"'
        refused = api.command(game, seat, api.legal(game, seat)[0], if_match=stale)
        assert refused.status_code == 412, (form, refused.get_json())
        etag = '"' + form.format(v=version, s=seat) + '"'
        sent = api.command(game, seat, api.legal(game, seat)[0], if_match=etag)
        assert sent.status_code == 200, (form, sent.get_json())
