"""The event log and the server-sent-event stream (through the test client)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api import events as events_api
from service.api.context import EXTENSION
from service.application.mapper import CommandMeta
from service.store.port import EventStore, GameRecord
from tests.service.api.conftest import (
    KINDS,
    Api,
    Game,
    admin,
    admin_events,
    domain_events,
    domain_state,
    problem,
)


def _play(api: Api, game: Game, commands: int) -> None:
    rng = random.Random(3)
    for _ in range(commands):
        seat = rng.choice(api.awaited(game))
        assert (
            api.command(game, seat, rng.choice(api.legal(game, seat)), if_match="*").status_code
            == 200
        )


def _sse(text: str) -> list[dict[str, Any]]:
    """Parse an event stream into its messages (id, event, data)."""
    messages = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if "data" in fields:
            fields["data"] = json.loads(fields["data"])
            messages.append(fields)
    return messages


@pytest.mark.parametrize("kind", KINDS)
def test_the_log_pages_and_is_redacted_by_the_domain(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind, 3)
    _play(api, game, 6)
    full = admin_events(client, game)
    state = domain_state(client, game)
    decoded = domain_events(game, full)

    seen: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = client.get(
            f"/games/{game.game_id}/events?after={after}&limit=3", headers=game.seat(1)
        )
        assert page.status_code == 200 and len(page.get_json()["items"]) <= 3
        seen.extend(page.get_json()["items"])
        after = page.get_json()["next_after"]

    assert [e["version"] for e in seen] == list(range(1, len(full) + 1))
    for event, domain_event in zip(seen, decoded, strict=True):
        assert event["data"] == game.rules.event_view(domain_event, 1, state)
    spectator = client.get(f"/games/{game.game_id}/events?limit=500").get_json()["items"]
    assert spectator not in (full, seen)  # somebody's draw is hidden from each
    assert problem(client.get(f"/games/{game.game_id}/events?limit=501"), 400)["field"] == "limit"
    assert problem(client.get(f"/games/{game.game_id}/events?after=-1"), 400)["field"] == "after"
    problem(client.get("/games/nosuch/events"), 404)


@pytest.mark.parametrize("kind", KINDS)
def test_the_stream_sends_the_same_events_and_resumes(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind)
    _play(api, game, 3)
    log = client.get(f"/games/{game.game_id}/events?limit=500", headers=game.seat(0)).get_json()

    response = client.get(f"/games/{game.game_id}/events/stream?wait=0", headers=game.seat(0))
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    messages = _sse(response.get_data(as_text=True))
    assert [m["data"] for m in messages] == log["items"]
    assert [int(m["id"]) for m in messages] == [e["version"] for e in log["items"]]
    assert {m["event"] for m in messages} == {"game-event"}

    resumed = client.get(
        f"/games/{game.game_id}/events/stream?wait=0",
        headers={**game.seat(0), "Last-Event-ID": "4"},
    )
    assert [m["data"] for m in _sse(resumed.get_data(as_text=True))] == log["items"][4:]
    by_query = client.get(f"/games/{game.game_id}/events/stream?wait=0&after=2", headers=admin())
    assert next(int(m["id"]) for m in _sse(by_query.get_data(as_text=True))) == 3
    bad = {"Last-Event-ID": "x"}
    assert (
        problem(client.get(f"/games/{game.game_id}/events/stream", headers=bad), 400)["field"]
        == "Last-Event-ID"
    )
    problem(client.get(f"/games/{game.game_id}/events/stream?wait=-1"), 400)
    problem(client.get("/games/nosuch/events/stream?wait=0"), 404)


def test_the_stream_reads_the_game_info_once_per_batch(
    api: Api, app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = api.create("cards")
    _play(api, game, 3)
    log = client.get(f"/games/{game.game_id}/events?limit=500", headers=game.seat(0)).get_json()
    store: EventStore = app.extensions[EXTENSION].games.store
    reads: list[str] = []
    read_info = store.info

    def info(game_id: str) -> GameRecord | None:
        reads.append(game_id)
        return read_info(game_id)

    monkeypatch.setattr(store, "info", info)
    monkeypatch.setattr(events_api, "STREAM_BATCH", 2)

    response = client.get(f"/games/{game.game_id}/events/stream?wait=0", headers=game.seat(0))

    assert [m["data"] for m in _sse(response.get_data(as_text=True))] == log["items"]
    batches = math.ceil(len(log["items"]) / 2)
    # One read before the stream starts (404 check), one per batch, one that finds no more.
    assert reads == [game.game_id] * (1 + batches + 1)


def test_a_page_after_an_undo_reads_only_its_own_events(
    api: Api, app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a card game of 60 commands whose seat 0 got 20 of them taken back
    game = api.create("cards")
    _play(api, game, 40)
    target = api.version(game)
    _play(api, game, 20)
    games = app.extensions[EXTENSION].games
    loaded = games.repository.get(game.game_id)
    games.undo.revert(
        game.game_id,
        target,
        reason="disputed",
        requested_by="seat:0",
        approved_by=("seat:1",),
        meta=CommandMeta(command_id="undo", actor="admin", seat=None),
        expected_version=loaded.version,
    )
    full = client.get(f"/games/{game.game_id}/events?limit=200", headers=game.seat(1))
    assert full.status_code == 200
    store: EventStore = games.store
    read: list[int] = []
    read_after, read_range = store.read, store.read_range

    def counted_read(game_id: str, after: int = 0, limit: int | None = None) -> list[Any]:
        found = read_after(game_id, after, limit)
        read.append(len(found))
        return found

    def counted_range(game_id: str, first: int, last: int) -> list[Any]:
        found = read_range(game_id, first, last)
        read.append(len(found))
        return found

    monkeypatch.setattr(store, "read", counted_read)
    monkeypatch.setattr(store, "read_range", counted_range)
    # when a spectator and a seat read a page of 10 inside the part taken back
    for headers in ({}, game.seat(1)):
        read.clear()
        page = client.get(f"/games/{game.game_id}/events?after={target}&limit=10", headers=headers)
        # then only that page is read, plus at most one snapshot interval to fold from
        assert page.status_code == 200 and len(page.get_json()["items"]) == 10
        assert sum(read) <= 10 + games.repository.snapshot_every, read
    # and what it shows is what the whole log showed for those versions
    items = {item["version"]: item for item in full.get_json()["items"]}
    assert page.get_json()["items"] == [items[target + n] for n in range(1, 11)]
