"""Issue 27's "Done when", as a test: the run command (``python -m service`` on its embedded
Redis and its worker pool) with the archive retention set to seconds and a sweep every
second archives finished games of both kinds, frees their Redis memory (what is left of a
game: its info record and its seats' token hashes, at most 1 KB by ``MEMORY USAGE``),
answers every read endpoint with the same body as before, and their exported records
verify offline (``python -m service verify --head``); once on the local archive, once on
S3 (moto's server on loopback). The board game is played over HTTP; the cards game (~780
commands) through the application service on the same Redis, as over HTTP it takes
minutes."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from service.application.game_service import ArchivePolicy, GameService
from service.store.archive_objects import ArchiveObjects, LocalArchiveObjects
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server
from tests.service.api.test_archive_reads import snapshot
from tests.service.archive_games import play
from tests.service.store.test_archive_s3 import S3Server, bucket, s3

__all__ = ["s3"]  # the fixture, imported for the S3 run

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
RESIDUE_BYTES = 1024  # issue 27: at most ~1 KB of Redis per archived game
RETENTION_S = 20  # longer than it takes to play the cards game and read every endpoint
WAIT_S = 60  # bound on the wait for the sweep to archive the games
# Seeded 2-seat games: the board game (~180 commands) is played over HTTP; the cards game
# (~780 commands, ~1,200 events) through the application service on the same Redis (over
# HTTP it would take minutes).
GAMES = [("board", 8), ("cards", 7)]
OVER_HTTP = {"board"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_to_the_end(url: str, kind: str, seed: int, limit: int = 2_000) -> tuple[str, list[str]]:
    """A ``kind`` game created and played to its end over HTTP by seeded random legal
    commands of the awaited seats (at most ``limit`` commands)."""
    body: dict[str, Any] = {"kind": kind, "seats": ["Ann", "Bob"], "seed": seed}
    created = requests.post(f"{url}/games", json=body, headers=ADMIN, timeout=10)
    assert created.status_code == 201, created.text
    game_id = created.json()["game"]["game_id"]
    tokens = [seat["token"] for seat in created.json()["seats"]]
    rng = random.Random(seed)
    with requests.Session() as http:
        for _ in range(limit):
            awaited = http.get(f"{url}/games/{game_id}/pending", timeout=10).json()["awaited"]
            if not awaited:
                break
            seat = rng.choice(sorted(awaited))
            legal = http.get(
                f"{url}/games/{game_id}/legal-commands", headers=bearer(tokens[seat]), timeout=10
            )
            sent = http.post(
                f"{url}/games/{game_id}/commands",
                json=rng.choice(legal.json()["commands"]),
                headers={**bearer(tokens[seat]), "If-Match": "*"},
                timeout=10,
            )
            assert sent.status_code == 200, sent.text
        else:
            pytest.fail(f"{kind} game {seed} did not end within {limit} commands")
    status = requests.get(f"{url}/games/{game_id}", headers=ADMIN, timeout=10).json()["status"]
    assert status == "over"
    return game_id, tokens


def in_process(games: GameService, kind: str, seed: int) -> tuple[str, list[str]]:
    tokens = [uuid.uuid4().hex, uuid.uuid4().hex]
    game = play(games, kind, 2, seed, tokens=tokens)
    assert game.rules.is_over(game.state)
    return game.game_id, tokens


def embedded_redis(data_dir: Path) -> redis.Redis:
    """A client of the run command's embedded Redis (its address is in its data directory)."""
    url = (data_dir / "redis.url").read_text(encoding="utf-8").strip()
    return redis.Redis.from_url(url, decode_responses=True)


def game_keys(client: redis.Redis, prefix: str, game_id: str) -> dict[str, int]:
    """Every key of ``game_id`` and its ``MEMORY USAGE`` in bytes."""
    names = sorted(client.scan_iter(match=f"{prefix}:{{{game_id}}}:*", count=1000))
    return {name: int(client.memory_usage(name, samples=0) or 0) for name in names}


def wait_archived(url: str, client: redis.Redis, prefix: str, game_ids: list[str]) -> None:
    """Until the sweep archived every game (bounded by ``WAIT_S``)."""
    deadline = time.monotonic() + WAIT_S
    left = list(game_ids)
    while left:
        left = [g for g in left if client.hget(f"{prefix}:{{{g}}}:info", "archived") is None]
        if not left:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"not archived within {WAIT_S} s: {left}")
        time.sleep(0.5)


