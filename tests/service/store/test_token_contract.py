"""Contract of the token store port, run against every adapter.

Each test runs on the in-memory adapter, Redis 6.2 and Redis 7 (see conftest), with the
event store of the same family: seat tokens are written by the event store's appends
(the one creating the game, and an open seat's claim) and read through the token store.
"""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from domain.common.errors import FormatError
from service.errors import ConcurrencyError
from service.store.port import Idempotency, NewEvent
from tests.service.store.conftest import Backend, new_game_id


def event(n: int) -> NewEvent:
    return NewEvent("test.Happened", 1, {"n": n}, {"event_id": f"e{n}"})


def test_seat_tokens_are_written_with_the_append_that_carries_them(backend: Backend) -> None:
    store, tokens = backend.events, backend.tokens
    game_id = new_game_id()
    # given a game created with two seat token hashes (a third seat left open)
    store.append(game_id, [event(1)], 0, seat_tokens={"h0": 0, "h1": 1})
    # then each names its seat, in that game only
    assert (tokens.seat_of(game_id, "h0"), tokens.seat_of(game_id, "h1")) == (0, 1)
    assert tokens.seat_of(game_id, "h2") is None
    assert tokens.seat_of(new_game_id(), "h0") is None
    # when a later append (the open seat's claim) carries a token hash, it names its seat
    store.append(game_id, [event(2)], 1, seat_tokens={"h2": 2})
    assert tokens.seat_of(game_id, "h2") == 2
    # an append refused for a stale version writes no token
    with pytest.raises(ConcurrencyError):
        store.append(game_id, [event(9)], 1, seat_tokens={"h9": 2})
    assert tokens.seat_of(game_id, "h9") is None
    # nor does a creation refused because the game exists
    with pytest.raises(ConcurrencyError):
        store.append(game_id, [event(9)], 0, seat_tokens={"h8": 0})
    assert tokens.seat_of(game_id, "h8") is None
    assert store.version(game_id) == 2


def test_a_replayed_append_writes_no_token(backend: Backend) -> None:
    store, tokens = backend.events, backend.tokens
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0, seat_tokens={"h0": 0})
    key = Idempotency("claim-1", "hash-1")
    # given a claim appended with an idempotency key
    first = store.append(game_id, [event(2)], 1, idempotency=key, seat_tokens={"ha": 1})
    # when it is retried with the same key (say, with another token hash)
    again = store.append(game_id, [event(2)], 1, idempotency=key, seat_tokens={"hb": 1})
    # then the first append's answer comes back and only its token names the seat
    assert again.replayed and (again.first, again.last) == (first.first, first.last)
    assert (tokens.seat_of(game_id, "ha"), tokens.seat_of(game_id, "hb")) == (1, None)


def test_racing_appends_for_one_seat_leave_exactly_one_token(backend: Backend) -> None:
    store, tokens = backend.events, backend.tokens
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0, seat_tokens={"h0": 0})
    # given 8 threads appending a claim of seat 1 at the same version, each its own token
    barrier = threading.Barrier(8)
    won: list[str] = []

    def claim(n: int) -> None:
        barrier.wait(timeout=10)
        with contextlib.suppress(ConcurrencyError):
            store.append(game_id, [event(100 + n)], 1, seat_tokens={f"t{n}": 1})
            won.append(f"t{n}")

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    # then one append won, and only its token names the seat
    assert len(won) == 1 and store.version(game_id) == 2
    assert [n for n in range(8) if tokens.seat_of(game_id, f"t{n}") == 1] == [int(won[0][1:])]


def test_a_ticket_stands_for_its_holder_in_its_game_only(backend: Backend) -> None:
    tokens = backend.tokens
    game_id, other = new_game_id(), new_game_id()
    # given tickets of a seat and of the admin in one game
    tokens.put_ticket(game_id, "t-seat", "2", 60)
    tokens.put_ticket(game_id, "t-admin", "admin", 60)
    # then each names its holder, as often as asked while it lives
    for _ in range(2):
        assert tokens.ticket_holder(game_id, "t-seat") == "2"
        assert tokens.ticket_holder(game_id, "t-admin") == "admin"
    # and names nobody in another game, nor does a ticket never issued
    assert tokens.ticket_holder(other, "t-seat") is None
    assert tokens.ticket_holder(game_id, "t-unknown") is None
    # and tickets are not seat tokens
    assert tokens.seat_of(game_id, "t-seat") is None


def test_a_ticket_expires_after_its_lifetime(backend: Backend) -> None:
    tokens = backend.tokens
    game_id = new_game_id()
    tokens.put_ticket(game_id, "short", "0", 1)
    tokens.put_ticket(game_id, "long", "1", 60)
    assert tokens.ticket_holder(game_id, "short") == "0"
    time.sleep(1.2)
    assert tokens.ticket_holder(game_id, "short") is None
    assert tokens.ticket_holder(game_id, "long") == "1"


@pytest.mark.parametrize("game_id", ["", "{g}", "a:b", "x" * 65, "tab\there"])
def test_a_game_id_that_cannot_be_one_is_refused(backend: Backend, game_id: str) -> None:
    tokens = backend.tokens
    with pytest.raises(FormatError):
        tokens.seat_of(game_id, "h")
    with pytest.raises(FormatError):
        tokens.put_ticket(game_id, "t", "0", 60)
    with pytest.raises(FormatError):
        tokens.ticket_holder(game_id, "t")
