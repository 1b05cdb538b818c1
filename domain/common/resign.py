"""Resignation, the same in both games (``B-RESIGN-*``, ``C-RESIGN-*``; the policy and its
reasons: ``domain/RESIGNATION.md``, linked from each game's ``DECISIONS.md``).

A seat may resign at any time while the game runs (``Resign`` → ``SeatResigned``). It stays
at the table: its decisions are still awaited, and the service makes them for it (a
"zombie" seat, as Board Game Arena calls it), so the others play on as they would have.
When only one seat has not resigned, the game ends at once (``GameEnded("resigned")``).
In the final table every resigned seat ranks below every other, whatever its points: the
last to resign just below the others, the first to resign last.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.common.errors import FormatError
from domain.common.exact import is_int

RESIGNED = "resigned"  # the reason of the GameEnded that a resignation brings about


def ends_the_game(seat_count: int, resigned: Sequence[int]) -> bool:
    """Whether a game of ``seat_count`` seats in which ``resigned`` have resigned is over
    for that reason: at most one seat is left that has not resigned."""
    return seat_count - len(set(resigned)) <= 1


def resigned_last(places: Sequence[Sequence[int]], resigned: Sequence[int]) -> list[list[int]]:
    """``places`` (seats grouped by place, best first, as ``rank_players`` gives them) with
    the ``resigned`` seats (in the order they resigned) taken out and put below all others,
    one place each, the first to resign last."""
    gone = set(resigned)
    kept = [[seat for seat in group if seat not in gone] for group in places]
    return [group for group in kept if group] + [[seat] for seat in reversed(resigned)]


def read_resigned(raw: object, seat_count: int) -> tuple[int, ...]:
    """A position's ``resigned`` (seats in the order they resigned); FormatError if it is not
    a list of distinct seats of the game."""
    if not isinstance(raw, list) or not all(
        is_int(seat) and 0 <= seat < seat_count for seat in raw
    ):
        raise FormatError(f"expected a list of seats 0-{seat_count - 1}", "resigned")
    if len(set(raw)) != len(raw):
        raise FormatError("a seat resigned twice", "resigned")
    return tuple(raw)
