"""The feed's projection on the in-memory stores: a seat's turn is read where an append
ends (a command's events share its id), so a command whose events pass through states
that await nobody (a conflict resolved, cards drawn, a turn begun) tells of no new turn;
and the projection run again, from any cursor, writes nothing twice."""

from __future__ import annotations

import random
import uuid

import pytest

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.store.memory import InMemoryEventStore


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_your_turn_entries_are_exactly_the_appends_after_which_a_seat_became_awaited(
    kind: str,
) -> None:
    # given a game with both seats bound to players, played by random legal commands
    games = GameService(InMemoryEventStore())
    ann, _ = games.players.create("Ann")
    bob, _ = games.players.create("Bob")
    owners = {0: ann.player_id, 1: bob.player_id}
    meta = CommandMeta(command_id=uuid.uuid4().hex, actor="system", seat=None)
    game = games.commands.create_game(kind, ["Ann", "Bob"], {}, 3, meta, players=owners)
    rng = random.Random(3)
    awaited = game.rules.awaited(game.state)
    expected = {(game.version, seat) for seat in awaited}  # the start
    for n in range(150):
        if not awaited:
            break
        seat = min(awaited)
        options = list(game.rules.legal_commands(game.state, seat))
        command = options[rng.randrange(len(options))]
        act = CommandMeta(command_id=f"c{n}", actor=f"seat:{seat}", seat=seat)
        game = games.commands.handle(game.game_id, command, meta=act).game
        now = game.rules.awaited(game.state)
        expected |= {(game.version, s) for s in now - awaited}
        awaited = now
        if n % 7 == 0:  # the projection runs now and then, as jobs do
            games.feeds.project(game.game_id)
    games.feeds.project(game.game_id)
    # then the feeds tell exactly those turns, each to the seat's player
    told = set()
    for seat, player in owners.items():
        entries, _, _ = games.feeds.page(player, 0, 1000)
        turns = [e.data for e in entries if e.data["type"] == "your_turn"]
        assert {t["seat"] for t in turns} <= {seat}
        told |= {(t["version"], t["seat"]) for t in turns}
    assert told == expected
    # and a projection run again from the start writes nothing more
    before = [games.feeds.store.bounds(player) for player in owners.values()]
    games.feeds.store._projected[game.game_id] = 0  # type: ignore[attr-defined]
    assert games.feeds.project(game.game_id) == {}
    assert [games.feeds.store.bounds(player) for player in owners.values()] == before
