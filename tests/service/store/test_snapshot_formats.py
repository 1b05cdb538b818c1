"""Snapshots written by an older position format version stay valid (issue 21, point 16: the
card position format went to version 3 with the trader's variant; a version 2 snapshot of a
stored game reads with the German trader, so it is neither a mismatch nor a cache miss)."""

from __future__ import annotations

from domain.cards import RULES
from service.application.game_service import GameService
from service.store.memory import InMemoryEventStore, InMemorySnapshotStore
from service.store.port import Snapshot
from tests.service.store.conftest import meta


def test_a_version_2_card_snapshot_agrees_with_the_full_fold() -> None:
    # given a card game with snapshots, each rewritten as position format version 2 wrote it
    events, snapshots = InMemoryEventStore(), InMemorySnapshotStore()
    service = GameService(events, snapshots, {"cards": RULES}, snapshot_every=4)
    game_id = service.create_game("cards", ["Ann", "Bob"], {}, 11, meta(None, "admin")).game_id
    for _ in range(12):
        state = service.load(game_id).state
        seat = next(iter(RULES.awaited(state)))
        command = next(iter(RULES.legal_commands(state, seat)))
        service.handle(game_id, RULES.commands.to_json(command), meta=meta(seat))
    versions = snapshots.versions(game_id)
    assert versions, "snapshot_every=4 should have written some"
    for version in versions:
        stored = snapshots.get(game_id, version)
        assert stored is not None and stored.position["version"] == 3
        old = {**stored.position, "version": 2}
        old["options"] = {k: v for k, v in old["options"].items() if k != "trader_takes_one"}
        snapshots.put(game_id, Snapshot(version, old))

    # when the snapshots are audited against a full fold, and the game is loaded
    mismatches = service.check_snapshots(game_id)
    loaded = GameService(events, snapshots, {"cards": RULES}, snapshot_every=4).load(game_id)
    folded = GameService(events, None, {"cards": RULES}).load(game_id)

    # then none differs, and the game loaded from them is the folded one
    assert mismatches == []
    assert loaded.state == folded.state and loaded.version == folded.version
