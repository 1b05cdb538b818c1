"""Weighted groups of candidate commands, and drawing one legal command from them.

Each game's ``sample`` module splits a decision's commands into groups of one
kind (tiles, leaders, ...): a group has a weight and ``size`` candidates, drawn
from a cheap superset, and ``member(i)`` builds the ``i``-th candidate if it is
legal (else None). :func:`draw` picks a group by weight, then one of its legal
members uniformly (rejection, then enumeration if rejection keeps failing), so
only the chosen command is built; :func:`members` lists all that can be drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

C = TypeVar("C")
TRIES = 24  # rejection draws before a group is enumerated


@dataclass(frozen=True, slots=True)
class Group(Generic[C]):
    """``size`` candidates of one kind; ``member(i)`` is the ``i``-th one if it is legal."""

    weight: float
    size: int
    member: Callable[[int], C | None]


def members(groups: Sequence[Group[C]]) -> Iterator[C]:
    """Every command :func:`draw` can return from ``groups``."""
    for group in groups:
        for i in range(group.size):
            command = group.member(i)
            if command is not None:
                yield command


def draw(groups: Sequence[Group[C]], rng: random.Random) -> C:
    """A group with a legal member, by weight, then one of its legal members uniformly."""
    live = [g for g in groups if g.size > 0]
    while live:
        x = rng.random() * sum(g.weight for g in live)
        k = 0
        while k < len(live) - 1 and x >= live[k].weight:
            x -= live[k].weight
            k += 1
        group = live[k]
        for _ in range(TRIES):
            command = group.member(rng.randrange(group.size))
            if command is not None:
                return command
        found = [c for i in range(group.size) if (c := group.member(i)) is not None]
        if found:
            return found[rng.randrange(len(found))]
        del live[k]
    raise ValueError("no command to draw")
