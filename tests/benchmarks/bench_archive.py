"""The archive tier (a script, not a test): what a finished game costs before and after it
moves out of Redis, and how fast it goes and comes back.

Seeded random games are played to their end through the application service on a fresh
embedded Redis, as the API plays them (seat tokens, a request id and an idempotency key per
command; every event's audit fields: event and command ids, actor, seat, time, link, rule
trail): board games of 2, 3 and 4 seats and 4-seat card games. Then, per game:

- Redis memory (``MEMORY USAGE … SAMPLES 0`` of the game's keys) before archiving and the
  residue after (its info and seat tokens; the listing entries are reported apart);
- the archive object's bytes, per game and per event, and its ratio to the game's commands
  as JSON compressed by zstd (level 19); the breakdown of the object (what it costs without
  the command ids, the times, the commands, the request ids: each part's share);
- archiving throughput (encode, write, read back, verify, swap) and read-back throughput
  (fetch, check, decode and refold in a cold process);
- the latency of an archived game's state and first event page from the local archive,
  cold (a new process: nothing decoded) and warm.

Run:  .venv/bin/python -m tests.benchmarks.bench_archive [--games 2] [--cards-games 2]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import zstandard

from service.application import archive_codec
from service.application.game_service import ArchivePolicy, GameService
from service.application.mapper import CommandMeta
from service.application.tokens import hash_token
from service.embedded_redis import EmbeddedRedis
from service.store.archive_objects import LocalArchiveObjects, object_key
from service.store.port import ARCHIVED_KEY
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import choose_command

PREFIX = "tigris"


def play(service: GameService, kind: str, seats: int, seed: int) -> tuple[str, int, bytes]:
    """One game to its end as the API plays it; its id, event count and commands (JSON)."""
    tokens = [hash_token(uuid.uuid4().hex) for _ in range(seats)]
    admin = CommandMeta(command_id=uuid.uuid4().hex, actor="admin", seat=None)
    names = [f"Player {n + 1}" for n in range(seats)]
    game = service.commands.create_game(kind, names, {}, seed, admin, token_hashes=tokens)
    rng = random.Random(seed)
    commands: list[Any] = []
    while not game.rules.is_over(game.state):
        command = choose_command(game.rules, game.state, rng)
        meta = CommandMeta.for_actor(f"seat:{command.seat}", command.seat)  # as the API
        game = service.commands.handle(
            game.game_id,
            command,
            meta=meta,
            expected_version=game.version,
            idempotency_key=uuid.uuid4().hex,
        ).game
        commands.append(game.rules.commands.to_json(command))
    return game.game_id, game.version, json.dumps(commands).encode()


def game_memory(client: Any, game_id: str) -> int:
    keys = list(client.scan_iter(match=f"{PREFIX}:{{{game_id}}}:*", count=1000))
    return sum(int(client.memory_usage(k, samples=0) or 0) for k in keys)


def zstd(data: bytes) -> int:
    return len(zstandard.ZstdCompressor(level=archive_codec.ZSTD_LEVEL).compress(data))


def breakdown(blob: bytes) -> dict[str, int]:
    """The object's bytes that each part costs: the compressed size without it, taken from
    the whole (what is left is the events' types, places and the header)."""
    payload = json.loads(zstandard.ZstdDecompressor().decompress(blob))

    def without(*names: str) -> int:
        copy = json.loads(json.dumps(payload))
        for _, _, residue in copy["events"]:
            for name in names:
                residue.pop(name, None)
        return zstd(json.dumps(copy, separators=(",", ":")).encode())

    whole = len(blob)
    parts = {
        "command ids": whole - without("c", "C"),
        "request ids": whole - without("r", "R", "u", "U"),
        "event ids": whole - without("e", "E"),
        "times": whole - without("d", "t", "T"),
        "commands": whole - without("k"),
        "kept data": whole
        - zstd(
            json.dumps(
                {**payload, "events": [[t, None, r] for t, _, r in payload["events"]]},
                separators=(",", ":"),
            ).encode()
        ),
    }
    parts["rest"] = whole - sum(parts.values())
    return parts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2, help="board games per seat count")
    parser.add_argument("--cards-games", type=int, default=2, help="4-seat card games")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            run(server, Path(tmp) / "archive", args.games, args.cards_games)
        finally:
            server.stop()


