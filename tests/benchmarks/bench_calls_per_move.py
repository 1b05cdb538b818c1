"""Calls and bytes per command for whole games: the read-then-write loop against the
one-call loop (issue 24, "One call per move"). A script, not a test.

``.venv/bin/python -m tests.benchmarks.bench_calls_per_move [--games 3] [--seats 2]``

Starts the real service (``python -m service``: gunicorn, gevent workers, embedded Redis)
and plays seeded whole games of both kinds through HTTP, with clients that know only the
contract and send, for the awaited seat, a random command of that seat's own legal
commands. Four loops:

- ``before``: per command, ``GET pending`` (who is awaited), ``GET legal-commands`` with
  that seat's token, then ``POST commands`` with ``Prefer: return=minimal`` (the answer as
  it was before issue 24: the version and the events);
- ``handover``: one client holding every seat's token. ``POST commands`` answers with
  ``next`` and, while the caller stays awaited, its ``legal`` commands; when another seat
  takes over, that seat reads its ``legal-commands`` once (a seat token's answer never holds
  another seat's commands);
- ``after``: one client with a player key holding every seat (the admin creates the seeded
  game with the seats bound to that player, so the key reads its first legal commands once):
  each answer holds the legal commands of the next awaited seat the key holds, whichever it
  is, so every command is one call;
- ``wait``: one client per seat token, each in its own thread on its own connection, as
  separate bots would play: a seat waits for its first turn with
  ``GET legal-commands?wait=60`` and sends every command with ``Prefer: wait=60``, whose
  answer is held until the seat is awaited again (or the game is over). One call per
  command plus one first read per seat.

``before``, ``handover`` and ``after`` use the same seed and the same choices (so they play
the same game); ``wait`` draws each seat's choices from its own generator (another game of
the same seed, so its commands differ). Every client uses keep-alive connections, once with
``Accept-Encoding: identity`` and once with ``gzip``. Bytes are counted as they cross the
socket: request line, headers and body sent; status line, headers and body received
(compressed, as received). Prints per kind and loop: calls per command, bytes per command
(requests + responses), and the median milliseconds per command on this machine (for
``wait``, the time a seat's call was held while the other seat played is included: not
comparable).
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import random
import statistics
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.service.api.conftest import (
    ADMIN_TOKEN,
    free_port,
    launch_service,
    service_env,
    stop_service,
    wait_ready,
)

KINDS = ("board", "cards")
MAX_COMMANDS = 3000


@dataclass
class Tally:
    """What one loop cost over its games."""

    commands: int = 0
    calls: int = 0
    sent: int = 0
    received: int = 0
    by_call: dict[str, int] = field(default_factory=dict)
    ms: list[float] = field(default_factory=list)


class Wire:
    """One keep-alive HTTP/1.1 connection that counts every byte each way."""

    def __init__(self, url: str, encoding: str, tally: Tally) -> None:
        parts = urlsplit(url)
        self.url = url
        self.connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
        self.encoding = encoding
        self.tally = tally

    def call(
        self,
        name: str,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        sent = {"Accept-Encoding": self.encoding, **(headers or {})}
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            sent["Content-Type"] = "application/json"
        connection = self.connection
        connection.putrequest(method, path, skip_accept_encoding=True)
        for key, value in sent.items():
            connection.putheader(key, value)
        if data is not None:
            connection.putheader("Content-Length", str(len(data)))
        # request line, Host, the headers above, CRLFs: what endheaders writes
        head = f"{method} {path} HTTP/1.1\r\nHost: {connection.host}:{connection.port}\r\n"
        head += "".join(f"{key}: {value}\r\n" for key, value in sent.items())
        if data is not None:
            head += f"Content-Length: {len(data)}\r\n"
        connection.endheaders(data)
        response = connection.getresponse()
        raw = response.read()  # as it came: http.client does not decode content-codings
        received = len(f"HTTP/1.1 {response.status} {response.reason}\r\n") + 2
        received += sum(len(f"{key}: {value}\r\n") for key, value in response.getheaders())
        self.tally.calls += 1
        self.tally.sent += len(head) + 2 + len(data or b"")
        self.tally.received += received + len(raw)
        self.tally.by_call[name] = self.tally.by_call.get(name, 0) + 1
        text = _decoded(raw, response.getheader("Content-Encoding"))
        return response.status, dict(response.getheaders()), json.loads(text) if text else None

    def close(self) -> None:
        self.connection.close()


def _decoded(raw: bytes, coding: str | None) -> bytes:
    if coding == "gzip":
        return gzip.decompress(raw)
    assert coding is None, coding
    return raw


def create(wire: Wire, kind: str, seats: int, seed: int) -> tuple[str, list[str], Any]:
    body = {"kind": kind, "seats": [f"P{n}" for n in range(seats)], "seed": seed}
    status, headers, created = wire.call(
        "create", "POST", "/games", body, {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    assert status == 201, created
    return created["game"]["game_id"], [s["token"] for s in created["seats"]], (created, headers)


def play_before(wire: Wire, kind: str, seats: int, seed: int) -> None:
    """Read who is awaited, read its legal commands, send one: three calls a command."""
    game_id, tokens, _ = create(wire, kind, seats, seed)
    rng = random.Random(seed)
    base = f"/games/{game_id}"
    for _ in range(MAX_COMMANDS):
        started = time.perf_counter()
        _, _, pending = wire.call("pending", "GET", f"{base}/pending")
        if pending["over"]:
            return
        token = {"Authorization": f"Bearer {tokens[pending['awaited'][0]]}"}
        _, headers, legal = wire.call(
            "legal-commands", "GET", f"{base}/legal-commands", None, token
        )
        command = rng.choice(legal["commands"])
        status, _, reply = wire.call(
            "commands",
            "POST",
            f"{base}/commands",
            command,
            {**token, "If-Match": headers["ETag"], "Idempotency-Key": str(uuid.uuid4()),
             "Prefer": "return=minimal"},
        )  # fmt: skip
        assert status == 200, reply
        wire.tally.commands += 1
        wire.tally.ms.append((time.perf_counter() - started) * 1000)
    raise AssertionError("the game did not end")


def play_handover(wire: Wire, kind: str, seats: int, seed: int) -> None:
    """Seat tokens on one connection: each answer says who is next and, to the caller, its
    commands; a handover costs the next seat one read of its legal commands."""
    game_id, tokens, (created, headers) = create(wire, kind, seats, seed)
    rng = random.Random(seed)
    base = f"/games/{game_id}"
    nxt, etag = created["next"], headers["ETag"]
    held = {legal["seat"]: legal for legal in created["legal"]}
    while not nxt["over"]:
        started = time.perf_counter()
        seat = nxt["awaited"][0]  # the serving order: ascending seat
        token = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = held.get(seat)
        if legal is None or legal["version"] != nxt["version"]:
            _, headers, legal = wire.call(
                "legal-commands", "GET", f"{base}/legal-commands", None, token
            )
            etag = headers["ETag"]
        command = rng.choice(legal["commands"])
        status, headers, reply = wire.call(
            "commands",
            "POST",
            f"{base}/commands",
            command,
            {**token, "If-Match": etag, "Idempotency-Key": str(uuid.uuid4())},
        )
        assert status == 200, reply
        nxt, etag = reply["next"], headers["ETag"]
        held = {} if reply["legal"] is None else {seat: reply["legal"]}
        wire.tally.commands += 1
        wire.tally.ms.append((time.perf_counter() - started) * 1000)
        assert wire.tally.commands < MAX_COMMANDS * 10


def player_game(wire: Wire, kind: str, seats: int, seed: int) -> tuple[str, str, int]:
    """A new player (its key) and a seeded game, made by the admin, whose every seat is
    bound to that player; and the first awaited seat."""
    _, _, made = wire.call("player", "POST", "/players", {"name": "Bench"})
    mine = {"type": "player", "player": made["player_id"]}
    body = {"kind": kind, "seats": [mine] * seats, "seed": seed}
    status, _, created = wire.call(
        "create", "POST", "/games", body, {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    assert status == 201, created
    return created["game"]["game_id"], made["key"], created["next"]["awaited"][0]


def play_after(wire: Wire, kind: str, seats: int, seed: int) -> None:
    """A player key holding every seat: each answer holds the legal commands of the next
    awaited seat (it holds them all), so every command is one call."""
    game_id, key, first = player_game(wire, kind, seats, seed)
    rng = random.Random(seed)
    base = f"/games/{game_id}"
    auth = {"Authorization": f"Bearer {key}"}
    _, headers, legal = wire.call(
        "legal-commands", "GET", f"{base}/legal-commands?seat={first}", None, auth
    )
    etag = headers["ETag"]
    while legal is not None:
        started = time.perf_counter()
        command = {**rng.choice(legal["commands"]), "seat": legal["seat"]}
        status, headers, reply = wire.call(
            "commands",
            "POST",
            f"{base}/commands",
            command,
            {**auth, "If-Match": etag, "Idempotency-Key": str(uuid.uuid4())},
        )
        assert status == 200, reply
        legal, etag = reply["legal"], headers["ETag"]
        assert legal is not None or reply["next"]["over"], reply["next"]
        wire.tally.commands += 1
        wire.tally.ms.append((time.perf_counter() - started) * 1000)
        assert wire.tally.commands < MAX_COMMANDS * 10


def play_seat(wire: Wire, game_id: str, token: str, seed: int) -> None:
    """One seat's bot with its seat token: waits for its first turn, then sends each command
    with ``Prefer: wait=60`` (held until the seat is awaited again or the game is over)."""
    rng = random.Random(seed)
    base = f"/games/{game_id}"
    auth = {"Authorization": f"Bearer {token}"}
    _, headers, legal = wire.call(
        "legal-commands", "GET", f"{base}/legal-commands?wait=60", None, auth
    )
    etag, over = headers["ETag"], False
    while not over:
        if not legal["commands"]:  # a wait that ended without the seat's turn: wait again
            _, _, pending = wire.call("pending", "GET", f"{base}/pending?wait=60", None, auth)
            if pending["over"]:
                return
            _, headers, legal = wire.call(
                "legal-commands", "GET", f"{base}/legal-commands", None, auth
            )
            etag = headers["ETag"]
            continue
        started = time.perf_counter()
        status, headers, reply = wire.call(
            "commands",
            "POST",
            f"{base}/commands",
            rng.choice(legal["commands"]),
            {**auth, "If-Match": etag, "Idempotency-Key": str(uuid.uuid4()),
             "Prefer": "wait=60"},
        )  # fmt: skip
        assert status == 200, reply
        assert headers.get("Preference-Applied") == "wait=60", headers
        over, etag = reply["next"]["over"], headers["ETag"]
        legal = reply["legal"] or {"commands": []}
        wire.tally.commands += 1
        wire.tally.ms.append((time.perf_counter() - started) * 1000)
        assert wire.tally.commands < MAX_COMMANDS * 10


def play_wait(wire: Wire, kind: str, seats: int, seed: int) -> None:
    """One bot per seat token, each in its own thread on its own connection (its calls and
    bytes added to ``wire``'s tally), playing with ``Prefer: wait``."""
    game_id, tokens, _ = create(wire, kind, seats, seed)
    tallies = [Tally() for _ in tokens]
    failures: list[BaseException] = []

    def run(seat: int) -> None:
        own = Wire(wire.url, wire.encoding, tallies[seat])
        try:
            play_seat(own, game_id, tokens[seat], seed * 10 + seat)
        except BaseException as exc:  # reported below, in the main thread
            failures.append(exc)
        finally:
            own.close()

    threads = [threading.Thread(target=run, args=(seat,)) for seat in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=3600)
    assert not failures and not any(t.is_alive() for t in threads), failures
    for tally in tallies:
        wire.tally.commands += tally.commands
        wire.tally.calls += tally.calls
        wire.tally.sent += tally.sent
        wire.tally.received += tally.received
        wire.tally.ms += tally.ms
        for name, count in tally.by_call.items():
            wire.tally.by_call[name] = wire.tally.by_call.get(name, 0) + count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3, help="games per kind and loop")
    parser.add_argument("--seats", type=int, default=2)
    args = parser.parse_args()
    loops = {
        "before": play_before,
        "handover": play_handover,
        "after": play_after,
        "wait": play_wait,
    }
    rows: list[tuple[str, str, str, Tally]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"TIGRIS_REDIS_DIR": str(Path(tmp) / "redis"), "TIGRIS_RATE_LIMITS": "off"}
        port = free_port()
        url, log = f"http://127.0.0.1:{port}", Path(tmp) / "server.log"
        process = launch_service(service_env(None, port, env), log)
        try:
            wait_ready(url, process, log, timeout_s=180)  # a busy machine starts it slowly
            for kind in KINDS:
                for encoding in ("identity", "gzip"):
                    for name, play in loops.items():
                        tally = Tally()
                        wire = Wire(url, encoding, tally)
                        try:
                            for n in range(args.games):
                                play(wire, kind, args.seats, 24_000 + n)
                        finally:
                            wire.close()
                        rows.append((kind, encoding, name, tally))
        finally:
            stop_service(process)
    print(
        f"{args.games} seeded games per kind, {args.seats} seats; per command "
        "(the creation call included)"
    )
    print("| kind | encoding | loop | commands | calls/command | other calls/game "
          "| bytes/command (sent + received) | reads/command | ms/command (median) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, encoding, name, t in rows:
        reads = (t.by_call.get("pending", 0) + t.by_call.get("legal-commands", 0)) / t.commands
        print(
            f"| {kind} | {encoding} | {name} | {t.commands} | {t.calls / t.commands:.2f} "
            f"| {(t.calls - t.by_call.get('commands', 0)) / args.games:.1f} "
            f"| {(t.sent + t.received) / t.commands:,.0f} ({t.sent / t.commands:,.0f} + "
            f"{t.received / t.commands:,.0f}) | {reads:.2f} | {statistics.median(t.ms):.1f} |"
        )


if __name__ == "__main__":
    main()
