"""HTTP API benchmark (a script, not a test).

Starts the real service (``python -m service``: gunicorn gevent workers) on a fresh
embedded Redis, creates many seeded games through the API, then drives them with many
concurrent clients (several processes x threads, keep-alive connections), each client
owning its games and posting their commands in order with ``If-Match``. The commands
are those of ``play_random_game`` with the same seed, so every one is legal. Phases, in
one run and at the same concurrency:

1. ``bare``: ``GET /healthz`` (no Redis, no JSON body): the framework's ceiling (gunicorn,
   gevent, Flask and the request hooks) on this machine at this moment;
2. ``client``: commands, one connection per client (a client's commands stay on the
   worker that accepted its connection, whose cached copy of the game is current);
3. ``seat``: commands on fresh games, one connection per seat, as real clients hold them:
   a game's commands land on different workers, whose copies fall behind. The cold-path
   share (commands whose game was loaded, not taken from the worker's copy) is read from
   ``/metrics`` (``tigris_command_paths_total``) around the phase.

Reports commands/s, POST latency p50/p99, the ratio to the bare rate, and next to it the
event store's own append rate (``RedisEventStore.append``, one event per append, same
Redis, same concurrency) measured in the same run.

Target on the 2-core machine: >= 1,000 commands/s with p99 <= 25 ms.

Run:  .venv/bin/python -m tests.benchmarks.bench_api [--fsync everysec] [--games 64]
      [--processes 4] [--threads 8] [--commands 60] [--workers 2]

Figures and how they were measured: README.md, section "Benchmarks". Without the
per-process game cache (``GameService(cache_size=...)``) the service folded the game for
every command and managed ~600-700 commands/s; with it, one command costs one Redis round
trip (the checked append) plus HTTP, Flask, the token lookup, decide and evolve.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from domain.common.autoplay import play_random_game
from domain.games import all_games
from service.embedded_redis import EmbeddedRedis
from service.store.port import NewEvent
from service.store.redis_streams import RedisEventStore

ADMIN_TOKEN = "bench-admin-" + uuid.uuid4().hex


@dataclass
class PlannedGame:
    game_id: str
    tokens: list[str]
    version: int
    commands: list[tuple[int, dict[str, Any]]]  # (seat, command JSON without seat)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _request(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], Any]:
    payload = None if body is None else json.dumps(body)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    try:
        conn.request(method, path, body=payload, headers=all_headers)
        response = conn.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        # The server closed a connection idle past its keep-alive time before reading
        # this request (a seat's connection waits while others play): reconnect, as a
        # client does, and send it again.
        conn.close()
        conn.request(method, path, body=payload, headers=all_headers)
        response = conn.getresponse()
    data = response.read()
    return response.status, dict(response.getheaders()), json.loads(data) if data else None


def plan_games(port: int, count: int, commands: int) -> list[PlannedGame]:
    """Create ``count`` seeded games through the API; plan their first commands."""
    games = all_games()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    planned = []
    for n in range(count):
        kind = ("board", "cards")[n % 2]
        seats = 2 + n % 3
        seed = 1000 + n
        played = play_random_game(games[kind], seats, seed)
        names = [f"player{i + 1}" for i in range(seats)]
        status, _, body = _request(
            conn,
            "POST",
            "/games",
            {"kind": kind, "seats": names, "seed": seed},
            {"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        assert status == 201, body
        plan = []
        for command in played.commands[:commands]:
            wire = games[kind].commands.to_json(command)
            seat = wire.pop("seat")
            plan.append((seat, wire))
        planned.append(
            PlannedGame(
                body["game"]["game_id"],
                [s["token"] for s in body["seats"]],
                body["game"]["version"],
                plan,
            )
        )
    conn.close()
    return planned


def _client_process(  # noqa: PLR0917 (one process of the load)
    port: int, games: list[PlannedGame], threads: int, out: Any, per_seat: bool, bare: int
) -> None:
    """One load-generating process: ``threads`` threads, each owning some games (one
    connection per thread, or per seat of its games with ``per_seat``); with ``bare`` > 0,
    each thread sends that many ``GET /healthz`` instead."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def run_bare(_mine: list[PlannedGame]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        local: list[float] = []
        for _ in range(bare):
            started = time.perf_counter()
            status, _, _ = _request(conn, "GET", "/healthz")
            local.append(time.perf_counter() - started)
            if status != 200:
                with lock:
                    errors.append(str(status))
        conn.close()
        with lock:
            latencies.extend(local)

    def run(mine: list[PlannedGame]) -> None:
        shared = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        seats: dict[tuple[str, int], http.client.HTTPConnection] = {}

        def conn_for(game_id: str, seat: int) -> http.client.HTTPConnection:
            if not per_seat:
                return shared
            key = (game_id, seat)
            if key not in seats:
                seats[key] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            return seats[key]

        local: list[float] = []
        position = {g.game_id: 0 for g in mine}
        active = list(mine)
        while active:
            for game in list(active):
                index = position[game.game_id]
                if index >= len(game.commands):
                    active.remove(game)
                    continue
                seat, command = game.commands[index]
                started = time.perf_counter()
                status, _, body = _request(
                    conn_for(game.game_id, seat), "POST", f"/games/{game.game_id}/commands",
                    command,
                    {"Authorization": f"Bearer {game.tokens[seat]}",
                     "If-Match": f'"{game.version}"'},
                )  # fmt: skip
                local.append(time.perf_counter() - started)
                if status != 200:
                    with lock:
                        errors.append(f"{status} {body}")
                    active.remove(game)
                    continue
                game.version = body["version"]
                position[game.game_id] = index + 1
        for conn in (shared, *seats.values()):
            conn.close()
        with lock:
            latencies.extend(local)

    shares = [games[i::threads] for i in range(threads)]
    target = run_bare if bare > 0 else run
    workers = [threading.Thread(target=target, args=(share,)) for share in shares if share]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    out.put((latencies, errors))


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of process ``pid`` and all its descendants, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def bench_api(
    port: int,
    games: list[PlannedGame],
    processes: int,
    threads: int,
    *,
    per_seat: bool = False,
    bare: int = 0,
    service_pid: int | None = None,
    redis_pid: int | None = None,
) -> dict[str, Any]:
    cpu_before = {pid: cpu_seconds(pid) for pid in (service_pid, redis_pid) if pid}
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    shares = [games[i::processes] for i in range(processes)]
    procs = [
        multiprocessing.Process(
            target=_client_process, args=(port, share, threads, queue, per_seat, bare)
        )
        for share in shares
    ]
    started = time.perf_counter()
    for proc in procs:
        proc.start()
    results = [queue.get() for _ in procs]
    elapsed = time.perf_counter() - started
    for proc in procs:
        proc.join()
    cpu = {pid: cpu_seconds(pid) - before for pid, before in cpu_before.items()}
    latencies = sorted(x for lat, _ in results for x in lat)
    errors = [e for _, errs in results for e in errs]
    return {
        "service_cpu_ms": 1000 * cpu.get(service_pid or 0, 0.0) / max(1, len(latencies)),
        "redis_cpu_ms": 1000 * cpu.get(redis_pid or 0, 0.0) / max(1, len(latencies)),
        "commands": len(latencies),
        "seconds": elapsed,
        "rate": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "errors": errors[:5],
        "error_count": len(errors),
    }


