"""Game records: the hash chain stored with every event, the JSON Lines export, and its offline
verification (every hash, every event re-derived from its command by the domain).

Given full seeded games of both kinds (each with a consented undo) played through the
application service on a real Redis, when their records are exported, then they verify; and
when any single byte of one is changed, the verification names the version of the line
that holds that byte.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from domain.games import all_games
from service.application import chain, record
from service.application.game_service import GameService
from service.application.lobby import claim_meta
from service.application.mapper import CommandMeta, decode_metadata, encode_metadata
from service.config import StoreSettings
from service.events import GameReverted
from service.store.connect import connect
from service.store.port import NewEvent
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.redis_cluster import LocalCluster

GAMES = all_games()
SEEDS = {"board": 4_242_017, "cards": 5_150_023}
UNDO_AFTER = 12  # commands played before the consented undo
MAX_COMMANDS = 6_000  # a bound on any one game's length


def meta(seat: int | None) -> CommandMeta:
    actor = "admin" if seat is None else f"seat:{seat}"
    return CommandMeta(command_id=uuid.uuid4().hex, actor=actor, seat=seat)


@pytest.fixture(params=[0, 16], ids=["uncached", "cached"])
def service(
    redis_url: str, key_prefix: str, request: pytest.FixtureRequest
) -> Iterator[GameService]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield GameService(
        RedisEventStore(client, prefix=key_prefix),
        RedisSnapshotStore(client, prefix=key_prefix),
        snapshot_every=7,  # loads start from snapshots: the head comes from the event there
        cache_size=request.param,
    )
    client.close()


@dataclass
class Played:
    game_id: str
    commands: int
    reverted_at: int  # the version of the GameReverted


def play(service: GameService, kind: str, seed: int, *, to_end: bool = True) -> Played:
    """A seeded two-seat game of random legal commands, with one consented undo of the last
    command after ``UNDO_AFTER`` commands; played to its end unless ``to_end`` is False
    (then stopped soon after the undo)."""
    rules = GAMES[kind]
    game_id = service.commands.create_game(kind, ["Ann", "Bob"], {}, seed, meta(None)).game_id
    rng = random.Random(seed)
    reverted_at = 0
    game = service.repository.get(game_id)
    for commands in range(1, MAX_COMMANDS):
        if rules.is_over(game.state) or (not to_end and commands > UNDO_AFTER + 5):
            return Played(game_id, commands - 1, reverted_at)
        seat = min(rules.awaited(game.state))
        command = rng.choice(list(rules.legal_commands(game.state, seat)))
        before = game.version
        game = service.commands.handle(game_id, command, meta=meta(seat)).game
        if commands == UNDO_AFTER:
            asker = 1 - seat
            asked = service.undo.request_undo(
                game_id, before, "a slip", meta=meta(asker), expected_version=None
            )
            assert asked.record.status == "open"
            answer = service.undo.answer_undo(
                game_id, asked.record.request_id, True, meta=meta(seat), expected_version=None
            )
            assert answer.record.status == "applied"
            reverted_at = answer.game.version
            game = answer.game
    raise AssertionError(f"a {kind} game longer than {MAX_COMMANDS} commands")


def lines(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.splitlines()]


@pytest.fixture(scope="module")
def records(redis_url: str) -> dict[str, bytes]:
    """The admin's records of one full game of each kind (played once for the module)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    prefix = f"rec-{uuid.uuid4().hex[:8]}"
    service = GameService(
        RedisEventStore(client, prefix=prefix),
        RedisSnapshotStore(client, prefix=prefix),
        snapshot_every=50,
        cache_size=16,
    )
    out = {}
    for kind, seed in SEEDS.items():
        played = play(service, kind, seed)
        exported = service.archive.export(played.game_id, viewer=None, admin=True)
        assert exported.complete
        out[kind] = exported.body
    client.close()
    return out


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_a_genuine_record_of_a_full_game_with_an_undo_verifies(
    records: dict[str, bytes], kind: str
) -> None:
    body = records[kind]
    verified = record.verify(body, GAMES)
    header = verified.header
    assert header["kind"] == kind and header["complete"] is True
    assert header["events"] == len(verified.events) == len(body.splitlines()) - 1
    assert GAMES[kind].is_over(verified.state)
    assert verified.reverts, "the game holds a service.GameReverted"
    types = {line["type"] for line in verified.events}
    assert {"service.UndoRequested", "service.UndoAnswered", "service.GameReverted"} <= types
    first = verified.events[0]
    assert first["command"]["type"] == "CreateGame" and first["command"]["seed"] == SEEDS[kind]


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_changing_any_single_byte_is_detected_at_the_version_of_its_line(
    records: dict[str, bytes], kind: str
) -> None:
    body = records[kind]
    rng = random.Random(kind)
    starts = [0, *(n + 1 for n, byte in enumerate(body) if byte == ord("\n"))]
    positions = set(rng.sample(range(len(body)), 24))
    positions.update({0, len(body) - 1, starts[1] - 1, starts[1], starts[2] - 2})
    # Inside the header's fields, and inside the hash, data, meta and command of event lines.
    header_line = body[: starts[1]]
    for name in (b'"seats"', b'"options"', b'"events"', b'"genesis"', b'"head"', b'"game_id"'):
        positions.add(header_line.index(name) + len(name) + 3)
    for version in rng.sample(range(1, len(starts) - 1), 8):
        line = body[starts[version] : starts[version + 1]]
        for name in (b'"hash":"', b'"data":{', b'"meta":{', b'"version":', b'"type":"'):
            positions.add(starts[version] + line.index(name) + len(name) + 1)
        if b'"command":{' in line:
            positions.add(starts[version] + line.index(b'"command":{') + 14)
    for position in sorted(positions):
        changed = bytearray(body)
        changed[position] ^= rng.choice((0x01, 0x02, 0x20))
        expected = body[:position].count(b"\n")
        with pytest.raises(record.Disagreement) as caught:
            record.verify(bytes(changed), GAMES)
        assert caught.value.version == expected, (position, caught.value.reason)