def verify_offline(record: bytes, head: str, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(record)
    checked = subprocess.run(
        [sys.executable, "-m", "service", "verify", str(path), "--head", head],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def archive_run(tmp_path: Path, env: dict[str, str], objects: ArchiveObjects) -> None:
    """The "Done when" run on the backend that ``env`` names (``objects``: the same)."""
    prefix = env["TIGRIS_KEY_PREFIX"]
    data_dir = tmp_path / "redis"
    env = {
        "TIGRIS_REDIS_DIR": str(data_dir),
        "TIGRIS_ARCHIVE_RETENTION_S": str(RETENTION_S),
        "TIGRIS_JOB_SWEEP_S": "1",
        **env,
    }
    with start_live_server(None, tmp_path, env) as server:
        client = embedded_redis(data_dir)
        local = GameService(  # a writer as the service's: on the archive tier (due index)
            RedisEventStore(client, prefix=prefix),
            RedisSnapshotStore(client, prefix=prefix),
            archive=objects,
            archive_policy=ArchivePolicy(retention_s=RETENTION_S),
        )
        before: dict[str, dict[str, Any]] = {}
        heads: dict[str, str] = {}
        kept: dict[str, int] = {}
        played: list[tuple[tuple[str, list[str]], str]] = []
        for kind, seed in GAMES:
            game_id, tokens = (
                play_to_the_end(server.url, kind, seed)
                if kind in OVER_HTTP
                else in_process(local, kind, seed)
            )
            played.append(((game_id, tokens), kind))
            # Right after its end, within the retention: as it is in Redis.
            kept[game_id] = sum(game_keys(client, prefix, game_id).values())
            before[game_id] = snapshot(server.url, game_id, kind, tokens)
            record = requests.get(f"{server.url}/games/{game_id}/record", headers=ADMIN, timeout=20)
            heads[game_id] = record.content.splitlines()[0].decode()
        for (game_id, _), _ in played:  # every "before" read was of games in Redis
            assert client.hget(f"{prefix}:{{{game_id}}}:info", "archived") is None
        last = played[-1][0][0]
        wait_archived(server.url, client, prefix, list(before))
        for (game_id, tokens), kind in played:
            residue = game_keys(client, prefix, game_id)
            # its info record (the listing entry's) and its seats' token hashes (a seat
            # reads its own view of an archived game as before)
            names = {f"{prefix}:{{{game_id}}}:{part}" for part in ("info", "tokens")}
            assert set(residue) <= names and f"{prefix}:{{{game_id}}}:info" in residue, residue
            assert sum(residue.values()) <= RESIDUE_BYTES, (kind, residue)
            assert kept[game_id] > 20 * sum(residue.values()), (kind, kept[game_id], residue)
            after = snapshot(server.url, game_id, kind, tokens)
            # The listings as read after the last game was created (those read earlier
            # lack the later games).
            changed = [
                path
                for path in before[game_id]
                if before[game_id][path] != after[path] and (game_id == last or "?" not in path)
            ]
            assert changed == [], changed
            exported = after[f"admin /games/{game_id}/record"][2]
            head = _head(heads[game_id])
            verify_offline(exported, head, tmp_path, game_id)
        _print_figures(server, kept, client, prefix)


def _head(header_line: str) -> str:
    head: str = json.loads(header_line)["head"]
    return head


def _print_figures(
    server: LiveServer, kept: dict[str, int], client: redis.Redis, prefix: str
) -> None:
    for game_id, size in kept.items():
        residue = sum(game_keys(client, prefix, game_id).values())
        print(f"{game_id}: {size} bytes in Redis before, {residue} after ({server.url})")


@pytest.fixture
def prefix() -> Iterator[str]:
    yield f"done-{int(time.time() * 1000) % 10**9}"


def test_finished_games_of_both_kinds_leave_redis_and_read_the_same_from_the_local_archive(
    tmp_path: Path, prefix: str
) -> None:
    """Given the run command with a 20 s retention and a 1 s sweep on the local archive,
    when a board and a cards game are played to their end, then the workers archive both:
    only their info record and seat tokens stay (≤ 1 KB, against 150-700 KB before), every
    read answers as before, and the exported records verify offline against the heads
    shown before archiving."""
    archive = tmp_path / "archive"
    env = {"TIGRIS_KEY_PREFIX": prefix, "TIGRIS_ARCHIVE_DIR": str(archive)}
    archive_run(tmp_path, env, LocalArchiveObjects(archive))
    assert len(list(archive.rglob("*.zst"))) == len(GAMES)


def test_finished_games_of_both_kinds_leave_redis_and_read_the_same_from_s3(
    tmp_path: Path, prefix: str, s3: S3Server
) -> None:
    """The same on the ``s3`` backend, against moto's S3 server on loopback."""
    objects = bucket(s3)
    archive_run(
        tmp_path,
        {
            "TIGRIS_KEY_PREFIX": prefix,
            "TIGRIS_ARCHIVE_BACKEND": "s3",
            "TIGRIS_ARCHIVE_S3_BUCKET": objects.bucket,
            "TIGRIS_ARCHIVE_S3_PREFIX": "tigris/",
            "TIGRIS_ARCHIVE_S3_ENDPOINT_URL": s3.url,
            "TIGRIS_ARCHIVE_S3_REGION": "us-east-1",
            "TIGRIS_ARCHIVE_S3_ACCESS_KEY_ID": "testing",
            "TIGRIS_ARCHIVE_S3_SECRET_ACCESS_KEY": "testing",
        },
        objects,
    )
    assert len(objects.keys()) == len(GAMES)
