"""Resigning a card game (C-RESIGN-1, C-RESIGN-2; domain/RESIGNATION.md): the cases both
games share, in tests/common/resignation.py."""

from __future__ import annotations

import pytest

from domain.cards import RULES, Resign
from tests.common import resignation as case


# rule C-RESIGN-2
def test_a_two_seat_game_ends_at_once_and_the_resigning_seat_loses() -> None:
    case.two_seats_end_at_once(RULES, Resign)


# rule C-RESIGN-1
@pytest.mark.parametrize("seats", [3, 4])
def test_a_resigned_seat_stays_at_the_table_and_is_still_awaited(seats: int) -> None:
    case.resigned_seat_stays_awaited(RULES, Resign, seats)


# rule C-RESIGN-1
def test_a_seat_resigns_only_once() -> None:
    case.resigning_twice_is_refused(RULES, Resign, "C-RESIGN-1")


# rule C-RESIGN-1
def test_legal_commands_never_offer_a_resignation() -> None:
    case.legal_commands_never_offer_resign(RULES, Resign)


# rule C-RESIGN-2
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_resigned_seats_rank_last_and_the_game_ends_with_one_seat_left(seats: int) -> None:
    case.resigned_rank_last(RULES, Resign, seats, "C-RESIGN-2")