def run(server: EmbeddedRedis, archive_dir: Path, games: int, cards_games: int) -> None:
    client: Any = server.client(decode_responses=True)
    objects = LocalArchiveObjects(archive_dir)

    def service() -> GameService:  # a new process: nothing cached or decoded
        return GameService(
            RedisEventStore(client, prefix=PREFIX),
            RedisSnapshotStore(client, prefix=PREFIX),
            archive=objects,
            archive_policy=ArchivePolicy(retention_s=0),
            cache_size=64,
        )

    games_service = service()
    plan = [("board", seats, 2000 + 10 * seats + n) for seats in (2, 3, 4) for n in range(games)]
    plan += [("cards", 4, 3000 + n) for n in range(cards_games)]
    played = []
    for kind, seats, seed in plan:
        game_id, events, commands = play(games_service, kind, seats, seed)
        played.append((kind, seats, game_id, events, commands, game_memory(client, game_id)))
    index_before = sum(
        int(client.memory_usage(k, samples=0) or 0)
        for k in client.scan_iter(match=f"{PREFIX}:games*")
    )
    used_before = int(client.info("memory")["used_memory"])

    archiver = games_service.archiver
    assert archiver is not None
    started = time.perf_counter()
    for _, _, game_id, _, _, _ in played:
        outcome = archiver.archive(game_id)
        assert outcome.outcome == "archived", outcome
    archive_s = time.perf_counter() - started
    used_after = int(client.info("memory")["used_memory"])

    total_events = sum(p[3] for p in played)
    print(f"Redis {client.info('server')['redis_version']}, games played to the end")
    print(
        f"{'game':9}{'events':>7}{'Redis B':>9}{'residue':>8}{'archive':>8}{'B/event':>8}"
        f"{'cmds zst':>9}{'ratio':>6}{'cut':>6}"
    )
    parts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    blobs: dict[str, bytes] = {}
    for kind, seats, game_id, events, commands, before in played:
        info = client.hgetall(f"{PREFIX}:{{{game_id}}}:info")
        blob = objects.get(object_key(game_id, info[ARCHIVED_KEY]))
        blobs[game_id] = blob
        residue = game_memory(client, game_id)
        compressed = zstd(commands)
        label = f"{kind}/{seats}"
        print(
            f"{label:9}{events:>7}{before:>9}{residue:>8}{len(blob):>8}"
            f"{len(blob) / events:>8.1f}{compressed:>9}{len(blob) / compressed:>6.1f}"
            f"{before / len(blob):>5.0f}x"
        )
        for part, size in breakdown(blob).items():
            parts[kind][part].append(size)
    print("object breakdown (median bytes per game; compressed cost of each part):")
    for kind, sizes in parts.items():
        print(
            f"  {kind}: " + ", ".join(f"{p} {statistics.median(v):.0f}" for p, v in sizes.items())
        )
    index_after = sum(
        int(client.memory_usage(k, samples=0) or 0)
        for k in client.scan_iter(match=f"{PREFIX}:games*")
    )
    print(
        f"listing indexes: {index_after / len(played):.0f} B per game (before: "
        f"{index_before / len(played):.0f}); used_memory {used_before} -> {used_after} B"
    )
    print(
        f"archiving: {len(played) / archive_s:.1f} games/s, "
        f"{total_events / archive_s:.0f} events/s (encode with refold, write + fsync, "
        "read back, decode with refold, compare, swap)"
    )

    # Read-back: a cold process decodes each object once.
    cold = service()
    assert cold.archiver is not None
    started = time.perf_counter()
    for blob in blobs.values():
        cold.archiver.reader.decode(blob, archive_codec.content_hash(blob))
    read_s = time.perf_counter() - started
    print(
        f"read-back (check, decode, refold): {len(blobs) / read_s:.1f} games/s, "
        f"{total_events / read_s:.0f} events/s"
    )
    print(f"{'game':9}{'events':>7}{'state cold ms':>14}{'state warm':>11}{'page cold':>10}")
    for kind, seats, game_id, events, _, _ in played:
        fresh = service()
        t0 = time.perf_counter()
        fresh.repository.get(game_id)
        state_cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        fresh.repository.get(game_id)
        state_warm = time.perf_counter() - t0
        other = service()
        t0 = time.perf_counter()
        other.queries.events(game_id, 0, 100)
        page_cold = time.perf_counter() - t0
        print(
            f"{kind + '/' + str(seats):9}{events:>7}{state_cold * 1000:>14.1f}"
            f"{state_warm * 1000:>11.2f}{page_cold * 1000:>10.1f}"
        )


if __name__ == "__main__":
    main()
