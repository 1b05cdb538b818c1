"""Live streams share one follower per watched game and server process
(``service.api.fanout``): one blocking read and one rendering per event per viewer class,
fanned out in memory. Many streams on one game get every event once and in order, a seat's
stream never carries another seat's hidden cards, a stream that does not keep up is closed
without holding up the others, and a reconnect with ``Last-Event-ID`` has no gap and no
duplicate.

The real server (gunicorn, one gevent worker: one process, one follower) on the tests'
Redis, raw sockets on loopback (HTTP/1.0, so the stream's body is the bare event stream);
the slow-consumer test drives the process's fan-out directly, on the same real Redis.
Every loop is bounded by a deadline."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
import requests
from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from service.api.fanout import (
    DIRECT_WRITES,
    GIVE_WAY_S,
    Closed,
    Direct,
    FanOut,
    Frames,
    Raw,
    Subscription,
    ViewerClass,
)
from service.api.streams import FANOUT_EXTENSION
from tests.service.api.conftest import (
    ADMIN_TOKEN,
    Api,
    LiveServer,
    start_live_server,
)
from tests.service.api.contract import ContractClient
from tests.service.api.test_transport import _connect, _play_one

STREAMS = 200
BOUND_S = 60.0


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    extra = {
        "TIGRIS_WORKERS": "1",  # one process: every stream of a game shares its follower
        "TIGRIS_STREAMS_PER_CLIENT": str(STREAMS + 10),
        "TIGRIS_REQUEST_LOG": "off",
    }
    with start_live_server(redis_url, tmp_path_factory.mktemp("server"), extra) as live:
        yield live


class Stream:
    """One event stream read from a raw socket: its messages (id, data) as they come."""

    def __init__(
        self,
        server: LiveServer,
        game_id: str,
        headers: dict[str, str],
        path: str = "events/stream",
    ) -> None:
        self.sock = _connect(server)
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.sock.sendall(
            f"GET /games/{game_id}/{path}?wait=120 HTTP/1.0\r\nHost: test\r\n{lines}\r\n".encode()
        )
        self.buffer = b""
        self.head: bytes | None = None
        self.messages: list[tuple[int, dict[str, Any]]] = []
        self.comments: list[str] = []
        self.ended = False

    def _receive(self, deadline: float) -> None:
        self.sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = self.sock.recv(1 << 16)
        except TimeoutError:
            return
        if not chunk:
            self.ended = True
            return
        self.buffer += chunk
        if self.head is None and b"\r\n\r\n" in self.buffer:
            self.head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        if self.head is None:
            return
        *complete, self.buffer = self.buffer.split(b"\n\n")
        for block in complete:
            fields = dict(
                line.split(": ", 1) for line in block.decode().split("\n") if ": " in line
            )
            if "id" in fields:
                self.messages.append((int(fields["id"]), json.loads(fields["data"])))
            elif "" in fields:
                self.comments.append(fields[""])

    def status(self, deadline: float) -> int:
        while self.head is None and not self.ended and time.monotonic() < deadline:
            self._receive(deadline)
        assert self.head is not None, "no response head"
        return int(self.head.split(b" ", 2)[1])

    def read_until(self, version: int, deadline: float) -> None:
        """Read until the message of ``version`` came (or the stream ended, or the deadline)."""
        while (
            not (self.messages and self.messages[-1][0] >= version)
            and not self.ended
            and time.monotonic() < deadline
        ):
            self._receive(deadline)

    @property
    def ids(self) -> list[int]:
        return [version for version, _ in self.messages]

    def close(self) -> None:
        self.sock.close()


def _game(server: LiveServer, kind: str = "board") -> tuple[str, list[str], int]:
    created = requests.post(
        f"{server.url}/games",
        json={"kind": kind, "seats": ["A", "B"], "seed": 21},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return body["game"]["game_id"], [s["token"] for s in body["seats"]], body["game"]["version"]


def _blocked_reads(redis_url: str) -> int:
    """Connections of the tests' Redis blocked in a stream read now."""
    clients = redis.Redis.from_url(redis_url).client_list()
    return sum(1 for c in clients if c.get("cmd") == "xread" and "b" in c.get("flags", ""))


