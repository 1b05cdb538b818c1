"""A game-aware evaluation (Knizia scoring, B-END-3 / C-END-3).

A seat's final score is its weakest colour after its jokers (treasures) are
assigned, ties broken by the next weakest: each game's ``score_keys`` (its
registration) gives that tuple per seat. Mid-game the same tuple is the best
cheap guide: :func:`strength` weighs the weakest colour most, then the next
ones a little, and :func:`utility` turns the gap to the best opponent into a
number in [0, 1] (1: certain win). At the end it is exact: 1, 0.5 shared, 0.
"""

from __future__ import annotations

import math

SCALE = 2.5  # points of strength worth about one logistic unit


def strength(key: tuple[int, ...]) -> float:
    """The weakest colour, then a little of the next, less of the rest (any length)."""
    return key[0] + 0.25 * sum(key[1:2]) + 0.06 * sum(key[2:])


def utility(keys: list[tuple[int, ...]], seat: int, over: bool) -> float:
    """How good ``keys`` are for ``seat``, in [0, 1]."""
    mine = keys[seat]
    others = [k for s, k in enumerate(keys) if s != seat]
    if over:
        best = max(others)
        return 1.0 if mine > best else 0.5 if mine == best else 0.0
    gap = strength(mine) - max(strength(k) for k in others)
    return 1.0 / (1.0 + math.exp(-gap / SCALE))
