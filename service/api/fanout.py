"""Live event streams cost one read and one encoding per event per viewer class, not per
stream.

Each server process follows each watched game once. A ``Reader`` (one thread, i.e. one
greenlet under the production server's gevent worker) waits for the new events of all the
games the process follows in one blocking read (``EventStore.watch``: on one Redis server,
one ``XREAD BLOCK`` naming every game's stream, on a connection of its own; a game joining
ends the read under way). A Redis Cluster reads one slot per request, so each followed game
gets a reader of its own there. For each game's batch, the game's ``Follower`` renders it once
per viewer class present (the admin, each seat, spectators; and each language, since events
carry a description), and hands the encoded server-sent-event frames to every subscribed
stream in memory. A follower stops when its last stream leaves, or when the game is over and
every event was handed out, or when its game fails it (a load, a decoding, the store). A
reader stops with its last follower, or when its read fails (all its streams end). A stream
ended so gets a comment saying why; its client reconnects with ``Last-Event-ID``.

A stream keeps its own position: it catches up from Redis (``service.api.events``) to where
it joins, then takes the follower's frames, skipping what it already sent and catching up
again from Redis over any gap (a frame batch its class was not rendered for, a follower that
ran ahead while it joined), so it sends every event once, in order.

A stream waiting for frames with nothing queued (parked) gets them without being woken: the
reader writes them straight to the stream's socket, without blocking (``Direct``; under the
production server, whose socket and HTTP framing it uses). What the socket does not take at
once is queued for the stream to write itself: the rest of a frame begun, or the whole batch.
One system call per stream and batch, and no switch to the stream, which wakes for its
heartbeat only; under load, most of what a stream costs its process.

The reader gives way after each game's batch (``give_way``): under the production server's
gevent worker, where the reader is a greenlet among the requests', it waits until nothing
else in the process is ready to run (a command whose Redis answer came, a health check).
A read has an allowance of ``GIVE_WAY_S`` for this; once it is spent, the rest of the read
is handed out without pause. So while the allowance lasts, a command waits for one game's
hand-out at most, not for the whole read's, and the streams take the time the commands
leave; a process with none to leave delays its streams by about the allowance per read.
Each read starts its hand-outs at another game, so the same games are not always last.

Every subscription's queue is bounded (``TIGRIS_STREAM_BUFFER`` events queued when another
batch comes; a batch into an empty queue is taken whole): a stream whose client reads too
slowly to keep up is closed with a comment line saying why, rather than
slowing the follower (and the other viewers) or growing without bound; its client
reconnects with ``Last-Event-ID`` and catches up. Frames are shared between the streams of
a class, so a queued event costs a stream a reference, not a copy.
"""

from __future__ import annotations

import _socket
import json
import logging
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import redis

from service.application.game_service import GameService
from service.application.mapper import StoredEvent
from service.application.queries import GameWatch
from service.application.rendering import events_json
from service.application.repository import LoadedGame
from service.errors import StoreUnavailable

log = logging.getLogger(__name__)
STREAM_BATCH = 200
# A shared read begins at most this often: under load, one read takes many games' events
# (and Redis wakes the reader once for all of them) instead of one read per event; an event
# waits this long at most for it. An idle reader's read returns on the first event.
READ_CYCLE_S = 0.05
WAKE_TRIES = 250  # a join ends the read under way: tries, WAKE_PAUSE_S apart (0.5 s at most)
WAKE_PAUSE_S = 0.002
# A read's hand-outs wait for the process's other work this long at most in all (give_way).
GIVE_WAY_S = 0.2
LOAD_PASSES = 5  # loads of games joining meanwhile before a read that does not wait for them
SERVICE_EVENTS = "service."  # the type prefix of the service's own events (claims, undo...)


@dataclass(frozen=True)
class ViewerClass:
    """What a stream shows: the same for every stream of the same class."""

    admin: bool
    seat: int | None
    language: str


@dataclass(frozen=True)
class Frames:
    """Consecutive events' frames: (version, the encoded message)."""

    frames: tuple[tuple[int, bytes], ...]


@dataclass(frozen=True)
class Behind:
    """Events up to ``version`` went by without frames for this stream: read them itself."""

    version: int