def test_many_streams_on_one_game_get_every_event_once_in_order(
    server: LiveServer, redis_url: str
) -> None:
    # Given a game and 200 spectators' streams on it, all caught up and waiting
    game_id, tokens, version = _game(server)
    streams = [Stream(server, game_id, {}) for _ in range(STREAMS)]
    session = requests.Session()
    try:
        deadline = time.monotonic() + BOUND_S
        assert {s.status(deadline) for s in streams} == {200}
        for stream in streams:
            stream.read_until(version, deadline)
        # then the process reads the game once for all of them, not once per stream
        blocked = max(_blocked_reads(redis_url) for _ in range(5))
        assert blocked <= 1, f"{blocked} blocked reads for one game in one process"
        # When commands are played
        for _ in range(12):
            version = _play_one(server, session, game_id, tokens)
        # Then every stream gets every event exactly once, in order
        deadline = time.monotonic() + BOUND_S
        for stream in streams:
            stream.read_until(version, deadline)
        expected = list(range(1, version + 1))
        assert all(s.ids == expected for s in streams), [
            s.ids for s in streams if s.ids != expected
        ][:2]
        # and the same frames
        assert len({json.dumps(s.messages) for s in streams}) == 1
    finally:
        for stream in streams:
            stream.close()


def test_a_seats_stream_never_carries_another_seats_hidden_cards(server: LiveServer) -> None:
    # Given a card game (hands are private) followed at once by each seat and a spectator
    game_id, tokens, version = _game(server, "cards")
    viewers = {
        "seat 0": {"Authorization": f"Bearer {tokens[0]}"},
        "seat 1": {"Authorization": f"Bearer {tokens[1]}"},
        "spectator": {},
    }
    streams = {name: Stream(server, game_id, headers) for name, headers in viewers.items()}
    session = requests.Session()
    try:
        deadline = time.monotonic() + BOUND_S
        assert {s.status(deadline) for s in streams.values()} == {200}
        for stream in streams.values():
            stream.read_until(version, deadline)
        # When the seats play, while the three streams share the game's follower
        for _ in range(10):
            version = _play_one(server, session, game_id, tokens)
        deadline = time.monotonic() + BOUND_S
        for stream in streams.values():
            stream.read_until(version, deadline)
        # Then each stream shows exactly what its viewer reads in the event log
        seen = {}
        for name, stream in streams.items():
            page = session.get(
                f"{server.url}/games/{game_id}/events?limit=500", headers=viewers[name], timeout=10
            ).json()
            assert [data for _, data in stream.messages] == page["items"], name
            seen[name] = [data["data"] for _, data in stream.messages]
        # and the views differ: each seat's own draws, hidden from the others
        assert seen["seat 0"] != seen["seat 1"]
        assert seen["seat 0"] != seen["spectator"]
        assert seen["seat 1"] != seen["spectator"]
    finally:
        for stream in streams.values():
            stream.close()


def test_a_stream_shows_a_seat_claimed_while_it_follows_by_its_new_name(
    server: LiveServer,
) -> None:
    # Given a game with an open seat, followed by a spectator before the seat is claimed
    # (the follower folds the game's own events onto its copy of the game; a claim, the
    # service's event, renames a seat and makes it load the game again)
    created = requests.post(
        f"{server.url}/games",
        json={"kind": "board", "seats": ["A", {"type": "open"}], "seed": 21},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    ).json()
    game_id, version = created["game"]["game_id"], created["game"]["version"]
    stream = Stream(server, game_id, {})
    session = requests.Session()
    try:
        deadline = time.monotonic() + BOUND_S
        assert stream.status(deadline) == 200
        stream.read_until(version, deadline)
        # When the seat is claimed as "Zed" and both seats play on
        claimed = session.post(
            f"{server.url}/games/{game_id}/seats/1/claim", json={"name": "Zed"}, timeout=10
        )
        assert claimed.status_code == 201, claimed.text
        tokens = [created["seats"][0]["token"], claimed.json()["seat"]["token"]]
        for _ in range(8):
            version = _play_one(server, session, game_id, tokens)
        stream.read_until(version, time.monotonic() + BOUND_S)
        # Then the stream carries every event, and from the claim on exactly the event log
        # as read afterwards, "Zed" included (an event sent before is described with the
        # names of its time: "Open seat 1")
        assert stream.ids == list(range(1, version + 1))
        page = session.get(
            f"{server.url}/games/{game_id}/events?after={created['game']['version']}&limit=500",
            timeout=10,
        ).json()
        since_claim = [data for v, data in stream.messages if v > created["game"]["version"]]
        assert since_claim == page["items"]
        descriptions = [data["description"] for data in since_claim]
        assert any(d.startswith("Zed places") for d in descriptions), descriptions
        assert not any("Open seat 1" in d for d in descriptions), descriptions
    finally:
        stream.close()


