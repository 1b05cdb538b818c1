"""HTTP API benchmark (a script, not a test).

Starts the real service (``python -m service``: gunicorn gevent workers) on a fresh
embedded Redis (``appendfsync always`` unless ``--fsync`` says otherwise), creates many
seeded games through the API, then drives them with concurrent keep-alive clients, each
owning its games and posting their commands in order with ``If-Match``. The commands are
those of ``play_random_game`` with the same seed, so every one is legal. Phases, in one run
and at the same concurrency:

1. ``bare``: ``GET /healthz`` (no Redis, no JSON body): the framework's ceiling (gunicorn,
   gevent, Flask and the request hooks) on this machine at this moment;
2. ``client``: commands, one connection per client (a client's commands stay on the
   worker that accepted its connection, whose cached copy of the game is current);
3. ``seat``: commands on fresh games, one connection per seat, as real clients hold them:
   a game's commands land on different workers, whose copies fall behind. The cold-path
   share (commands whose game was loaded, not taken from the worker's copy) is read from
   ``/metrics`` (``tigris_command_paths_total``) around the phase.

The load generator shares the machine with the service and Redis, so it is kept cheap: each
load process runs its clients on one event loop (non-blocking sockets, each request written
whole, each answer parsed only for its status and version), about 0.15 ms of CPU per
request where ``http.client`` on threads took about 0.35 ms. Reports commands/s, latency
p50/p99, the ratio to the bare rate, the CPU time per request of the service's processes,
of Redis and of the load generator, how busy the machine was (and what the hypervisor
stole), and the event store's own append rate (``RedisEventStore.append``, one event per
append, same Redis, same concurrency) measured in the same run.

Target on the 2-core machine (issue 12): at 16 clients, >= 1,500 commands/s with p99 <= 25 ms.

Run:  .venv/bin/python -m tests.benchmarks.bench_api [--fsync always|everysec|no]
      [--games 64] [--commands 120] [--processes 2] [--clients 8] [--workers 2]

Figures and how they were measured: docs/benchmarks.md. Without the
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
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from domain.games import all_games
from service.embedded_redis import EmbeddedRedis
from service.store.port import NewEvent
from service.store.redis_streams import RedisEventStore
from tests.autoplay import play_random_game

ADMIN_TOKEN = "bench-admin-" + uuid.uuid4().hex
# Spreading the load's connections over the service's processes (_spread): how long one
# connection may take to be accepted, and how long the spreading goes on at most.
ACCEPT_WAIT_S = 1.0
SPREAD_LIMIT_S = 3.0
LOAD_LIMIT_S = 900.0  # one phase of the load at most


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


class _Connection:
    """One keep-alive connection of the load: a non-blocking socket and what has arrived."""

    __slots__ = ("port", "received", "request", "sock", "started")

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = self._open()
        self.received = b""
        self.request = b""
        self.started = 0.0

    def _open(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        return sock

    def send(self, request: bytes) -> None:
        self.request = request
        self.received = b""
        self.started = time.perf_counter()
        self._send_all(request)

    def resend(self) -> None:
        """The server closed this connection (idle past its keep-alive time) before it
        answered: reopen it and send the request again, as a client does."""
        self.sock.close()
        self.sock = self._open()
        self.received = b""
        self._send_all(self.request)

    def _send_all(self, data: bytes) -> None:
        self.sock.setblocking(True)
        try:
            self.sock.sendall(data)
        finally:
            self.sock.setblocking(False)

    def response(self) -> tuple[int, bytes, bool] | None:
        """Status, body and whether the server closes the connection, once a whole response
        has arrived; None until then."""
        data = self.received
        end = data.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = data[:end].lower()
        at = head.find(b"\r\ncontent-length:")
        line_end = head.find(b"\r\n", at + 2)
        length = 0 if at < 0 else int(head[at + 17 : line_end if line_end >= 0 else None])
        if len(data) < end + 4 + length:
            return None
        close = b"\r\nconnection: close" in head
        return int(data[9:12]), data[end + 4 : end + 4 + length], close


class _Client:
    """One client of the load: owns some games and plays them in turns (a command of each in
    turn), one request at a time; on one connection, or with ``per_seat`` on one per seat of
    each game. With ``bare`` > 0 it sends that many ``GET /healthz`` instead."""

    def __init__(self, port: int, games: list[PlannedGame], per_seat: bool, bare: int) -> None:
        self.port = port
        self.games = [] if bare > 0 else list(games)
        self.per_seat = per_seat
        self.bare = bare
        self.turn = 0
        self.connections: dict[tuple[str, int] | None, _Connection] = {}
        self.current: PlannedGame | None = None
        self.bodies = {
            g.game_id: [(seat, json.dumps(c).encode()) for seat, c in g.commands] for g in games
        }
        self.position = {g.game_id: 0 for g in games}

    def _connection(self, key: tuple[str, int] | None) -> _Connection:
        found = self.connections.get(key)
        if found is None:
            found = self.connections[key] = _Connection(self.port)
        return found

    def next(self) -> _Connection | None:
        """Send the next request; its connection, or None when this client is done."""
        if self.bare > 0:
            self.bare -= 1
            conn = self._connection(None)
            conn.send(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
            return conn
        while self.games:
            self.turn %= len(self.games)
            game = self.games[self.turn]
            index = self.position[game.game_id]
            if index >= len(game.commands):
                self.games.pop(self.turn)
                continue
            seat, body = self.bodies[game.game_id][index]
            conn = self._connection((game.game_id, seat) if self.per_seat else None)
            self.current = game
            conn.send(
                (
                    f"POST /games/{game.game_id}/commands HTTP/1.1\r\nHost: bench\r\n"
                    f"Content-Type: application/json\r\n"
                    f"Authorization: Bearer {game.tokens[seat]}\r\n"
                    f'If-Match: "{game.version}"\r\nContent-Length: {len(body)}\r\n\r\n'
                ).encode()
                + body
            )
            return conn
        return None

    def answered(self, status: int, body: bytes, errors: list[str]) -> None:
        game = self.current
        if game is None:  # a bare request
            if status != 200:
                errors.append(str(status))
            return
        if status != 200:
            errors.append(f"{status} {body[:300]!r}")
            self.games.remove(game)  # its later commands would all fail
            return
        game.version = json.loads(body)["version"]
        self.position[game.game_id] += 1
        self.turn += 1

    def close(self) -> None:
        for conn in self.connections.values():
            conn.sock.close()


def holders(port: int) -> dict[int, int]:
    """The service's accepted connections from 127.0.0.1: for each, keyed by the client's
    port, the pid of the service process that holds it (from ``ss``, which lists one not
    accepted yet without a process: left out). Empty if ``ss`` is missing or fails."""
    try:
        listed = subprocess.run(
            ["ss", "-Htnp", "state", "established", "src", f"127.0.0.1:{port}", "dst", "127.0.0.1"],
            capture_output=True, text=True, check=False, timeout=10,
        ).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return {}
    held: dict[int, int] = {}
    for line in listed.splitlines():
        # With -t and one state named, ss leaves out the Netid and State columns: Recv-Q,
        # Send-Q, the service's address, the client's, the process.
        fields = line.split()
        found = re.search(r"pid=(\d+)", line)
        if len(fields) >= 4 and found:
            held[int(fields[3].rsplit(":", 1)[1])] = int(found.group(1))
    return held


def _held_by(port: int, local_ports: list[int]) -> list[int]:
    """The pid holding each of these connections (by the client's port), waiting up to
    ``ACCEPT_WAIT_S`` for them all to be accepted; empty if that cannot be told (one not
    accepted in time, or closed, or no ``ss``)."""
    deadline = time.monotonic() + ACCEPT_WAIT_S
    while True:
        held = holders(port)
        if all(p in held for p in local_ports):
            return [held[p] for p in local_ports]
        if time.monotonic() >= deadline:
            return []
        time.sleep(0.01)


def _spread(port: int, everyone: list[_Client], spread: int) -> list[int]:
    """Open each client's connection before the load starts, so that the service's
    ``spread`` processes hold as even a share as they can (``_place_evenly``); the pid
    holding each, checked once more when all are open (empty if that cannot be told). The
    kernel gives a new connection to whichever worker accepts first, so with a few clients
    one worker may hold 3 of 4 and be the bottleneck while the other idles; with many
    clients (real ones) it evens out. Even within one load process only, and only when its
    clients are a multiple of ``spread``. With ``spread`` 1, the connections are opened
    together, as the load opens them otherwise, and only looked at."""
    if spread > 1:
        _place_evenly(port, everyone, spread)
    for client in everyone:
        if None not in client.connections:
            client.connections[None] = _Connection(port)
    return _held_by(port, [c.connections[None].sock.getsockname()[1] for c in everyone])


def _place_evenly(port: int, everyone: list[_Client], spread: int) -> None:
    """Give clients, one at a time, a connection held by a process that holds fewer than
    its share: one accepted by a process holding its share already is closed and opened
    again, for ``SPREAD_LIMIT_S`` at most (then it stays where it is), since the service
    closes a connection that sends no request head within its header timeout (5 s or
    more). Stops at the first connection whose process cannot be told."""
    share = -(-len(everyone) // spread)
    held: Counter[int] = Counter()
    began = time.monotonic()
    for client in everyone:
        while True:
            conn = _Connection(port)
            found = _held_by(port, [conn.sock.getsockname()[1]])
            if not found or held[found[0]] < share or time.monotonic() - began > SPREAD_LIMIT_S:
                break
            conn.sock.close()
        client.connections[None] = conn
        if not found:
            return  # where it went cannot be told: the rest are opened as they come
        held[found[0]] += 1


def _client_process(  # noqa: PLR0917 (one process of the load)
    port: int,
    games: list[PlannedGame],
    clients: int,
    out: Any,
    per_seat: bool,
    bare: int,
    spread: int,
) -> None:
    """One load-generating process: ``clients`` clients on one event loop (non-blocking
    sockets, requests written whole and answers parsed just enough to go on), so that the
    load generator spends little of the machine's CPU; reports the latencies, the errors,
    its own CPU time, when it sent its first request, (with ``spread``) which service
    process held each client's connection then, and how many connections were opened
    again meanwhile (the server closed them)."""
    shares = [games[i::clients] for i in range(clients)]
    everyone = [_Client(port, share, per_seat, bare) for share in shares if share or bare]
    placed = _spread(port, everyone, spread) if spread and not per_seat else []
    cpu_started = time.process_time()
    # perf_counter is CLOCK_MONOTONIC on Linux, the same clock in every process: the
    # parent takes the first request's time from here.
    started = time.perf_counter()
    reopened = 0
    latencies: list[float] = []
    errors: list[str] = []
    selector = selectors.DefaultSelector()
    for client in everyone:
        conn = client.next()
        if conn is not None:
            selector.register(conn.sock, selectors.EVENT_READ, (client, conn))
    while selector.get_map():
        for key, _ in selector.select(timeout=30):
            client, conn = key.data
            chunk = conn.sock.recv(1 << 18)
            if not chunk:
                if conn.received:
                    raise ConnectionError(f"connection closed mid-response: {conn.received!r}")
                selector.unregister(key.fileobj)
                conn.resend()
                reopened += 1
                selector.register(conn.sock, selectors.EVENT_READ, (client, conn))
                continue
            conn.received += chunk
            answer = conn.response()
            if answer is None:
                continue
            latencies.append(time.perf_counter() - conn.started)
            selector.unregister(key.fileobj)
            status, body, close = answer
            if close:
                conn.sock.close()
                conn.sock = conn._open()
                reopened += 1
            client.answered(status, body, errors)
            following = client.next()
            if following is not None:
                selector.register(following.sock, selectors.EVENT_READ, (client, following))
    for client in everyone:
        client.close()
    out.put((latencies, errors, time.process_time() - cpu_started, started, placed, reopened))


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


def machine_ticks() -> tuple[int, int, int]:
    """The machine's CPU ticks so far (all CPUs, from /proc/stat): busy, idle (with I/O
    wait) and stolen by the hypervisor."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    steal = fields[7] if len(fields) > 7 else 0
    return sum(fields[:8]) - idle - steal, idle, steal