def test_a_replay_that_the_rules_refuse_names_the_version_even_when_rehashed(
    records: dict[str, bytes],
) -> None:
    """Given a record whose hashes were all recomputed after an event's data was changed,
    when it is verified, then the domain's replay finds the event it would not produce."""
    parsed = lines(records["board"])
    header, events = parsed[0], parsed[1:]
    target = next(e for e in events[5:] if e["type"] == "board.TilesDrawn")
    target["data"]["tiles"] = list(reversed(target["data"]["tiles"]))
    if target["data"]["tiles"] == list(reversed(target["data"]["tiles"])):
        target["data"]["tiles"] = ["red", *target["data"]["tiles"][1:]]
    prev = header["genesis"]
    for event in events:
        parts = {k: event[k] for k in ("version", "type", "schema", "data", "meta", "command")}
        event["hash"] = prev = chain.link(
            prev,
            parts["version"],
            parts["type"],
            parts["schema"],
            parts["data"],
            parts["meta"],
            parts["command"],
        )
    header["head"] = prev
    with pytest.raises(record.Disagreement) as caught:
        record.verify(record.dump([header, *events]), GAMES)
    assert caught.value.version == target["version"]
    assert "derive" in caught.value.reason


def test_each_stored_event_carries_its_link_and_the_first_of_each_command_the_command(
    service: GameService,
) -> None:
    played = play(service, "board", 77, to_end=False)
    store = service.store
    raw = store.read(played.game_id)
    full = [decode_metadata(e.metadata) for e in raw]  # as stored: encoded (version 3)
    assert all(e.metadata["v"] == 3 and "h" in e.metadata for e in raw)
    game = service.repository.get(played.game_id)
    info = game.info
    prev = chain.genesis(played.game_id, "board", info.seat_names, info.options)
    for event, metadata in zip(raw, full, strict=True):
        assert metadata[chain.HASH_KEY] == chain.link_of(
            prev, event.version, event.type, event.schema_version, metadata, event.data
        )
        prev = metadata[chain.HASH_KEY]
    assert game.head == prev
    assert full[0]["command"]["type"] == "CreateGame"
    assert all(isinstance(m.get(chain.TRAIL_KEY), list) for m in full[:3])  # trails kept
    commands = [m.get("command") for m in full]
    by_command: dict[str, list[Any]] = {}
    for metadata, command in zip(full, commands, strict=True):
        by_command.setdefault(metadata["command_id"], []).append(command)
    for group in by_command.values():
        assert group[0] is not None and all(c is None for c in group[1:])
    exported = service.archive.export(played.game_id, viewer=None, admin=True)
    assert record.verify(exported.body, GAMES).header["head"] == prev