@dataclass(frozen=True)
class Ended:
    """The game is over and every event up to ``version`` was handed out."""

    version: int


@dataclass(frozen=True)
class Closed:
    """The stream must end now; ``reason`` says why (sent as a comment line)."""

    reason: str


# Set to True in a request's environ by a server whose socket ``Direct`` may write to.
DIRECT_WRITES = "tigris.direct_writes"
_SEND_FLAGS = socket.MSG_DONTWAIT | getattr(socket, "MSG_NOSIGNAL", 0)


@dataclass(frozen=True)
class Raw:
    """The rest of a message the reader began to write to the stream's socket (already
    framed): the stream writes it to its socket as it is, before anything else."""

    data: bytes


Item = Frames | Behind | Ended | Closed | Raw


class Direct:
    """A stream's own socket under the production server (gunicorn's gevent worker): the
    reader writes a parked stream's frames to it without blocking, framed as the server
    frames the response's body (HTTP/1.1 chunks), and the stream writes what is left."""

    def __init__(self, sock: Any, raw: _socket.socket, chunked: bool) -> None:
        self._sock = sock  # the server's: blocking, with the worker's client timeout
        self._raw = raw  # the same connection's non-blocking socket under it
        self.chunked = chunked

    @classmethod
    def of(cls, environ: dict[str, Any]) -> Direct | None:
        """The stream's socket, where the server lends it (``DIRECT_WRITES``: the production
        worker speaking plain HTTP/1.x, no TLS) to a GET."""
        sock = environ.get("gunicorn.socket")
        raw = getattr(sock, "_sock", None)  # gevent's socket holds the real one
        protocol = environ.get("SERVER_PROTOCOL")
        if (
            environ.get(DIRECT_WRITES) is not True
            or environ.get("REQUEST_METHOD") != "GET"
            or protocol not in ("HTTP/1.0", "HTTP/1.1")
            or not isinstance(raw, _socket.socket)
        ):
            return None
        # gunicorn chunks the body of an HTTP/1.1 response without a length (a stream's).
        return cls(sock, raw, chunked=protocol == "HTTP/1.1")

    def frame(self, data: bytes) -> bytes:
        return b"%X\r\n%s\r\n" % (len(data), data) if self.chunked else data

    def try_send(self, data: bytes) -> int:
        """How much of ``data`` the socket took at once: 0 none, -1 the socket failed."""
        try:
            return self._raw.send(data, _SEND_FLAGS)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            return -1

    def send_rest(self, data: bytes) -> None:
        """Write ``data`` (the stream's own greenlet: it may wait, up to the timeout)."""
        self._sock.sendall(data)


def encode(events: Sequence[StoredEvent], items: Sequence[Any]) -> tuple[tuple[int, bytes], ...]:
    """The server-sent-event messages of ``events`` rendered as ``items``."""
    return tuple(
        (
            event.version,
            (
                f"id: {event.version}\nevent: game-event\n"
                f"data: {json.dumps(item, separators=(',', ':'))}\n\n"
            ).encode(),
        )
        for event, item in zip(events, items, strict=True)
    )