def command_paths(port: int) -> dict[str, float]:
    """``tigris_command_paths_total`` by path, summed over the workers (empty if the server
    has no such metric)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/metrics")
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    paths: dict[str, float] = {}
    if response.status != 200:
        return paths
    for line in text.splitlines():
        if line.startswith("tigris_command_paths_total{"):
            labels, _, value = line.rpartition(" ")
            path = labels.split('path="', 1)[1].split('"', 1)[0]
            paths[path] = paths.get(path, 0.0) + float(value)
    return paths


def cold_share(before: dict[str, float], after: dict[str, float]) -> float | None:
    done = {path: after.get(path, 0.0) - before.get(path, 0.0) for path in after}
    total = sum(done.values())
    return None if total <= 0 else done.get("checked", 0.0) / total


def bench_store(url: str, streams: int, appends: int) -> dict[str, Any]:
    """The event store's own rate: checked single-event appends, ``streams`` threads."""
    client = redis.Redis.from_url(url, decode_responses=True, max_connections=streams + 8)
    store = RedisEventStore(client, prefix=f"bench-store-{uuid.uuid4().hex[:8]}")
    data = {"seat": 0, "at": [3, 4], "colour": "red"}
    per_thread = appends // streams

    def run(game_id: str) -> None:
        for version in range(per_thread):
            meta = {"event_id": uuid.uuid4().hex, "command_id": uuid.uuid4().hex,
                    "actor": "seat:0", "seat": 0}  # fmt: skip
            store.append(game_id, [NewEvent("board.TilePlaced", 1, data, meta)], version)

    workers = [threading.Thread(target=run, args=(f"g{n}",)) for n in range(streams)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    client.close()
    return {"appends": per_thread * streams, "rate": per_thread * streams / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fsync", default="everysec", choices=["always", "everysec", "no"])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--commands", type=int, default=60, help="commands per game")
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--threads", type=int, default=8, help="client threads per process")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--bare", type=int, default=200, help="GET /healthz per client")
    parser.add_argument(
        "--rate-limits", default="on", choices=["on", "off"], help="TIGRIS_RATE_LIMITS"
    )
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync=args.fsync) as server,
    ):
        port = _free_port()
        env = {
            **os.environ, "REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_PORT": str(port), "TIGRIS_WORKERS": str(args.workers),
            "TIGRIS_LOG_LEVEL": "warning", "TIGRIS_RATE_LIMITS": args.rate_limits,
        }  # fmt: skip
        # The service's log (a JSON line per request) goes to a file, as in production.
        log = (Path(tmp) / "service.log").open("wb")
        service = subprocess.Popen(
            [sys.executable, "-m", "service"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                    if _request(conn, "GET", "/readyz")[0] == 200:
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                time.sleep(0.2)
            games = plan_games(port, args.games, args.commands)
            pids: dict[str, Any] = {"service_pid": service.pid, "redis_pid": server.pid}
            bare = bench_api(port, games, args.processes, args.threads, bare=args.bare, **pids)
            api = bench_api(port, games, args.processes, args.threads, **pids)
            seat_games = plan_games(port, args.games, args.commands)
            paths_before = command_paths(port)
            seat = bench_api(port, seat_games, args.processes, args.threads, per_seat=True, **pids)
            cold = cold_share(paths_before, command_paths(port))
            store = bench_store(server.url, args.processes * args.threads, api["commands"])
        finally:
            service.terminate()
            service.wait(timeout=30)
            log.close()

    clients = args.processes * args.threads
    print(
        f"bare  : {bare['commands']} GET /healthz = {bare['rate']:,.0f}/s, "
        f"p50 {bare['p50_ms']:.1f} ms, p99 {bare['p99_ms']:.1f} ms (the framework's ceiling), "
        f"CPU per request: service {bare['service_cpu_ms']:.2f} ms, "
        f"Redis {bare['redis_cpu_ms']:.3f} ms"
    )
    print(
        f"API   : {api['commands']} commands in {api['seconds']:.1f} s = {api['rate']:,.0f}/s, "
        f"p50 {api['p50_ms']:.1f} ms, p99 {api['p99_ms']:.1f} ms, "
        f"{api['rate'] / bare['rate']:.0%} of bare "
        f"({clients} clients, {args.games} games, {args.workers} gunicorn workers, "
        f"fsync {args.fsync}, rate limits {args.rate_limits}, errors {api['error_count']}); "
        f"CPU per command: service {api['service_cpu_ms']:.2f} ms, "
        f"Redis {api['redis_cpu_ms']:.3f} ms"
    )
    share = "n/a" if cold is None else f"{cold:.0%}"
    print(
        f"seat  : {seat['commands']} commands, one connection per seat = "
        f"{seat['rate']:,.0f}/s, p50 {seat['p50_ms']:.1f} ms, p99 {seat['p99_ms']:.1f} ms, "
        f"{seat['rate'] / bare['rate']:.0%} of bare, {seat['rate'] / api['rate']:.2f}x the "
        f"per-client rate, cold path {share} (errors {seat['error_count']}); "
        f"CPU per command: service {seat['service_cpu_ms']:.2f} ms"
    )
    print(
        f"store : {store['appends']} checked appends = {store['rate']:,.0f}/s ({clients} threads)"
    )
    print(f"ratio : API commands/s = {api['rate'] / store['rate']:.0%} of the store's append rate")
    for phase in (bare, api, seat):
        if phase["errors"]:
            print("first errors:", *phase["errors"], sep="\n  ")


if __name__ == "__main__":
    main()
