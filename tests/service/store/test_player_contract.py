"""Contract of the player store port, run against every adapter (in memory, Redis 6.2,
Redis 7 and a Redis Cluster: see conftest)."""

from __future__ import annotations

import uuid

import pytest

from domain.common.errors import FormatError
from service.store.memory import InMemoryPlayerStore
from service.store.port import PlayerRecord, PlayerStore
from service.store.redis_players import RedisPlayerStore
from tests.service.store.conftest import Backend, new_game_id


@pytest.fixture
def players(backend: Backend, key_prefix: str) -> PlayerStore:
    if backend.client is None:
        return InMemoryPlayerStore()
    return RedisPlayerStore(backend.client, prefix=key_prefix)


def player(name: str = "Ann") -> PlayerRecord:
    return PlayerRecord(uuid.uuid4().hex, name, "h" * 64, "2026-11-27T12:00:00+00:00")


def test_a_player_is_stored_once_under_its_id(players: PlayerStore) -> None:
    # given a player stored
    ann = player()
    assert players.create(ann)
    # then it reads back as stored, and its id cannot be taken again
    assert players.get(ann.player_id) == ann
    assert not players.create(PlayerRecord(ann.player_id, "Eve", "e" * 64, ann.created_at))
    assert players.get(ann.player_id) == ann
    assert players.get(uuid.uuid4().hex) is None


def test_a_players_lists_are_pages_newest_first(players: PlayerStore) -> None:
    ann, bob = player(), player("Bob")
    players.create(ann)
    players.create(bob)
    games = [(1000 + n, new_game_id()) for n in range(5)]
    # given five games of Ann's, the odd ones awaiting her, and one of Bob's
    for n, (ms, game_id) in enumerate(games):
        lists: list[str | None] = [None, "active", *(["awaiting"] if n % 2 else [])]
        players.add_game(ann.player_id, game_id, ms, lists)
        players.add_game(ann.player_id, game_id, ms, lists)  # twice changes nothing
    players.add_game(bob.player_id, new_game_id(), 5000, [None])
    # when Ann's games are read two at a time
    seen, cursor = [], None
    while True:
        page, cursor = players.list_games(ann.player_id, None, cursor, 2)
        seen += page
        if cursor is None:
            break
    # then every one comes once, newest first, and none of Bob's
    assert seen == sorted(games, reverse=True)
    awaiting, _ = players.list_games(ann.player_id, "awaiting", None, 10)
    assert awaiting == [games[3], games[1]]
    # and a game removed from one list stays in the others
    players.remove_game(ann.player_id, games[3][1], games[3][0], ["awaiting"])
    assert players.list_games(ann.player_id, "awaiting", None, 10)[0] == [games[1]]
    assert len(players.list_games(ann.player_id, "active", None, 10)[0]) == 5


@pytest.mark.parametrize("player_id", ["", "A" * 32, "0" * 31, "{x}", "a:b"])
def test_an_id_that_cannot_be_a_players_is_refused(players: PlayerStore, player_id: str) -> None:
    with pytest.raises(FormatError):
        players.get(player_id)
    with pytest.raises(FormatError):
        players.add_game(player_id, new_game_id(), 1, [None])
