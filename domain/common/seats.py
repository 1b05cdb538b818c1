"""Seats: ``0..n-1`` in play (clockwise) order; ``None`` is a spectator."""

from __future__ import annotations

from domain.common.errors import FormatError
from domain.common.exact import is_int


def check_viewer(viewer: object, seat_count: int) -> int | None:
    """``viewer`` as a seat or None; FormatError for anything else.

    Guards the views: ``True == 1`` in Python, so a stray boolean would
    otherwise be taken for seat 1 and shown seat 1's hand.
    """
    if viewer is None:
        return None
    if not is_int(viewer) or not 0 <= viewer < seat_count:
        raise FormatError(f"no seat {viewer!r} in a {seat_count}-player game", "viewer")
    return viewer
