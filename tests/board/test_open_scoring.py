"""The board game's ``open_scoring`` option: victory points (and treasures taken) are
public, as some online implementations play; off by default."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.board import RULES, dump_position, fold, load_position, start, view
from domain.board.model import State
from domain.common.errors import FormatError


def _scored(options: dict[str, bool]) -> State:
    state = fold(start(["a", "b", "c"], options, 7))
    return replace(state, points=((1, 2, 0, 0), (0, 0, 3, 1), (2, 0, 0, 4)), taken=(0, 1, 0))


def test_by_default_a_seat_sees_only_its_own_points() -> None:
    # Given a game created without options, with points scored,
    state = _scored({})
    # when seat 1 and a spectator look,
    mine, spectator = view(state, 1), view(state, None)
    # then seat 1 sees its own points and treasures only, the spectator nobody's.
    assert mine["options"] == {"open_scoring": False}
    assert [s["points"] is not None for s in mine["seats"]] == [False, True, False]
    assert mine["seats"][1]["points"] == {"black": 0, "red": 0, "blue": 3, "green": 1}
    assert [s["treasures"] for s in mine["seats"]] == [None, 1, None]
    assert all(s["points"] is None and s["treasures"] is None for s in spectator["seats"])


def test_with_open_scoring_every_seat_and_spectator_sees_all_points() -> None:
    # Given a game created with open scoring, with points scored,
    state = _scored({"open_scoring": True})
    for viewer in (0, 1, 2, None):
        # when any seat or a spectator looks,
        seen = view(state, viewer)
        # then every seat's points and treasures taken are shown, and hands stay secret.
        assert seen["options"] == {"open_scoring": True}
        assert [s["points"]["green"] for s in seen["seats"]] == [0, 1, 4]
        assert [s["treasures"] for s in seen["seats"]] == [0, 1, 0]
        assert [s["hand"] is not None for s in seen["seats"]] == [v == viewer for v in range(3)]
        assert seen["bag"] is None and seen["seed"] is None


def test_the_option_is_recorded_in_the_setup_event_and_checked() -> None:
    # Given the option, when a game starts, then the setup event records it;
    events = start(["a", "b"], {"open_scoring": True}, 1)
    assert RULES.events.to_json(events[0])["options"] == {"open_scoring": True}
    # a stored setup event of before the option reads as off,
    old = RULES.events.decode("GameStarted", 1, {"seats": ["a", "b"], "seed": 1, "start_player": 0})
    assert old.options.open_scoring is False  # type: ignore[attr-defined]
    # and the position of a game without it is the same as before the option existed.
    assert fold(start(["a", "b"], {}, 1)).options == ()
    # A bad value or an unknown option is refused, naming it.
    with pytest.raises(FormatError) as bad:
        RULES.normalize_options({"open_scoring": 1})
    assert bad.value.field == "open_scoring"
    with pytest.raises(FormatError):
        RULES.normalize_options({"open": True})


def test_the_position_format_keeps_the_option_and_refuses_unknown_ones() -> None:
    # Given a game with open scoring, when its position is written and read back,
    state = fold(start(["a", "b"], {"open_scoring": True}, 1))
    data = dump_position(state)
    # then the option survives, and an unknown option in a position is refused.
    assert data["options"] == {"open_scoring": True} and load_position(data) == state
    with pytest.raises(FormatError):
        load_position({**data, "options": {"open_scoring": True, "secret": 1}})
