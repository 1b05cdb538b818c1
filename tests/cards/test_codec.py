"""Commands and events survive the wire and storage codecs unchanged."""

from __future__ import annotations

import json

import pytest

from domain.cards import COMMANDS, EVENTS, RULES, ConflictResolved, GameStarted, fold
from domain.cards.model import Options
from domain.common.errors import FormatError
from tests.autoplay import play_random_game


def test_every_event_and_command_of_a_game_round_trips() -> None:
    game = play_random_game(RULES, 3, 41, {"allow_withdraw": True})
    assert {type(e).__name__ for e in game.events} >= {
        "GameStarted",
        "CardsDrawn",
        "ConflictResolved",
    }
    for event in game.events:
        name, version, data = EVENTS.encode(event)
        assert name == type(event).__name__
        # v2: the fourth variant; the outcome's loser and base/committed split
        assert version == (2 if name in ("GameStarted", "ConflictResolved") else 1)
        assert EVENTS.decode(name, version, json.loads(json.dumps(data))) == event
    for command in game.commands:
        assert COMMANDS.from_json(json.loads(json.dumps(COMMANDS.to_json(command)))) == command


def test_registered_names_are_the_bare_class_names() -> None:
    assert "PlayCard" in RULES.commands.names and "CardPlayed" in RULES.events.names
    assert all("." not in name for name in (*RULES.commands.names, *RULES.events.names))


@pytest.mark.parametrize(
    "body",
    [
        {"type": "PlayCard", "seat": 0, "colour": "purple", "column": 1},
        {"type": "PlayCard", "seat": 0, "colour": "red", "column": 1, "row": 2},
        {"type": "Dance", "seat": 0},
    ],
)
def test_malformed_commands_are_format_errors(body: dict[str, object]) -> None:
    with pytest.raises(FormatError):
        COMMANDS.from_json(body)


def test_a_position_needs_exactly_one_of_column_and_bridge() -> None:
    from domain.cards import PlayCard, PlayCatastrophe, build, decide
    from domain.common.colours import Colour

    state = build("c0: T k", hands={0: "k"})
    for command in (
        PlayCard(0, Colour.BLACK),
        PlayCard(0, Colour.BLACK, column=1, bridge=1),
        PlayCatastrophe(0, bridge=0, depth=1),
    ):
        with pytest.raises(FormatError):
            decide(state, command)
    with pytest.raises(FormatError) as caught:
        decide(state, PlayCard(5, Colour.BLACK, column=1))
    assert caught.value.field == "seat"


def test_the_rules_object_describes_the_card_game() -> None:
    from domain.cards import CardsDrawn, PlayCard, build, fold
    from domain.common.colours import Colour

    assert (RULES.kind, RULES.min_seats, RULES.max_seats) == ("cards", 2, 4)
    events = RULES.start(["a", "b"], {}, 9)
    state = fold(events)
    assert RULES.turn(state) == (1, state.start_player)
    assert [RULES.is_draw(e) for e in events] == [False, True, True]
    assert RULES.awaited(state) == frozenset({state.start_player})
    assert RULES.pending(state) == {
        "kind": "cards",
        "awaiting": [state.start_player],
        "decision": "action",
        "actions_left": 2,
    }
    assert RULES.is_over(state) is False and RULES.result(state) is None
    first = RULES.decide(build("", hands={0: "kk"}), PlayCard(0, Colour.BLACK, column=0))
    assert not any(isinstance(e, CardsDrawn) for e in first)  # no refill in mid-turn


# --- issue 21, point 16: the variant trader_takes_one in the stored GameStarted ---------------


def test_game_started_records_the_trader_variant_and_round_trips() -> None:
    # given a game created with the variant
    events = RULES.start(["Ann", "Bob"], {"trader_takes_one": True}, 7)

    # when its first event is stored and read back
    name, version, data = EVENTS.encode(events[0])
    again = EVENTS.decode(name, version, json.loads(json.dumps(data)))

    # then it is version 2, names the variant and reads back equal
    assert (name, version) == ("GameStarted", 2)
    assert data["options"]["trader_takes_one"] is True
    assert again == events[0] and isinstance(again, GameStarted)
    assert again.options.trader_takes_one is True


def test_a_stored_version_1_game_started_reads_with_the_german_trader() -> None:
    # given a GameStarted stored before the variant existed (version 1: three variants)
    stored = {
        "seats": ["Ann", "Bob"],
        "options": {
            "leader_colour_must_differ": False,
            "allow_withdraw": True,
            "open_vp_piles": False,
        },
        "seed": 7,
        "start_player": 1,
    }

    # when it is read
    event = EVENTS.decode("GameStarted", 1, stored)

    # then the upcaster gives it the German reading (variant off), the others as stored
    assert event == GameStarted(("Ann", "Bob"), Options(allow_withdraw=True), 7, 1)


def test_a_stored_game_of_version_1_events_folds_as_it_was_played() -> None:
    # given the events of a game as stored before the variant (GameStarted version 1)
    game = play_random_game(RULES, 3, 43, {"open_vp_piles": True})
    stored = [EVENTS.encode(e) for e in game.events]
    first = stored[0]
    old_options = {k: v for k, v in first[2]["options"].items() if k != "trader_takes_one"}
    stored[0] = (first[0], 1, {**first[2], "options": old_options})

    # when they are decoded and folded
    folded = fold(EVENTS.decode(n, v, json.loads(json.dumps(d))) for n, v, d in stored)

    # then the game is the same one, German trader included
    assert folded == game.final and folded.options.trader_takes_one is False


def test_a_stored_version_1_conflict_resolved_reads_with_its_loser_and_an_unknown_split() -> None:
    # given a ConflictResolved stored at version 1 (totals and winner only)
    stored = {
        "kind": "war",
        "colour": "blue",
        "attacker": 2,
        "defender": 0,
        "attacker_strength": 3,
        "defender_strength": 3,
        "winner": 0,
    }

    # when it is read
    event = EVENTS.decode("ConflictResolved", 1, stored)

    # then the loser is the other side, and the split it never recorded is null
    assert isinstance(event, ConflictResolved)
    assert (event.winner, event.loser) == (0, 2)
    assert (event.attacker_strength, event.defender_strength) == (3, 3)
    assert event.attacker_base is None and event.attacker_committed is None
    assert event.defender_base is None and event.defender_committed is None


def test_a_stored_game_of_version_1_conflicts_folds_as_it_was_played() -> None:
    # given a game stored when ConflictResolved was at version 1
    game = play_random_game(RULES, 3, 44)
    stored = []
    new = ("loser", "attacker_base", "attacker_committed", "defender_base", "defender_committed")
    for name, version, data in (EVENTS.encode(e) for e in game.events):
        if name == "ConflictResolved":
            stored.append((name, 1, {k: v for k, v in data.items() if k not in new}))
        else:
            stored.append((name, version, data))
    assert any(version == 1 for name, version, _ in stored if name == "ConflictResolved")

    # when they are decoded and folded
    folded = fold(EVENTS.decode(n, v, json.loads(json.dumps(d))) for n, v, d in stored)

    # then the game is the same one
    assert folded == game.final


def test_a_version_1_game_started_with_bad_options_is_still_a_format_error() -> None:
    data = {"seats": ["Ann", "Bob"], "options": "none", "seed": 7, "start_player": 0}
    with pytest.raises(FormatError) as refused:
        EVENTS.decode("GameStarted", 1, data)
    assert refused.value.field == "options"
