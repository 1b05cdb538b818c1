"""The registry of games the service offers, by their stable ``kind``.

A game registers once: its package's ``RULES`` (a :class:`~domain.common.protocol.GameRules`,
most simply a :class:`~domain.common.adapter.GameAdapter`) named in :data:`GAMES`. The
service, the contract, the bots and the rules pages ask the registration for everything
they need of a game, so adding one is its package and one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from domain.common.protocol import GameRules

# The packages of the games on offer, each with a module-level ``RULES``; the order is the
# contract's and the lists'.
GAMES: tuple[str, ...] = (
    "domain.board",
    "domain.cards",
)

_extra: dict[str, GameRules[Any, Any, Any]] = {}


def all_games() -> dict[str, GameRules[Any, Any, Any]]:
    """``{"board": ..., "cards": ...}`` (and any game :func:`registered` for now); the
    packages are imported on first use, to keep imports cheap."""
    games: dict[str, GameRules[Any, Any, Any]] = {}
    for package in GAMES:
        rules: GameRules[Any, Any, Any] = importlib.import_module(package).RULES
        games[rules.kind] = rules
    games.update(_extra)
    return games


def seat_range() -> tuple[int, int]:
    """The fewest and the most seats any game on offer takes (what a request may ask for
    before its kind's own range is checked)."""
    games = all_games().values()
    return min(g.min_seats for g in games), max(g.max_seats for g in games)


@contextmanager
def registered(rules: GameRules[Any, Any, Any]) -> Iterator[GameRules[Any, Any, Any]]:
    """Offer one more game while the block runs (a test's third game): everything that asks
    :func:`all_games` from then on sees it; what was built before may not (build the app,
    the service, the contract inside the block)."""
    if rules.kind in all_games():
        raise ValueError(f"a game of kind {rules.kind!r} is registered already")
    _extra[rules.kind] = rules
    try:
        yield rules
    finally:
        del _extra[rules.kind]
