"""Bad input gets a clear error (FormatError or a rules error) and changes nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.board import RULES, dump_position, fold, format_board, load_position, parse_board
from domain.board.notation import LETTERS
from domain.common.autoplay import play_random_game
from domain.common.errors import FormatError, RulesError

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
