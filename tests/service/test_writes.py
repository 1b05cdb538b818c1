"""Writes end in the application: every append path tells the application's one write
observer port (``WriteObserver``), once per successful write, and never a refused command
or an idempotent replay; an observer that fails does not fail the write.

The observers here are in-process recorders (what a job observer is told), not stand-ins
for anything across a process boundary; that the jobs still follow every write (bots,
clocks, webhooks, on real Redis and RQ workers) is shown by ``tests/service/jobs``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from domain.common.errors import NotAwaited
from service.application.game_service import GameService
from service.application.lobby import claim_meta
from service.application.mapper import CommandMeta
from service.application.writes import Observers, Write
from service.errors import ConcurrencyError, NotAllowedToAnswer, SeatNotOpen
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from tests.service.store.pile_game import PILE


class Recorder:
    """A write observer that keeps what it is told."""

    def __init__(self) -> None:
        self.writes: list[Write] = []

    def appended(self, write: Write) -> None:
        self.writes.append(write)

    def versions(self) -> list[tuple[int, int]]:
        return [(w.first, w.version) for w in self.writes]


class Broken:
    def appended(self, write: Write) -> None:
        raise RuntimeError("the queue is on fire")


def as_seat(seat: int) -> CommandMeta:
    return CommandMeta.for_actor(f"seat:{seat}", seat)


ADMIN = CommandMeta.for_actor("admin")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def service(recorder: Recorder) -> GameService:
    events = InMemoryEventStore()
    return GameService(
        events, InMemorySnapshotStore(), {"pile": PILE}, cache_size=8, writes=[recorder]
    )


def new_game(service: GameService, seats: int = 3, **kwargs: Any) -> str:
    names = [f"p{n}" for n in range(seats)]
    created = service.commands.create_seated_game(
        "pile", names, {"max_take": 3}, 7, ADMIN, **kwargs
    )
    return created.game.game_id


def take(service: GameService, game_id: str, **kwargs: Any) -> Any:
    seat = service.repository.get(game_id).state.next_seat
    command = {"type": "TakeCounters", "count": 1}
    return service.commands.handle(game_id, command, meta=as_seat(seat), **kwargs)


def test_a_creation_is_one_write_and_its_idempotent_retry_none(
    service: GameService, recorder: Recorder
) -> None:
    # given a game created with an idempotency key
    names = ["a", "b"]
    first = service.commands.create_seated_game("pile", names, {}, 7, ADMIN, "key-1")
    # then the observer is told once, of its start events
    assert recorder.versions() == [(1, first.game.version)]
    assert [e.type for e in recorder.writes[0].events] == ["pile.GameStarted", "pile.PileDealt"]
    # when the creation is retried with the same key, then it is a replay: nothing told
    again = service.commands.create_seated_game("pile", names, {}, 7, ADMIN, "key-1")
    assert again.replayed
    assert len(recorder.writes) == 1


def test_a_command_is_one_write_and_refusals_and_replays_none(
    service: GameService, recorder: Recorder
) -> None:
    game_id = new_game(service)
    recorder.writes.clear()
    # when a command is appended, then the observer is told once, with its events
    mover = service.repository.get(game_id).state.next_seat
    outcome = take(service, game_id, idempotency_key="k")
    assert recorder.versions() == [(outcome.game.version, outcome.game.version)]
    told = recorder.writes[0]
    assert told.game is outcome.game and list(told.events) == outcome.events
    # when the same request is replayed, then nothing more is told
    replay = service.commands.handle(
        game_id, {"type": "TakeCounters", "count": 1}, meta=as_seat(mover), idempotency_key="k"
    )
    assert replay.replayed
    # when a seat out of turn is refused, or a stale If-Match conflicts, then nothing either
    with pytest.raises(NotAwaited):
        service.commands.handle(game_id, {"type": "TakeCounters", "count": 1}, meta=as_seat(mover))
    with pytest.raises(ConcurrencyError):
        take(service, game_id, expected_version=1)
    assert len(recorder.writes) == 1


def test_each_claim_is_one_write(service: GameService, recorder: Recorder) -> None:
    game_id = new_game(service, open_seats=(1, 2))
    recorder.writes.clear()
    # when the two open seats are claimed (the second twice with the same key)
    service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1))
    last = service.lobby.claim(game_id, 2, "Cy", claim_meta(None, 2), "claim-key")
    again = service.lobby.claim(game_id, 2, "Cy", claim_meta(None, 2), "claim-key")
    assert again.replayed
    # and a claim of a taken seat is refused
    with pytest.raises(SeatNotOpen):
        service.lobby.claim(game_id, 1, "Dan", claim_meta(None, 1))
    # then each successful claim was told once; the last one's game is started
    assert len(recorder.writes) == 2
    assert recorder.writes[-1].game.info.status == "active"
    assert recorder.writes[-1].version == last.game.version


def test_undo_requests_and_answers_are_writes_that_say_who_must_answer(
    service: GameService, recorder: Recorder
) -> None:
    game_id = new_game(service)
    take(service, game_id)
    take(service, game_id)
    recorder.writes.clear()
    # when seat 1 asks to go back (others acted: consent needed)
    asked = service.undo.request_undo(game_id, 3, "oops", meta=as_seat(1), expected_version=None)
    request_id = asked.record.request_id
    # then the write says the request awaits seats 0 and 2
    assert [w.awaiting for w in recorder.writes] == [("seat:0", "seat:2")]
    # when the asking seat tries to answer, it is refused: nothing told
    with pytest.raises(NotAllowedToAnswer):
        service.undo.answer_undo(game_id, request_id, True, meta=as_seat(1), expected_version=None)
    # when seat 0 approves, then only seat 2 is awaited; when seat 2 approves, nobody
    service.undo.answer_undo(game_id, request_id, True, meta=as_seat(0), expected_version=None)
    done = service.undo.answer_undo(
        game_id, request_id, True, meta=as_seat(2), expected_version=None
    )
    assert [w.awaiting for w in recorder.writes] == [("seat:0", "seat:2"), ("seat:2",), ()]
    assert done.record.status == "applied"
    assert recorder.writes[-1].version == done.game.version


def test_an_operators_revert_is_one_write(service: GameService, recorder: Recorder) -> None:
    game_id = new_game(service)
    take(service, game_id)
    recorder.writes.clear()
    reverted = service.undo.revert(
        game_id, 2, reason="x", requested_by="admin", approved_by=(), meta=ADMIN,
        expected_version=None,
    )  # fmt: skip
    assert recorder.versions() == [(reverted.game.version, reverted.game.version)]


def test_an_imported_record_is_one_write(service: GameService, recorder: Recorder) -> None:
    game_id = new_game(service)
    take(service, game_id)
    body = service.archive.export(game_id, viewer=None, admin=True).body
    recorder.writes.clear()
    imported = service.archive.import_record(body, ADMIN)
    assert [(w.game_id, w.first, w.version) for w in recorder.writes] == [
        (imported.game.game_id, 1, imported.game.version)
    ]


def test_an_observer_that_fails_does_not_fail_the_write(
    recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    # given a broken observer before a working one
    service = GameService(InMemoryEventStore(), None, {"pile": PILE}, writes=[Broken(), recorder])
    # when a game is created and a command appended
    with caplog.at_level(logging.ERROR, logger="tigris.writes"):
        game_id = new_game(service)
        outcome = take(service, game_id)
    # then both writes stand, the next observer was still told, and the failure is logged
    assert service.repository.get(game_id).version == outcome.game.version
    assert len(recorder.writes) == 2
    assert sum("sweep catches up" in r.getMessage() for r in caplog.records) == 2


def test_observers_added_later_are_told_too(recorder: Recorder) -> None:
    """The jobs' observer joins when the process wires it (``GameService.writes.add``)."""
    writes = Observers()
    service = GameService(InMemoryEventStore(), None, {"pile": PILE})
    service.writes.add(writes)
    writes.add(recorder)
    new_game(service)
    assert len(recorder.writes) == 1
