"""Archived games answer every read as before, through the real service over HTTP (the
contract checks every answer): seeded games of both kinds, each read endpoint as the admin,
a seat and a spectator, compared before and after ``POST /ops/games/{id}/archive``; then
writes are refused (409 ``game-archived``) until the admin rehydrates the game."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from domain.games import all_games
from service.application import record
from service.application.game_service import GameService
from service.store.port import Subscription
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from service.store.redis_webhooks import RedisWebhookStore
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server
from tests.service.archive_games import play

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PREFIX = f"arch-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    archive = tmp_path_factory.mktemp("archive")
    env = {"TIGRIS_KEY_PREFIX": PREFIX, "TIGRIS_ARCHIVE_DIR": str(archive)}
    with start_live_server(redis_url, tmp_path_factory.mktemp("server"), env) as live:
        yield live


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def writer(token: str) -> dict[str, str]:
    return {**bearer(token), "If-Match": "*"}


def http_game(url: str, kind: str, seed: int, commands: int) -> tuple[str, list[str]]:
    """A ``kind`` game created and played over HTTP by seeded random legal commands."""
    body: dict[str, Any] = {"kind": kind, "seats": ["Ann", "Bob"], "seed": seed}
    created = requests.post(f"{url}/games", json=body, headers=ADMIN, timeout=10)
    assert created.status_code == 201, created.text
    game_id = created.json()["game"]["game_id"]
    tokens = [seat["token"] for seat in created.json()["seats"]]
    rng = random.Random(seed)
    for _ in range(commands):
        pending = requests.get(f"{url}/games/{game_id}/pending", timeout=10).json()
        awaited = pending.get("awaited") or []
        if not awaited:
            break
        seat = awaited[0]
        headers = bearer(tokens[seat])
        legal = requests.get(f"{url}/games/{game_id}/legal-commands", headers=headers, timeout=10)
        command = rng.choice(legal.json()["commands"])
        sent = requests.post(
            f"{url}/games/{game_id}/commands",
            json=command,
            headers=writer(tokens[seat]),
            timeout=10,
        )
        assert sent.status_code == 200, sent.text
    return game_id, tokens


def snapshot(url: str, game_id: str, kind: str, tokens: list[str]) -> dict[str, Any]:
    """Every read endpoint's answer (status, ETag, body) as the admin, seat 0 and a spectator."""
    info = requests.get(f"{url}/games/{game_id}", headers=ADMIN, timeout=10).json()
    version = info["version"]
    paths = [
        f"/games/{game_id}",
        f"/games/{game_id}/state",
        f"/games/{game_id}/pending",
        f"/games/{game_id}/legal-commands",
        f"/games/{game_id}/result",
        f"/games/{game_id}/record",
        f"/games/{game_id}/events?after=0&limit=1000",
        f"/games/{game_id}/events?after={version // 2}&limit=5",
        f"/games/{game_id}/events?after={version}",
        f"/games?kind={kind}",
        f"/games?status={info['status']}",
    ]
    for at in sorted({1, version // 2, version}):
        paths += [f"/games/{game_id}/states/{at}", f"/games/{game_id}/versions/{at}/explanation"]
    answers: dict[str, Any] = {}
    for viewer, headers in (("admin", ADMIN), ("seat", bearer(tokens[0])), ("spectator", {})):
        for path in paths:
            response = requests.get(f"{url}{path}", headers=headers, timeout=20)
            answers[f"{viewer} {path}"] = (
                response.status_code,
                response.headers.get("ETag"),
                response.content,
            )
    return answers


def test_archived_games_of_both_kinds_answer_every_read_as_before(
    server: LiveServer, redis_url: str
) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    local = GameService(
        RedisEventStore(client, prefix=PREFIX), RedisSnapshotStore(client, prefix=PREFIX)
    )
    board_tokens = [uuid.uuid4().hex, uuid.uuid4().hex]
    board = play(local, "board", 2, 8_675_309, tokens=board_tokens)  # to its end
    cards_id, cards_tokens = http_game(server.url, "cards", 31_337, 25)
    games = [(board.game_id, "board", board_tokens), (cards_id, "cards", cards_tokens)]
    before = {game_id: snapshot(server.url, game_id, kind, t) for game_id, kind, t in games}
    for game_id, _, _ in games:
        moved = requests.post(
            f"{server.url}/ops/games/{game_id}/archive", headers=ADMIN, timeout=60
        )
        assert moved.status_code == 200 and moved.json()["outcome"] == "archived", moved.text
        assert client.exists(f"{PREFIX}:{{{game_id}}}:events") == 0
    for game_id, kind, tokens in games:
        after = snapshot(server.url, game_id, kind, tokens)
        changed = [path for path in before[game_id] if before[game_id][path] != after[path]]
        assert changed == [], changed
        # and its record still verifies offline
        body = after[f"admin /games/{game_id}/record"][2]
        assert record.verify(body, all_games()).header["game_id"] == game_id


def test_an_archived_game_refuses_writes_until_the_admin_rehydrates_it(
    server: LiveServer,
) -> None:
    game_id, tokens = http_game(server.url, "board", 99, 3)
    url = server.url
    refused = requests.post(
        f"{url}/ops/games/{game_id}/archive", headers=bearer(tokens[0]), timeout=10
    )
    assert refused.status_code == 403
    assert requests.post(f"{url}/ops/games/{game_id}/archive", headers=ADMIN, timeout=60).ok
    pending = requests.get(f"{url}/games/{game_id}/pending", timeout=10).json()
    seat = pending["awaited"][0]
    legal = requests.get(
        f"{url}/games/{game_id}/legal-commands", headers=bearer(tokens[seat]), timeout=10
    ).json()["commands"][0]
    sent = requests.post(
        f"{url}/games/{game_id}/commands", json=legal, headers=writer(tokens[seat]), timeout=10
    )
    assert sent.status_code == 409 and sent.json()["type"].endswith("/game-archived"), sent.text
    back = requests.post(f"{url}/ops/games/{game_id}/rehydrate", headers=ADMIN, timeout=60)
    assert back.status_code == 200 and back.json()["outcome"] == "rehydrated"
    again = requests.post(
        f"{url}/games/{game_id}/commands", json=legal, headers=writer(tokens[seat]), timeout=10
    )
    assert again.status_code == 200, again.text
    metrics = requests.get(f"{url}/metrics", timeout=10).text
    assert "tigris_archive_games" in metrics and "tigris_redis_used_memory_bytes" in metrics


def test_archiving_drops_a_games_webhook_subscriptions_for_good(
    server: LiveServer, redis_url: str
) -> None:
    """Given a game with two webhook subscriptions, when it is archived, then they are gone
    (listed by none, their keys removed, their number kept in its info), subscribing to it
    is 409 ``game-archived``, and rehydrating it does not bring them back."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    hooks = RedisWebhookStore(client, prefix=PREFIX)
    game_id, _ = http_game(server.url, "board", 7, 2)
    for n in range(2):
        hooks.create(
            Subscription(
                sub_id=uuid.uuid4().hex,
                game_id=game_id,
                url=f"https://example.org/hook/{n}",
                events=(),
                seat=None,
                secret="whsec_" + uuid.uuid4().hex,
                status="active",
                failures=0,
                cursor=0,
                created_at="2026-01-01T00:00:00+00:00",
                owner="admin",
            ),
            per_game=20,
            per_owner=5,
        )
    listed = requests.get(f"{server.url}/games/{game_id}/webhooks", headers=ADMIN, timeout=10)
    assert len(listed.json()["items"]) == 2
    moved = requests.post(f"{server.url}/ops/games/{game_id}/archive", headers=ADMIN, timeout=60)
    assert moved.json()["outcome"] == "archived", moved.text

    listed = requests.get(f"{server.url}/games/{game_id}/webhooks", headers=ADMIN, timeout=10)
    assert listed.status_code == 200 and listed.json()["items"] == []
    assert list(client.scan_iter(match=f"{PREFIX}:{{{game_id}}}:hook*")) == []
    assert client.hget(f"{PREFIX}:{{{game_id}}}:info", "archived_webhooks") == "2"
    again = requests.post(
        f"{server.url}/games/{game_id}/webhooks",
        json={"url": "https://example.org/hook/again", "events": []},
        headers=ADMIN,
        timeout=10,
    )
    assert again.status_code == 409 and again.json()["type"].endswith("/game-archived")
    back = requests.post(f"{server.url}/ops/games/{game_id}/rehydrate", headers=ADMIN, timeout=60)
    assert back.json()["outcome"] == "rehydrated"
    listed = requests.get(f"{server.url}/games/{game_id}/webhooks", headers=ADMIN, timeout=10)
    assert listed.json()["items"] == []
