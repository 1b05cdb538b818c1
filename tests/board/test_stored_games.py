"""Stored games keep folding to the same states, whatever the code learns later.

``golden/stored_games_before_outcomes.json`` holds three random games (2, 3 and 4 seats,
with revolts, ties and wars that remove several supporters) as their events were stored
before the board game had a ``ConflictResolved`` event (commit bf7aa88): each event as
``[type, schema version, data]``, and after each event a digest of what a player can see
of the state (board, hands, points, treasures, catastrophes, tiles out of the game, turn,
active seat, bag size). The file was written once by that code; never regenerate it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from domain.board import EVENTS, State, evolve, fold
from domain.board.notation import format_board

GOLDEN = Path(__file__).parent / "golden" / "stored_games_before_outcomes.json"
GAMES: list[dict[str, Any]] = json.loads(GOLDEN.read_text())


def observable(state: State) -> dict[str, Any]:
    return {
        "board": format_board(state.board, state.treasures, state.unification),
        "hands": [list(h) for h in state.hands],
        "points": [list(p) for p in state.points],
        "taken": list(state.taken),
        "catastrophes": list(state.catastrophes),
        "out": list(state.out),
        "turn": state.turn,
        "active": state.active,
        "bag": len(state.bag),
    }


def digest(state: State) -> str:
    text = json.dumps(observable(state), sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g['seats']}seats-seed{g['seed']}")
def test_a_stream_stored_before_conflict_events_folds_to_the_same_states(
    game: dict[str, Any],
) -> None:
    # given a game's events as they were stored before ConflictResolved existed
    events = [EVENTS.decode(name, version, data) for name, version, data in game["events"]]
    # when they are evolved one by one, and folded at once
    state: State | None = None
    seen = []
    for event in events:
        state = evolve(state, event)
        seen.append(digest(state))
    # then every state is the one the code of then computed, and so is the fold's
    assert seen == game["digests"]
    final = fold(events)
    assert final == state
    assert [list(p) for p in final.points] == game["final_points"]
