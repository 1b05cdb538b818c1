"""Stored games and positions of the board game's first vocabulary read as they were played
(issue 23: one vocabulary and one flow model).

``golden/stored_game_v1.json`` was written by the code before the renames: its events as
stored (``SupportCommitted`` version 1, without the colour) and, after some of them, the
position in format version 2 (``decision`` with ``revolt_support``/``war_support``,
``actions_done``, ``wars``, ``placed``, ``monument_squares``, ``treasure_choice``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain.board import RULES, dump_position, load_position
from domain.board.events import EVENTS, SupportCommitted
from domain.board.model import COMMIT, State
from domain.common.colours import COLOURS
from tests.autoplay import play_random_game
from tests.board.helpers import version_2_position

GOLDEN = json.loads((Path(__file__).parent / "golden" / "stored_game_v1.json").read_text())


def _folded_states(stored: list[list[Any]]) -> list[State]:
    states: list[State] = []
    state: State | None = None
    for name, version, data in stored:
        state = RULES.evolve(state, EVENTS.decode(name, version, data))
        states.append(state)
    return states


def test_a_stored_game_of_the_old_vocabulary_folds_to_the_positions_it_had() -> None:
    # given a game stored before the renames, with the positions it had then (version 2)
    stored = GOLDEN["events"]
    assert any(name == "SupportCommitted" and version == 1 for name, version, _ in stored)
    old_decisions = {p["decision"] for p in GOLDEN["positions"].values()}
    assert {"revolt_support", "war_support", "choose_war", "monument", "treasure"} <= old_decisions

    # when its events are read (upcast) and folded
    states = _folded_states(stored)

    # then each state is the position stored then, which reads and writes back unchanged
    for index, old in GOLDEN["positions"].items():
        state = states[int(index)]
        assert load_position(old) == state, index
        assert load_position(json.loads(json.dumps(dump_position(state)))) == state
        assert version_2_position(state) == old, index
    assert RULES.is_over(states[-1])


def test_a_version_1_support_committed_reads_with_a_null_colour() -> None:
    # given a SupportCommitted as version 1 stored it
    # when it is read
    event = EVENTS.decode("SupportCommitted", 1, {"seat": 1, "count": 2})
    # then the colour is null (the fold takes it from the conflict), and it writes as version 2
    assert event == SupportCommitted(1, None, 2)
    assert EVENTS.encode(event) == ("SupportCommitted", 2, {"seat": 1, "colour": None, "count": 2})


def test_a_version_1_support_committed_with_a_stray_field_is_refused() -> None:
    with pytest.raises(Exception, match="extra"):
        EVENTS.decode("SupportCommitted", 1, {"seat": 1, "count": 2, "colour": "red", "x": 1})


def test_a_new_support_committed_names_the_colour_of_the_conflict() -> None:
    # given the stored game's states before each commit
    states = _folded_states(GOLDEN["events"])
    # when the same commits are decided again
    for before, (name, _, data) in zip(states, GOLDEN["events"][1:], strict=False):
        if name != "SupportCommitted":
            continue
        assert before.decision == COMMIT and before.conflict is not None
        (event,) = RULES.decide(before, RULES.commands.from_json(_command(data)))[:1]
        # then the event records the tiles' colour: red in a revolt, the war's in a war
        assert isinstance(event, SupportCommitted) and event.colour is not None
        assert event.colour == COLOURS[before.conflict.colour]
        if before.conflict.kind == "revolt":
            assert event.colour == "red"


def _command(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "CommitSupport", "seat": data["seat"], "count": data["count"]}


@pytest.mark.parametrize("seed", [3, 8])
def test_every_state_of_a_game_reads_back_from_its_version_2_position(seed: int) -> None:
    # given every state of a random game
    game = play_random_game(RULES, 3, seed, keep_states=True)
    for state in game.states:
        # when written as version 2 wrote it, then read
        # then it is the same state
        assert load_position(version_2_position(state)) == state
