"""``rules.rename_seat`` (an open seat claimed in the lobby) in both games: the seat's name
changes in every view and in the position format, and nothing else does."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.games import all_games
from tests.autoplay import choose_command


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_renaming_a_seat_changes_its_name_only(kind: str) -> None:
    rules: Any = all_games()[kind]
    # given a game a few commands in
    state = rules.fold(rules.start(["Ann", "Open seat 1", "Cy"], {}, 7))
    rng = random.Random(3)
    for _ in range(5):
        command = choose_command(rules, state, rng)
        for event in rules.decide(state, command):
            state = rules.evolve(state, event)
    # when seat 1 is renamed
    renamed = rules.rename_seat(state, 1, "Bea")
    # then the position differs in that name only
    before, after = rules.dump_position(state), rules.dump_position(renamed)
    assert "Bea" in str(after) and "Open seat 1" not in str(after)
    assert str(after).replace("Bea", "Open seat 1") == str(before)
    assert rules.load_position(after) == renamed
    # and every view names the new player; play goes on exactly as before
    for viewer in (None, 0, 1, 2):
        assert "Bea" in str(rules.view(renamed, viewer))
    assert list(rules.legal_commands(renamed, 0)) == list(rules.legal_commands(state, 0))
    assert rules.awaited(renamed) == rules.awaited(state)
    assert rules.rename_seat(renamed, 1, "Open seat 1") == state
