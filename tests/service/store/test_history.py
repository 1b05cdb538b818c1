"""A stale cached game catches up by reading only the events it lacks; the compact stored
metadata (version 2) keeps every audit field, and games stored with the old, full
metadata (version 1) still load and read the same."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.application import chain
from service.application.game_service import GameService
from service.application.mapper import (
    AUDIT_FIELDS,
    METADATA_VERSION,
    CommandMeta,
    decode_metadata,
    encode_metadata,
)
from service.store.port import NewEvent
from tests.service.store.conftest import Backend, meta
from tests.service.store.pile_game import PILE


class Recorder:
    """An observer that keeps what it is told (the application's real observer port)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.loads: list[str] = []

    def command(self, kind: str, command_type: str, outcome: str, seconds: float) -> None:
        pass

    def command_path(self, path: str) -> None:
        self.paths.append(path)

    def append_conflict(self, kind: str) -> None:
        pass

    def idempotent_replay(self, kind: str) -> None:
        pass

    def game_load(self, source: str) -> None:
        self.loads.append(source)


def services(backend: Backend) -> tuple[GameService, GameService, Recorder]:
    """Two server processes' services on one store, each with its own cache; the second
    one's observer is returned."""
    recorder = Recorder()
    first = GameService(backend.events, backend.snapshots, {"pile": PILE}, cache_size=4)
    second = GameService(
        backend.events, backend.snapshots, {"pile": PILE}, cache_size=4, observer=recorder
    )
    return first, second, recorder


def take(service: GameService, game_id: str, seat: int, version: int | None) -> int:
    outcome = service.commands.handle(
        game_id,
        {"type": "TakeCounters", "count": 1},
        meta=meta(seat),
        expected_version=version,
    )
    return outcome.game.version


def test_a_stale_copy_reads_only_the_events_it_lacks(backend: Backend) -> None:
    # Given: a game that the second process has in its cache, then played on by the first
    first, second, recorder = services(backend)
    game_id = first.commands.create_game(
        "pile", ["a", "b"], {"max_take": 1}, 11, meta(None, "admin")
    ).game_id
    version = take(second, game_id, 0, None)  # second loads it (its cache now holds it)
    version = take(first, game_id, 1, version)
    version = take(first, game_id, 0, version)
    recorder.paths.clear()
    recorder.loads.clear()
    # When: the second process gets the next command, with the caller's current If-Match,
    # and then one without If-Match after the first process moved the game on again
    version = take(second, game_id, 1, version)
    version = take(first, game_id, 0, version)
    version = take(second, game_id, 1, None)
    # Then: both caught up from the events they lacked (no load from a snapshot or from
    # the start), and the state is the fold of the whole log
    assert recorder.paths == ["catch_up", "catch_up"]
    assert recorder.loads == ["catch_up", "catch_up"]
    loaded = first.repository.get(game_id)
    assert loaded.version == version == second.repository.get(game_id).version
    logged: list[Any] = [e.event for e in first.queries.events(game_id)]
    folded = PILE.fold(logged)
    assert PILE.dump_position(second.repository.cached(game_id).state) == PILE.dump_position(  # type: ignore[union-attr]
        folded
    )
    assert second.queries.game_info(game_id).version == version


def test_a_followers_fold_of_older_events_never_sets_the_processs_copy_back(
    backend: Backend,
) -> None:
    # Given a game at version v1 as a stream's follower holds it, then played on twice by
    # this same process (its cache holds the game at v3)
    service, _, _ = services(backend)
    game_id = service.commands.create_game(
        "pile", ["a", "b"], {"max_take": 1}, 11, meta(None, "admin")
    ).game_id
    followed = service.repository.get(game_id)
    v2 = take(service, game_id, 0, followed.version)
    v3 = take(service, game_id, 1, v2)
    held = service.repository.cached(game_id)
    assert held is not None and held.version == v3
    events = service.queries.events(game_id, after_version=followed.version)
    # When the follower folds the first of those events onto its copy
    behind = service.repository.advance(followed, events[:1])
    # Then it has the game at v2, and the process's copy is still the one at v3 (a command
    # would otherwise start from behind and conflict)
    assert behind.version == v2
    assert service.repository.cached(game_id) is held
    # And folding on to v3 takes the copy the process holds, with no fold of its own
    assert service.repository.advance(behind, events[1:]) is held
    # While a game just read from the store is kept even if older (the store may have lost
    # writes: its game is the one commands must decide on)
    service.repository.remember(behind)
    assert service.repository.cached(game_id) is behind


def test_a_catch_up_across_a_revert_and_the_end_of_the_game(backend: Backend) -> None:
    # Given: a game the second process has cached; the first reverts it and plays on
    first, second, recorder = services(backend)
    game_id = first.commands.create_game(
        "pile", ["a", "b"], {"max_take": 1}, 5, meta(None, "admin")
    ).game_id
    start = take(second, game_id, 0, None)
    version = take(first, game_id, 1, start)
    version = first.undo.revert(
        game_id,
        start,
        reason="misclick",
        requested_by="seat:1",
        approved_by=("seat:0",),
        meta=meta(None, "admin"),
        expected_version=version,
    ).game.version
    recorder.paths.clear()
    # When: both processes play on, alternately, until the game is over
    last = second
    while first.queries.game_info(game_id).status == "active":
        seat = first.repository.get(game_id).state.next_seat
        last = (second, first)[version % 2]
        version = take(last, game_id, seat, version)
    # Then: the second's copies caught up through the revert, and the copy of the process
    # that ended the game knows it is over, with the revert in its history
    assert "catch_up" in recorder.paths and "checked" not in recorder.paths
    cached = last.repository.cached(game_id)
    assert cached is not None and cached.version == version
    assert cached.info.status == "over"
    assert cached.info.reverts == first.queries.game_info(game_id).reverts
    assert len(cached.info.reverts or ()) == 1
    assert PILE.dump_position(cached.state) == PILE.dump_position(
        first.repository.state_at(game_id, PILE, version)
    )


FULL = {
    "event_id": uuid.uuid4().hex,
    "command_id": uuid.uuid4().hex,
    "actor": "seat:2",
    "seat": 2,
    "correlation_id": None,
    "causation_id": None,
    "recorded_at": "2026-11-24T21:09:02.123456+00:00",
}


def test_the_stored_metadata_is_at_most_half_the_old_size_and_says_its_version() -> None:
    command_id = FULL["command_id"]
    old = {**FULL, "correlation_id": command_id, "causation_id": command_id}
    stored = encode_metadata(old)
    compact = json.dumps(stored, separators=(",", ":"))
    assert stored["v"] == METADATA_VERSION == 3
    assert len(compact) <= len(json.dumps(old, separators=(",", ":"))) / 2
    assert str(command_id) not in compact  # packed, and once only
    assert decode_metadata(stored) == old


ids = st.one_of(st.uuids().map(lambda u: u.hex), st.text(max_size=12), st.none())
times = st.one_of(
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat()),
    st.text(max_size=30),
    st.none(),
)