def test_a_running_game_s_record_is_redacted_for_a_seat_with_the_stored_hashes(
    service: GameService,
) -> None:
    played = play(service, "cards", 91, to_end=False)
    full = lines(service.archive.export(played.game_id, viewer=None, admin=True).body)
    seen = service.archive.export(played.game_id, viewer=0, admin=False)
    mine = lines(seen.body)
    assert not seen.complete and mine[0]["complete"] is False
    assert [line.get("hash") for line in mine[1:]] == [line["hash"] for line in full[1:]]
    assert str(91) not in json.dumps(mine[1]["data"]) and "seed" not in mine[1]["command"]
    others = [line for line in mine[1:] if line["meta"].get("seat") == 1 and line["command"]]
    assert not [line for line in others if line["command"]["type"] not in record.SERVICE_COMMANDS]
    with pytest.raises(record.Incomplete):
        record.verify(seen.body, GAMES)


def test_a_game_stored_before_hashes_loads_continues_and_exports_one_chain(
    service: GameService,
) -> None:
    """Given a game whose events were stored without hashes or commands (as before), when it
    is loaded and a command appended, then the new event links to the head computed over
    the old events, and the export's hashes (computed for the old ones) form one chain."""
    played = play(service, "board", 55, to_end=False)
    store = service.store
    original = store.read(played.game_id)
    old_id = uuid.uuid4().hex
    stripped = [
        NewEvent(
            e.type,
            e.schema_version,
            e.data,
            encode_metadata(
                {
                    k: v
                    for k, v in decode_metadata(e.metadata).items()
                    if k not in (chain.HASH_KEY, chain.COMMAND_KEY)
                }
            ),
        )
        for e in original
    ]
    info_record = store.info(played.game_id)
    assert info_record is not None
    store.append(old_id, stripped, 0, info=info_record.fields)
    game = service.repository.get(old_id)
    assert game.head is None  # not stored: computed when an append needs it
    rules = game.rules
    seat = min(rules.awaited(game.state))
    command = next(iter(rules.legal_commands(game.state, seat)))
    outcome = service.commands.handle(old_id, command, meta=meta(seat))
    exported = lines(service.archive.export(old_id, viewer=None, admin=True).body)
    header, events = exported[0], exported[1:]
    prev = header["genesis"]
    for event in events:
        prev = chain.link(
            prev,
            event["version"],
            event["type"],
            event["schema"],
            event["data"],
            event["meta"],
            event["command"],
        )
        assert event["hash"] == prev
    assert outcome.events[-1].metadata[chain.HASH_KEY] == prev == header["head"]
    assert sum(1 for e in events if isinstance(e["command"], dict)) == 1  # only the new one


