"""The rule trail walk both games share: each event of a command evolved in turn, and
named by the game's ``explain_event`` from the states right before and after it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

S = TypeVar("S")
E = TypeVar("E")

Trail = tuple[str, ...]


def walk(
    evolve: Callable[[S | None, E], S],
    explain_event: Callable[[S | None, E, S], Trail],
    state: S | None,
    events: Sequence[E],
) -> list[Trail]:
    """The rule ids behind each of ``events`` (decided on ``state``, or a game's start)."""
    out: list[Trail] = []
    before = state
    for event in events:
        after = evolve(before, event)
        out.append(explain_event(before, event, after))
        before = after
    return out