def test_a_reconnect_with_last_event_id_has_no_gap_and_no_duplicate(server: LiveServer) -> None:
    # Given a game followed by one stream that stays, and one that goes away
    game_id, tokens, version = _game(server)
    staying = Stream(server, game_id, {})
    leaving = Stream(server, game_id, {})
    session = requests.Session()
    try:
        deadline = time.monotonic() + BOUND_S
        assert staying.status(deadline) == leaving.status(deadline) == 200
        for _ in range(3):
            version = _play_one(server, session, game_id, tokens)
        leaving.read_until(version, deadline)
        leaving.close()
        last_seen = leaving.ids[-1]
        # When events follow while it is gone (the follower runs on for the other stream)
        for _ in range(4):
            version = _play_one(server, session, game_id, tokens)
        staying.read_until(version, deadline)
        # and it comes back with Last-Event-ID while more events are played
        back = Stream(server, game_id, {"Last-Event-ID": str(last_seen)})
        try:
            assert back.status(deadline) == 200
            for _ in range(4):
                version = _play_one(server, session, game_id, tokens)
            back.read_until(version, time.monotonic() + BOUND_S)
            staying.read_until(version, time.monotonic() + BOUND_S)
            # Then the two connections together carry every event exactly once, in order
            assert leaving.ids + back.ids == list(range(1, version + 1))
            assert staying.ids == list(range(1, version + 1))
        finally:
            back.close()
    finally:
        staying.close()


def _app(redis_url: str, key_prefix: str, **settings: str) -> Flask:
    """The service in this process on the tests' Redis, with ``settings`` (TIGRIS_...)."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TIGRIS_KEY_PREFIX": key_prefix,
            "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN,
            **{f"TIGRIS_{name.upper()}": value for name, value in settings.items()},
        }
    )
    app.test_client_class = ContractClient
    return app


@pytest.fixture
def small_buffer_app(redis_url: str, key_prefix: str) -> Flask:
    return _app(redis_url, key_prefix, stream_buffer="6", sse_heartbeat="1")


def test_a_stream_that_does_not_keep_up_is_closed_and_the_others_are_not_held_up(
    small_buffer_app: Flask,
) -> None:
    hub = small_buffer_app.extensions[FANOUT_EXTENSION]
    assert isinstance(hub, FanOut)
    client: FlaskClient
    with small_buffer_app.test_client() as client:
        api = Api(client)
        game = api.create("board", seed=3)
        spectator = ViewerClass(admin=False, seat=None, language="en")
        # Given two subscriptions to one game: one never takes its frames, one does
        slow = hub.join(game.game_id, spectator, game.version)
        quick = hub.join(game.game_id, spectator, game.version)
        received: list[int] = []
        stop = threading.Event()

        def keep_up() -> None:
            ends = time.monotonic() + BOUND_S
            while not stop.is_set() and time.monotonic() < ends:
                for item in quick.take(0.2):
                    assert isinstance(item, Frames)
                    received.extend(version for version, _ in item.frames)

        reader = threading.Thread(target=keep_up)
        reader.start()
        try:
            # When more events than the buffer holds are played (a command makes one or more)
            for _ in range(10):
                seat = api.awaited(game)[0]
                command = api.legal(game, seat)[0]
                assert api.command(game, seat, command).status_code == 200
            version = api.version(game)
            deadline = time.monotonic() + BOUND_S
            while (not received or received[-1] < version) and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            stop.set()
            reader.join(timeout=BOUND_S)
        # Then the reading one got every event, once, in order
        assert received == list(range(game.version + 1, version + 1))
        # and the slow one was closed, saying why, with nothing else queued
        (closed,) = slow.take(0)
        assert isinstance(closed, Closed)
        assert "behind" in closed.reason and "Last-Event-ID" in closed.reason
        # And the follower stops with its last stream
        hub.leave(slow)
        hub.leave(quick)
        assert hub.followed == 0


@pytest.fixture
def quiet_heartbeat_app(redis_url: str, key_prefix: str) -> Flask:
    # a read blocks up to 30 s when nothing comes
    return _app(redis_url, key_prefix, sse_heartbeat="30")


SPECTATOR = ViewerClass(admin=False, seat=None, language="en")


def _hub(app: Flask) -> FanOut:
    """The app's fan-out (its followers and reads)."""
    hub = app.extensions[FANOUT_EXTENSION]
    assert isinstance(hub, FanOut)
    return hub