class Subscription:
    """One stream's place in a follower: a bounded queue of items, and a wake-up."""

    def __init__(
        self,
        game_id: str,
        viewer: ViewerClass,
        limit: int,
        joined_at: int,
        direct: Direct | None = None,
    ) -> None:
        self.game_id = game_id
        self.viewer = viewer
        # The follower's position when the stream joined: what follows comes as frames.
        self.joined_at = joined_at
        self._limit = limit
        self._items: deque[Item] = deque()
        self._queued = 0  # events in the queue
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self.closed: str | None = None
        self._direct = direct
        self._parked = False  # the stream waits in take() with nothing queued
        self._position = 0  # the last version the stream sent (as of its take())
        self.written = 0  # the last version the reader wrote to the stream's socket
        self.written_at = 0.0  # when (monotonic)

    def offer(self, item: Item, framed: dict[tuple[int, int, bool], bytes] | None = None) -> None:
        """Queue ``item`` (never blocks); a stream over its bound is closed instead. The
        frames of a parked stream go straight to its socket, as much as it takes at once
        (``framed``: the bytes written so, shared by the streams handed the same item)."""
        with self._lock:
            if self.closed is not None:
                return
            if isinstance(item, Frames) and self._parked and not self._items and self._direct:
                left = self._write(item, self._direct, {} if framed is None else framed)
                if left is None:
                    return  # all written: the stream sleeps on
                item = left
            if isinstance(item, Frames):
                # Behind means events still queued: a batch into an empty queue (a stream
                # that took all it was given) is taken whatever its size.
                if self._queued and self._queued + len(item.frames) > self._limit:
                    self._close(
                        f"this stream fell more than {self._limit} events behind the game; "
                        "reconnect with Last-Event-ID"
                    )
                    return
                self._queued += len(item.frames)
            self._items.append(item)
        self._ready.set()

    def _write(
        self, item: Frames, direct: Direct, framed: dict[tuple[int, int, bool], bytes]
    ) -> Frames | Raw | None:
        """Under the lock, the stream parked with nothing queued: write ``item``'s frames
        that follow the stream's position to its socket. What is left for the stream."""
        fresh = [(version, frame) for version, frame in item.frames if version > self._position]
        if not fresh:
            return None
        if fresh[0][0] != self._position + 1:
            return item  # a gap (frames its class missed): the stream reads it itself
        key = (id(item), self._position, direct.chunked)
        data = framed.get(key)
        if data is None:
            data = framed[key] = direct.frame(b"".join(frame for _, frame in fresh))
        sent = direct.try_send(data)
        if sent <= 0:
            if sent < 0:
                self._direct = None  # a failed socket: the stream finds out itself
            return item
        self._position = self.written = fresh[-1][0]
        self.written_at = time.monotonic()
        return Raw(data[sent:]) if sent < len(data) else None

    @property
    def queued(self) -> int:
        """The events queued for the stream to write itself (a snapshot, read unlocked)."""
        return self._queued

    @property
    def parked(self) -> bool:
        """The stream waits for frames that may be written to its socket for it."""
        return self._parked

    def detach(self) -> None:
        """The stream is done with its socket: nothing more is written to it from here."""
        with self._lock:
            self._direct = None
            self._parked = False

    def close(self, reason: str) -> None:
        """End the stream: whatever is queued is dropped, the reason is all it gets."""
        with self._lock:
            self._close(reason)

    def _close(self, reason: str) -> None:
        if self.closed is not None:
            return
        self.closed = reason
        # Dropped but the rest of a message begun on the socket: the stream ends it first.
        rest = [item for item in self._items if isinstance(item, Raw)]
        self._items.clear()
        self._items.extend(rest)
        self._queued = 0
        self._items.append(Closed(reason))
        self._ready.set()

    def take(self, timeout_s: float, position: int = 0) -> list[Item]:
        """What is queued, waiting up to ``timeout_s`` for something (empty: nothing came),
        for a stream that sent every event up to ``position``. Meanwhile, frames may be
        written to its socket for it: ``written`` is then past ``position``."""
        with self._lock:
            self._position = max(position, self.written)
            parked = not self._items
            if parked:
                self._ready.clear()  # under the lock: an offer after this wakes the wait
                self._parked = self._direct is not None
        try:
            if parked:
                self._ready.wait(timeout_s)
        finally:
            with self._lock:
                self._parked = False  # even if the stream is killed while it waits
                taken = list(self._items)
                self._items.clear()
                self._queued = 0
        return taken


