"""The lobby in the application layer: open seats and their claims, on every backend
(in memory, Redis 6.2 and 7, a Redis Cluster), with and without the game cache.

Claims that race are real threads on the real store: exactly one claim of a seat wins."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from service.application.game_service import GameService
from service.application.lobby import ClaimedSeat, claim_meta
from service.application.tokens import hash_token
from service.errors import (
    GameNotStarted,
    IdempotencyConflict,
    RevertNotAllowed,
    SeatNotFound,
    SeatNotOpen,
)
from service.events import SeatClaimed
from tests.service.store.conftest import Backend, meta
from tests.service.store.pile_game import PILE, TakeCounters

THREADS = 8


def open_game(service: GameService, seats: int = 3, open_seats: tuple[int, ...] = (1, 2)) -> str:
    names = [f"p{n}" if n not in open_seats else f"Open seat {n}" for n in range(seats)]
    created = service.commands.create_seated_game(
        "pile", names, {}, 7, meta(None, "admin"), open_seats=open_seats
    )
    assert [t is None for t in created.tokens] == [n in open_seats for n in range(seats)]
    return created.game.game_id


def race(count: int, attempt: Callable[[int], object]) -> tuple[list[object], list[Exception]]:
    """Run ``attempt(n)`` for n in 0..count-1 on as many threads, released together."""
    barrier = threading.Barrier(count)
    results: list[object] = []
    errors: list[Exception] = []

    def run(n: int) -> None:
        barrier.wait(timeout=10)
        try:
            results.append(attempt(n))
        except Exception as exc:  # collected and asserted on below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results, errors


def test_a_game_with_open_seats_waits_for_its_claims(service: GameService) -> None:
    # given a game created with seats 1 and 2 open
    game_id = open_game(service)
    game = service.repository.get(game_id)
    assert (game.info.status, game.info.open_seats) == ("open", (1, 2))
    version = game.version
    # when the named seat sends a command, then it is refused and nothing is stored
    with pytest.raises(GameNotStarted) as refused:
        service.commands.handle(game_id, TakeCounters(0, 1), meta=meta(0))
    assert refused.value.open_seats == (1, 2)
    assert service.repository.get(game_id).version == version
    # when both open seats are claimed, then the game starts and accepts commands
    first = service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1))
    assert first.game.info.status == "open" and first.game.info.open_seats == (2,)
    second = service.lobby.claim(game_id, 2, "Cyd", claim_meta("req-42", 2))
    started = second.game
    assert (started.info.status, started.info.open_seats) == ("active", ())
    assert started.info.start_version == started.version == version + 2
    # the claims are events of the stream, the new names are in the state and the info
    events = service.queries.events(game_id, after_version=version)
    assert [e.event for e in events] == [SeatClaimed(1, "Bea"), SeatClaimed(2, "Cyd")]
    assert events[1].metadata["correlation_id"] == "req-42"
    assert events[1].metadata["actor"] == "seat:2"
    reloaded = service.repository.at(service.repository.record(game_id), started.version)
    assert reloaded.state.seats == ("p0", "Bea", "Cyd")
    assert service.queries.game_info(game_id).seat_names == ("p0", "Bea", "Cyd")
    assert (
        service.commands.handle(game_id, TakeCounters(0, 1), meta=meta(0)).game.version
        > version + 2
    )


def test_the_claimed_token_stands_for_its_seat(service: GameService, backend: Backend) -> None:
    game_id = open_game(service)
    claimed = service.lobby.claim(game_id, 2, "Cyd", claim_meta(None, 2))
    assert backend.tokens.seat_of(game_id, hash_token(claimed.token)) == 2
    assert backend.tokens.seat_of(game_id, hash_token(claimed.token + "x")) is None


def test_a_seat_is_claimed_once(service: GameService) -> None:
    game_id = open_game(service)
    service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1))
    version = service.repository.get(game_id).version
    with pytest.raises(SeatNotOpen):  # claimed already
        service.lobby.claim(game_id, 1, "Eve", claim_meta(None, 1))
    with pytest.raises(SeatNotOpen):  # named at creation
        service.lobby.claim(game_id, 0, "Eve", claim_meta(None, 0))
    with pytest.raises(SeatNotFound):
        service.lobby.claim(game_id, 3, "Eve", claim_meta(None, 3))
    assert service.repository.get(game_id).version == version


def test_racing_claims_of_one_seat_leave_one_winner(service: GameService, backend: Backend) -> None:
    # given an open seat; when 8 threads claim it at once under different names
    game_id = open_game(service)
    version = service.repository.get(game_id).version
    results, errors = race(
        THREADS, lambda n: service.lobby.claim(game_id, 1, f"racer{n}", claim_meta(None, 1))
    )
    # then one claim won and every other was told the seat is not open
    assert len(results) == 1 and len(errors) == THREADS - 1
    assert all(isinstance(e, SeatNotOpen) for e in errors), errors
    winner = results[0]
    assert isinstance(winner, ClaimedSeat)
    events = service.queries.events(game_id, after_version=version)
    assert len(events) == 1 and isinstance(events[0].event, SeatClaimed)
    name = events[0].event.name
    assert service.queries.game_info(game_id).seat_names[1] == name
    # only the winner's token stands for the seat
    assert backend.tokens.seat_of(game_id, hash_token(winner.token)) == 1


def test_racing_claims_of_different_seats_all_succeed(service: GameService) -> None:
    # given a four-seat game with three open seats
    game_id = open_game(service, seats=4, open_seats=(1, 2, 3))
    # when they are claimed at the same moment, then each claim retries until it lands
    results, errors = race(
        3, lambda n: service.lobby.claim(game_id, n + 1, f"c{n}", claim_meta(None, n + 1))
    )
    assert errors == [] and len(results) == 3
    info = service.queries.game_info(game_id)
    assert (info.status, info.open_seats) == ("active", ())
    assert info.seat_names == ("p0", "c0", "c1", "c2")


def test_a_claim_retried_with_its_key_answers_the_same_token(service: GameService) -> None:
    game_id = open_game(service)
    first = service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1), "claim-key-1")
    again = service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1), "claim-key-1")
    assert (first.replayed, again.replayed) == (False, True)
    assert again.token == first.token and again.game.version == first.game.version
    # the same key for another claim is refused
    with pytest.raises(IdempotencyConflict):
        service.lobby.claim(game_id, 2, "Cyd", claim_meta(None, 2), "claim-key-1")
    assert service.queries.game_info(game_id).open_seats == (2,)


def test_racing_retries_of_one_claim_answer_one_token(service: GameService) -> None:
    game_id = open_game(service)
    results, errors = race(
        4, lambda n: service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1), "same-key")
    )
    assert errors == []
    assert len({r.token for r in results if isinstance(r, ClaimedSeat)}) == 1 == len(results) // 4
    assert service.queries.game_info(game_id).open_seats == (2,)


def test_no_undo_reaches_before_the_start(service: GameService) -> None:
    game_id = open_game(service, seats=2, open_seats=(1,))
    claimed = service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1))
    assert claimed.game.info.start_version == claimed.game.version
    service.commands.handle(game_id, TakeCounters(0, 1), meta=meta(0))
    game = service.repository.get(game_id)
    with pytest.raises(RevertNotAllowed):
        service.undo.check_revert_target(game, claimed.game.version - 1)
    service.undo.check_revert_target(game, claimed.game.version)


def test_a_process_whose_copy_is_still_open_accepts_commands_once_another_started_it(
    backend: Backend,
) -> None:
    # given two server processes (each its own game cache) on one store
    first, second = (
        GameService(backend.events, backend.snapshots, {"pile": PILE}, cache_size=16)
        for _ in range(2)
    )
    game_id = open_game(first, seats=2, open_seats=(1,))
    # the first keeps a copy of the open game (a refused command loaded it)
    with pytest.raises(GameNotStarted):
        first.commands.handle(game_id, TakeCounters(0, 1), meta=meta(0))
    assert first.repository.cached(game_id) is not None
    # when the second process takes the claim that starts the game
    second.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1))
    # then the first, on its stale copy, still accepts the next command
    outcome = first.commands.handle(game_id, TakeCounters(0, 1), meta=meta(0))
    assert outcome.game.info.status == "active"
