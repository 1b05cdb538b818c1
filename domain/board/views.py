"""What each seat may see (B-HIDDEN-1), the pending decision, and the result.

Hands, points and treasures taken are private to their seat (points and treasures
are public with the ``open_scoring`` option); the bag's order and the seed are secret
from everybody until the game is over. Every view has the same keys: what the viewer
may not see is ``None``; the admin's view and every view after the end are complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.board.events import (
    EVENTS,
    ConflictResolved,
    Event,
    GameStarted,
    TilesDrawn,
    TilesSwapped,
)
from domain.board.flow import awaited_seat
from domain.board.geometry import coords
from domain.board.model import (
    CATASTROPHE,
    CHOOSE_WAR,
    COMMIT,
    DYNASTIES,
    FACE_DOWN,
    FACE_UP,
    MONUMENT,
    MONUMENTS,
    OVER,
    TREASURE,
    State,
)
from domain.board.notation import format_board
from domain.common.codec import JSON
from domain.common.colours import COLOURS
from domain.common.resign import resigned_last
from domain.common.scoring import best_assignment, rank_players
from domain.common.seats import check_viewer


def at(sq: int) -> list[int]:
    return list(coords(sq))


def colour_counts(values: tuple[int, ...] | list[int]) -> dict[str, int]:
    return {str(COLOURS[c]): values[c] for c in range(4)}


def conflict_json(state: State) -> JSON | None:
    c = state.conflict
    if c is None:
        return None
    return {
        "kind": c.kind,
        "colour": str(COLOURS[c.colour]),
        "attacker": c.attacker,
        "defender": c.defender,
        "attacker_at": at(c.attacker_at),
        "defender_at": at(c.defender_at),
        "attacker_base": c.attacker_base,
        "defender_base": c.defender_base,
        "attacker_commit": None if c.attacker_commit < 0 else c.attacker_commit,
        "defender_commit": None if c.defender_commit < 0 else c.defender_commit,
        # as the card game names them: the base plus the tiles committed so far
        "attacker_strength": c.attacker_base + max(c.attacker_commit, 0),
        "defender_strength": c.defender_base + max(c.defender_commit, 0),
    }


def declined_json(state: State) -> list[JSON]:
    """Each declined 2x2 square with its declined tiles still on the board (B-MONUMENT-3)."""
    return [
        {"at": at(tl), "tiles": sorted(at(sq) for t, sq in state.declined_tiles if t == tl)}
        for tl in sorted(state.declined)
    ]


def pending(state: State) -> JSON:
    seat = awaited_seat(state)
    out: JSON = {
        "kind": "board",
        "awaiting": [] if seat < 0 else [seat],
        "decision": state.decision,
    }
    d = state.decision
    if d == COMMIT:
        out["conflict"] = conflict_json(state)
        if state.wars:
            out["wars"] = [str(COLOURS[c]) for c in state.wars]
    elif d == CHOOSE_WAR:  # named as the card game's choice
        out["colours"] = [str(COLOURS[c]) for c in state.wars]
    elif d == MONUMENT:
        built = {m for m, _ in state.monuments}
        out["squares"] = [at(tl) for tl in state.candidates]
        out["monuments"] = [str(m) for i, m in enumerate(MONUMENTS) if i not in built]
    elif d == TREASURE:
        out["treasures"] = [at(sq) for sq in state.treasure_squares]
        out["take"] = state.treasure_take
    elif d == OVER:
        out["reason"] = state.ended
    if state.unification >= 0:
        out["unification"] = at(state.unification)
    if d not in (OVER,):
        out["turn"] = state.turn
        out["active"] = state.active
        out["actions_left"] = state.actions_left
    return out


def result(state: State) -> JSON | None:
    if state.decision != OVER:
        return None
    scores = [
        best_assignment(
            seat,
            {COLOURS[c]: state.points[seat][c] for c in range(4)},
            state.taken[seat],
        )
        for seat in range(state.seat_count)
    ]
    places = resigned_last(rank_players(scores), state.resigned)  # B-RESIGN-2
    place_of = {seat: i + 1 for i, group in enumerate(places) for seat in group}
    return {
        "kind": "board",
        "reason": state.ended,
        "seats": [
            {
                "seat": s.seat,
                "name": state.seats[s.seat],
                "dynasty": DYNASTIES[s.seat],
                "points": colour_counts(state.points[s.seat]),
                "treasures": state.taken[s.seat],
                "treasures_assigned": {str(c): n for c, n in s.jokers.items()},
                "totals": {str(c): n for c, n in s.points.items()},
                "score": s.score,
                "key": list(s.key),
                "place": place_of[s.seat],
                "winner": place_of[s.seat] == 1,
                "resigned": s.seat in state.resigned,
            }
            for s in scores
        ],
        "places": places,
    }


def open_scoring(state: State) -> bool:
    """The ``open_scoring`` option: every seat's victory points are public."""
    return bool(dict(state.options).get("open_scoring", False))