class Follower:
    """One game followed by one process: the last version handed out, the process's copy
    of the game, and the game's subscriptions. Its reader reads its events."""

    def __init__(self, hub: FanOut, game_id: str, position: int) -> None:
        self.hub = hub
        self.game_id = game_id
        self.position = position  # the last version handed out
        self.current: LoadedGame | None = None  # loaded by the reader, before its first read
        self.checked_at = 0.0  # when the game was last known as it is (monotonic)
        self.subscriptions: set[Subscription] = set()
        self.stopped = False
        self.reader: Reader | None = None

    def load(self) -> LoadedGame:
        """The game as it is now."""
        self.current = self.hub.games.repository.get(self.game_id)
        self.checked_at = time.monotonic()
        return self.current

    def over(self) -> bool:
        """The game is over and every event was handed out: nothing more can follow."""
        current = self.current
        return (
            current is not None
            and self.position >= current.version
            and current.rules.is_over(current.state)
        )

    def take(self, batch: list[StoredEvent]) -> None:
        """Hand out ``batch``, the events just read after ``position``."""
        current = self.current
        assert current is not None  # loaded before the reader's first read of it
        if not any(e.type.startswith(SERVICE_EVENTS) for e in batch):
            # The game's own events: the game follows from folding them onto the copy in
            # hand (those it does not hold yet: the follower may start behind the game it
            # loaded), with no second read of its info, snapshot and events.
            newer = [event for event in batch if event.version > current.version]
            current = self.current = self.hub.games.repository.advance(current, newer)
            self.checked_at = time.monotonic()
        else:
            # The service's events change more of the info (a claim renames a seat): the
            # game as it is now; every event read is in it, as the append writes both at once.
            current = self.load()
            batch = [event for event in batch if event.version <= current.version]
        if batch:
            self._hand_out(batch, current)

    def _hand_out(self, batch: list[StoredEvent], current: LoadedGame) -> None:
        with self.hub.lock:
            classes = {s.viewer for s in self.subscriptions}
        rendered: dict[ViewerClass, Frames] = {}
        # Rendering is CPU work: a few batches at a time per process (as the streams'
        # own catch-up reads), so that bursts cannot starve commands.
        with self.hub.work:
            for viewer in classes:
                items = events_json(
                    batch, viewer, current, games=self.hub.games, language=viewer.language
                )
                rendered[viewer] = Frames(encode(batch, items))
        last = batch[-1].version
        framed: dict[tuple[int, int, bool], bytes] = {}  # one copy per class and position
        with self.hub.lock:
            self.position = last
            for subscription in self.subscriptions:
                # A stream of a class that joined while the batch was rendered reads it itself.
                subscription.offer(rendered.get(subscription.viewer) or Behind(last), framed)
            dropped = [s for s in self.subscriptions if s.closed is not None]
            for subscription in dropped:
                self.subscriptions.discard(subscription)
        for subscription in dropped:
            log.warning("event stream of %s closed: %s", self.game_id, subscription.closed)
            self.hub.on_drop()


