"""A game-aware evaluation for both games (Knizia scoring, B-END-3 / C-END-3).

A seat's final score is its weakest colour after its jokers (treasures) are
assigned, ties broken by the next weakest. Mid-game the same tuple is the best
cheap guide: :func:`strength` weighs the weakest colour most, then the next
ones a little, and :func:`utility` turns the gap to the best opponent into a
number in [0, 1] (1: certain win). At the end it is exact: 1, 0.5 shared, 0.
"""

from __future__ import annotations

import math
from typing import Any

from domain.board.model import State as BoardState
from domain.cards.model import Card
from domain.cards.model import State as CardsState

_CARD_INDEX = {Card.BLACK: 0, Card.RED: 1, Card.BLUE: 2, Card.GREEN: 3}
SCALE = 2.5  # points of strength worth about one logistic unit


def score_key(points: list[int], jokers: int) -> tuple[int, ...]:
    """Colours ascending after giving each joker to a weakest colour (optimal)."""
    totals = sorted(points)
    for _ in range(jokers):
        totals[0] += 1
        totals.sort()
    return tuple(totals)


def score_keys(state: Any) -> list[tuple[int, ...]]:
    """Every seat's score key in ``state`` of either game."""
    if isinstance(state, BoardState):
        return [score_key(list(state.points[s]), state.taken[s]) for s in range(state.seat_count)]
    if isinstance(state, CardsState):
        keys = []
        for pile in state.vp:
            points = [0, 0, 0, 0]
            jokers = 0
            for card in pile:
                i = _CARD_INDEX.get(card)
                if i is None:
                    jokers += 1
                else:
                    points[i] += 1
            keys.append(score_key(points, jokers))
        return keys
    raise TypeError(f"no evaluation for {type(state).__name__}")


def strength(key: tuple[int, ...]) -> float:
    return key[0] + 0.25 * key[1] + 0.06 * (key[2] + key[3])


def utility(keys: list[tuple[int, ...]], seat: int, over: bool) -> float:
    """How good ``keys`` are for ``seat``, in [0, 1]."""
    mine = keys[seat]
    others = [k for s, k in enumerate(keys) if s != seat]
    if over:
        best = max(others)
        return 1.0 if mine > best else 0.5 if mine == best else 0.0
    gap = strength(mine) - max(strength(k) for k in others)
    return 1.0 / (1.0 + math.exp(-gap / SCALE))