def _frames_until(subscription: Subscription, version: int, bound_s: float) -> list[int]:
    """The versions ``subscription`` is handed until ``version`` (or ``bound_s``)."""
    versions: list[int] = []
    ends = time.monotonic() + bound_s
    while (not versions or versions[-1] < version) and time.monotonic() < ends:
        for item in subscription.take(0.1):
            assert isinstance(item, Frames), item
            versions.extend(v for v, _ in item.frames)
    return versions


def test_one_read_follows_every_game_of_a_process_and_a_game_joining_is_read_at_once(
    quiet_heartbeat_app: Flask, redis_url: str
) -> None:
    hub, spectator = _hub(quiet_heartbeat_app), SPECTATOR
    with quiet_heartbeat_app.test_client() as client:
        api = Api(client)
        games = [api.create("board", seed=40 + n) for n in range(3)]
        subscriptions: list[Subscription] = []
        others = _blocked_reads(redis_url)  # other tests' servers' reads, if any
        try:
            # Given one game followed by this process, its read blocked (nothing comes)
            subscriptions.append(hub.join(games[0].game_id, spectator, games[0].version))
            deadline = time.monotonic() + BOUND_S
            while _blocked_reads(redis_url) < others + 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _blocked_reads(redis_url) == others + 1
            # When two more games are followed while that read blocks
            for game in games[1:]:
                subscriptions.append(hub.join(game.game_id, spectator, game.version))
            # Then one read follows all three: one loop, one blocked connection
            assert (hub.followed, hub.readers) == (3, 1)
            time.sleep(0.2)
            assert _blocked_reads(redis_url) == others + 1
            # And a move in the game that joined last reaches its stream within a second,
            # not after the 30 s the first read was to block
            started = time.monotonic()
            seat = api.awaited(games[2])[0]
            assert api.command(games[2], seat, api.legal(games[2], seat)[0]).status_code == 200
            version = api.version(games[2])
            assert _frames_until(subscriptions[2], version, 10.0) == list(
                range(games[2].version + 1, version + 1)
            )
            assert time.monotonic() - started < 1.0
            # and a move in each other game reaches its own stream, and no other
            for n in (0, 1):
                seat = api.awaited(games[n])[0]
                assert api.command(games[n], seat, api.legal(games[n], seat)[0]).status_code == 200
                version = api.version(games[n])
                assert _frames_until(subscriptions[n], version, 10.0) == list(
                    range(games[n].version + 1, version + 1)
                )
            assert subscriptions[2].take(0.2) == []
        finally:
            for subscription in subscriptions:
                hub.leave(subscription)
        # And when the last stream leaves, the read ends and gives back its connection
        assert (hub.followed, hub.readers) == (0, 0)
        deadline = time.monotonic() + BOUND_S
        while _blocked_reads(redis_url) > others and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _blocked_reads(redis_url) == others


