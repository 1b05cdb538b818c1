"""Bad input gets a clear error (FormatError or a rules error) and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.board import RULES, dump_position, fold, format_board, load_position, parse_board
from domain.board.commands import PlaceTile
from domain.board.notation import LETTERS
from domain.common.colours import Colour
from domain.common.errors import FormatError, RulesError
from tests.autoplay import play_random_game

GAME = play_random_game(RULES, 3, 12, keep_states=True)
POSITIONS = [s for i, s in enumerate(GAME.states) if i % 25 == 0 or s.decision != "action"]
POSITIONS = [s for s in POSITIONS if s.decision != "refill"]

junk = st.one_of(
    st.integers(-3, 20),
    st.sampled_from(["black", "red", "blue", "green", "pink", "", "black-red"]),
    st.lists(st.integers(-1, 16), max_size=3),
    st.lists(st.lists(st.integers(-1, 12), max_size=3), max_size=3),
    st.none(),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(RULES.commands.names),
    values=st.lists(junk, min_size=6, max_size=6),
    index=st.integers(0, len(POSITIONS) - 1),
    drop=st.booleans(),
)
def test_any_command_json_is_judged_or_refused_cleanly(
    name: str, values: list[Any], index: int, drop: bool
) -> None:
    state = POSITIONS[index]
    before = dump_position(state)
    body: dict[str, Any] = {"type": name}
    for field, value in zip(RULES.commands.field_names(name), values, strict=False):
        body[field] = value
    if drop and len(body) > 1:
        body.popitem()
    try:
        command = RULES.commands.from_json(body)
        RULES.decide(state, command)
    except (FormatError, RulesError) as exc:
        assert str(exc)
    assert dump_position(state) == before


@settings(max_examples=400, deadline=None)
@given(
    index=st.integers(0, len(POSITIONS) - 1),
    key=st.sampled_from(sorted(dump_position(POSITIONS[0]))),
    value=junk,
)
def test_broken_positions_raise_format_errors(index: int, key: str, value: Any) -> None:
    data = dump_position(POSITIONS[index])
    data[key] = value
    try:
        state = load_position(json.loads(json.dumps(data)))
    except FormatError as exc:
        assert exc.message
    else:  # what is accepted is a position the format describes again
        assert load_position(dump_position(state)) == state


tokens = st.sampled_from(
    [".."]
    + [c + s for c in LETTERS for s in ".U"]
    + ["r*", "R*"]
    + [c.upper() + "." for c in LETTERS]
    + [f"{seat}{c}" for seat in range(4) for c in LETTERS]
    + ["XX"]
)


@settings(max_examples=100, deadline=None)
@given(st.lists(tokens, min_size=176, max_size=176))
def test_notation_round_trips(cells: list[str]) -> None:
    rows = [" ".join(cells[r * 16 : (r + 1) * 16]) for r in range(11)]
    try:
        board, treasures, unification = parse_board(rows)
    except FormatError:
        assert sum(c.endswith("U") for c in cells) > 1  # only two markers are refused
        return
    again = format_board(board, treasures, unification)
    assert parse_board(again) == (board, treasures, unification)


def test_fold_of_the_game_matches() -> None:
    assert fold(GAME.events) == GAME.final


# --- exact types: given a command or position with one inexact value, the reader refuses
# it with a FormatError naming the value's path --------------------------------------------

INEXACT_COMMANDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": [1.9, 2.9]}, "at[0]"),
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": [1, 2.0]}, "at[1]"),
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": ["1", "2"]}, "at[0]"),
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": [True, True]}, "at[0]"),
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": "12"}, "at"),
    ({"type": "PlaceTile", "seat": 0, "colour": "black", "at": [1, 2, 3]}, "at"),
    ({"type": "PlaceTile", "seat": 0, "colour": True, "at": [1, 2]}, "colour"),
    ({"type": "PlaceTile", "seat": 1.0, "colour": "black", "at": [1, 2]}, "seat"),
    ({"type": "PlaceTile", "seat": False, "colour": "black", "at": [1, 2]}, "seat"),
    ({"type": "SwapTiles", "seat": 0, "black": 0.99}, "black"),
    ({"type": "SwapTiles", "seat": 0, "blue": 1e308}, "blue"),
    ({"type": "SwapTiles", "seat": 0, "red": "1"}, "red"),
    ({"type": "CommitSupport", "seat": 0, "count": 1.0}, "count"),
    ({"type": "BuildMonument", "seat": 0, "monument": 3, "at": [0, 0]}, "monument"),
    ({"type": "TakeTreasures", "seat": 0, "squares": [[1, 2], [True, 4]]}, "squares[1][0]"),
    ({"type": "TakeTreasures", "seat": 0, "squares": {"a": [1, 2]}}, "squares"),
    ({"type": "PlaceLeader", "seat": 0, "leader": "red", "at": [0, 4], "x": 1}, "x"),
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
        {"type": "PlaceTile", "seat": 1, "colour": "red", "at": [3, 4]}
    )
    assert command == PlaceTile(seat=1, colour=Colour.RED, at=(3, 4))
    assert type(command.at[0]) is int and isinstance(command.colour, Colour)


def _changed(data: dict[str, Any], path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(data))
    target: Any = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


INEXACT_POSITIONS: list[tuple[tuple[str | int, ...], Any, str]] = [
    (("version",), 1.0, "version"),
    (("version",), True, "version"),
    (("seed",), 3.0, "seed"),
    (("start_player",), False, "start_player"),
    (("turn",), "1", "turn"),
    (("active",), 1.0, "active"),
    (("actions_left",), True, "actions_left"),
    (("hands", 0, "black"), 1.0, "hands.black"),
    (("points", 1, "red"), True, "points.red"),
    (("out_of_game", "green"), "0", "out_of_game.green"),
    (("treasures_taken", 0), 0.0, "treasures_taken"),
    (("catastrophes", 1), "1", "catastrophes"),
    (("bag", 0), 0, "bag"),
    (("seats", 0), 7, "seats"),
    (("declined",), [[1.0, 2]], "declined"),
    (("monuments",), [{"monument": 1, "at": [0, 0]}], "monuments"),
    (("agenda",), 0, "agenda"),
    (("agenda",), [{"step": 0}], "agenda[0]"),
]


@pytest.mark.parametrize(("path", "value", "field"), INEXACT_POSITIONS)
def test_a_position_of_inexact_type_is_a_format_error_naming_the_field(
    path: tuple[str | int, ...], value: Any, field: str
) -> None:
    data = dump_position(POSITIONS[1])
    assert load_position(data) == POSITIONS[1]  # the unchanged position reads back

    with pytest.raises(FormatError) as refused:
        load_position(_changed(data, path, value))

    assert refused.value.field == field


# --- point 15 of issue 21: every coordinate field of the position format is bound-checked.
# Given a stored position with one square off the board (or a 2x2 square reaching off it),
# when it is loaded, then a FormatError names the field and quotes the coordinates, never an
# IndexError. Row 10 and column 15 are on the board but cannot be a 2x2 square's top-left.

OFF_BOARD = [[11, 0], [0, 16], [11, 16], [-1, 0], [0, -1], [-1, -1], [99, 99]]
NO_TOP_LEFT = [[10, 0], [0, 15], [10, 15], *OFF_BOARD]


def _conflict_at(key: str, at: list[int]) -> dict[str, Any]:
    conflict: dict[str, Any] = {
        "kind": "revolt",
        "colour": "red",
        "attacker": 0,
        "defender": 1,
        "attacker_at": [0, 0],
        "defender_at": [0, 1],
        "attacker_base": 0,
        "defender_base": 0,
        "attacker_commit": None,
        "defender_commit": None,
    }
    conflict[key] = at
    return conflict


def _top_left_cases(at: list[int]) -> list[tuple[str, Any]]:
    return [
        ("declined", [at]),  # version 1: a bare square
        ("declined", [{"at": at, "tiles": [[0, 0]]}]),
        ("monuments", [{"monument": "black-red", "at": at}]),
        ("agenda[0].squares", [{"step": "monument_offer", "seat": 0, "squares": [at]}]),
    ]


def _square_cases(at: list[int]) -> list[tuple[str, Any]]:
    return [
        ("agenda[0].at", [{"step": "check_monument", "at": at}]),
        ("declined", [{"at": [0, 0], "tiles": [at]}]),
        (
            "agenda[0].treasures",
            [{"step": "treasure_choice", "seat": 0, "treasures": [at], "take": 1}],
        ),
        ("conflict", _conflict_at("attacker_at", at)),
        ("conflict", _conflict_at("defender_at", at)),
    ]


OUT_OF_BOUNDS = [
    pytest.param(field, value, at, id=f"{field}-{at}-{n}")
    for at in NO_TOP_LEFT
    for n, (field, value) in enumerate(_top_left_cases(at))
] + [
    pytest.param(field, value, at, id=f"{field}-{at}-sq{n}")
    for at in OFF_BOARD
    for n, (field, value) in enumerate(_square_cases(at))
]


@pytest.mark.parametrize(("field", "value", "at"), OUT_OF_BOUNDS)
def test_a_coordinate_off_the_board_is_a_format_error_quoting_it(
    field: str, value: Any, at: list[int]
) -> None:
    # given a position that loads, with one coordinate field pointing off the board
    data = dump_position(POSITIONS[1])
    assert load_position(data) == POSITIONS[1]
    data[field.partition("[")[0]] = value  # an agenda step's field: the whole agenda

    # when it is loaded
    with pytest.raises(FormatError) as refused:
        load_position(json.loads(json.dumps(data)))

    # then the error names the field and quotes the coordinates as given
    assert refused.value.field == field
    assert repr(at) in refused.value.message


def test_declined_10_0_found_by_the_property_search_is_a_format_error() -> None:
    """The example the property test found only on some runs (issue 21, point 15)."""
    data = dump_position(POSITIONS[1])
    data["declined"] = [[10, 0]]
    with pytest.raises(FormatError, match=r"\[10, 0\]"):
        load_position(data)
