"""Setup (B-SETUP-*), hidden information (B-HIDDEN-1), the protocol object and positions."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from domain.board import (
    RULES,
    GameStarted,
    Monument,
    PlaceTile,
    TilesDrawn,
    TilesSwapped,
    dump_position,
    fold,
    load_position,
    pending,
    start,
    view,
)
from domain.board.geometry import BORDER_TREASURES, NEIGHBOURS, RIVER, START_TEMPLES, square
from domain.board.model import MONUMENT_COLOURS, MONUMENTS
from domain.common.colours import Colour
from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from tests.board.helpers import START_ROWS, allowed, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def test_board_is_11_by_16_with_orthogonal_neighbours() -> None:
    # rule B-SETUP-1
    assert len(START_ROWS) == 11 and all(len(row.split()) == 16 for row in START_ROWS)
    assert set(NEIGHBOURS[square(0, 0)]) == {square(1, 0), square(0, 1)}
    assert set(NEIGHBOURS[square(5, 5)]) == {square(4, 5), square(6, 5), square(5, 4), square(5, 6)}
    state = pos({}, ("kk", ""))
    allowed(state, PlaceTile(0, K, (10, 15)))
    with pytest.raises(FormatError):
        run(state, PlaceTile(0, K, (11, 0)))
    with pytest.raises(FormatError):
        run(state, PlaceTile(0, K, (0, 16)))


def test_the_41_river_squares() -> None:
    # rule B-SETUP-2
    rivers = {
        0: (4, 5, 6, 7, 8, 12),
        1: (4, 12),
        2: (3, 4, 12, 13),
        3: (0, 1, 2, 3, 13, 14, 15),
        4: (14, 15),
        5: (14,),
        6: (0, 1, 2, 3, 12, 13, 14),
        7: (3, 4, 5, 6, 12),
        8: (6, 7, 8, 9, 10, 11, 12),
    }
    expected = {square(r, c) for r, cols in rivers.items() for c in cols}
    assert {sq for sq, river in enumerate(RIVER) if river} == expected and len(expected) == 41
    state = pos({}, ("b", ""))
    allowed(state, PlaceTile(0, B, (5, 14)))
    refused(state, PlaceTile(0, B, (5, 13)), "B-TILE-1")


def test_ten_treasure_temples_four_on_the_border() -> None:
    # rule B-SETUP-3
    state = fold(start(["a", "b"], {}, 7))
    expected = [
        (0, 10),
        (1, 1),
        (1, 15),
        (2, 5),
        (4, 13),
        (6, 8),
        (7, 1),
        (8, 14),
        (9, 5),
        (10, 10),
    ]
    assert sorted(state.treasures) == [square(r, c) for r, c in expected] == list(START_TEMPLES)
    assert {square(1, 1), square(1, 15), square(7, 1), square(8, 14)} == BORDER_TREASURES
    assert all(state.board[sq] == 2 for sq in START_TEMPLES)


def test_153_tiles_and_a_bag_of_143() -> None:
    # rule B-SETUP-4
    events = start(["a", "b", "c"], {}, 11)
    state = fold(events)
    drawn = Counter(c for e in events if isinstance(e, TilesDrawn) for c in e.tiles)
    in_bag = Counter(state.bag)
    assert sum(drawn.values()) + len(state.bag) == 143
    totals = [in_bag[c] + drawn[colour] for c, colour in enumerate((K, R, B, G))]
    assert totals == [30, 47, 36, 30]


def test_dynasties_leaders_catastrophes_six_tiles_random_start() -> None:
    # rule B-SETUP-5
    assert RULES.dynasties == ("archer", "bull", "pot", "lion")
    events = start(["a", "b", "c", "d"], {}, 5)
    assert isinstance(events[0], GameStarted) and events[0].seed == 5
    assert [e.seat for e in events[1:] if isinstance(e, TilesDrawn)] == [0, 1, 2, 3]
    state = fold(events)
    assert all(sum(h) == 6 for h in state.hands)
    assert state.leaders == (-1,) * 16 and state.catastrophes == (2, 2, 2, 2)
    starts = {fold(start(["a", "b", "c"], {}, seed)).active for seed in range(40)}
    assert starts == {0, 1, 2}  # the seed picks the start player
    assert start(["a", "b"], {}, 9) == start(["a", "b"], {}, 9)  # reproducible
    for names in (["a"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(FormatError):
            start(names, {}, 1)


def test_six_monuments_one_per_pair_of_colours() -> None:
    # rule B-SETUP-6
    pairs = {frozenset(p) for p in MONUMENT_COLOURS}
    assert len(MONUMENTS) == 6 and len(pairs) == 6 and all(len(p) == 2 for p in pairs)
    assert Monument("black-green") in MONUMENTS
    with pytest.raises(ValueError):
        Monument("black-black")


def test_treasures_are_wild_and_points_unlimited() -> None:
    # rule B-SETUP-7
    from dataclasses import replace

    from domain.board import result

    state = pos({}, ("", ""), points=[[200, 0, 0, 0], [1, 1, 1, 1]], taken=[3, 0])
    scored = result(replace(state, agenda=(), ended="bag"))
    assert scored is not None
    assert scored["seats"][0]["totals"]["black"] == 200  # no cap on points
    assert scored["seats"][0]["key"] == [1, 1, 1, 200]  # treasures fill the weakest colours
    assert scored["places"] == [[0], [1]]  # tied on 1, 1, 1: the fourth colour decides


def test_views_hide_hands_points_bag_and_seed() -> None:
    # rule B-HIDDEN-1
    events = start(["a", "b"], {}, 3)
    state = fold(events)
    mine = view(state, 0)
    assert mine["seats"][0]["hand"] is not None and mine["seats"][1]["hand"] is None
    assert mine["seats"][1]["points"] is None and mine["seats"][1]["treasures"] is None
    assert mine["seats"][1]["hand_size"] == 6 and mine["seats"][1]["supply"]
    spectator = view(state, None)
    assert spectator["seed"] is None and spectator["bag"] is None
    assert all(seat["hand"] is None for seat in spectator["seats"])
    assert view(state, None, complete=True)["seed"] == 3  # the admin's view is complete
    drawn = RULES.event_view(events[2], 0, state)
    assert drawn == {"seat": 1, "count": 6}
    assert RULES.event_view(events[1], 0, state)["tiles"]  # one's own draw is visible
    assert "seed" not in RULES.event_view(events[0], None, state)
    swap = TilesSwapped(0, 1, 0, 0, 0, (G,))
    assert RULES.event_view(swap, 1, state) == {"seat": 0, "count": 1}
    assert RULES.event_view(swap, 0, state)["drawn"] == ["green"]
    from dataclasses import replace

    over = replace(state, agenda=(), ended="bag")
    assert view(over, None)["seats"][1]["hand"] is not None and view(over, 1)["seed"] == 3
    assert RULES.event_view(events[0], None, over)["seed"] == 3  # all public at the end


def test_rules_object_satisfies_the_protocol() -> None:
    rules: GameRules[object, object, object] = RULES  # type: ignore[assignment]
    assert rules.kind == "board" and (rules.min_seats, rules.max_seats) == (2, 4)
    assert "PlaceTile" in RULES.commands.names and "TilePlaced" in RULES.events.names
    assert RULES.normalize_options({}) == {"open_scoring": False}
    with pytest.raises(FormatError):
        RULES.normalize_options({"variant": 1})
    command = RULES.commands.from_json(
        {"type": "PlaceTile", "seat": 0, "colour": "red", "at": [4, 5]}
    )
    assert command == PlaceTile(0, R, (4, 5))
    with pytest.raises(FormatError):
        RULES.commands.from_json({"type": "PlaceTile", "seat": 0, "colour": "pink", "at": [4, 5]})
    events = start(["a", "b"], {}, 3)
    for event in events:
        name, version, data = RULES.events.encode(event)
        assert RULES.events.decode(name, version, json.loads(json.dumps(data))) == event
    state = fold(events)
    assert RULES.turn(state) == (1, state.active)
    assert RULES.is_draw(events[1]) and not RULES.is_draw(events[0])
    assert pending(state) == {
        "kind": "board",
        "awaiting": [state.active],
        "decision": "action",
        "turn": 1,
        "active": state.active,
        "actions_left": 2,
    }


def test_position_round_trip_and_errors() -> None:
    state = fold(start(["a", "b", "c"], {}, 21))
    data = dump_position(state)
    text = json.dumps(data)
    assert load_position(json.loads(text)) == state
    assert dump_position(load_position(json.loads(text))) == data
    broken = json.loads(text)
    broken["hands"][0]["red"] += 1  # one tile too many
    with pytest.raises(FormatError):
        load_position(broken)
    for key, value in (
        ("version", 99),
        ("agenda", [{"step": "dance"}]),
        ("board", ["x"]),
        ("active", 7),
    ):
        bad = json.loads(text)
        bad[key] = value
        with pytest.raises(FormatError):
            load_position(bad)