def bench_api(
    port: int,
    games: list[PlannedGame],
    processes: int,
    clients: int,
    *,
    per_seat: bool = False,
    bare: int = 0,
    service_pid: int | None = None,
    redis_pid: int | None = None,
    spread: int = 0,
) -> dict[str, Any]:
    """One phase of the load: ``processes`` load processes of ``clients`` clients each
    (connections on one event loop per process), playing ``games`` (or, with ``bare``, that
    many ``GET /healthz`` per client). Besides rate and latency, the CPU time per request
    of the service's processes, of Redis and of the load generator, and how busy the
    machine was (and how much the hypervisor stole). The rate counts from the first
    request sent. With ``spread`` (the service's process count; not with ``per_seat``),
    each load process first spreads its clients' connections evenly over the service's
    processes (see ``_spread``), and ``placed`` tells which pid held each as the load
    began (empty if that could not be told); ``reopened`` counts the connections opened
    again during the load (the server closed them: where they land is the kernel's)."""
    cpu_before = {pid: cpu_seconds(pid) for pid in (service_pid, redis_pid) if pid}
    ticks_before = machine_ticks()
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    shares = [games[i::processes] for i in range(processes)]
    procs = [
        multiprocessing.Process(
            target=_client_process, args=(port, share, clients, queue, per_seat, bare, spread)
        )
        for share in shares
    ]
    for proc in procs:
        proc.start()
    # Bounded: a load process that died (its traceback is on stderr) never reports.
    results = [queue.get(timeout=LOAD_LIMIT_S) for _ in procs]
    elapsed = time.perf_counter() - min(started for *_, started, _, _ in results)
    for proc in procs:
        proc.join()
    cpu = {pid: cpu_seconds(pid) - before for pid, before in cpu_before.items()}
    busy, idle, steal = (a - b for a, b in zip(machine_ticks(), ticks_before, strict=True))
    latencies = sorted(x for lat, *_ in results for x in lat)
    errors = [e for _, errs, *_ in results for e in errs]
    count = max(1, len(latencies))
    return {
        "service_cpu_ms": 1000 * cpu.get(service_pid or 0, 0.0) / count,
        "redis_cpu_ms": 1000 * cpu.get(redis_pid or 0, 0.0) / count,
        "load_cpu_ms": 1000 * sum(c for _, _, c, *_ in results) / count,
        "machine_busy": busy / max(1, busy + idle + steal),
        "machine_steal": steal / max(1, busy + idle + steal),
        "commands": len(latencies),
        "seconds": elapsed,
        "rate": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "errors": errors[:5],
        "error_count": len(errors),
        "placed": [pid for *_, placed, _ in results for pid in placed],
        "reopened": sum(reopened for *_, reopened in results),
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
    parser.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--commands", type=int, default=120, help="commands per game")
    parser.add_argument("--processes", type=int, default=2, help="load processes")
    parser.add_argument(
        "--clients", type=int, default=8, help="clients (connections) per load process"
    )
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
            bare = bench_api(port, games, args.processes, args.clients, bare=args.bare, **pids)
            api = bench_api(port, games, args.processes, args.clients, **pids)
            seat_games = plan_games(port, args.games, args.commands)
            paths_before = command_paths(port)
            seat = bench_api(port, seat_games, args.processes, args.clients, per_seat=True, **pids)
            cold = cold_share(paths_before, command_paths(port))
            store = bench_store(server.url, args.processes * args.clients, api["commands"])
        finally:
            service.terminate()
            service.wait(timeout=30)
            log.close()

    clients = args.processes * args.clients
    print(
        f"bare  : {bare['commands']} GET /healthz = {bare['rate']:,.0f}/s, "
        f"p50 {bare['p50_ms']:.1f} ms, p99 {bare['p99_ms']:.1f} ms (the framework's ceiling); "
        f"{_cpu(bare)}"
    )
    print(
        f"API   : {api['commands']} commands in {api['seconds']:.1f} s = {api['rate']:,.0f}/s, "
        f"p50 {api['p50_ms']:.1f} ms, p99 {api['p99_ms']:.1f} ms, "
        f"{api['rate'] / bare['rate']:.0%} of bare "
        f"({clients} clients, {args.games} games, {args.workers} gunicorn workers, "
        f"fsync {args.fsync}, rate limits {args.rate_limits}, errors {api['error_count']}); "
        f"{_cpu(api)}"
    )
    share = "n/a" if cold is None else f"{cold:.0%}"
    print(
        f"seat  : {seat['commands']} commands, one connection per seat = "
        f"{seat['rate']:,.0f}/s, p50 {seat['p50_ms']:.1f} ms, p99 {seat['p99_ms']:.1f} ms, "
        f"{seat['rate'] / bare['rate']:.0%} of bare, {seat['rate'] / api['rate']:.2f}x the "
        f"per-client rate, cold path {share} (errors {seat['error_count']}); {_cpu(seat)}"
    )
    print(
        f"store : {store['appends']} checked appends = {store['rate']:,.0f}/s ({clients} threads)"
    )
    print(f"ratio : API commands/s = {api['rate'] / store['rate']:.0%} of the store's append rate")
    for phase in (bare, api, seat):
        if phase["errors"]:
            print("first errors:", *phase["errors"], sep="\n  ")


def _cpu(phase: dict[str, Any]) -> str:
    return (
        f"CPU per request: service {phase['service_cpu_ms']:.3f} ms, "
        f"Redis {phase['redis_cpu_ms']:.3f} ms, load generator {phase['load_cpu_ms']:.3f} ms; "
        f"machine {phase['machine_busy']:.0%} busy, {phase['machine_steal']:.1%} stolen"
    )


if __name__ == "__main__":
    main()
