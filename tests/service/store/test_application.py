"""The application service on every adapter, with the Pile test game."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

from domain.common.errors import FormatError, IllegalCommand, NotAwaited
from service.application.commands import CommandOutcome
from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.tokens import hash_token
from service.errors import (
    ConcurrencyError,
    GameExists,
    GameNotFound,
    IdempotencyConflict,
    NotAllowedToAnswer,
    StoreUnavailable,
    UndoConflict,
    UndoNotFound,
    VersionNotFound,
)
from service.events import GameReverted, UndoAnswered, UndoRequested
from service.store.port import GameRecord, NewEvent
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.service.store.conftest import Backend, meta
from tests.service.store.pile_game import PILE, CountersTaken, PileState, TakeCounters


def new_pile(service: GameService, seed: int = 7, seats: int = 2) -> str:
    names = [f"p{n}" for n in range(seats)]
    return service.commands.create_game(
        "pile", names, {"max_take": 3}, seed, meta(None, "admin")
    ).game_id


def take(
    service: GameService, game_id: str, count: int = 1, seat: int | None = None, **kwargs: Any
) -> CommandOutcome:
    """Take ``count`` counters as ``seat`` (by default the seat to move)."""
    seat = service.repository.get(game_id).state.next_seat if seat is None else seat
    return service.commands.handle(
        game_id, {"type": "TakeCounters", "count": count}, meta=meta(seat), **kwargs
    )


def position(state: PileState) -> dict[str, Any]:
    return PILE.dump_position(state)


# -- creating games ----------------------------------------------------------------
def test_create_game_appends_the_start_events_at_version_zero(service: GameService) -> None:
    game = service.commands.create_game(
        "pile", ["ann", "bob"], {}, 7, meta(None, "admin"), game_id="g-1"
    )
    assert (game.game_id, game.kind, game.version) == ("g-1", "pile", 2)
    assert game.state == PILE.fold(PILE.start(["ann", "bob"], {"max_take": 3}, 7))
    info = service.queries.game_info("g-1")
    assert (info.kind, info.seat_names, info.options) == ("pile", ("ann", "bob"), {"max_take": 3})
    assert (info.status, info.version, info.start_version) == ("active", 2, 2)
    types = [e.type for e in service.queries.events("g-1")]
    assert types == ["pile.GameStarted", "pile.PileDealt"]


def test_a_game_id_is_taken_once(service: GameService) -> None:
    service.commands.create_game("pile", ["a", "b"], {}, 1, meta(None, "admin"), game_id="once")
    with pytest.raises(GameExists):
        service.commands.create_game("pile", ["a", "b"], {}, 2, meta(None, "admin"), game_id="once")
    assert service.repository.get("once").state.seed == 1


def test_without_a_seed_one_is_drawn_at_random(service: GameService) -> None:
    seeds = {service.repository.get(new_pile_with_seed_none(service)).state.seed for _ in range(3)}
    assert len(seeds) == 3


def new_pile_with_seed_none(service: GameService) -> str:
    return service.commands.create_game("pile", ["a", "b"], {}, None, meta(None, "admin")).game_id


@pytest.mark.parametrize(
    ("kind", "names", "options", "field"),
    [
        ("chess", ["a", "b"], {}, "kind"),
        ("pile", ["a"], {}, "seat_names"),
        ("pile", ["a", ""], {}, "seat_names"),
        ("pile", ["a", "b"], {"max_take": 9}, "max_take"),
    ],
)
def test_bad_games_are_refused(
    service: GameService, kind: str, names: list[str], options: dict[str, Any], field: str
) -> None:
    with pytest.raises(FormatError) as raised:
        service.commands.create_game(kind, names, options, 1, meta(None, "admin"), game_id="bad")
    assert raised.value.field == field
    with pytest.raises(GameNotFound):
        service.repository.get("bad")


def test_the_clock_and_the_caller_stamp_the_metadata(backend: Backend) -> None:
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    service = GameService(backend.events, backend.snapshots, {"pile": PILE}, clock=lambda: at)
    game_id = new_pile(service)
    outcome = service.commands.handle(
        game_id,
        {"type": "TakeCounters", "count": 2},
        meta=CommandMeta("cmd-1", "seat:0", 0, correlation_id="corr", causation_id="cause"),
    )
    (stored,) = outcome.events
    assert stored.metadata["recorded_at"] == "2026-01-02T03:04:05+00:00"
    assert {k: stored.metadata[k] for k in ("command_id", "actor", "seat")} == {
        "command_id": "cmd-1", "actor": "seat:0", "seat": 0,
    }  # fmt: skip
    assert (stored.metadata["correlation_id"], stored.metadata["causation_id"]) == (
        "corr",
        "cause",
    )
    assert len(stored.metadata["event_id"]) == 32
    assert service.queries.events(game_id)[-1].metadata == stored.metadata
    assert service.queries.game_info(game_id).created_at == "2026-01-02T03:04:05+00:00"


# -- handling commands -------------------------------------------------------------
def test_handle_decides_appends_and_evolves(service: GameService) -> None:
    game_id = new_pile(service)
    before = service.repository.get(game_id)
    outcome = take(service, game_id, 2)
    assert not outcome.replayed
    assert [e.event for e in outcome.events] == [CountersTaken(0, 2)]
    assert [e.version for e in outcome.events] == [3]
    assert outcome.game.version == 3
    assert outcome.game.state.pile == before.state.pile - 2
    assert position(service.repository.get(game_id).state) == position(outcome.game.state)


def test_the_seat_comes_from_the_caller_not_the_body(service: GameService) -> None:
    game_id = new_pile(service)
    with pytest.raises(NotAwaited):
        service.commands.handle(
            game_id, {"type": "TakeCounters", "seat": 0, "count": 1}, meta=meta(seat=1)
        )
    assert service.repository.get(game_id).version == 2


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"type": "TakeCounters", "count": 4}, IllegalCommand),
        ({"type": "TakeCounters", "count": "x"}, FormatError),
        ({"type": "TakeCounters", "count": 1, "extra": 1}, FormatError),
        ({"type": "Resign"}, FormatError),
        ({"count": 1}, FormatError),
    ],
)
def test_refused_commands_change_nothing(
    service: GameService, body: dict[str, Any], error: type[Exception]
) -> None:
    game_id = new_pile(service)
    with pytest.raises(error):
        service.commands.handle(game_id, body, meta=meta(0), idempotency_key="k")
    assert service.repository.get(game_id).version == 2
    # The key was not spent on the refusal.
    assert take(service, game_id, 1, idempotency_key="k").replayed is False


def test_command_objects_are_accepted_and_foreign_ones_refused(service: GameService) -> None:
    game_id = new_pile(service)
    assert service.commands.handle(game_id, TakeCounters(0, 2), meta=meta(0)).game.state.taken == (
        2,
        0,
    )
    with pytest.raises(FormatError):
        service.commands.handle(game_id, UndoAnswered("r", "x", True), meta=meta(1))
    assert service.repository.get(game_id).version == 3


def test_a_stale_expected_version_is_a_concurrency_error(service: GameService) -> None:
    game_id = new_pile(service)
    take(service, game_id, expected_version=2)
    with pytest.raises(ConcurrencyError) as raised:
        take(service, game_id, expected_version=2)
    assert (raised.value.expected, raised.value.actual) == (2, 3)


def test_unknown_games(service: GameService) -> None:
    for game_id in ("nope", "{bad}", ""):
        with pytest.raises(GameNotFound):
            service.repository.get(game_id)
        with pytest.raises(GameNotFound):
            service.commands.handle(game_id, {"type": "TakeCounters", "count": 1}, meta=meta(0))


def test_a_finished_game_is_marked_over(service: GameService) -> None:
    game_id = new_pile(service, seed=3)
    while not service.repository.get(game_id).state.over:
        take(service, game_id, 1)
    assert service.queries.game_info(game_id).status == "over"


def test_two_cached_services_on_one_store_never_decide_on_a_stale_copy(
    backend: Backend,
) -> None:
    # Two server processes, each with its own cache: each one's copy is behind after
    # the other appended, so its fast path must fall back to the checked path.
    first, second = (
        GameService(backend.events, backend.snapshots, {"pile": PILE}, cache_size=4)
        for _ in range(2)
    )
    game_id = new_pile(first)
    for turn in range(6):
        service = (first, second)[turn % 2]
        version = 2 + turn
        outcome = take(service, game_id, 1, turn % 2, expected_version=version)
        assert [e.version for e in outcome.events] == [version + 1]
        assert outcome.game.state.next_seat == (turn + 1) % 2
    with pytest.raises(ConcurrencyError):
        take(first, game_id, 1, 0, expected_version=7)  # first's copy is at 7, the game at 8
    with pytest.raises(NotAwaited):
        take(first, game_id, 1, 1)  # legal on first's stale copy, not on the game
    replayed = take(second, game_id, 1, 0, idempotency_key="k")
    again = take(first, game_id, 1, 0, idempotency_key="k")  # first is still behind
    assert again.replayed
    assert again.events == replayed.events
    assert first.repository.get(game_id).version == second.repository.get(game_id).version == 9


# -- idempotency -------------------------------------------------------------------
def test_the_same_command_fifty_times_yields_one_set_of_events(service: GameService) -> None:
    game_id = new_pile(service)
    outcomes = [take(service, game_id, 2, 0, idempotency_key="once") for _ in range(50)]
    assert [o.replayed for o in outcomes] == [False] + [True] * 49
    assert {tuple(e.version for e in o.events) for o in outcomes} == {(3,)}
    assert {tuple(e.metadata["event_id"] for e in o.events) for o in outcomes} == {
        (outcomes[0].events[0].metadata["event_id"],)
    }
    assert service.repository.get(game_id).version == 3


def test_the_same_command_fifty_times_concurrently(service: GameService) -> None:
    game_id = new_pile(service)
    barrier = threading.Barrier(50)

    def send(_: int) -> CommandOutcome:
        barrier.wait()
        return service.commands.handle(
            game_id,
            {"type": "TakeCounters", "count": 3},
            meta=meta(0),
            idempotency_key="burst",
        )

    with ThreadPoolExecutor(50) as pool:
        outcomes = list(pool.map(send, range(50)))
    assert Counter(o.replayed for o in outcomes) == {False: 1, True: 49}
    assert {tuple((e.version, e.metadata["event_id"]) for e in o.events) for o in outcomes} == {
        ((3, next(o for o in outcomes if not o.replayed).events[0].metadata["event_id"]),)
    }
    assert [e.version for e in service.queries.events(game_id)] == [1, 2, 3]


def test_another_command_under_a_used_key_is_refused(service: GameService) -> None:
    game_id = new_pile(service)
    take(service, game_id, 1, idempotency_key="k")
    with pytest.raises(IdempotencyConflict):
        service.commands.handle(
            game_id, {"type": "TakeCounters", "count": 2}, meta=meta(1), idempotency_key="k"
        )
    assert service.repository.get(game_id).version == 3


def test_a_replay_answers_even_after_the_game_moved_on(service: GameService) -> None:
    game_id = new_pile(service)
    first = take(service, game_id, 1, 0, idempotency_key="k")
    take(service, game_id, 1)
    again = service.commands.handle(
        game_id, {"type": "TakeCounters", "count": 1}, meta=meta(0), idempotency_key="k"
    )
    assert again.replayed
    assert again.events == first.events
    assert again.game.version == 4


# -- reading -----------------------------------------------------------------------
def test_events_by_range_and_waiting(service: GameService) -> None:
    game_id = new_pile(service)
    for _ in range(3):
        take(service, game_id)
    assert [e.version for e in service.queries.events(game_id, after_version=2, limit=2)] == [3, 4]
    assert [e.version for e in service.queries.wait_for_events(game_id, 4, timeout_s=1)] == [5]
    assert service.queries.wait_for_events(game_id, 5, timeout_s=0.05) == []
    with pytest.raises(FormatError):
        service.queries.events(game_id, after_version=-1)


def test_time_travel_equals_folding_the_first_events(service: GameService) -> None:
    game_id = new_pile(service, seed=11)
    while not service.repository.get(game_id).state.over:
        take(service, game_id, 2 if service.repository.get(game_id).state.pile > 2 else 1)
    events: list[Any] = [e.event for e in service.queries.events(game_id)]
    current = service.repository.get(game_id)
    for version in range(1, len(events) + 1):
        at = service.repository.get_at(game_id, version)
        past = service.repository.past(current, version)  # the same, from the game just loaded
        assert at.version == past.version == version
        assert position(at.state) == position(past.state) == position(PILE.fold(events[:version]))
        assert past.head == at.head
    for version in (0, len(events) + 1):
        with pytest.raises(VersionNotFound):
            service.repository.get_at(game_id, version)
        with pytest.raises(VersionNotFound):
            service.repository.past(current, version)


def test_list_games_filters_and_pages(backend: Backend) -> None:
    ticks = iter(range(1000))
    service = GameService(
        backend.events,
        backend.snapshots,
        {"pile": PILE},
        clock=lambda: datetime.fromtimestamp(1_800_000_000 + next(ticks), UTC),
    )
    ids = [new_pile(service, seed=n) for n in range(5)]
    finished = ids[1]
    while not service.repository.get(finished).state.over:
        take(service, finished, 1)
    listed, cursor = service.queries.list_games(limit=3)
    assert [g.game_id for g in listed] == ids[::-1][:3]
    rest, cursor = service.queries.list_games(limit=3, cursor=cursor)
    assert [g.game_id for g in rest] == ids[::-1][3:]
    assert cursor is None
    over, _ = service.queries.list_games(status="over")
    assert [g.game_id for g in over] == [finished]
    assert service.queries.list_games(kind="board")[0] == []
    with pytest.raises(FormatError):
        service.queries.list_games(limit=0)


def test_a_filtered_listing_reads_only_its_index(backend: Backend) -> None:
    # given 30 active games and, older than all of them, one that is over
    ticks = iter(range(1000))
    service = GameService(
        backend.events,
        backend.snapshots,
        {"pile": PILE},
        clock=lambda: datetime.fromtimestamp(1_800_000_000 + next(ticks), UTC),
    )
    finished = new_pile(service, seed=99)
    while not service.repository.get(finished).state.over:
        take(service, finished, 1)
    for n in range(30):
        new_pile(service, seed=n)
    reads: list[int] = []
    batched = backend.events.infos

    def infos(game_ids: Sequence[str]) -> list[GameRecord | None]:
        reads.append(len(game_ids))
        return batched(game_ids)

    backend.events.infos = infos  # type: ignore[method-assign]
    # when the one game that is over is asked for, then one page of one game is read
    over, _ = service.queries.list_games(status="over", limit=1)
    assert ([g.game_id for g in over], reads) == ([finished], [1])
    # and the status change moved it out of the active index
    active, _ = service.queries.list_games(status="active", limit=100)
    assert finished not in {g.game_id for g in active} and len(active) == 30


def test_listing_skips_and_repairs_index_entries_that_do_not_describe_their_game(
    backend: Backend,
) -> None:
    now = [1_800_000_000.0]
    service = GameService(
        backend.events,
        backend.snapshots,
        {"pile": PILE},
        clock=lambda: datetime.fromtimestamp(now[0], UTC),
    )
    game_id = new_pile(service)
    created_ms = service.queries.game_info(game_id).created_ms
    # given a status change cut short: the game is active but listed as over too
    backend.events.index_game(game_id, created_ms, kind="pile", status="over")
    # and a creation that was indexed but never written
    backend.events.index_game("ghost", created_ms + 1, kind="pile", status="active")
    # when listed, then neither shows where it does not belong
    assert service.queries.list_games(status="over") == ([], None)
    assert [g.game_id for g in service.queries.list_games()[0]] == [game_id]
    # and the status entry was repaired at once; the ghost is kept while its creation
    # may still be under way, and dropped once it is older than that
    assert backend.events.list_index(None, 10, status="over") == ([], None)
    assert "ghost" in [g for _, g in backend.events.list_index(None, 10)[0]]
    now[0] += 3600
    service.queries.list_games()
    assert [g for _, g in backend.events.list_index(None, 10)[0]] == [game_id]
    assert [g for _, g in backend.events.list_index(None, 10, kind="pile")[0]] == [game_id]


def test_a_creation_retried_with_its_key_gives_the_same_game_and_tokens(
    service: GameService, backend: Backend
) -> None:
    first = service.commands.create_seated_game(
        "pile", ["a", "b"], {}, 5, meta(None, "admin"), "k-1"
    )
    again = service.commands.create_seated_game(
        "pile", ["a", "b"], {}, 5, meta(None, "admin"), "k-1"
    )
    assert (first.replayed, again.replayed) == (False, True)
    assert again.game.game_id == first.game.game_id and again.tokens == first.tokens
    assert len(set(first.tokens)) == 2
    for seat, token in enumerate(first.tokens):
        assert token is not None  # every seat is named
        assert backend.tokens.seat_of(first.game.game_id, hash_token(token)) == seat
    assert [g.game_id for g in service.queries.list_games()[0]] == [first.game.game_id]
    # the same key with another body is refused and creates nothing
    with pytest.raises(IdempotencyConflict):
        service.commands.create_seated_game("pile", ["a", "c"], {}, 5, meta(None, "admin"), "k-1")
    assert len(service.queries.list_games()[0]) == 1
    # without a key every creation is a new game with fresh tokens
    other = service.commands.create_seated_game("pile", ["a", "b"], {}, 5, meta(None, "admin"))
    assert other.game.game_id != first.game.game_id and set(other.tokens).isdisjoint(first.tokens)


def test_a_creation_whose_game_write_was_lost_is_completed_by_the_retry(
    backend: Backend,
) -> None:
    # given an attempt that reserved its key and indexed the game, then failed to write it
    failing = {"on": True}
    append = backend.events.append

    def flaky_append(*args: Any, **kwargs: Any) -> Any:
        if failing["on"]:
            raise StoreUnavailable("connection lost")
        return append(*args, **kwargs)

    backend.events.append = flaky_append  # type: ignore[method-assign]
    service = GameService(backend.events, backend.snapshots, {"pile": PILE})
    with pytest.raises(StoreUnavailable):
        service.commands.create_seated_game("pile", ["a", "b"], {}, 5, meta(None, "admin"), "k-2")
    assert service.queries.list_games() == ([], None)  # indexed, not written: not listed
    # when the client retries with its key, then the very game is created, listed once
    failing["on"] = False
    created = service.commands.create_seated_game(
        "pile", ["a", "b"], {}, 5, meta(None, "admin"), "k-2"
    )
    assert created.replayed is False
    assert [g.game_id for g in service.queries.list_games()[0]] == [created.game.game_id]


def test_list_games_reads_a_page_of_infos_at_once(
    service: GameService, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [new_pile(service, seed=n) for n in range(3)]
    pages: list[list[str]] = []
    batched, single = backend.events.infos, backend.events.info

    def infos(game_ids: Sequence[str]) -> list[GameRecord | None]:
        pages.append(list(game_ids))
        return batched(game_ids)

    def info(game_id: str) -> GameRecord | None:
        # Only the memory adapter's ``infos`` (the port's default) may call ``info``.
        assert pages and game_id in pages[-1], f"info({game_id!r}) read alone"
        return single(game_id)

    monkeypatch.setattr(backend.events, "infos", infos)
    monkeypatch.setattr(backend.events, "info", info)

    listed, _ = service.queries.list_games(limit=3)

    assert sorted(g.game_id for g in listed) == sorted(ids)
    assert len(pages) == 1 and set(ids) <= set(pages[0])


# -- upcasting ---------------------------------------------------------------------
def test_old_schema_versions_are_upcast_on_read(service: GameService, backend: Backend) -> None:
    game_id = new_pile(service)
    # An event written by the code of schema v1, when the field was called "amount".
    old = NewEvent("pile.CountersTaken", 1, {"seat": 0, "amount": 2}, {"event_id": "old"})
    backend.events.append(game_id, [old], 2)
    (stored,) = service.queries.events(game_id, after_version=2)
    assert (stored.schema_version, stored.data) == (2, {"seat": 0, "count": 2})
    assert stored.event == CountersTaken(0, 2)
    game = service.repository.get(game_id)
    assert game.state.taken == (2, 0)
    assert take(service, game_id, 1).game.state.taken == (2, 1)


# -- undo: service events and reverts ----------------------------------------------
def test_undo_workflow_events_leave_the_state_alone(service: GameService) -> None:
    game_id = new_pile(service)
    take(service, game_id)
    before = service.repository.get(game_id)
    outcome = service.undo.append_service_events(
        game_id,
        [UndoRequested("r1", 2, "misclick", "seat:0"), UndoAnswered("r1", "seat:1", True)],
        meta=meta(0),
        expected_version=3,
    )
    assert [e.type for e in outcome.events] == ["service.UndoRequested", "service.UndoAnswered"]
    assert outcome.game.version == 5
    assert position(outcome.game.state) == position(before.state)
    assert position(service.repository.get(game_id).state) == position(before.state)


def test_a_revert_continues_from_the_earlier_state(service: GameService) -> None:
    game_id = new_pile(service)
    for _ in range(3):
        take(service, game_id, 1)
    at_three = service.repository.get_at(game_id, 3).state
    outcome = service.undo.revert(
        game_id, 3, reason="dispute", requested_by="seat:1", approved_by=["seat:0"],
        meta=meta(None, "admin"), expected_version=5,
    )  # fmt: skip
    assert outcome.events[0].event == GameReverted(3, "dispute", "seat:1", ("seat:0",))
    assert position(outcome.game.state) == position(at_three)
    assert position(service.repository.get(game_id).state) == position(at_three)
    # The stream keeps the disputed moves; play goes on from version 3's position.
    assert service.repository.get(game_id).version == 6
    assert take(service, game_id, 3).game.state.pile == at_three.pile - 3


def test_a_revert_may_target_a_version_after_an_earlier_revert(service: GameService) -> None:
    game_id = new_pile(service)
    take(service, game_id, 1)  # v3
    take(service, game_id, 1)  # v4
    service.undo.revert(
        game_id, 3, reason="a", requested_by="admin", approved_by=(), meta=meta(None, "admin"),
        expected_version=None,
    )  # v5: state of v3  # fmt: skip
    take(service, game_id, 3)  # v6: from v3's state, seat 1 takes 3
    at_six = service.repository.get(game_id).state
    take(service, game_id, 2)  # v7
    service.undo.revert(
        game_id, 6, reason="b", requested_by="admin", approved_by=(), meta=meta(None, "admin"),
        expected_version=7,
    )  # v8: state of v6, which lies after the first revert  # fmt: skip
    assert position(service.repository.get(game_id).state) == position(at_six)
    assert service.repository.get(game_id).state.taken == (1, 3)
    assert position(service.repository.get_at(game_id, 5).state) == position(
        service.repository.get_at(game_id, 3).state
    )


@pytest.mark.parametrize("to_version", [0, 1, 4, 99])
def test_reverts_outside_the_game_are_refused(service: GameService, to_version: int) -> None:
    game_id = new_pile(service)
    take(service, game_id)  # v3; the initial position is v2
    take(service, game_id)  # v4
    with pytest.raises(FormatError) as raised:
        service.undo.revert(
            game_id, to_version, reason="x", requested_by="admin", approved_by=(),
            meta=meta(None, "admin"), expected_version=None,
        )  # fmt: skip
    assert raised.value.field == "to_version"
    assert service.repository.get(game_id).version == 4


def test_service_events_must_be_service_events(service: GameService) -> None:
    game_id = new_pile(service)
    with pytest.raises(FormatError):
        service.undo.append_service_events(
            game_id,
            [TakeCounters(0, 1)],  # type: ignore[list-item]
            meta=meta(0),
            expected_version=None,
        )
    with pytest.raises(FormatError):
        service.undo.append_service_events(game_id, [], meta=meta(0), expected_version=None)
    assert service.repository.get(game_id).version == 2


def test_an_undo_request_is_applied_once_every_other_seat_approved(service: GameService) -> None:
    game_id = new_pile(service, seats=3)
    take(service, game_id)  # v3, seat 0
    take(service, game_id)  # v4, seat 1
    at_three = position(service.repository.get_at(game_id, 3).state)
    # given seat 1 asks to go back to v3 (another seat acted since: consent is needed)
    asked = service.undo.request_undo(game_id, 3, "misclick", meta=meta(1), expected_version=4)
    request_id = asked.record.request_id
    assert (asked.game.version, asked.record.status) == (5, "open")
    assert asked.record.awaiting(3) == ["seat:0", "seat:2"]
    # then a second request waits for the first, and the asking seat cannot answer
    with pytest.raises(UndoConflict) as raised:
        service.undo.request_undo(game_id, 3, "again", meta=meta(2), expected_version=None)
    assert raised.value.reason == "undo-pending"
    with pytest.raises(NotAllowedToAnswer):
        service.undo.answer_undo(game_id, request_id, True, meta=meta(1), expected_version=None)
    # when the two other seats approve, then the last approval applies it
    first = service.undo.answer_undo(game_id, request_id, True, meta=meta(0), expected_version=5)
    assert (first.record.status, first.record.awaiting(3)) == ("open", ["seat:2"])
    last = service.undo.answer_undo(game_id, request_id, True, meta=meta(2), expected_version=6)
    assert (last.record.status, last.record.applied_at, last.game.version) == ("applied", 8, 8)
    assert position(last.game.state) == position(service.repository.get(game_id).state) == at_three
    assert service.undo.request(game_id, request_id).record == last.record


def test_one_refusal_closes_an_undo_request(service: GameService) -> None:
    game_id = new_pile(service, seats=3)
    take(service, game_id)
    take(service, game_id)
    asked = service.undo.request_undo(game_id, 3, "misclick", meta=meta(1), expected_version=None)
    request_id = asked.record.request_id
    refused = service.undo.answer_undo(
        game_id, request_id, False, meta=meta(2), expected_version=None
    )
    assert (refused.record.status, refused.record.rejected_by) == ("rejected", ["seat:2"])
    with pytest.raises(UndoConflict) as raised:
        service.undo.answer_undo(game_id, request_id, True, meta=meta(0), expected_version=None)
    assert raised.value.reason == "undo-closed"
    with pytest.raises(UndoNotFound):
        service.undo.answer_undo(
            game_id, "no-such-request", True, meta=meta(0), expected_version=None
        )
    assert service.repository.get(game_id).version == 6


def test_an_undo_request_checks_the_expected_version_before_anything_else(
    service: GameService,
) -> None:
    game_id = new_pile(service)
    take(service, game_id)  # v3
    take(service, game_id)  # v4
    # a stale If-Match wins over every other refusal, here a target inside no game
    with pytest.raises(ConcurrencyError):
        service.undo.request_undo(game_id, 99, "late", meta=meta(0), expected_version=3)
    with pytest.raises(FormatError) as raised:
        service.undo.request_undo(game_id, 99, "late", meta=meta(0), expected_version=4)
    assert raised.value.field == "to_version"
    while not service.repository.get(game_id).state.over:
        take(service, game_id)
    with pytest.raises(UndoConflict) as over:
        service.undo.request_undo(game_id, 3, "too late", meta=meta(0), expected_version=None)
    assert over.value.reason == "game-over"
    assert service.undo.requests(game_id)[1] == []


# -- snapshots ---------------------------------------------------------------------
def test_snapshots_are_only_a_cache(service: GameService, backend: Backend) -> None:
    game_id = new_pile(service, seed=5)
    for _ in range(9):
        if service.repository.get(game_id).state.over:
            break
        take(service, game_id, 1)
    assert backend.snapshots.versions(game_id), "snapshot_every=4 should have written some"
    assert service.queries.check_snapshots(game_id) == []
    with_cache = service.repository.get(game_id)
    backend.snapshots.delete(game_id)
    without = GameService(backend.events, None, {"pile": PILE}).repository.get(game_id)
    assert position(with_cache.state) == position(without.state)
    assert with_cache.version == without.version


def test_check_snapshots_finds_a_wrong_one(service: GameService, backend: Backend) -> None:
    game_id = new_pile(service)
    for _ in range(5):
        take(service, game_id, 1)
    (version, *_) = backend.snapshots.versions(game_id)
    snapshot = backend.snapshots.get(game_id, version)
    assert snapshot is not None
    forged = type(snapshot)(version, {**snapshot.position, "pile": 1000})
    backend.snapshots.put(game_id, forged)
    assert [m.version for m in service.queries.check_snapshots(game_id)] == [version]


def test_an_unreadable_snapshot_is_ignored(service: GameService, backend: Backend) -> None:
    game_id = new_pile(service)
    for _ in range(5):
        take(service, game_id, 1)
    expected = position(service.repository.get(game_id).state)
    for version in backend.snapshots.versions(game_id):
        backend.snapshots.put(game_id, type_of_snapshot(version, {"format": "pile/0"}))
    assert position(service.repository.get(game_id).state) == expected


def type_of_snapshot(version: int, position: dict[str, Any]) -> Any:
    from service.store.port import Snapshot

    return Snapshot(version, position)


def test_a_revert_cannot_land_inside_one_command(service: GameService, backend: Backend) -> None:
    game_id = new_pile(service)
    # One command decided into two events (as a placement and its draw are in the real games).
    both = [
        NewEvent("pile.CountersTaken", 2, {"seat": 0, "count": 1}, {"command_id": "c1"}),
        NewEvent("pile.CountersTaken", 2, {"seat": 1, "count": 1}, {"command_id": "c1"}),
    ]
    backend.events.append(game_id, both, 2)
    take(service, game_id)  # v5
    with pytest.raises(FormatError, match="inside"):
        service.undo.revert(
            game_id, 3, reason="x", requested_by="admin", approved_by=(),
            meta=meta(None, "admin"), expected_version=None,
        )  # fmt: skip
    outcome = service.undo.revert(
        game_id, 4, reason="x", requested_by="admin", approved_by=(),
        meta=meta(None, "admin"), expected_version=5,
    )  # fmt: skip
    assert position(outcome.game.state) == position(service.repository.get_at(game_id, 4).state)


def test_a_broken_snapshot_cache_fails_no_command_and_no_load(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    # A command whose events Redis has taken must be answered as done: were the snapshot
    # write after it to fail the request, a client without a key would send it again.
    events = RedisEventStore(redis_client, prefix=key_prefix)
    snapshots = RedisSnapshotStore(redis_client, prefix=key_prefix)
    service = GameService(events, snapshots, {"pile": PILE}, snapshot_every=2)
    game_id = new_pile(service)
    redis_client.set(snapshots.keys.snapshots(game_id), "not a sorted set")  # a cache gone bad

    for _ in range(3):
        version = events.version(game_id)
        outcome = take(service, game_id)
        assert outcome.game.version == version + len(outcome.events) == events.version(game_id)
    without_cache = GameService(events, None, {"pile": PILE})
    assert service.repository.get(game_id).state == without_cache.repository.get(game_id).state
