"""Final scoring shared by both games (B-END-3, C-END-3).

A player's score is their weakest colour; ties are broken by the second
weakest, then the third, then the fourth. Jokers (treasures) may be assigned
to any colour, freely and separately.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.common.colours import COLOURS, Colour


@dataclass(frozen=True, slots=True)
class FinalScore:
    """One player's final tally after the best assignment of their jokers."""

    seat: int
    points: Mapping[Colour, int]  # per colour, jokers included
    jokers: Mapping[Colour, int]  # how many jokers went to each colour
    key: tuple[int, ...]  # colours ascending: weakest first; compared for rank

    @property
    def score(self) -> int:
        """The score proper: the weakest colour."""
        return self.key[0]


def best_assignment(seat: int, points: Mapping[Colour, int], jokers: int) -> FinalScore:
    """Assign ``jokers`` so that the ascending tuple of colours is as large as possible.

    Giving each joker in turn to a currently weakest colour is optimal for the
    lexicographic order of the ascending tuple (it raises the minimum whenever
    that is possible and never lowers any later position).
    """
    if jokers < 0:
        raise ValueError(f"jokers must be >= 0, got {jokers}")
    totals = {c: int(points.get(c, 0)) for c in COLOURS}
    given = dict.fromkeys(COLOURS, 0)
    for _ in range(jokers):
        weakest = min(COLOURS, key=lambda c: (totals[c], COLOURS.index(c)))
        totals[weakest] += 1
        given[weakest] += 1
    return FinalScore(
        seat=seat,
        points=totals,
        jokers={c: n for c, n in given.items() if n},
        key=tuple(sorted(totals.values())),
    )


def rank_players(scores: list[FinalScore]) -> list[list[int]]:
    """Seats grouped by place, best first; a group of several is a shared place."""
    ordered = sorted(scores, key=lambda s: s.key, reverse=True)
    places: list[list[int]] = []
    previous: tuple[int, ...] | None = None
    for s in ordered:
        if s.key == previous:
            places[-1].append(s.seat)
        else:
            places.append([s.seat])
            previous = s.key
    return places


def score_key(points: list[int], jokers: int) -> tuple[int, ...]:
    """Colours ascending after giving each joker to a weakest colour (optimal, as in
    :func:`best_assignment`): the key that :func:`rank_players` compares, cheaply."""
    totals = sorted(points)
    for _ in range(jokers):
        totals[0] += 1
        totals.sort()
    return tuple(totals)
