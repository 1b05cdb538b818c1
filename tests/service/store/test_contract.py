"""Contract of the event store and snapshot ports, run against every adapter.

Each test runs on the in-memory adapter, Redis 6.2 and Redis 7 (see conftest).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from domain.common.errors import FormatError
from service.errors import ConcurrencyError, IdempotencyConflict
from service.store.port import (
    AppendResult,
    EventStore,
    Idempotency,
    NewEvent,
    Snapshot,
)
from tests.service.store.conftest import Backend, new_game_id


def event(n: int, **extra: object) -> NewEvent:
    return NewEvent(
        type="test.Happened",
        schema_version=1,
        data={"n": n, "text": "Uruk — Ur ✓", "nested": {"list": [1, 2, None]}, **extra},
        metadata={"event_id": f"e{n}", "command_id": "c", "seat": None, "recorded_at": "t"},
    )


def payloads(store: EventStore, game_id: str) -> list[object]:
    return [e.data["n"] for e in store.read(game_id)]


# -- appends and reads -----------------------------------------------------------
def test_an_unknown_game_is_empty(store: EventStore) -> None:
    game_id = new_game_id()
    assert store.version(game_id) == 0
    assert store.read(game_id) == []
    assert store.read_range(game_id, 1, 10) == []
    assert store.info(game_id) is None
    assert store.lookup_idempotency(game_id, "k") is None


def test_append_numbers_events_from_one_and_reads_them_back_unchanged(store: EventStore) -> None:
    game_id = new_game_id()
    result = store.append(game_id, [event(1), event(2), event(3)], 0)
    assert result == AppendResult(1, 3)
    assert store.version(game_id) == 3
    recorded = store.read(game_id)
    assert [r.version for r in recorded] == [1, 2, 3]
    assert [r.game_id for r in recorded] == [game_id] * 3
    assert len({r.stream_id for r in recorded}) == 3
    first = recorded[0]
    assert (first.type, first.schema_version) == ("test.Happened", 1)
    assert first.data == dict(event(1).data)
    assert first.metadata == dict(event(1).metadata)


def test_appends_continue_the_numbering(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    assert store.append(game_id, [event(2), event(3)], 1) == AppendResult(2, 3)
    assert payloads(store, game_id) == [1, 2, 3]


def test_read_after_a_version_with_a_limit_and_ranges(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(n) for n in range(1, 11)], 0)
    assert [r.version for r in store.read(game_id, after_version=7)] == [8, 9, 10]
    assert [r.version for r in store.read(game_id, after_version=2, limit=3)] == [3, 4, 5]
    assert store.read(game_id, after_version=10) == []
    assert [r.version for r in store.read_range(game_id, 4, 6)] == [4, 5, 6]
    assert [r.version for r in store.read_range(game_id, 9, 20)] == [9, 10]
    assert store.read_range(game_id, 6, 5) == []


@pytest.mark.parametrize("expected", [0, 1, 3])
def test_a_stale_expected_version_is_refused_and_changes_nothing(
    store: EventStore, expected: int
) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1), event(2)], 0, info={"status": "active"})
    with pytest.raises(ConcurrencyError) as raised:
        store.append(game_id, [event(99)], expected, info={"status": "over"})
    assert (raised.value.expected, raised.value.actual) == (expected, 2)
    assert payloads(store, game_id) == [1, 2]
    info = store.info(game_id)
    assert info is not None
    assert info.fields["status"] == "active"


def test_bad_input_is_refused_before_anything_is_written(store: EventStore) -> None:
    game_id = new_game_id()
    with pytest.raises(ValueError, match="at least one event"):
        store.append(game_id, [], 0)
    with pytest.raises(ValueError, match="expected_version"):
        store.append(game_id, [event(1)], -1)
    with pytest.raises(FormatError, match="game_id"):
        store.append("a{b}:c", [event(1)], 0)
    with pytest.raises(FormatError, match="game_id"):
        store.read("with space")
    assert store.version(game_id) == 0


def test_info_is_written_with_the_append(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0, info={"kind": "test", "status": "active"})
    store.append(game_id, [event(2)], 1, info={"status": "over"})
    info = store.info(game_id)
    assert info is not None
    assert info.fields == {"kind": "test", "status": "over"}
    assert info.version == 2


def test_infos_answers_for_several_games_in_order(store: EventStore) -> None:
    first, missing, second = new_game_id(), new_game_id(), new_game_id()
    store.append(first, [event(1)], 0, info={"kind": "one"})
    store.append(second, [event(1), event(2)], 0, info={"kind": "two"})

    records = store.infos([second, missing, first])

    summary = [None if r is None else (r.game_id, r.fields, r.version) for r in records]
    assert summary == [(second, {"kind": "two"}, 2), None, (first, {"kind": "one"}, 1)]
    assert store.infos([]) == []


# -- idempotency -------------------------------------------------------------------
def test_a_repeated_idempotency_key_returns_the_original_result(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    key = Idempotency("key-1", "hash-a")
    first = store.append(game_id, [event(2), event(3)], 1, idempotency=key)
    assert first == AppendResult(2, 3)
    again = store.append(game_id, [event(2), event(3)], 1, idempotency=key)
    assert again == AppendResult(2, 3, replayed=True)
    # Even with a version that is stale by now: the record answers first.
    later = store.append(game_id, [event(2), event(3)], 3, idempotency=key)
    assert later == AppendResult(2, 3, replayed=True)
    assert payloads(store, game_id) == [1, 2, 3]
    assert store.lookup_idempotency(game_id, "key-1") == ("hash-a", AppendResult(2, 3, True))


def test_a_used_key_with_another_command_is_refused(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0, idempotency=Idempotency("k", "hash-a"))
    with pytest.raises(IdempotencyConflict):
        store.append(game_id, [event(2)], 1, idempotency=Idempotency("k", "hash-b"))
    assert payloads(store, game_id) == [1]


def test_idempotency_keys_are_per_game(store: EventStore) -> None:
    one, two = new_game_id(), new_game_id()
    store.append(one, [event(1)], 0, idempotency=Idempotency("k", "h"))
    assert store.append(two, [event(1)], 0, idempotency=Idempotency("k", "h")).replayed is False


def test_a_failed_append_records_no_idempotency_key(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    with pytest.raises(ConcurrencyError):
        store.append(game_id, [event(2)], 0, idempotency=Idempotency("k", "h"))
    assert store.lookup_idempotency(game_id, "k") is None


def test_the_same_key_sent_concurrently_appends_once(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(0)], 0)
    key = Idempotency("same", "hash")
    barrier = threading.Barrier(16)

    def send(_: int) -> AppendResult:
        barrier.wait()
        return store.append(game_id, [event(1), event(2)], 1, idempotency=key)

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(send, range(16)))
    assert Counter(r.replayed for r in results) == {True: 15, False: 1}
    assert {(r.first, r.last) for r in results} == {(2, 3)}
    assert payloads(store, game_id) == [0, 1, 2]


# -- races -------------------------------------------------------------------------
def test_sixteen_writers_on_one_version_exactly_one_wins_each_round(store: EventStore) -> None:
    game_id = new_game_id()
    rounds, writers = 12, 16
    barrier = threading.Barrier(writers)
    wins: Counter[int] = Counter()
    refusals: Counter[int] = Counter()
    lock = threading.Lock()

    def writer(seat: int) -> None:
        for version in range(rounds):
            barrier.wait()  # everyone starts the round with the same expected version
            try:
                store.append(game_id, [event(seat * 1000 + version)], version)
            except ConcurrencyError as exc:
                assert exc.actual == version + 1
                with lock:
                    refusals[version] += 1
            else:
                with lock:
                    wins[version] += 1
            barrier.wait()  # the round is over for everyone before the next starts

    threads = [threading.Thread(target=writer, args=(seat,)) for seat in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wins == dict.fromkeys(range(rounds), 1)
    assert refusals == dict.fromkeys(range(rounds), writers - 1)
    recorded = store.read(game_id)
    assert [r.version for r in recorded] == list(range(1, rounds + 1))
    assert [int(str(r.data["n"])) % 1000 for r in recorded] == list(range(rounds))


def test_retrying_writers_leave_no_gaps_and_no_duplicates(store: EventStore) -> None:
    game_id = new_game_id()
    writers, each = 16, 6

    def writer(seat: int) -> int:
        conflicts = 0
        for k in range(each):
            while True:
                current = store.version(game_id)
                try:
                    store.append(
                        game_id, [event(seat * 100 + k), event(-(seat * 100 + k))], current
                    )
                    break
                except ConcurrencyError:
                    conflicts += 1
        return conflicts

    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(writer, range(writers)))
    recorded = store.read(game_id)
    assert [r.version for r in recorded] == list(range(1, 2 * writers * each + 1))
    values = [int(str(r.data["n"])) for r in recorded]
    assert sorted(values[0::2]) == sorted(s * 100 + k for s in range(writers) for k in range(each))
    # Both events of one append are adjacent: no interleaving, no partial append.
    assert values[1::2] == [-v for v in values[0::2]]


def test_a_reader_never_sees_part_of_an_append(store: EventStore) -> None:
    game_id = new_game_id()
    done = threading.Event()
    seen: set[int] = set()

    def reader() -> None:
        while not done.is_set():
            seen.add(len(store.read(game_id)))

    thread = threading.Thread(target=reader)
    thread.start()
    for k in range(40):
        store.append(game_id, [event(5 * k + j) for j in range(5)], 5 * k)
    done.set()
    thread.join()
    assert all(size % 5 == 0 for size in seen), sorted(seen)


# -- waiting -----------------------------------------------------------------------
def test_wait_returns_at_once_when_events_are_there(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1), event(2)], 0)
    assert [r.version for r in store.wait(game_id, 0, timeout_s=5)] == [1, 2]
    assert [r.version for r in store.wait(game_id, 1, timeout_s=0)] == [2]


def test_wait_times_out_empty(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    started = time.monotonic()
    assert store.wait(game_id, 1, timeout_s=0.2) == []
    assert time.monotonic() - started >= 0.15
    assert store.wait(game_id, 1, timeout_s=0) == []


def test_wait_wakes_up_on_an_append(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    timer = threading.Timer(0.1, lambda: store.append(game_id, [event(2)], 1))
    timer.start()
    started = time.monotonic()
    woken = store.wait(game_id, 1, timeout_s=10)
    timer.join()
    assert [r.data["n"] for r in woken] == [2]
    assert time.monotonic() - started < 5


# -- watching many games ----------------------------------------------------------------
def test_a_watch_reads_each_games_new_events_and_leaves_out_the_games_with_none(
    store: EventStore,
) -> None:
    # Given three games with 1, 3 and 2 events
    games = [new_game_id() for _ in range(3)]
    for game_id, count in zip(games, (1, 3, 2), strict=True):
        store.append(game_id, [event(n) for n in range(1, count + 1)], 0)
    watch = store.watch()
    try:
        if not watch.shared:  # this adapter's watch reads one game at a time
            assert [e.version for e in watch.read({games[1]: 1}, 5, limit=10)[games[1]]] == [2, 3]
            return
        # When one read asks for each game's events after versions 1, 1 and 2
        found = watch.read({games[0]: 1, games[1]: 1, games[2]: 2}, 5, limit=10)
        # Then it returns at once the second game's two new events, and no other game
        assert {g: [e.version for e in events] for g, events in found.items()} == {games[1]: [2, 3]}
        assert found[games[1]][0] == store.read(games[1], 1)[0]
        # And at most ``limit`` events per game
        found = watch.read({games[1]: 0, games[2]: 0}, 5, limit=1)
        assert {g: [e.version for e in events] for g, events in found.items()} == {
            games[1]: [1],
            games[2]: [1],
        }
    finally:
        watch.close()


def test_a_watch_wakes_up_on_an_append_to_any_of_its_games(store: EventStore) -> None:
    games = [new_game_id() for _ in range(3)]
    for game_id in games:
        store.append(game_id, [event(1)], 0)
    watch = store.watch()
    if not watch.shared:
        games = games[2:]
    timer = threading.Timer(0.1, lambda: store.append(games[-1], [event(2)], 1))
    timer.start()
    try:
        started = time.monotonic()
        woken = watch.read(dict.fromkeys(games, 1), 10, limit=10)
        assert {g: [e.data["n"] for e in events] for g, events in woken.items()} == {games[-1]: [2]}
        assert time.monotonic() - started < 5
        # and with nothing new, a read times out empty
        started = time.monotonic()
        assert watch.read({games[-1]: 2}, 0.2, limit=10) == {}
        assert time.monotonic() - started >= 0.15
    finally:
        timer.join()
        watch.close()


def test_an_interrupt_ends_a_blocked_watch_at_once(store: EventStore) -> None:
    game_id = new_game_id()
    store.append(game_id, [event(1)], 0)
    watch = store.watch()
    if not watch.shared:
        assert watch.interrupt() is False  # one game per read: nothing to add to it
        return
    found: list[object] = []
    # Given a read blocked for up to 30 s on a game where nothing comes
    reader = threading.Thread(target=lambda: found.append(watch.read({game_id: 1}, 30, limit=10)))
    started = time.monotonic()
    reader.start()
    try:
        # When it is interrupted (tried again until a read was blocked to end)
        deadline = started + 10
        while not watch.interrupt() and time.monotonic() < deadline:
            time.sleep(0.01)
        reader.join(timeout=10)
        # Then it returns empty within a few seconds, and the watch reads on
        assert found == [{}]
        assert time.monotonic() - started < 5
        store.append(game_id, [event(2)], 1)
        assert [e.version for e in watch.read({game_id: 1}, 5, limit=10)[game_id]] == [2]
    finally:
        reader.join(timeout=40)
        watch.close()


# -- the game index ----------------------------------------------------------------
def test_the_index_lists_newest_first_in_pages(store: EventStore) -> None:
    ids = [f"g{n}-{new_game_id()[:6]}" for n in range(5)]
    for n, game_id in enumerate(ids):
        store.append(game_id, [event(n)], 0)
        store.index_game(game_id, 1_700_000_000_000 + n)
    store.index_game(ids[0], 1_700_000_000_000)  # indexing twice changes nothing
    page, cursor = store.list_game_ids(None, 2)
    assert page == [ids[4], ids[3]]
    assert cursor is not None
    page, cursor = store.list_game_ids(cursor, 2)
    assert page == [ids[2], ids[1]]
    page, cursor = store.list_game_ids(cursor, 2)
    assert (page, cursor) == ([ids[0]], None)


# -- snapshots ---------------------------------------------------------------------
def test_snapshots_latest_at_or_before_a_version(backend: Backend) -> None:
    snapshots = backend.snapshots
    game_id = new_game_id()
    assert snapshots.latest(game_id) is None
    for version in (10, 20, 30):
        snapshots.put(game_id, Snapshot(version, {"at": version, "é": [version]}))
    assert snapshots.latest(game_id) == Snapshot(30, {"at": 30, "é": [30]})
    assert snapshots.latest(game_id, at_most=29) == Snapshot(20, {"at": 20, "é": [20]})
    assert snapshots.latest(game_id, at_most=9) is None
    assert snapshots.versions(game_id) == [10, 20, 30]
    assert snapshots.get(game_id, 20) == Snapshot(20, {"at": 20, "é": [20]})
    assert snapshots.get(game_id, 21) is None


def test_a_snapshot_put_twice_at_one_version_is_replaced(backend: Backend) -> None:
    snapshots = backend.snapshots
    game_id = new_game_id()
    snapshots.put(game_id, Snapshot(5, {"v": "old"}))
    snapshots.put(game_id, Snapshot(5, {"v": "new"}))
    assert snapshots.versions(game_id) == [5]
    assert snapshots.get(game_id, 5) == Snapshot(5, {"v": "new"})


def test_deleting_snapshots(backend: Backend) -> None:
    snapshots = backend.snapshots
    game_id = new_game_id()
    snapshots.put(game_id, Snapshot(5, {}))
    snapshots.delete(game_id)
    assert snapshots.latest(game_id) is None
    assert snapshots.versions(game_id) == []


def test_the_filtered_indexes_list_only_their_games_and_forget_on_request(
    store: EventStore,
) -> None:
    # given games of two kinds, one of them over
    ids = [f"f{n}-{new_game_id()[:6]}" for n in range(4)]
    kinds = ["board", "cards", "board", "cards"]
    statuses = ["active", "active", "over", "over"]
    for n, game_id in enumerate(ids):
        store.index_game(game_id, 1_700_000_000_000 + n, kind=kinds[n], status=statuses[n])
    # when listed per filter, then each index holds exactly its games, newest first
    assert [g for _, g in store.list_index(None, 10)[0]] == ids[::-1]
    assert [g for _, g in store.list_index(None, 10, kind="board")[0]] == [ids[2], ids[0]]
    assert [g for _, g in store.list_index(None, 10, status="over")[0]] == [ids[3], ids[2]]
    page, cursor = store.list_index(None, 1, kind="cards", status="over")
    assert (page, cursor) == ([(1_700_000_000_003, ids[3])], f"{1_700_000_000_003:015d}:{ids[3]}")
    assert store.list_index(cursor, 1, kind="cards", status="over") == ([], None)
    # when a game leaves its status indexes, then only those change
    store.unindex_game(ids[3], 1_700_000_000_003, [(None, "over"), ("cards", "over")])
    assert store.list_index(None, 10, kind="cards", status="over") == ([], None)
    assert [g for _, g in store.list_index(None, 10, kind="cards")[0]] == [ids[3], ids[1]]


def test_a_creation_record_is_kept_by_the_first_writer(store: EventStore) -> None:
    key = f"create-{new_game_id()}"
    first = store.reserve_creation(key, {"game_id": "a", "hash": "x"}, 3600)
    again = store.reserve_creation(key, {"game_id": "b", "hash": "y"}, 3600)
    assert first == again == {"game_id": "a", "hash": "x"}