class Reader:
    """The loop (one thread, i.e. one greenlet under the production server's gevent worker)
    that reads its followers' new events in one blocking read and hands them out. A process
    has one for all its followed games where the store reads many games at once (one
    Redis server), else one per game (a Redis Cluster: one read names one slot)."""

    def __init__(self, hub: FanOut, watch: GameWatch) -> None:
        self.hub = hub
        self.watch = watch
        self.followers: dict[str, Follower] = {}
        self.generation = 0  # counts the followers added (under the hub's lock)
        self.read_generation = 0  # the generation the read under way was built from
        self.stopped = False
        self.started = False  # under the hub's lock: the join that sets it starts the thread
        self.thread = threading.Thread(target=self._run, name="follow-games", daemon=True)

    def _run(self) -> None:
        try:
            self._read()
        except (StoreUnavailable, redis.RedisError) as exc:
            self.hub.stop(self, Closed("the event store is unavailable; reconnect"))
            log.warning("a stream read ended: store unavailable (%s)", exc)
        except Exception:
            self.hub.stop(self, Closed("the server failed following this game; reconnect"))
            log.exception("a stream read failed")
        finally:
            if not self.stopped:  # ended otherwise (the worker stopping): no join may wait
                self.hub.stop(self, Closed("the server is stopping; reconnect"))
            self.watch.close()

    def _read(self) -> None:
        hub = self.hub
        passes = 0
        reads = 0
        while True:
            with hub.lock:
                if self.stopped:
                    return
                followers = [f for f in self.followers.values() if not f.stopped]
                self.read_generation = self.generation
            live = [f for f in followers if self._ready(f)]
            with hub.lock:
                # Games that joined while these loaded (their joins' wake-ups may be over):
                # load them too before reading, or read without blocking.
                behind = self.generation != self.read_generation
            if (behind and passes < LOAD_PASSES) or not live:
                passes += 1
                continue  # (no live one: the hub stopped this reader if it has no other)
            passes = 0
            now = time.monotonic()
            # Each game is loaded again after a heartbeat with no event (how a follower sees
            # a game end with no event of its own): the read lasts until the first is due.
            due = min(f.checked_at for f in live) + hub.wait_s - now
            timeout = 0.0 if behind else max(0.0, due)
            began = now
            # Only this read's failure (the store's) ends the reader and all its streams.
            batches = self.watch.read(
                {f.game_id: f.position for f in live}, timeout, limit=STREAM_BATCH
            )
            waited = 0.0  # giving way to the process's other work (give_way)
            reads += 1
            start = reads % len(live)  # not always the same games last
            for follower in live[start:] + live[:start]:
                if follower.stopped or follower.current is None:
                    continue
                records = batches.get(follower.game_id)
                with _only(follower):
                    if records:
                        follower.take(self.watch.decode(follower.current.kind, records))
                    elif time.monotonic() - follower.checked_at >= hub.wait_s:
                        follower.load()
                if records and waited < GIVE_WAY_S:
                    since = time.monotonic()
                    hub.give_way(GIVE_WAY_S - waited)
                    waited += time.monotonic() - since
            # Under load, a shared read every READ_CYCLE_S at most: each takes many games'
            # events (and Redis wakes the reader once for them), not one read per event.
            pause = READ_CYCLE_S - (time.monotonic() - began)
            if self.watch.shared and pause > 0 and not self.stopped:
                time.sleep(pause)

    def _ready(self, follower: Follower) -> bool:
        """Whether ``follower`` is to be read: loaded, and not over (else it is finished)."""
        with _only(follower):
            if follower.current is None:
                follower.load()
            if not follower.over():
                return True
            self.hub.finish(follower, Ended(follower.position))
        return False


def give_way(most_s: float) -> None:
    """Let the process's other work go first, for about ``most_s`` at most: under gevent
    (the production worker, whose requests are greenlets beside the reader's), until
    nothing else is ready to run: on gevent's default loop (libev), an idle watcher runs
    only when no socket, timer or callback is pending. A greenlet that runs on without
    yielding can overshoot the time. With threads, nothing: the system shares the cores."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("threading"):
        return
    import gevent  # type: ignore[import-untyped]  # (only under gevent)

    with gevent.Timeout(most_s, False):
        gevent.idle()


@contextmanager
def _only(follower: Follower) -> Iterator[None]:
    """A failure with one follower's game (loading it, decoding or rendering its events,
    even the store failing to answer for it) ends that follower's streams alone."""
    try:
        yield
    except (StoreUnavailable, redis.RedisError) as exc:
        log.warning("following %s ended: store unavailable (%s)", follower.game_id, exc)
        follower.hub.finish(follower, Closed("the event store is unavailable; reconnect"))
    except Exception:
        log.exception("following %s failed", follower.game_id)
        follower.hub.finish(follower, Closed("the server failed following this game; reconnect"))