def test_an_imported_record_continues_as_a_new_game_with_its_own_chain(
    service: GameService, records: dict[str, bytes]
) -> None:
    played = play(service, "board", 31, to_end=False)
    body = service.archive.export(played.game_id, viewer=None, admin=True).body
    created = service.archive.import_record(body, meta(None))
    game = created.game
    original = service.repository.get(played.game_id)
    assert game.game_id != played.game_id and len(created.tokens) == 2
    assert game.version == original.version
    assert game.rules.dump_position(game.state) == original.rules.dump_position(original.state)
    assert service.repository.get(game.game_id).info.reverts == original.info.reverts
    again = lines(service.archive.export(game.game_id, viewer=None, admin=True).body)
    source = lines(body)
    assert [e["data"] for e in again[1:]] == [e["data"] for e in source[1:]]
    assert again[0]["genesis"] != source[0]["genesis"]
    record.verify(record.dump(again), GAMES)
    seat = min(game.rules.awaited(game.state))
    command = next(iter(game.rules.legal_commands(game.state, seat)))
    service.commands.handle(game.game_id, command, meta=meta(seat))  # it continues
    finished = service.archive.import_record(records["cards"], meta(None)).game
    assert finished.rules.is_over(finished.state) and finished.info.status == "over"
    assert any(isinstance(e.event, GameReverted) for e in service.queries.events(finished.game_id))


def test_two_processes_with_cached_games_keep_one_chain(redis_url: str, key_prefix: str) -> None:
    """Given two services (two processes) on one store, each caching the games it touched,
    when they take turns sending the commands of one game (each deciding on a copy that the
    other's append made stale), then every stored link follows the one before it."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    one, two = (
        GameService(RedisEventStore(client, prefix=key_prefix), cache_size=16) for _ in range(2)
    )
    rules = GAMES["cards"]
    game_id = one.commands.create_game("cards", ["Ann", "Bob"], {}, 12_345, meta(None)).game_id
    rng = random.Random(3)
    for turn in range(40):
        service = (one, two)[turn % 2]
        state = one.repository.get(game_id).state
        seat = min(rules.awaited(state))
        command = rng.choice(list(rules.legal_commands(state, seat)))
        service.commands.handle(game_id, command, meta=meta(seat))
    body = two.archive.export(game_id, viewer=None, admin=True).body
    verified = record.verify(body, GAMES)
    stored = [decode_metadata(e.metadata)[chain.HASH_KEY] for e in one.store.read(game_id)]
    assert [line["hash"] for line in verified.events] == stored
    client.close()


def test_the_chain_on_a_redis_cluster(redis_cluster: LocalCluster, key_prefix: str) -> None:
    """The links ride in the events' own entries, which the append script writes on the
    game's slot: a game played on a cluster exports a record that verifies."""
    connection = connect(StoreSettings(redis_url=redis_cluster.url, key_prefix=key_prefix))
    try:
        service = GameService(connection.events, connection.snapshots, snapshot_every=5)
        played = play(service, "board", 2_024, to_end=False)
        body = service.archive.export(played.game_id, viewer=None, admin=True).body
        assert (
            record.verify(body, GAMES).header["events"]
            == service.repository.get(played.game_id).version
        )
        imported = service.archive.import_record(body, meta(None)).game
        assert imported.version == service.repository.get(played.game_id).version
    finally:
        connection.close()