def test_a_read_gives_way_to_its_process_after_each_games_batch_within_an_allowance(
    quiet_heartbeat_app: Flask,
) -> None:
    hub, spectator = _hub(quiet_heartbeat_app), SPECTATOR
    given: list[tuple[float, list[int]]] = []  # (allowance left, events queued per stream)
    took: list[float] = []
    first, go_on = threading.Event(), threading.Event()

    def busy_process(most_s: float) -> None:
        """The process's other work, as the read gives way to it."""
        given.append((most_s, [s.queued for s in subscriptions]))
        started = time.monotonic()
        if len(given) == 1:
            first.set()
            go_on.wait(BOUND_S)  # the read waits while the other games are played
        else:
            time.sleep(0.15)  # it had that much to do
        took.append(time.monotonic() - started)

    with quiet_heartbeat_app.test_client() as client:
        api = Api(client)
        games = [api.create("board", seed=60 + n) for n in range(4)]
        moved = [0] * len(games)

        def move(n: int) -> None:
            seat = api.awaited(games[n])[0]
            command = api.legal(games[n], seat)[0]
            assert api.command(games[n], seat, command).status_code == 200
            moved[n] = api.version(games[n]) - games[n].version

        # Given four followed games, whose streams take nothing yet
        subscriptions = [hub.join(game.game_id, spectator, game.version) for game in games]
        hub.give_way = busy_process
        try:
            # When a move in the first game is read, and one in each other game is made
            # while the read gives way after the first one's batch
            move(0)
            assert first.wait(BOUND_S)
            for n in (1, 2, 3):
                move(n)
            go_on.set()
            # Then every stream gets its game's events, in order
            for game, subscription in zip(games, subscriptions, strict=True):
                version = api.version(game)
                assert _frames_until(subscription, version, 10.0) == list(
                    range(game.version + 1, version + 1)
                )
            # and the first read gave way once, after the first game's batch was handed out,
            # with the whole allowance
            assert given[0] == (GIVE_WAY_S, [moved[0], 0, 0, 0])
            # and the next read, which took the three others, gave way after its first batch
            # with the whole allowance, and after its second with what was left of it, if
            # anything (the process took 0.15 s; more on a busy machine), each batch handed
            # out before; not after its third: the allowance was spent
            assert given[1][0] == GIVE_WAY_S
            if took[1] < GIVE_WAY_S:
                assert len(given) == 3
                assert 0 < given[2][0] <= GIVE_WAY_S - took[1]
            else:
                assert len(given) == 2
            handed = [[n for n in (1, 2, 3) if queued[n]] for _, queued in given[1:]]
            assert [len(read) for read in handed] == [1, 2][: len(handed)]
            assert set(handed[0]) <= set(handed[-1])
            for _, queued in given[1:]:
                assert all(queued[n] in (0, moved[n]) for n in (1, 2, 3))
        finally:
            go_on.set()
            for subscription in subscriptions:
                hub.leave(subscription)


GIVING_WAY = """
from gevent import monkey

monkey.patch_all()
import json
import socket
import time

import gevent

from service.api.fanout import give_way

ran = []


def other():
    ran.append("other")
    gevent.sleep(0)
    ran.append("other again")


def answered(sock):
    ran.append("answer " + sock.recv(10).decode())


def busy():
    while True:
        gevent.sleep(0)


server, client = socket.socketpair()
gevent.spawn(answered, client)
gevent.sleep(0.01)  # the answer's greenlet waits for its socket
gevent.spawn(other)
server.sendall(b"ok")  # as Redis answers a command
give_way(30.0)
ran.append("reader")
gevent.spawn(busy)  # a process that is never idle
started = time.monotonic()
give_way(0.2)
print(json.dumps({"ran": ran, "waited": time.monotonic() - started}))
"""


