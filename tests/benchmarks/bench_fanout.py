"""Fan-out benchmark (a script, not a test): one game watched by many spectators while
commands flow.

Starts the real service (``python -m service``: gunicorn's gevent workers) on a fresh
embedded Redis, with the run command's defaults raised as ``docs/deploy.md`` says for many
viewers (open files, ``TIGRIS_STREAMS_MAX``, ``TIGRIS_STREAMS_PER_GAME``). Then, for each
size (100, 1,000 and 3,000 viewers by default):

1. ``--readers`` processes open that many spectator streams on one fresh game (20 per
   loopback address, so that the per-client limit holds) and read them on one event loop
   each, noting when every event's frame (``id: <version>``) arrives; the commands start
   once every stream has caught up with the game as created (so that the delivery measured
   is the live one, not the streams' opening);
2. a pacer posts the game's seeded legal commands at ``--pace`` per second for
   ``--seconds``, noting when it sent each one; meanwhile the ``bench_api`` load (keep-alive
   clients, seeded commands) plays other games, to compare its rate with a run without
   viewers.

Reports per size: delivery latency p50/p99 (frame received - command sent, over every viewer
and event), frames missing, duplicated or out of order, streams refused or dropped (closed
by the server before the end), the paced commands refused or failed, the load's rate against
its rate without viewers, and the service's memory per open stream (resident memory of its
processes with the streams open minus before, divided by the streams).
Targets at 3,000 viewers: p99 <= 1 s, no stream dropped, no command refused or failed.

Run:  .venv/bin/python -m tests.benchmarks.bench_fanout [--viewers 100,1000,3000]
      [--pace 2] [--seconds 20] [--games 16] [--commands 60] [--workers 2] [--readers 2]

Loopback only; every loop is bounded by counts and a deadline.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import multiprocessing
import multiprocessing.pool
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from service.embedded_redis import EmbeddedRedis
from tests.benchmarks.bench_api import ADMIN_TOKEN, _free_port, _request, bench_api, plan_games
from tests.benchmarks.bench_isolation import _raise_fd_limit

FRAME_ID = re.compile(rb"(?m)^id: ([0-9]+)\r?$")
PER_ADDRESS = 20
# The service's settings for many viewers (docs/deploy.md, "Many viewers").
RAISED = {
    "TIGRIS_STREAMS_MAX": "5000",
    "TIGRIS_STREAMS_PER_GAME": "5000",
    "TIGRIS_STREAMS_PER_CLIENT": "64",
}


def _viewers(
    port: int,
    game_id: str,
    count: int,
    *,
    caught_up: int,
    first: int,
    out: Any,
    stop: Any,
    limit_s: float,
) -> None:
    """Open ``count`` spectator streams on ``game_id`` and read them until ``stop``: report
    each stream's (version, arrival) list, the answers' statuses and the streams the server
    ended."""
    _raise_fd_limit()
    deadline = time.monotonic() + 120
    socks: list[socket.socket] = []
    statuses: Counter[int] = Counter()
    for n in range(first, first + count):
        address = f"127.0.{10 + n // (PER_ADDRESS * 250)}.{1 + (n // PER_ADDRESS) % 250}"
        sock = socket.create_connection(
            ("127.0.0.1", port), timeout=30, source_address=(address, 0)
        )
        sock.sendall(
            f"GET /games/{game_id}/events/stream?wait=600 HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
        )
        socks.append(sock)
    selector = selectors.DefaultSelector()
    arrivals: list[list[tuple[int, float]]] = [[] for _ in socks]
    tails: list[bytes] = [b"" for _ in socks]
    reading: set[int] = set()
    for n, sock in enumerate(socks):
        status, rest = _head(sock, deadline)
        statuses[status] += 1
        if status == 200:
            arrivals[n].extend((int(v), time.monotonic()) for v in FRAME_ID.findall(rest))
            tails[n] = rest[rest.rfind(b"\n") + 1 :]
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, n)
            reading.add(n)
    dropped = 0

    def pump() -> None:
        nonlocal dropped
        for key, _ in selector.select(timeout=0.1):
            n = key.data
            sock = socks[n]
            try:
                chunk = sock.recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if not chunk:
                selector.unregister(sock)
                dropped += 1
                continue
            now = time.monotonic()
            data = tails[n] + chunk
            cut = data.rfind(b"\n") + 1
            tails[n] = data[cut:]
            arrivals[n].extend((int(v), now) for v in FRAME_ID.findall(data[:cut]))

    # Ready once every stream has caught up with the game as created (its last event).
    while time.monotonic() < deadline and any(not (a and a[-1][0] >= caught_up) for a in arrivals):
        pump()
    out.put(("ready", dict(statuses)))
    ends = time.monotonic() + limit_s
    while not stop.is_set() and time.monotonic() < ends:
        pump()
    for sock in socks:
        sock.close()
    out.put(("done", {"arrivals": arrivals, "dropped": dropped}))


def _head(sock: socket.socket, deadline: float) -> tuple[int, bytes]:
    """The status of the answer on ``sock`` and what came after its head."""
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            return 0, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return (int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0), rest


def _pace(
    port: int, game: Any, pace: float, seconds: float
) -> tuple[dict[int, float], Counter[int]]:
    """Post ``game``'s planned commands at ``pace`` per second: the send time of each new
    version, and the answers' statuses."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sent: dict[int, float] = {}
    statuses: Counter[int] = Counter()
    version = game.version
    started = time.monotonic()
    for n, (seat, command) in enumerate(game.commands[: int(pace * seconds)]):
        time.sleep(max(0.0, started + n / pace - time.monotonic()))
        at = time.monotonic()
        status, _, body = _request(
            conn,
            "POST",
            f"/games/{game.game_id}/commands",
            command,
            {"Authorization": f"Bearer {game.tokens[seat]}", "If-Match": f'"{version}"'},
        )
        statuses[status] += 1
        if status != 200:
            break  # the planned commands that follow would all be refused
        for v in range(version + 1, body["version"] + 1):
            sent[v] = at
        version = body["version"]
    conn.close()
    return sent, statuses


