"""Commands and events survive the wire and storage codecs unchanged."""

from __future__ import annotations

import json

import pytest

from domain.cards import COMMANDS, EVENTS, RULES
from domain.common.autoplay import play_random_game
from domain.common.errors import FormatError


def test_every_event_and_command_of_a_game_round_trips() -> None:
    game = play_random_game(RULES, 3, 41, {"allow_withdraw": True})
    assert {type(e).__name__ for e in game.events} >= {
        "GameStarted",
        "CardsDrawn",
        "ConflictResolved",
    }
    for event in game.events:
        name, version, data = EVENTS.encode(event)
        assert name == type(event).__name__ and version == 1
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