@given(
    event_id=ids,
    command_id=ids,
    correlation=ids,
    causation=ids,
    actor=st.sampled_from(["seat:0", "seat:3", "admin", "system", "bot:x"]),
    seat=st.one_of(st.none(), st.integers(0, 3)),
    recorded_at=times,
    same=st.booleans(),
)
def test_every_audit_field_survives_the_round_trip(  # noqa: PLR0917 (hypothesis's draws)
    event_id: str | None,
    command_id: str | None,
    correlation: str | None,
    causation: str | None,
    actor: str,
    seat: int | None,
    recorded_at: str | None,
    same: bool,
) -> None:
    full: dict[str, Any] = {
        "event_id": event_id,
        "command_id": command_id,
        "actor": actor,
        "seat": seat,
        "correlation_id": command_id if same else correlation,
        "causation_id": command_id if same else causation,
        "recorded_at": recorded_at,
    }
    stored = json.loads(json.dumps(encode_metadata(full)))  # as the store keeps it
    assert decode_metadata(stored) == full
    assert decode_metadata(full) == full  # the same record stored as version 1


def test_games_stored_with_the_old_full_metadata_still_load(backend: Backend) -> None:
    # Given: a game whose start events were stored as the service wrote them before the
    # compact form (version 1: the full record, no "v"), then a command in the new form
    service = GameService(backend.events, backend.snapshots, {"pile": PILE}, cache_size=0)
    game_id = uuid.uuid4().hex
    start = PILE.start(["a", "b"], PILE.normalize_options({"max_take": 2}), 3)
    old_meta = [
        {
            "event_id": uuid.uuid4().hex,
            "command_id": "create-1",
            "actor": "admin",
            "seat": None,
            "correlation_id": "create-1",
            "causation_id": "create-1",
            "recorded_at": "2025-01-02T03:04:05.000006+00:00",
        }
        for _ in start
    ]
    raw = [
        NewEvent(f"pile.{name}", version, data, old)
        for (name, version, data), old in zip(
            (PILE.events.encode(e) for e in start), old_meta, strict=True
        )
    ]
    info = {
        "kind": "pile",
        "seat_names": '["a", "b"]',
        "options": '{"max_take": 2}',
        "created_at": "2025-01-02T03:04:05.000006+00:00",
    }
    backend.events.append(game_id, raw, 0, info=info)
    # When: it is loaded, played on and read back
    loaded = service.repository.get(game_id)
    assert loaded.version == len(start)
    outcome = service.commands.handle(
        game_id,
        {"type": "TakeCounters", "count": 1},
        meta=CommandMeta(uuid.uuid4().hex, "seat:0", 0),
    )
    events = service.queries.events(game_id)
    # Then: the old events read exactly as stored, the new one in full too
    assert [e.metadata for e in events[: len(start)]] == old_meta
    assert events[-1].metadata == outcome.events[0].metadata
    # the audit fields, and the record's: its link, its command and its rule trail
    assert set(events[-1].metadata) == {*AUDIT_FIELDS, "hash", "command", "rules"}
    logged: list[Any] = [e.event for e in events]
    assert PILE.dump_position(service.repository.get(game_id).state) == PILE.dump_position(
        PILE.fold(logged)
    )


