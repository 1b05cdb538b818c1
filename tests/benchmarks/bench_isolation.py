"""Isolation benchmark (a script, not a test): open streams and stalled clients must not
take the capacity commands and health checks need.

Starts the real service (``python -m service``: gunicorn's gevent worker, default settings)
on a fresh embedded Redis and measures, with the clients of ``bench_api`` (keep-alive,
``If-Match``, seeded legal commands, separate processes):

1. the command rate and latency with nothing else open;
2. the same on fresh games while another process holds 1,000 open event streams (on idle
   games, or with ``--follow`` on the games being played, whose events then flow to every
   stream: the issue's case is ``--follow --streams 560``), 200 of which stop reading after
   their response head, plus 400 stalled half-requests (part of a request head, then
   nothing; each one the server closes is replaced at once, a slowloris attack). The
   reading streams count the events they receive (``id:`` lines), and the streams the
   server ended.

Both phases run in each of ``--rounds`` rounds (4), each on fresh games, in turn alone first
and with the streams first (alone, with, with, alone, ...), and the rates are taken over
the rounds' summed counts and times: single phases of a few seconds swing with the machine
(the load alone ran at 357-830 commands/s in single runs of the same code), and the order
keeps a steady drift over the run from weighing on one side. Each round's figures are
printed too; the latency lines give the median of the rounds' p50 and the worst round's
p99 (the target is checked on the worst).

The load's 4 connections are spread evenly over the 2 workers before each phase (2 and 2;
``--no-spread`` opens them together and leaves them where the kernel puts them). The
kernel gives a new connection to whichever worker accepts first, and a 3/1 split leaves
one worker the bottleneck while the other has time to spare: in one run the same code gave
353 commands/s alone at 3/1 and 425 at 2/2. With many clients, as in production, the split
evens out by itself. (Spreading did not make runs steadier, though: what else moves them
is in docs/benchmarks.md.) Each round shows the split of both phases, and the connections
the server closed and the load opened again (wherever the kernel put them); with
``--no-spread`` the ``same split`` line gives the ratio over the rounds whose two phases
had the same split.

Meanwhile a prober process asks ``/healthz`` every 50 ms on a new connection. Targets:
commands keep >= 80 % of their rate without streams, p99 <= 50 ms; ``/healthz`` always
answers within 100 ms. Streams come from 50 loopback addresses (20 each) and stalled
sockets from 20 others, so the service's default per-client limits hold.

Run:  .venv/bin/python -m tests.benchmarks.bench_isolation [--streams 1000] [--never-read 200]
      [--stalled 400] [--games 64] [--commands 60] [--follow] [--fsync always] [--rounds 4]
      [--settle 2] [--no-spread]

Loopback only; every loop is bounded by counts and a deadline.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import resource
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

STALLED_HEAD = b"GET /healthz HTTP/1.1\r\nHost: bench\r\nX-Slow: a"
PHASE_LIMIT_S = 300.0


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _status_of(sock: socket.socket, deadline: float) -> int:
    data = b""
    while b"\r\n" not in data and time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


def _stalled(port: int, n: int) -> socket.socket:
    sock = socket.create_connection(
        ("127.0.0.1", port), timeout=10, source_address=(f"127.0.2.{1 + n % 20}", 0)
    )
    sock.sendall(STALLED_HEAD)
    sock.setblocking(False)
    return sock


def _hold(
    port: int,
    games: list[str],
    *,
    streams: int,
    never_read: int,
    stalled: int,
    out: Any,
    stop: Any,
) -> None:
    """Open the streams and stalled sockets; read the reading streams, replace every stalled
    socket the server closes; until ``stop`` is set (or PHASE_LIMIT_S)."""
    _raise_fd_limit()
    selector = selectors.DefaultSelector()
    opened: list[socket.socket] = []
    statuses: Counter[int] = Counter()
    deadline = time.monotonic() + 120
    for n in range(streams):
        sock = socket.create_connection(
            ("127.0.0.1", port), timeout=10, source_address=(f"127.0.1.{1 + n // 20}", 0)
        )
        game = games[n % len(games)]
        sock.sendall(f"GET /games/{game}/events/stream HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        opened.append(sock)
    for n, sock in enumerate(opened):
        statuses[_status_of(sock, deadline)] += 1
        if n >= never_read:  # the first ``never_read`` are never read again
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, "stream")
    for n in range(stalled):
        selector.register(_stalled(port, n), selectors.EVENT_READ, "stalled")
    out.put(("ready", dict(statuses)))
    replaced = 0
    received = 0
    frames = 0
    tail: dict[int, bytes] = {}
    ends = time.monotonic() + PHASE_LIMIT_S
    while not stop.is_set() and time.monotonic() < ends:
        for key, _ in selector.select(timeout=0.1):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            try:
                chunk = ready.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            received += len(chunk)
            if chunk:
                if key.data == "stream":
                    data = tail.get(ready.fileno(), b"") + chunk
                    frames += data.count(b"\nid: ")
                    tail[ready.fileno()] = data[-4:]  # shorter than a match
                continue
            selector.unregister(ready)
            ready.close()
            if key.data == "stalled":
                replaced += 1
                selector.register(_stalled(port, replaced), selectors.EVENT_READ, "stalled")
            else:
                statuses[-1] += 1  # a stream the server ended
    out.put(
        (
            "done",
            {
                "replaced_stalled": replaced,
                "stream_bytes": received,
                "stream_events": frames,
                "streams_ended": statuses[-1],
            },
        )
    )
    for sock in opened:
        sock.close()
    for key in list(selector.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def _probe(port: int, out: Any, stop: Any) -> None:
    """GET /healthz on a new connection every 50 ms until ``stop`` (bounded by time)."""
    latencies: list[float] = []
    failures = 0
    ends = time.monotonic() + PHASE_LIMIT_S
    while not stop.is_set() and time.monotonic() < ends:
        started = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            ok = _request(conn, "GET", "/healthz")[0] == 200
            conn.close()
        except OSError:
            ok = False
        latencies.append(time.perf_counter() - started)
        failures += not ok
        time.sleep(0.05)
    out.put((latencies, failures))


def _cpu_s(root: int) -> float:
    """CPU seconds (user + system) used so far by ``root`` and every process under it that
    still runs (the service: gunicorn's master and workers), from Linux's /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended meanwhile
        parents[int(entry)] = int(fields[1])
        used[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total = 0.0
    for pid, cpu in used.items():
        ancestor = pid
        while ancestor not in (root, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor]
        total += cpu if ancestor == root else 0.0
    return total


def _phase(port: int, games: Any, args: Any, service: int) -> tuple[dict[str, Any], Any]:
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    stop = multiprocessing.Event()
    prober = multiprocessing.Process(target=_probe, args=(port, queue, stop))
    prober.start()
    time.sleep(0.5)
    cpu = _cpu_s(service)
    began = time.perf_counter()
    api = bench_api(port, games, args.processes, args.clients, spread=args.spread)
    wall = time.perf_counter() - began  # the spreading too, as the CPU time below
    # The service's CPU per command (streams, probes and all), apart from how the machine
    # shares its cores with the load's own processes: steadier than the rate between runs.
    used = _cpu_s(service) - cpu
    api["cpu_ms"] = 1000 * used / max(1, api["commands"])
    api["service_cores"] = used / wall
    api["machine_cores"] = api["machine_busy"] * (os.cpu_count() or 1)
    stop.set()
    probes = queue.get(timeout=60)
    prober.join()
    return api, probes


def _health(probes: Any) -> str:
    latencies, failures = probes
    ordered = sorted(latencies)
    slow = sum(1 for x in ordered if x > 0.1)
    return (
        f"{len(ordered)} probes, p50 {1000 * statistics.median(ordered):.1f} ms, "
        f"max {1000 * ordered[-1]:.1f} ms, over 100 ms: {slow}, failed: {failures}"
    )


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a count of at least 1, not {text!r}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--never-read", type=int, default=200)
    parser.add_argument("--stalled", type=int, default=400)
    parser.add_argument("--games", type=int, default=64, help="games played per phase")
    parser.add_argument("--commands", type=int, default=60, help="commands per game")
    parser.add_argument("--processes", type=int, default=1, help="command client processes")
    parser.add_argument(
        "--clients", type=int, default=4, help="clients (connections) per load process"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--fsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument(
        "--follow", action="store_true", help="streams follow the games being played"
    )
    parser.add_argument(
        "--rounds", type=_positive, default=4, help="rounds of both phases, alternated"
    )
    parser.add_argument(
        "--settle", type=float, default=2.0, help="seconds after a round's streams close"
    )
    parser.add_argument(
        "--no-spread", dest="spread", action="store_const", const=1, default=None,
        help="leave the load's connections where the kernel puts them (not spread evenly)",
    )  # fmt: skip
    args = parser.parse_args()
    args.spread = args.spread or args.workers
    _raise_fd_limit()

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync=args.fsync) as server,
    ):
        port = _free_port()
        env = {
            **os.environ, "REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            "TIGRIS_PORT": str(port), "TIGRIS_WORKERS": str(args.workers),
            "TIGRIS_LOG_LEVEL": "warning",
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
            idle = [g.game_id for g in plan_games(port, 50, 0)]
            rounds = []
            for n in range(args.rounds):
                quiet = plan_games(port, args.games, args.commands)
                loaded = plan_games(port, args.games, args.commands)
                followed = [g.game_id for g in loaded] if args.follow else idle
                rounds.append(_round(port, quiet, loaded, followed, args, service=service.pid, n=n))
        finally:
            service.terminate()
            service.wait(timeout=30)
    _report(rounds, args)


def _round(
    port: int, quiet: Any, loaded: Any, followed: list[str], args: Any, *, service: int, n: int
) -> dict[str, Any]:
    """One round: the commands alone, and the same on fresh games with the streams and
    stalled sockets open (closed again at the end); every other round in the other order
    (alone, with, with, alone, ...), so that a drift of the machine or the store over the
    run weighs on both sides alike."""
    if n % 2 == 0:
        base, base_probes = _phase(port, quiet, args, service)
        loaded_phase = _with_streams(port, loaded, followed, args, service=service)
    else:
        loaded_phase = _with_streams(port, loaded, followed, args, service=service)
        base, base_probes = _phase(port, quiet, args, service)
    return {"base": base, "base_probes": base_probes, **loaded_phase}


def _with_streams(
    port: int, loaded: Any, followed: list[str], args: Any, *, service: int
) -> dict[str, Any]:
    """The load on ``loaded`` while another process holds the streams on ``followed`` and
    the stalled sockets; the service's streams gone again at the end."""
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    stop = multiprocessing.Event()
    holder = multiprocessing.Process(
        target=_hold,
        args=(port, followed),
        kwargs={
            "streams": args.streams,
            "never_read": args.never_read,
            "stalled": args.stalled,
            "out": queue,
            "stop": stop,
        },
    )
    holder.start()
    kind, statuses = queue.get(timeout=180)
    assert kind == "ready"
    time.sleep(6)  # past the header timeout: stalled sockets are being replaced
    assert holder.pid is not None
    holder_cpu = _cpu_s(holder.pid)
    load, load_probes = _phase(port, loaded, args, service)
    holder_cpu = _cpu_s(holder.pid) - holder_cpu
    stop.set()
    _, held = queue.get(timeout=60)
    holder.join()
    # The worker ends a stream when its client closes (it watches each stream's socket):
    # a moment for that before commands run alone.
    time.sleep(args.settle)
    return {
        "load": load,
        "load_probes": load_probes,
        "statuses": statuses,
        "held": held,
        "holder_cpu": holder_cpu,
    }


def _together(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """The rounds' phases of one kind as one: rates over the summed counts and seconds."""
    seconds = sum(p["seconds"] for p in phases)
    commands = sum(p["commands"] for p in phases)
    return {
        "rate": commands / seconds,
        "commands": commands,
        "seconds": seconds,
        "p50_ms": statistics.median(p["p50_ms"] for p in phases),
        "p99_ms": max(p["p99_ms"] for p in phases),
        "error_count": sum(p["error_count"] for p in phases),
        "cpu_ms": sum(p["cpu_ms"] * p["commands"] for p in phases) / commands,
        "machine_cores": sum(p["machine_cores"] * p["seconds"] for p in phases) / seconds,
        "service_cores": sum(p["service_cores"] * p["seconds"] for p in phases) / seconds,
        "clients_cores": sum(p["load_cpu_ms"] * p["commands"] / 1000 for p in phases) / seconds,
    }


def _split(phase: dict[str, Any]) -> list[int]:
    """How many of the phase's load connections each service process held as the load
    began, most first (empty: not known)."""
    return sorted(Counter(phase["placed"]).values(), reverse=True)


def _shown(phase: dict[str, Any]) -> str:
    """The split of a phase's connections, and how many the server closed meanwhile."""
    split = "/".join(map(str, _split(phase))) or "unknown"
    return split + (f" ({phase['reopened']} opened again)" if phase["reopened"] else "")


def _same_split(rounds: list[dict[str, Any]]) -> str:
    """The ratio over the rounds whose two phases had the same (known) split."""
    matched = [r for r in rounds if _split(r["base"]) and _split(r["base"]) == _split(r["load"])]
    if not matched:
        return f"same split : none of the {len(rounds)} rounds"
    alike = (
        _together([r["load"] for r in matched])["rate"]
        / _together([r["base"] for r in matched])["rate"]
    )
    return (
        f"same split : {len(matched)} of {len(rounds)} rounds had the same split of the "
        f"load's connections in both phases: {alike:.0%} of the rate without, over those"
    )


def _report(rounds: list[dict[str, Any]], args: Any) -> None:
    for n, r in enumerate(rounds, 1):
        print(
            f"round {n}    : alone {r['base']['rate']:,.0f} commands/s, with the streams "
            f"{r['load']['rate']:,.0f} ({r['load']['rate'] / r['base']['rate']:.0%}); service "
            f"CPU {r['base']['cpu_ms']:.2f} and {r['load']['cpu_ms']:.2f} ms per command; "
            f"the load's connections per worker {_shown(r['base'])} and {_shown(r['load'])}"
        )
    base = _together([r["base"] for r in rounds])
    load = _together([r["load"] for r in rounds])
    base_probes = (
        [x for r in rounds for x in r["base_probes"][0]],
        sum(r["base_probes"][1] for r in rounds),
    )
    load_probes = (
        [x for r in rounds for x in r["load_probes"][0]],
        sum(r["load_probes"][1] for r in rounds),
    )
    statuses = sum((Counter(r["statuses"]) for r in rounds), Counter())
    held = {k: sum(r["held"][k] for r in rounds) for k in rounds[0]["held"]}
    holder_cpu = sum(r["holder_cpu"] for r in rounds)
    ratio = load["rate"] / base["rate"]
    print(f"no streams : {base['rate']:,.0f} commands/s, p50 {base['p50_ms']:.1f} ms, "
          f"p99 {base['p99_ms']:.1f} ms, errors {base['error_count']}")  # fmt: skip
    print(f"  /healthz : {_health(base_probes)}")
    print(
        f"with load  : {load['rate']:,.0f} commands/s ({ratio:.0%} of the rate without), "
        f"p50 {load['p50_ms']:.1f} ms, p99 {load['p99_ms']:.1f} ms, errors {load['error_count']}"
    )
    print(f"  /healthz : {_health(load_probes)}")
    if args.spread == 1:  # the kernel's split: compare the rounds whose phases had the same
        print(_same_split(rounds))
    print(
        f"service CPU: {base['cpu_ms']:.2f} ms per command without streams, "
        f"{load['cpu_ms']:.2f} ms with ({base['cpu_ms'] / load['cpu_ms']:.0%})"
    )

    print(
        f"cores busy : alone {base['machine_cores']:.2f} of {os.cpu_count()} (the service "
        f"{base['service_cores']:.2f}, the command clients {base['clients_cores']:.2f}); with the "
        f"streams {load['machine_cores']:.2f} (the service {load['service_cores']:.2f}, the "
        f"command clients {load['clients_cores']:.2f}, the streams' reader "
        f"{holder_cpu / load['seconds']:.2f})"
    )
    print(
        f"  load     : {args.streams} streams on {'the played' if args.follow else '50 idle'} "
        f"games (answers {statuses}; {args.never_read} never read), {args.stalled} stalled "
        f"half-requests ({held['replaced_stalled']} closed by the server and replaced), "
        f"{held['stream_bytes']:,} stream bytes read, {held['stream_events']:,} events "
        f"received, {held['streams_ended']} streams ended by the server"
    )
    print("load average:", os.getloadavg())
    worst = max(load_probes[0])
    verdict = (
        ratio >= 0.8 and load["p99_ms"] <= 50 and worst <= 0.1 and load_probes[1] == 0
        and load["error_count"] == 0
    )  # fmt: skip
    print("targets    :", "met" if verdict else "NOT met",
          "(>= 80 % of the rate, p99 <= 50 ms, every /healthz within 100 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
