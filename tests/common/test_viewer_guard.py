"""Views accept a seat or None and nothing else: a stray ``True`` is not seat 1."""

from __future__ import annotations

from typing import Any

import pytest

from domain.common import FormatError
from domain.common.protocol import GameRules
from domain.games import all_games


@pytest.mark.parametrize("kind", ["board", "cards"])
@pytest.mark.parametrize("viewer", [True, False, -1, 2, "0", 0.0])
def test_a_view_for_anything_but_a_seat_or_a_spectator_is_refused(kind: str, viewer: Any) -> None:
    # rule B-HIDDEN-1, C-HIDDEN-1: only a real seat sees its own hand
    rules: GameRules[Any, Any, Any] = all_games()[kind]
    events = rules.start(["Ann", "Bob"], rules.normalize_options({}), 7)
    state = rules.fold(events)
    with pytest.raises(FormatError, match="viewer"):
        rules.view(state, viewer)
    with pytest.raises(FormatError, match="viewer"):
        rules.event_view(events[-1], viewer, state)
    # while seats and spectators are served
    assert rules.view(state, 1) != rules.view(state, None)
    assert rules.event_view(events[-1], None, state) is not None
