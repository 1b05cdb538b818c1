"""Both games name the same roles the same way in their views, pending decisions, conflicts,
agendas and events (issue 23: one vocabulary). A key that one game adds for a role the other
names differently fails here: add it to the shared lists, or rename it."""

from __future__ import annotations

from typing import Any

from domain.board import schemas as board_schemas
from domain.board.events import EVENTS as BOARD_EVENTS
from domain.board.model import DECISION_NAMES as BOARD_DECISION_NAMES
from domain.board.model import ChooseWar, Commit, EndAction, Refill, Resolve, Wars
from domain.board.position import step_json
from domain.cards import schemas as cards_schemas
from domain.cards.events import EVENTS as CARDS_EVENTS
from domain.cards.flow import DECISION_NAMES as CARDS_DECISION_NAMES

# Roles both games have, by the one key that names them.
SHARED_VIEW_KEYS = {
    "kind", "viewer", "complete", "over", "options", "turn", "active", "start_player",
    "actions_left", "seats", "pending", "seed", "result",
}  # fmt: skip
SHARED_SEAT_KEYS = {
    "seat", "name", "dynasty", "hand_size", "supply", "catastrophes", "hand", "points",
    "treasures",
}  # fmt: skip
SHARED_PENDING_KEYS = {"kind", "awaiting", "decision", "actions_left", "conflict", "reason"}
SHARED_CONFLICT_KEYS = {
    "kind", "colour", "attacker", "defender", "attacker_strength", "defender_strength",
}  # fmt: skip
SHARED_DECISIONS = {"action", "commit", "choose_war", "over"}
# The names each of these roles had in one game while the other named it otherwise: none may
# come back, in either game.
RETIRED = {
    "actions_done": "actions_left",
    "revolt_support": "commit",
    "war_support": "commit",
    "actions": "actions_left",
}


def _keys(schema: dict[str, Any]) -> set[str]:
    return set(schema["properties"])


def _decisions(schema: dict[str, Any]) -> set[str]:
    return set(schema["properties"]["decision"]["enum"])


def _every_name(*schemas: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for schema in schemas:
        names |= _keys(schema)
        names |= {str(v) for prop in schema["properties"].values() for v in prop.get("enum", ())}
    return names


def test_the_views_name_the_shared_roles_alike() -> None:
    for game in (board_schemas, cards_schemas):
        assert _keys(game.VIEW) >= SHARED_VIEW_KEYS, game.__name__
        assert _keys(game.VIEW_SEAT) >= SHARED_SEAT_KEYS, game.__name__
        assert _keys(game.PENDING) >= SHARED_PENDING_KEYS, game.__name__
        assert _keys(game.CONFLICT) >= SHARED_CONFLICT_KEYS, game.__name__
        assert _decisions(game.PENDING) >= SHARED_DECISIONS, game.__name__


def test_no_retired_name_is_used_by_either_game() -> None:
    for game in (board_schemas, cards_schemas):
        used = _every_name(game.VIEW, game.VIEW_SEAT, game.PENDING, game.CONFLICT)
        assert not used & set(RETIRED), (game.__name__, used & set(RETIRED))


def test_the_agendas_name_the_same_steps_alike() -> None:
    # the decision steps both games have carry the same names
    board = set(BOARD_DECISION_NAMES.values())
    cards = set(CARDS_DECISION_NAMES.values())
    assert {"commit", "choose_war"} <= board & cards
    # and the board's position format names its steps as the card game's does
    names = {step_json(s)["step"] for s in (Commit(0), ChooseWar(0, (0, 1)), Wars(()))}
    names |= {step_json(s)["step"] for s in (Resolve(), EndAction(), Refill())}
    assert names == {"commit", "choose_war", "wars", "resolve", "end_action", "refill"}


def test_the_commit_events_name_their_fields_alike() -> None:
    board = set(BOARD_EVENTS.field_names("SupportCommitted"))
    cards = set(CARDS_EVENTS.field_names("CardsCommitted"))
    assert board == cards == {"seat", "colour", "count"}
    assert set(BOARD_EVENTS.field_names("WarChosen")) == set(CARDS_EVENTS.field_names("WarChosen"))
