"""Exact types in the card game's readers: given a command, event or position with one
inexact value (a float, string or boolean where an integer is due, a number where a colour
is due), when it is read, then a FormatError names the value's path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import RULES, build, dump_position, load_position
from domain.cards.commands import PlayCard
from domain.common.colours import Colour
from domain.common.errors import FormatError
from tests.autoplay import play_random_game

INEXACT_COMMANDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "PlayCard", "seat": 0, "colour": "red", "column": "0"}, "column"),
    ({"type": "PlayCard", "seat": 0, "colour": "red", "column": 0.0}, "column"),
    ({"type": "PlayCard", "seat": 0, "colour": "red", "column": True}, "column"),
    ({"type": "PlayCard", "seat": 0, "colour": "red", "bridge": 2.5}, "bridge"),
    ({"type": "PlayCard", "seat": 0, "colour": 1, "column": 0}, "colour"),
    ({"type": "PlaceLeader", "seat": 0, "leader": "red", "column": 1, "depth": "0"}, "depth"),
    ({"type": "PlayCatastrophe", "seat": 0, "column": [1]}, "column"),
    ({"type": "CommitCards", "seat": 0, "count": 0.99}, "count"),
    ({"type": "CommitCards", "seat": 0, "count": 1e308}, "count"),
    ({"type": "SwapTreasure", "seat": "1", "column": 3}, "seat"),
    ({"type": "BuildShip", "seat": 0, "ship": "Black"}, "ship"),
    ({"type": "Pass", "seat": 0, "colour": "red"}, "colour"),
]


@pytest.mark.parametrize(("body", "field"), INEXACT_COMMANDS)
def test_a_command_of_inexact_type_is_a_format_error_naming_its_path(
    body: dict[str, Any], field: str
) -> None:
    with pytest.raises(FormatError) as refused:
        RULES.commands.from_json(body)
    assert refused.value.field == field


def test_exact_commands_decode_to_their_values() -> None:
    command = RULES.commands.from_json(
        {"type": "PlayCard", "seat": 1, "colour": "blue", "bridge": 0}
    )
    assert command == PlayCard(seat=1, colour=Colour.BLUE, bridge=0)
    assert isinstance(command.colour, Colour) and command.column is None


INEXACT_EVENTS: list[tuple[str, dict[str, Any], str]] = [
    (
        "GameStarted",
        {
            "seats": ["a", "b"],
            "options": {
                "leader_colour_must_differ": False,
                "allow_withdraw": 1,
                "open_vp_piles": False,
            },
            "seed": 1,
            "start_player": 0,
        },
        "options.allow_withdraw",
    ),
    ("GameStarted", {"seats": "ab", "options": {}, "seed": 1, "start_player": 0}, "seats"),
    ("CardsDrawn", {"seat": 0, "cards": ["red", 2]}, "cards[1]"),
    ("CardsDrawn", {"seat": 0.0, "cards": []}, "seat"),
]


@pytest.mark.parametrize(("name", "data", "field"), INEXACT_EVENTS)
def test_a_stored_event_of_inexact_type_is_a_format_error_naming_its_path(
    name: str, data: dict[str, Any], field: str
) -> None:
    registry = RULES.events
    with pytest.raises(FormatError) as refused:
        registry.decode(name, registry.version_of(registry.type_of(name)), data)
    assert refused.value.field == field


INEXACT_POSITIONS: list[tuple[tuple[str | int, ...], Any, str]] = [
    (("version",), 1.0, "version"),
    (("seed",), "0", "seed"),
    (("start_player",), 0.0, "start_player"),
    (("drawn",), False, "drawn"),
    (("turn",), 1.0, "turn"),
    (("active",), True, "active"),
    (("actions_left",), "2", "actions_left"),
    (("hands", 0, "red"), 0.0, "hands.red"),
    (("discard", "blue"), "0", "discard.blue"),
    (("leaders", 0, "column"), 0.0, "leaders.column"),
    (("leaders", 0, "depth"), "0", "leaders.depth"),
    (("leaders", 0, "colour"), 3, "leaders.colour"),
    (("pile", 0), 1, "pile"),
    (("columns", 0, 1), True, "columns[0]"),
    (("face_down",), 0.0, "face_down"),
    (("options", "allow_withdraw"), 0, "options"),
]


def _changed(data: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(data))
    target: Any = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


@pytest.mark.parametrize(("path", "value", "field"), INEXACT_POSITIONS)
def test_a_position_of_inexact_type_is_a_format_error_naming_the_field(
    path: tuple[str | int, ...], value: Any, field: str
) -> None:
    state = build("c0: T:0g k")
    data = dump_position(state)
    assert load_position(data) == state  # the unchanged position reads back

    with pytest.raises(FormatError) as refused:
        load_position(_changed(data, path, value))

    assert refused.value.field == field


# --- issue 21, point 15: the search for IndexError/KeyError leaks in the card game's position
# reader. Given a position of a random game with one value anywhere in it (a top-level field or
# a value nested in a list or object) replaced by junk, when it is loaded, then it is refused
# with a FormatError or read as a position that dumps and loads again; nothing else escapes.

GAME = play_random_game(RULES, 3, 21, keep_states=True)
POSITIONS = GAME.states[::20]

junk = st.one_of(
    st.integers(-3, 20),
    st.sampled_from(["black", "red", "blue", "green", "treasure", "pink", "", "war", "offer"]),
    st.lists(st.integers(-1, 9), max_size=3),
    st.lists(st.sampled_from(["red", "treasure", "x"]), max_size=9),
    st.dictionaries(st.sampled_from(["step", "seat", "column", "bridge", "depth"]), st.integers()),
    st.none(),
    st.booleans(),
)


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path into a JSON value (not the root itself)."""
    out: list[tuple[str | int, ...]] = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out += _paths(inner, (*prefix, i))
    return out


@settings(max_examples=300)
@given(index=st.integers(0, len(POSITIONS) - 1), pick=st.randoms(use_true_random=False), value=junk)
def test_broken_positions_raise_format_errors(index: int, pick: Any, value: Any) -> None:
    data = dump_position(POSITIONS[index])
    path = pick.choice(_paths(data))
    try:
        state = load_position(_changed(data, path, value))
    except FormatError as exc:
        assert exc.message
    else:  # what is accepted is a position the format describes again
        assert load_position(dump_position(state)) == state