def play_lobby_game(service: GameService, kind: str, seed: int) -> tuple[str, int]:
    """A three-seat game created with seats 1 and 2 open, both claimed (renaming them),
    then a few random legal commands and one consented undo of the last of them; returns
    the game id and the version of the claim that started it."""
    rules = GAMES[kind]
    names = ["Ann", "Open seat 1", "Cy?"]
    created = service.commands.create_seated_game(
        kind, names, {}, seed, meta(None), open_seats=[1, 2]
    )
    game_id = created.game.game_id
    service.lobby.claim(game_id, 2, "Cyd", claim_meta("req-claim-2", 2))
    started = service.lobby.claim(game_id, 1, "Bea", claim_meta(None, 1)).game
    assert started.info.status == "active"
    assert started.info.seat_names == ("Ann", "Bea", "Cyd")
    rng = random.Random(seed)
    game = started
    before = game.version
    for _ in range(6):
        seat = min(rules.awaited(game.state))
        before = game.version
        game = service.commands.handle(
            game_id, rng.choice(list(rules.legal_commands(game.state, seat))), meta=meta(seat)
        ).game
    asker = next(s for s in range(3) if s != seat)
    asked = service.undo.request_undo(
        game_id, before, "a slip", meta=meta(asker), expected_version=None
    )
    answer = asked
    for other in (s for s in range(3) if s != asker):
        answer = service.undo.answer_undo(
            game_id, asked.record.request_id, True, meta=meta(other), expected_version=None
        )
    assert answer.record.status == "applied"
    return game_id, started.version


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_a_lobby_game_s_record_verifies_and_a_changed_claim_is_named(
    service: GameService, kind: str
) -> None:
    """Given a game whose open seats were claimed (a ``service.SeatClaimed`` each, recorded
    with its ``ClaimSeat`` command and chained) and then played, with an undo: its record
    verifies, the header shows the current names and the genesis of the creation's, and any
    single byte changed in a SeatClaimed line is found at that line's version."""
    game_id, start_version = play_lobby_game(service, kind, SEEDS[kind] + 1)
    game = service.repository.get(game_id)
    body = service.archive.export(game_id, viewer=None, admin=True).body
    verified = record.verify(body, GAMES)
    header = verified.header
    assert header["seats"] == ["Ann", "Bea", "Cyd"]
    creation = ["Ann", "Open seat 1", "Cy?"]
    assert header["genesis"] == chain.genesis(game_id, kind, creation, header["options"])
    assert header["head"] == service.repository.head_of(game) == game.head
    assert verified.start_version == start_version and verified.reverts
    claims = [e for e in verified.events if e["type"] == "service.SeatClaimed"]
    assert [c["command"] for c in claims] == [
        {"type": "ClaimSeat", "seat": 2, "name": "Cyd"},
        {"type": "ClaimSeat", "seat": 1, "name": "Bea"},
    ]
    assert verified.events[0]["command"]["open_seats"] == [1, 2]
    # every stored link is the one the verification recomputed
    stored = [decode_metadata(e.metadata)[chain.HASH_KEY] for e in service.store.read(game_id)]
    assert [e["hash"] for e in verified.events] == stored
    # a single changed byte in a SeatClaimed line is named at its version
    starts = [0, *(n + 1 for n, byte in enumerate(body) if byte == ord("\n"))]
    rng = random.Random(kind)
    for claim in claims:
        version = claim["version"]
        line = body[starts[version] : starts[version + 1] - 1]
        positions = set(rng.sample(range(len(line)), 12))
        for name in (b'"name":"', b'"seat":', b'"command":{', b'"meta":{', b'"hash":"'):
            positions.add(line.index(name) + len(name) + 1)
        for position in sorted(positions):
            changed = bytearray(body)
            changed[starts[version] + position] ^= rng.choice((0x01, 0x02, 0x20))
            with pytest.raises(record.Disagreement) as caught:
                record.verify(bytes(changed), GAMES)
            assert caught.value.version == version, (position, caught.value.reason)
    # the header's names must be those of the creation and the claims
    parsed = lines(body)
    parsed[0]["seats"] = ["Ann", "Bea", "Cy?"]
    with pytest.raises(record.Disagreement) as caught:
        record.verify(record.dump(parsed), GAMES)
    assert caught.value.version == 0


def rehashed(parsed: list[dict[str, Any]]) -> bytes:
    """A record with every hash recomputed (as a forger would)."""
    header, events = parsed[0], parsed[1:]
    prev = header["genesis"]
    for event in events:
        event["hash"] = prev = chain.link(
            prev,
            event["version"],
            event["type"],
            event["schema"],
            event["data"],
            event["meta"],
            event["command"],
        )
    header["head"] = prev
    return record.dump([header, *events])