def test_under_gevent_giving_way_waits_until_nothing_else_is_ready_or_its_time_is_up() -> None:
    # Given the production worker's gevent, a greenlet ready to run and another whose
    # socket just got its answer; when the reader gives way
    done = subprocess.run(
        [sys.executable, "-c", GIVING_WAY],
        check=False,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert done.returncode == 0, done.stderr
    # Then both ran before it went on; and in a process never idle, it went on when its
    # time (0.2 s) was up
    out = json.loads(done.stdout)
    assert sorted(out["ran"][:3]) == ["answer ok", "other", "other again"]
    assert out["ran"][3:] == ["reader"]
    assert 0.15 <= out["waited"] < 5


def test_a_streams_bound_counts_the_events_still_queued_not_the_size_of_a_batch() -> None:
    spectator = ViewerClass(admin=False, seat=None, language="en")
    subscription = Subscription("g1", spectator, limit=3, joined_at=0)

    def frames(*versions: int) -> Frames:
        return Frames(tuple((v, b"id: %d\n\n" % v) for v in versions))

    # Given a stream that took all it was given, when one batch larger than its bound comes
    subscription.offer(frames(1, 2, 3, 4, 5))
    # Then it is queued whole (the stream is not behind: a read took several events at once)
    (batch,) = subscription.take(0)
    assert isinstance(batch, Frames) and [v for v, _ in batch.frames] == [1, 2, 3, 4, 5]
    # But when events pile up past the bound while it does not take them, it is closed
    subscription.offer(frames(6, 7))
    subscription.offer(frames(8, 9))
    (closed,) = subscription.take(0)
    assert isinstance(closed, Closed) and "more than 3 events behind" in closed.reason


def test_a_game_whose_event_cannot_be_read_ends_its_own_streams_and_no_other(
    quiet_heartbeat_app: Flask,
) -> None:
    hub, spectator = _hub(quiet_heartbeat_app), SPECTATOR
    with quiet_heartbeat_app.test_client() as client:
        api = Api(client)
        broken, sound = api.create("board", seed=50), api.create("board", seed=51)
        # Given two games followed by this process's one read
        on_broken = hub.join(broken.game_id, spectator, broken.version)
        on_sound = hub.join(sound.game_id, spectator, sound.version)
        try:
            # When the first game's stream gets an event this service cannot read (as one
            # written by a newer release during a rolling deploy)
            store = hub.games.store
            inner: Any = getattr(store, "inner", store)
            inner.client.xadd(
                inner.keys.events(broken.game_id),
                {"type": "board.FromTheFuture", "schema": "1", "data": "{}", "meta": "{}"},
                id=f"{broken.version + 1}-0",
            )
            # Then that game's stream is closed, saying why
            items: list[Any] = []
            ends = time.monotonic() + BOUND_S
            while not items and time.monotonic() < ends:
                items = on_broken.take(0.1)
            assert len(items) == 1 and isinstance(items[0], Closed)
            assert "failed following this game" in items[0].reason
            # And the other game's stream goes on: a move reaches it
            seat = api.awaited(sound)[0]
            assert api.command(sound, seat, api.legal(sound, seat)[0]).status_code == 200
            version = api.version(sound)
            assert _frames_until(on_sound, version, 10.0) == list(
                range(sound.version + 1, version + 1)
            )
            assert (hub.followed, hub.readers) == (1, 1)
        finally:
            hub.leave(on_broken)
            hub.leave(on_sound)


def _sse_ids(body: bytes) -> list[int]:
    return [int(line[4:]) for line in body.decode().split("\n") if line.startswith("id: ")]


def test_http11_streams_get_every_event_once_in_valid_chunks_and_end_on_their_own(
    server: LiveServer,
) -> None:
    # Given 20 HTTP/1.1 streams (chunked bodies, read by the standard library's client,
    # which refuses a broken chunk) on a game, caught up and waiting, each to end 3 s
    # after its last event
    game_id, tokens, version = _game(server)
    where = urlsplit(server.url)
    connections = [
        http.client.HTTPConnection(str(where.hostname), where.port, timeout=BOUND_S)
        for _ in range(20)
    ]
    session = requests.Session()
    try:
        responses = []
        for connection in connections:
            connection.request("GET", f"/games/{game_id}/events/stream?wait=3")
            responses.append(connection.getresponse())
        assert {r.status for r in responses} == {200}
        assert {r.getheader("Transfer-Encoding") for r in responses} == {"chunked"}
        caught_up = [b"" for _ in responses]
        deadline = time.monotonic() + BOUND_S
        for n, response in enumerate(responses):
            while version not in _sse_ids(caught_up[n]) and time.monotonic() < deadline:
                caught_up[n] += response.read1()
        # When commands are played for longer than that, each after a pause in which every
        # stream waits (its frames are then written to its socket without waking it)
        for _ in range(10):
            time.sleep(0.4)
            version = _play_one(server, session, game_id, tokens)
        # Then each stream carries every event once, in order, in valid chunks, and ends
        # by itself 3 s after the last one (its last frame counted, written however)
        bodies = [before + r.read() for before, r in zip(caught_up, responses, strict=True)]
        expected = list(range(1, version + 1))
        assert all(_sse_ids(body) == expected for body in bodies), [
            _sse_ids(body) for body in bodies if _sse_ids(body) != expected
        ][:2]
        assert len(set(bodies)) == 1
    finally:
        for connection in connections:
            connection.close()


def _chunks(data: bytes) -> list[bytes]:
    """The chunks of an HTTP/1.1 chunked body's bytes (each one complete)."""
    chunks = []
    while data:
        size, _, rest = data.partition(b"\r\n")
        length = int(size, 16)
        assert rest[length : length + 2] == b"\r\n", "a broken chunk"
        chunks.append(rest[:length])
        data = rest[length + 2 :]
    return chunks


def _taking(subscription: Subscription, position: int) -> tuple[threading.Thread, list[Any]]:
    """A stream's wait for its frames, in a thread, once it is parked."""
    taken: list[Any] = []
    thread = threading.Thread(
        target=lambda: taken.extend(subscription.take(BOUND_S, position)), daemon=True
    )
    thread.start()
    deadline = time.monotonic() + BOUND_S
    while not subscription.parked and time.monotonic() < deadline:
        time.sleep(0.001)
    assert subscription.parked
    return thread, taken


def _drain(sock: socket.socket) -> bytes:
    sock.settimeout(0.2)
    data = b""
    try:
        while chunk := sock.recv(1 << 16):
            data += chunk
    except TimeoutError:
        pass
    return data


def test_a_waiting_streams_frames_go_straight_to_its_socket_and_the_rest_is_left_to_it() -> None:
    spectator = ViewerClass(admin=False, seat=None, language="en")

    def frames(*versions: int, size: int = 20) -> Frames:
        return Frames(tuple((v, b"id: %d\n" % v + b"x" * size + b"\n\n") for v in versions))

    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        direct = Direct(ours, ours, chunked=True)
        subscription = Subscription("g1", spectator, limit=100, joined_at=0, direct=direct)
        # Given a stream that sent events up to 1 and waits for more
        thread, taken = _taking(subscription, 1)
        # When a batch comes (one event it already sent, two new ones)
        subscription.offer(frames(1, 2, 3))
        # Then the new ones are on its socket in one chunk, and the stream still sleeps
        assert _chunks(_drain(theirs)) == [b"".join(f for _, f in frames(2, 3).frames)]
        assert subscription.written == 3 and thread.is_alive() and taken == []
        # When a batch comes that its socket cannot take whole (nobody reads it)
        subscription.offer(frames(4, size=1 << 20))
        # Then the stream wakes with the rest of the chunk begun, to write before all else
        thread.join(BOUND_S)
        (rest,) = taken
        assert isinstance(rest, Raw) and 0 < len(rest.data) < (1 << 20)
        assert subscription.written == 4
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(_drain(theirs)), daemon=True)
        reader.start()
        direct.send_rest(rest.data)
        reader.join(BOUND_S)
        assert _chunks(b"".join(received)) == [frames(4, size=1 << 20).frames[0][1]]
        # When the stream waits again with its socket full, a batch is queued for it
        while direct.try_send(b"y" * 4096) > 0:
            pass
        thread, taken = _taking(subscription, 4)
        subscription.offer(frames(5))
        thread.join(BOUND_S)
        assert taken == [frames(5)] and subscription.written == 4
        # And once the stream is done with its socket nothing more is written to it
        _drain(theirs)
        subscription.detach()
        subscription.offer(frames(6))
        assert _drain(theirs) == b"" and subscription.take(0, 5) == [frames(6)]
    finally:
        ours.close()
        theirs.close()


