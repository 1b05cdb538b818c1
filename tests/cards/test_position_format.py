"""The versioned JSON position format: dump/load round-trips exactly; bad input
is a FormatError naming the field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.cards import (
    RULES,
    build,
    decide,
    dump_position,
    evolve,
    legal_commands,
    load_position,
)
from domain.cards.flow import awaited_seat
from domain.cards.model import Options
from domain.common.errors import FormatError
from tests.autoplay import play_random_game
from tests.cards.test_random_games import options_for


def test_every_position_of_random_games_round_trips_through_json() -> None:
    for seed in (21, 22, 23):
        game = play_random_game(RULES, 2 + seed % 3, seed, options_for(seed), keep_states=True)
        for state in [*game.states[::5], game.states[-1]]:
            data = json.loads(json.dumps(dump_position(state)))
            loaded = load_position(data)
            assert loaded == state
            assert dump_position(loaded) == data


def test_a_loaded_position_plays_on_like_the_original() -> None:
    game = play_random_game(RULES, 3, 31, keep_states=True)
    state = game.states[len(game.states) // 2]
    loaded = load_position(json.loads(json.dumps(dump_position(state))))
    seat = awaited_seat(state)
    assert seat is not None
    for command in list(legal_commands(state, seat))[:20]:
        assert decide(loaded, command) == decide(state, command)
        after = state
        for event in decide(state, command):
            after = evolve(after, event)
        assert after.pile == state.pile


def test_the_dump_holds_the_secrets_and_names_its_format() -> None:
    state = build("c0: T:0g k\nb0: k?", hands={0: "r"}, vp={1: "gT"})
    data = dump_position(state)
    assert data["format"] == "cards-position" and data["version"] == 3
    assert data["pile"] and data["seed"] == 0 and data["vp"][1] == ["green", "treasure"]
    assert data["face_down"] == 0 and data["leaders"] == [
        {"seat": 0, "colour": "green", "column": 0, "depth": 0}
    ]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "board-position"}, "format"),
        ({"version": 4}, "version"),
        ({"seats": ["solo"]}, "seats"),
        ({"options": {"open_vp_piles": 1}}, "options"),
        ({"pile": ["purple"]}, "pile"),
        ({"columns": [["red"]] * 7}, "columns"),
        ({"columns": [["black"]] * 8}, "columns[0]"),
        ({"bridges": [None] * 6}, "bridges"),
        ({"hands": [{"black": -1, "red": 0, "blue": 0, "green": 0}] * 2}, "hands.black"),
        ({"agenda": [{"step": "dance"}]}, "agenda[0]"),
        ({"over": "bored"}, "over"),
        ({"turn": "one"}, "turn"),
    ],
)
def test_bad_positions_are_refused_naming_the_field(change: dict[str, Any], field: str) -> None:
    data = dump_position(build("c0: T:0g k"))
    data.update(change)
    with pytest.raises(FormatError) as caught:
        load_position(data)
    assert caught.value.field == field


# --- issue 21, point 16: the variant trader_takes_one in the position format (version 3) ----


@pytest.mark.parametrize("takes_one", [False, True])
def test_the_trader_variant_round_trips_through_the_position_format(takes_one: bool) -> None:
    # given a position of a game with or without the variant
    state = build("c0: T:0g k", options=Options(trader_takes_one=takes_one, allow_withdraw=True))

    # when it is dumped (version 3) and loaded
    data = json.loads(json.dumps(dump_position(state)))
    loaded = load_position(data)

    # then the variant is written and read back
    assert data["version"] == 3 and data["options"]["trader_takes_one"] is takes_one
    assert loaded == state and dump_position(loaded) == data


@pytest.mark.parametrize("version", [1, 2])
def test_a_version_1_or_2_position_reads_with_the_german_trader(version: int) -> None:
    # given a position written before the variant: three variants in its options
    state = build("c0: T:0g k", options=Options(open_vp_piles=True))
    data = dump_position(state)
    del data["options"]["trader_takes_one"]
    data["version"] = version

    # when it is loaded
    loaded = load_position(data)

    # then the trader swaps as the German text has it, the other variants as written
    assert loaded == state and loaded.options == Options(open_vp_piles=True)


def test_a_version_3_position_needs_all_four_variants() -> None:
    data = dump_position(build("c0: T:0g k"))
    del data["options"]["trader_takes_one"]
    with pytest.raises(FormatError, match="trader_takes_one") as caught:
        load_position(data)
    assert caught.value.field == "options"
    two = dump_position(build("c0: T:0g k"))
    two["version"] = 2  # version 2 knows only three
    with pytest.raises(FormatError) as caught:
        load_position(two)
    assert caught.value.field == "options"


def test_the_display_notation_round_trips_on_random_positions() -> None:
    from domain.cards import display_text, parse_display

    game = play_random_game(RULES, 4, 24, keep_states=True)
    for state in game.states[::7]:
        text = display_text(state, hide_face_down=False)
        assert parse_display(text, state.seat_count) == (
            state.columns,
            state.bridges,
            state.face_down,
            state.leaders,
        )


@pytest.mark.parametrize("text", ["c8: T", "c0: k", "c0: T x", "b0: T", "b1: g g", "c0: T k?"])
def test_bad_display_notation_is_refused(text: str) -> None:
    from domain.cards import parse_display

    with pytest.raises(FormatError) as caught:
        parse_display(text, 2)
    assert caught.value.field == "display"