def tiles_json(state: State) -> tuple[list[JSON], list[list[int]]]:
    """The tiles on the board (colour, square, face up or down under a monument) and the
    catastrophe tiles' squares, in square order."""
    tiles: list[JSON] = []
    catastrophes: list[list[int]] = []
    for sq, code in enumerate(state.board):
        if FACE_UP <= code < FACE_UP + 4:
            tiles.append({"colour": str(COLOURS[code - FACE_UP]), "at": at(sq), "face_up": True})
        elif FACE_DOWN <= code < FACE_DOWN + 4:
            tiles.append({"colour": str(COLOURS[code - FACE_DOWN]), "at": at(sq), "face_up": False})
        elif code == CATASTROPHE:
            catastrophes.append(at(sq))
    return tiles, catastrophes


def view(state: State, viewer: int | None, *, complete: bool = False) -> JSON:
    """What ``viewer`` (a seat, or None) may see; ``complete``: everything (the admin).
    Once the game is over every view is complete. Every key is always present: what
    the caller may not see is ``null``."""
    viewer = check_viewer(viewer, state.seat_count)
    over = state.decision == OVER
    complete = complete or over
    scores_public = complete or open_scoring(state)
    built = {m for m, _ in state.monuments}
    seats = []
    for seat in range(state.seat_count):
        mine = complete or seat == viewer
        scores = scores_public or seat == viewer
        seats.append(
            {
                "seat": seat,
                "name": state.seats[seat],
                "dynasty": DYNASTIES[seat],
                "hand_size": state.hand_size(seat),
                "supply": [str(COLOURS[c]) for c in range(4) if state.leaders[seat * 4 + c] < 0],
                "catastrophes": state.catastrophes[seat],
                "hand": colour_counts(state.hands[seat]) if mine else None,
                "points": colour_counts(state.points[seat]) if scores else None,
                "treasures": state.taken[seat] if scores else None,
            }
        )
    tiles, catastrophes = tiles_json(state)
    return {
        "kind": "board",
        "viewer": viewer,
        "complete": complete,
        "over": over,
        "options": {"open_scoring": open_scoring(state)},
        "turn": state.turn,
        "active": state.active,
        "start_player": state.start_player,
        "resigned": list(state.resigned),
        "actions_left": state.actions_left,
        "board": format_board(state.board, state.treasures, state.unification),
        "tiles": tiles,
        "catastrophes": catastrophes,
        "leaders": [
            {"seat": i >> 2, "colour": str(COLOURS[i & 3]), "at": at(sq)}
            for i, sq in enumerate(state.leaders)
            if sq >= 0
        ],
        "treasures": [at(sq) for sq in sorted(state.treasures)],
        "monuments": [{"monument": str(MONUMENTS[m]), "at": at(tl)} for m, tl in state.monuments],
        "unbuilt_monuments": [str(m) for i, m in enumerate(MONUMENTS) if i not in built],
        "declined_monument_squares": [at(sq) for sq in sorted(state.declined)],
        # each declined square with its declined tiles still on the board (B-MONUMENT-3)
        "declined_monuments": declined_json(state),
        "unification": None if state.unification < 0 else at(state.unification),
        "bag_size": len(state.bag),
        "out_of_game": sum(state.out),  # colours hidden: swapped tiles are discarded face down
        "seats": seats,
        "pending": pending(state),
        "seed": state.seed if complete else None,
        "bag": [str(COLOURS[c]) for c in state.bag] if complete else None,
        "result": result(state),
    }


# What ``event_view`` hides from a viewer, by event type: (fields left out, fields added
# in their place). The contract types each event's data as its full or redacted form.
REDACTED: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "GameStarted": (("seed",), {}),
    "TilesDrawn": (("tiles",), {"count": "integer"}),
    "TilesSwapped": (("black", "red", "blue", "green", "drawn"), {"count": "integer"}),
    "ConflictResolved": (("points",), {}),
}


def event_view(
    event: Event, viewer: int | None, state_after: State, encoded: Mapping[str, Any] | None = None
) -> JSON:
    """An event's data (without its ``type``) as ``viewer`` may see it; ``encoded``: its
    fields as ``EVENTS`` encodes them, if the caller has them (not encoded again)."""
    viewer = check_viewer(viewer, state_after.seat_count)
    data = EVENTS.fields_json(event, encoded)  # the envelope names the type
    if state_after.decision == OVER:
        return data
    if isinstance(event, GameStarted):
        del data["seed"]  # B-HIDDEN-1: the bag's order is secret
    elif isinstance(event, TilesDrawn) and event.seat != viewer:
        data = {"seat": event.seat, "count": len(event.tiles)}
    elif isinstance(event, TilesSwapped) and event.seat != viewer:
        data = {"seat": event.seat, "count": len(event.drawn)}
    elif (
        isinstance(event, ConflictResolved)
        and event.winner != viewer
        and not open_scoring(state_after)
    ):
        del data["points"]  # B-HIDDEN-1: victory points are secret (committed tiles are not)
    return data