def _rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and its descendants, in KB, from /proc."""
    total = 0
    todo = [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += next(
            int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")
        )
        todo.extend(int(c) for c in children)
    return total


def _size(
    port: int, service_pid: int, viewers: int, args: argparse.Namespace, base_rate: float
) -> dict[str, Any]:
    (watched,) = plan_games(port, 1, int(args.pace * args.seconds))
    load = plan_games(port, args.games, args.commands)
    rss_before = _rss_kb(service_pid)
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    stop = multiprocessing.Event()
    shares = [viewers // args.readers + (r < viewers % args.readers) for r in range(args.readers)]
    readers = [
        multiprocessing.Process(
            target=_viewers,
            args=(port, watched.game_id, share),
            kwargs={
                "caught_up": watched.version,
                "first": sum(shares[:r]),
                "out": queue,
                "stop": stop,
                "limit_s": 600.0,
            },
        )
        for r, share in enumerate(shares)
    ]
    for reader in readers:
        reader.start()
    statuses: Counter[int] = Counter()
    for _ in readers:
        kind, counted = queue.get(timeout=300)
        assert kind == "ready"
        statuses.update(counted)
    time.sleep(1)
    rss_open = _rss_kb(service_pid)
    pool = multiprocessing.pool.ThreadPool(1)
    paced = pool.apply_async(_pace, (port, watched, args.pace, args.seconds))
    loaded = bench_api(port, load, 1, args.clients)
    sent, command_statuses = paced.get(timeout=args.seconds * 10 + 120)
    pool.close()
    time.sleep(3)  # the last frames arrive
    stop.set()
    results = [queue.get(timeout=300) for _ in readers]
    for reader in readers:
        reader.join(timeout=60)
    latencies: list[float] = []
    missing = duplicated = disordered = 0
    for _, result in results:
        for arrivals in result["arrivals"]:
            seen = [v for v, _ in arrivals]
            disordered += sum(1 for a, b in itertools.pairwise(seen) if b <= a)
            counts = Counter(seen)
            duplicated += sum(c - 1 for c in counts.values())
            missing += sum(1 for v in sent if v not in counts)
            latencies.extend(t - sent[v] for v, t in arrivals if v in sent)
    latencies.sort()
    return {
        "viewers": viewers,
        "answers": dict(statuses),
        "dropped": sum(r["dropped"] for _, r in results),
        "events": len(sent),
        "frames": len(latencies),
        "missing": missing,
        "duplicated": duplicated,
        "disordered": disordered,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "commands": dict(command_statuses),
        "load_rate": loaded["rate"],
        "load_ratio": loaded["rate"] / base_rate,
        "load_errors": loaded["error_count"],
        "kb_per_stream": (rss_open - rss_before) / max(1, viewers),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", default="100,1000,3000", help="sizes, comma-separated")
    parser.add_argument("--pace", type=float, default=2.0, help="commands per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="of paced commands")
    parser.add_argument("--games", type=int, default=48, help="games of the other load")
    parser.add_argument("--commands", type=int, default=60, help="commands per load game")
    parser.add_argument("--clients", type=int, default=4, help="clients of the other load")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--readers", type=int, default=2, help="viewer processes")
    args = parser.parse_args()
    _raise_fd_limit()
    sizes = [int(s) for s in args.viewers.split(",")]

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec") as server,
    ):
        port = _free_port()
        env = {
            **os.environ, "REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_PORT": str(port), "TIGRIS_WORKERS": str(args.workers),
            "TIGRIS_LOG_LEVEL": "warning", "TIGRIS_REQUEST_LOG": "off", **RAISED,
        }  # fmt: skip
        service = subprocess.Popen([sys.executable, "-m", "service"], env=env)
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
            base = bench_api(port, plan_games(port, args.games, args.commands), 1, args.clients)
            rows = [_size(port, service.pid, n, args, base["rate"]) for n in sizes]
        finally:
            service.terminate()
            service.wait(timeout=30)

    print(f"without viewers: the other load at {base['rate']:,.0f} commands/s")
    print(
        "| viewers | streams refused / dropped | events × viewers | missing / dup / disorder "
        "| delivery p50 | p99 | paced commands (status: n) | other load | memory per stream |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        refused = sum(n for status, n in row["answers"].items() if status != 200)
        print(
            f"| {row['viewers']:,} | {refused} / {row['dropped']} "
            f"| {row['events']} × {row['viewers']:,} "
            f"| {row['missing']} / {row['duplicated']} / {row['disordered']} "
            f"| {row['p50_ms']:.0f} ms | {row['p99_ms']:.0f} ms | {row['commands']} "
            f"| {row['load_rate']:,.0f}/s ({row['load_ratio']:.0%}, {row['load_errors']} errors) "
            f"| {row['kb_per_stream']:.1f} KB |"
        )
    last = rows[-1]
    met = (
        last["p99_ms"] <= 1000 and last["dropped"] == 0 and last["missing"] == 0
        and set(last["commands"]) == {200} and last["load_errors"] == 0
    )  # fmt: skip
    print(f"targets at {last['viewers']:,}:", "met" if met else "NOT met",
          "(p99 <= 1 s, no stream dropped, no command refused or failed)")  # fmt: skip
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
