"""Live event streams cost one read and one encoding per event per viewer class, not per
stream.

Each server process follows each watched game once: a ``Follower`` (one thread, i.e. one
greenlet under the production server's gevent worker) waits for the game's new events in a
blocking Redis read (``XREAD BLOCK``, on the store's blocking client, whose pool is apart
from the commands' one), renders each batch once per viewer class present (the admin, each
seat, spectators; and each language, since events carry a description), and hands the
encoded server-sent-event frames to every subscribed stream in memory. The follower stops
when its last stream leaves, when the game is over and every event was handed out, or when
the store fails (its streams end; their clients reconnect with ``Last-Event-ID``).

A stream keeps its own position: it catches up from Redis (``service.api.events``) to where
it joins, then takes the follower's frames, skipping what it already sent and catching up
again from Redis over any gap (a frame batch its class was not rendered for, a follower that
ran ahead while it joined), so it sends every event once, in order.

Every subscription's queue is bounded (``TIGRIS_STREAM_BUFFER`` events): a stream whose
client reads too slowly to keep up is closed with a comment line saying why, rather than
slowing the follower (and the other viewers) or growing without bound; its client
reconnects with ``Last-Event-ID`` and catches up. Frames are shared between the streams of
a class, so a queued event costs a stream a reference, not a copy.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import redis

from service.application.game_service import GameService
from service.application.mapper import StoredEvent
from service.application.rendering import events_json
from service.errors import StoreUnavailable

log = logging.getLogger(__name__)
STREAM_BATCH = 200
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


Item = Frames | Behind | Ended | Closed


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

    def __init__(self, game_id: str, viewer: ViewerClass, limit: int, joined_at: int) -> None:
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

    def offer(self, item: Item) -> None:
        """Queue ``item`` (never blocks); a stream over its bound is closed instead."""
        with self._lock:
            if self.closed is not None:
                return
            if isinstance(item, Frames):
                if self._queued + len(item.frames) > self._limit:
                    self._close(
                        f"this stream fell more than {self._limit} events behind the game; "
                        "reconnect with Last-Event-ID"
                    )
                    return
                self._queued += len(item.frames)
            self._items.append(item)
        self._ready.set()

    def close(self, reason: str) -> None:
        """End the stream: whatever is queued is dropped, the reason is all it gets."""
        with self._lock:
            self._close(reason)

    def _close(self, reason: str) -> None:
        if self.closed is not None:
            return
        self.closed = reason
        self._items.clear()
        self._queued = 0
        self._items.append(Closed(reason))
        self._ready.set()

    def take(self, timeout_s: float) -> list[Item]:
        """What is queued, waiting up to ``timeout_s`` for something (empty: nothing came)."""
        self._ready.clear()  # before looking: an offer after this wakes the next wait
        if not self._items:
            self._ready.wait(timeout_s)
        with self._lock:
            taken = list(self._items)
            self._items.clear()
            self._queued = 0
        return taken


class Follower:
    """One game followed by one process: a blocking read loop that renders each batch once
    per viewer class and fans it out to the game's subscriptions."""

    def __init__(self, hub: FanOut, game_id: str, position: int) -> None:
        self.hub = hub
        self.game_id = game_id
        self.position = position  # the last version handed out
        self.subscriptions: set[Subscription] = set()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name=f"follow-{game_id}", daemon=True)

    def _run(self) -> None:
        try:
            self._follow()
        except (StoreUnavailable, redis.RedisError) as exc:
            log.warning("following %s ended: store unavailable (%s)", self.game_id, exc)
            self.hub.finish(self, Closed("the event store is unavailable; reconnect"))
        except Exception:
            log.exception("following %s failed", self.game_id)
            self.hub.finish(self, Closed("the server failed following this game; reconnect"))

    def _follow(self) -> None:
        games = self.hub.games
        current = games.repository.get(self.game_id)
        while not self.stopped:
            if self.position >= current.version and current.rules.is_over(current.state):
                self.hub.finish(self, Ended(self.position))
                return
            batch = games.queries.wait_for_events(
                self.game_id,
                self.position,
                self.hub.wait_s,
                game=current,
                limit=STREAM_BATCH,
            )
            if self.stopped:
                return
            if batch and not any(e.type.startswith(SERVICE_EVENTS) for e in batch):
                # The game's own events: the game follows from folding them onto the copy
                # in hand (those it does not hold yet: the follower may start behind the
                # game it loaded), with no second read of its info, snapshot and events.
                newer = [event for event in batch if event.version > current.version]
                current = games.repository.advance(current, newer)
            else:
                # Nothing came (how a follower sees a game end with no event of its own),
                # or the service's events, which change more of the info (a claim renames a
                # seat): the game as it is now; every event read is in it, as the append
                # writes both at once.
                current = games.repository.get(self.game_id)
                batch = [event for event in batch if event.version <= current.version]
            if batch:
                self._hand_out(batch, current)

    def _hand_out(self, batch: list[StoredEvent], current: Any) -> None:
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
        with self.hub.lock:
            self.position = last
            for subscription in self.subscriptions:
                # A stream of a class that joined while the batch was rendered reads it itself.
                subscription.offer(rendered.get(subscription.viewer) or Behind(last))
            dropped = [s for s in self.subscriptions if s.closed is not None]
            for subscription in dropped:
                self.subscriptions.discard(subscription)
        for subscription in dropped:
            log.warning("event stream of %s closed: %s", self.game_id, subscription.closed)
            self.hub.on_drop()


class FanOut:
    """The followers of one server process, by game."""

    def __init__(
        self,
        games: GameService,
        *,
        wait_s: float,
        limit: int,
        work: AbstractContextManager[Any],
        on_drop: Any = None,
    ) -> None:
        self.games = games
        self.wait_s = wait_s  # one blocking read at most (the heartbeat)
        self.limit = limit  # events a stream may fall behind
        self.work = work
        self.lock = threading.Lock()
        self._followers: dict[str, Follower] = {}
        self._on_drop = on_drop

    def on_drop(self) -> None:
        if self._on_drop is not None:
            self._on_drop()

    @property
    def followed(self) -> int:
        """Games this process follows now."""
        return len(self._followers)

    def join(self, game_id: str, viewer: ViewerClass, after: int) -> Subscription:
        """Subscribe a stream that has sent every event up to ``after``; it must ``leave``."""
        with self.lock:
            follower = self._followers.get(game_id)
            start = follower is None
            if follower is None:
                follower = self._followers[game_id] = Follower(self, game_id, after)
            subscription = Subscription(game_id, viewer, self.limit, follower.position)
            follower.subscriptions.add(subscription)
        if start:
            follower.thread.start()
        return subscription

    def leave(self, subscription: Subscription) -> None:
        """The stream ended (however): its follower stops with its last stream."""
        with self.lock:
            follower = self._followers.get(subscription.game_id)
            if follower is None or subscription not in follower.subscriptions:
                return
            follower.subscriptions.discard(subscription)
            if not follower.subscriptions:
                follower.stopped = True
                del self._followers[subscription.game_id]

    def finish(self, follower: Follower, item: Ended | Closed) -> None:
        """``follower`` stops: each of its streams gets ``item`` last."""
        with self.lock:
            follower.stopped = True
            if self._followers.get(follower.game_id) is follower:
                del self._followers[follower.game_id]
            subscriptions = list(follower.subscriptions)
            follower.subscriptions.clear()
        for subscription in subscriptions:
            if isinstance(item, Closed):
                subscription.close(item.reason)
            else:
                subscription.offer(item)