def test_frames_go_straight_to_a_socket_only_where_the_server_lends_it() -> None:
    ours, theirs = socket.socketpair()
    try:
        lent = {
            DIRECT_WRITES: True,
            "gunicorn.socket": Lent(ours),
            "REQUEST_METHOD": "GET",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        # Given the production worker's plain HTTP/1.1 GET: chunks, as the server frames
        direct = Direct.of(lent)
        assert direct is not None and direct.chunked
        assert direct.frame(b"id: 1\n\n") == b"7\r\nid: 1\n\n\r\n"
        http10 = Direct.of({**lent, "SERVER_PROTOCOL": "HTTP/1.0"})
        assert http10 is not None and not http10.chunked  # a bare body
        # But never without the server's word (TLS, another protocol), on HTTP/2, for a
        # HEAD (no body), or on a socket that is not a real one under the server's
        assert Direct.of({**lent, DIRECT_WRITES: None}) is None
        assert Direct.of({**lent, "SERVER_PROTOCOL": "HTTP/2.0"}) is None
        assert Direct.of({**lent, "REQUEST_METHOD": "HEAD"}) is None
        assert Direct.of({**lent, "gunicorn.socket": ours}) is None
    finally:
        ours.close()
        theirs.close()


class Lent:
    """A server's socket as gevent's: the real socket under it as ``_sock``."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock


def test_a_stream_asked_at_a_percent_encoded_path_is_served_as_a_stream(
    server: LiveServer,
) -> None:
    # Given a game, and its stream asked at a path whose last letter is percent-encoded
    # (the application routes it to the stream; the server must treat it as one too, and
    # not hold its body back as it does an ordinary response's until it is complete)
    game_id, _, version = _game(server)
    stream = Stream(server, game_id, {}, path="events/strea%6D")
    try:
        # When its client reads
        deadline = time.monotonic() + 20
        # Then the events come at once, as on any stream
        assert stream.status(deadline) == 200
        stream.read_until(version, deadline)
        assert stream.ids == list(range(1, version + 1))
    finally:
        stream.close()