class FanOut:
    """The followers of one server process, by game, and their readers."""

    def __init__(
        self,
        games: GameService,
        *,
        wait_s: float,
        limit: int,
        work: AbstractContextManager[Any],
        on_drop: Any = None,
        give_way: Callable[[float], None] = give_way,
    ) -> None:
        self.games = games
        self.give_way = give_way  # after each game's batch a read hands out
        self.wait_s = wait_s  # one blocking read at most (the heartbeat)
        self.limit = limit  # events a stream may fall behind
        self.work = work
        self.lock = threading.Lock()
        self._followers: dict[str, Follower] = {}
        self._shared: Reader | None = None  # the reader of all games, where the store has one
        self._on_drop = on_drop

    def on_drop(self) -> None:
        if self._on_drop is not None:
            self._on_drop()

    @property
    def followed(self) -> int:
        """Games this process follows now."""
        return len(self._followers)

    @property
    def readers(self) -> int:
        """Read loops this process runs now."""
        with self.lock:
            return len({id(f.reader) for f in self._followers.values()})

    def join(
        self, game_id: str, viewer: ViewerClass, after: int, direct: Direct | None = None
    ) -> Subscription:
        """Subscribe a stream that has sent every event up to ``after``; it must ``leave``.
        With ``direct``, its frames may be written to its socket while it waits."""
        with self.lock:
            follower = self._followers.get(game_id)
            reader, start = None, False
            if follower is None:
                follower = self._followers[game_id] = Follower(self, game_id, after)
                reader = follower.reader = self._reader()
                reader.followers[game_id] = follower
                reader.generation += 1
                generation = reader.generation
                start, reader.started = not reader.started, True
            subscription = Subscription(game_id, viewer, self.limit, follower.position, direct)
            follower.subscriptions.add(subscription)
        if reader is not None:
            if start:
                reader.thread.start()
            self._wake(reader, generation)
        return subscription

    def _reader(self) -> Reader:
        """The reader a new follower joins (under the lock): the shared one, or a new one."""
        if self._shared is not None and not self._shared.stopped:
            return self._shared
        reader = Reader(self, self.games.queries.watch())
        if reader.watch.shared:
            self._shared = reader
        return reader

    def _wake(self, reader: Reader, generation: int) -> None:
        """End the read ``reader`` has under way if it was built without the games up to
        ``generation``, so that it reads them at once rather than after a heartbeat."""
        for _ in range(WAKE_TRIES):
            if reader.stopped or reader.read_generation >= generation:
                return
            if reader.generation > generation:
                return  # a later join wakes it (for its games and this one): one waker
            try:
                if reader.watch.interrupt():
                    return
            except (StoreUnavailable, redis.RedisError):
                return  # the reader's own read fails too, and ends its streams
            time.sleep(WAKE_PAUSE_S)  # its read has not blocked yet

    def leave(self, subscription: Subscription) -> None:
        """The stream ended (however): its follower stops with its last stream."""
        subscription.detach()  # before its server writes anything else to the connection
        with self.lock:
            follower = self._followers.get(subscription.game_id)
            if follower is None or subscription not in follower.subscriptions:
                return
            follower.subscriptions.discard(subscription)
            if follower.subscriptions:
                return
            idle = self._drop(follower)
        if idle is not None:
            self._release(idle)

    def finish(self, follower: Follower, item: Ended | Closed) -> None:
        """``follower`` stops: each of its streams gets ``item`` last."""
        with self.lock:
            idle = self._drop(follower)
            subscriptions = list(follower.subscriptions)
            follower.subscriptions.clear()
        for subscription in subscriptions:
            if isinstance(item, Closed):
                subscription.close(item.reason)
            else:
                subscription.offer(item)
        if idle is not None and idle.thread is not threading.current_thread():
            self._release(idle)

    def stop(self, reader: Reader, item: Closed) -> None:
        """``reader`` failed: each of its followers stops with ``item``."""
        with self.lock:
            followers = list(reader.followers.values())
            reader.stopped = True
            if self._shared is reader:
                self._shared = None
        for follower in followers:
            self.finish(follower, item)

    def _drop(self, follower: Follower) -> Reader | None:
        """Under the lock: ``follower`` is followed no more; its reader if it has no other."""
        follower.stopped = True
        if self._followers.get(follower.game_id) is follower:
            del self._followers[follower.game_id]
        reader = follower.reader
        if reader is None or reader.followers.get(follower.game_id) is not follower:
            return None
        del reader.followers[follower.game_id]
        if reader.followers:
            return None
        reader.stopped = True
        if self._shared is reader:
            self._shared = None
        return reader

    @staticmethod
    def _release(reader: Reader) -> None:
        """A shared reader left with no game ends its read now and gives back its connection
        (a one-game reader's read ends within its heartbeat)."""
        if not reader.watch.shared:
            return
        for _ in range(WAKE_TRIES):
            if not reader.thread.is_alive():
                return
            try:
                if reader.watch.interrupt():
                    return
            except (StoreUnavailable, redis.RedisError):
                return
            time.sleep(WAKE_PAUSE_S)  # its read has not blocked yet