def test_a_claim_is_re_derived_from_its_command_even_when_rehashed(
    service: GameService,
) -> None:
    game_id, _ = play_lobby_game(service, "board", 606)
    body = service.archive.export(game_id, viewer=None, admin=True).body
    version = next(e["version"] for e in lines(body)[1:] if e["type"] == "service.SeatClaimed")
    forgeries: dict[str, Callable[[dict[str, Any]], object]] = {
        "the claim's event": lambda e: e["data"].update(name="Eve"),
        "not open": lambda e: (e["command"].update(seat=0), e["data"].update(seat=0)),
        "without a name": lambda e: (e["command"].update(name=" "), e["data"].update(name=" ")),
        "claimed seat": lambda e: e["meta"].update(actor="seat:0"),
    }
    for reason, forge in forgeries.items():
        parsed = lines(body)
        forge(parsed[version])
        with pytest.raises(record.Disagreement) as caught:
            record.verify(rehashed(parsed), GAMES)
        assert caught.value.version == version and reason in caught.value.reason
    # an imported lobby game keeps the current names and its own, verifiable chain
    imported = service.archive.import_record(body, meta(None)).game
    assert imported.info.seat_names == ("Ann", "Bea", "Cyd")
    again = service.archive.export(imported.game_id, viewer=None, admin=True).body
    assert record.verify(again, GAMES).header["seats"] == ["Ann", "Bea", "Cyd"]


def test_a_board_record_from_before_conflict_outcomes_were_recorded_still_verifies(
    records: dict[str, bytes],
) -> None:
    """Given a board record as a game stored before ``ConflictResolved`` existed exports it
    (no such lines; the versions after them one lower), when it is verified, then it does:
    the rules derive the record of each outcome, but it changes no state (``records``)."""
    parsed = lines(records["board"])
    header, events = parsed[0], parsed[1:]
    reverted = next(e["version"] for e in events if e["type"] == "service.GameReverted")
    outcomes = [e["version"] for e in events if e["type"] == "board.ConflictResolved"]
    assert outcomes and min(outcomes) > reverted  # so no undo names a version that moves
    old = [e for e in events if e["type"] != "board.ConflictResolved"]
    for number, event in enumerate(old, start=1):
        event["version"] = number
    header["events"] = len(old)
    verified = record.verify(rehashed([header, *old]), GAMES)
    assert len(verified.events) == len(old) and GAMES["board"].is_over(verified.state)
    # and an outcome the rules would not derive is still named
    changed = lines(records["board"])
    target = next(e for e in changed[1:] if e["type"] == "board.ConflictResolved")
    target["data"]["winner"] = target["data"]["loser"]
    with pytest.raises(record.Disagreement) as caught:
        record.verify(rehashed(changed), GAMES)
    assert caught.value.version == target["version"]


def test_a_cards_record_with_version_1_conflict_outcomes_still_verifies(
    records: dict[str, bytes],
) -> None:
    """Given a cards record whose ``ConflictResolved`` lines are at schema version 1 (no
    loser, no base/committed split), when it is verified, then it does: an event recorded
    at an older version agrees on the fields it recorded."""
    parsed = lines(records["cards"])
    added = ("loser", "attacker_base", "attacker_committed", "defender_base", "defender_committed")
    found = 0
    for event in parsed[1:]:
        if event["type"] == "cards.ConflictResolved":
            event["schema"] = 1
            event["data"] = {k: v for k, v in event["data"].items() if k not in added}
            found += 1
    assert found
    assert GAMES["cards"].is_over(record.verify(rehashed(parsed), GAMES).state)
    # and a version 1 outcome with another winner is still named
    target = next(e for e in parsed[1:] if e["type"] == "cards.ConflictResolved")
    target["data"]["winner"] = target["data"][
        "defender" if target["data"]["winner"] == target["data"]["attacker"] else "attacker"
    ]
    with pytest.raises(record.Disagreement) as caught:
        record.verify(rehashed(parsed), GAMES)
    assert caught.value.version == target["version"]