def test_version_3_keeps_the_games_record_apart_and_reads_version_2s_extras() -> None:
    # given a record with the hash chain's link, the command and the rule trail (issue 13)
    link = "ab" * 32
    full = {
        **FULL,
        "hash": link,
        "command": {"type": "PlaceTile", "colour": "red", "at": [5, 5]},
        "rules": ["B-TILE-1", "B-WAR-1"],
    }
    # when it is stored now, then each has its own key and the link is packed
    stored = json.loads(json.dumps(encode_metadata(full)))
    assert stored["v"] == 3
    assert stored["p"] == ["B-TILE-1", "B-WAR-1"]
    assert stored["k"] == full["command"]
    assert link not in json.dumps(stored) and len(stored["h"]) == 43
    assert "x" not in stored
    assert decode_metadata(stored) == full
    # and the same record as version 2 wrote it (the record's fields among the extras)
    as_v2 = {"v": 2, "a": "seat:2", "T": None, "C": None, "E": None, "x": {"rules": ["B-TILE-1"]}}
    decoded = decode_metadata(as_v2)
    assert decoded["rules"] == ["B-TILE-1"]
    assert "hash" not in decoded and "command" not in decoded  # none recorded


def _packed(hex_digits: str) -> str:
    """An id or hash as version 2 and 3 store it: its bytes in unpadded base64."""
    return base64.b64encode(bytes.fromhex(hex_digits)).decode().rstrip("=")


@pytest.mark.parametrize("with_record", [False, True], ids=["plain", "record-in-extras"])
def test_games_stored_with_version_2_metadata_load_and_compute_their_head(
    backend: Backend, with_record: bool
) -> None:
    # Given: a game whose start events were stored with version 2 metadata (the compact
    # form before version 3), plain or with the record's fields among its extras ("x"),
    # as version 2 kept them
    service = GameService(backend.events, backend.snapshots, {"pile": PILE}, cache_size=0)
    game_id = uuid.uuid4().hex
    options = PILE.normalize_options({"max_take": 2})
    start = PILE.start(["a", "b"], options, 3)
    command_id = uuid.uuid4().hex
    creation = {"type": "CreateGame", "seats": ["a", "b"], "options": options, "seed": 3}
    prev = chain.genesis(game_id, "pile", ["a", "b"], options)
    raw = []
    for n, event in enumerate(start):
        name, schema, data = PILE.events.encode(event)
        stored: dict[str, Any] = {
            "v": 2,
            "e": _packed(uuid.uuid4().hex),
            "c": _packed(command_id),
            "a": "admin",
            "t": 1_735_787_045_000_006,
        }
        if with_record:
            extras: dict[str, Any] = {"rules": ["P-1"]}
            if n == 0:
                extras["command"] = creation
            full = decode_metadata({**stored, "x": extras})
            extras["hash"] = prev = chain.link_of(prev, n + 1, f"pile.{name}", schema, full, data)
            stored["x"] = extras
        raw.append(NewEvent(f"pile.{name}", schema, data, stored))
    info = {
        "kind": "pile",
        "seat_names": '["a", "b"]',
        "options": json.dumps(options),
        "created_at": "2025-01-02T03:04:05.000006+00:00",
    }
    backend.events.append(game_id, raw, 0, info=info)
    # When: it is loaded and its head is asked for
    loaded = service.repository.get(game_id)
    head = service.repository.head_of(loaded)
    # Then: the head is the stored link (lifted out of the extras) or, where none was
    # stored, the link computed over the decoded events from the genesis
    events = service.queries.events(game_id)
    assert [e.metadata["command_id"] for e in events] == [command_id] * len(start)
    assert [e.metadata["recorded_at"] for e in events] == [
        "2025-01-02T03:04:05.000006+00:00"
    ] * len(start)
    expected = chain.links(
        chain.genesis(game_id, "pile", ["a", "b"], options),
        ((e.version, e.type, e.schema_version, e.data, e.metadata) for e in events),
    )[-1]
    assert head == expected
    if with_record:
        assert loaded.head == head == prev  # the stored one
        assert events[0].metadata["command"] == creation
        assert events[-1].metadata["rules"] == ["P-1"]
    else:
        assert loaded.head is None  # not stored: computed when asked
        assert "hash" not in events[0].metadata
    # and a command appended now links to that head, stored as version 3
    outcome = service.commands.handle(
        game_id,
        {"type": "TakeCounters", "count": 1},
        meta=CommandMeta(uuid.uuid4().hex, "seat:0", 0),
    )
    appended = outcome.events[0].metadata
    stored_now = backend.events.read(game_id, len(start))[0].metadata
    assert stored_now["v"] == METADATA_VERSION == 3 and "h" in stored_now
    assert decode_metadata(stored_now)[chain.HASH_KEY] == appended[chain.HASH_KEY]
    new = service.queries.events(game_id, after_version=len(start))[0]
    assert appended[chain.HASH_KEY] == chain.link_of(
        head, new.version, new.type, new.schema_version, new.metadata, new.data
    )
    assert service.repository.get(game_id).head == appended[chain.HASH_KEY]
