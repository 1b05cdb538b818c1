"""Determinization: a full board-game position built from one seat's view.

A bot may read only its seat's view (B-HIDDEN-1). To search, it needs a
complete state, so everything the view hides is *sampled* consistently with
what it shows:

- the other seats' hands (their sizes are public) and the bag (its size is
  public) and the colours of the tiles out of the game (their total is
  public) share the tiles not accounted for: the fixed composition
  (``TILE_COUNTS``) minus the tiles on the board minus the viewer's hand;
- the other seats' treasures taken share the treasures no longer on the
  board and not taken by the viewer;
- the other seats' victory points are unknown and unbounded: each is drawn as
  a random split of the viewer's own total over the four colours (a neutral
  guess that keeps the race even).

The whole view -> position mapping lives in :func:`position_from_view`, so a
change of the view's layout is adapted here only.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from domain.board.geometry import START_TEMPLES, square
from domain.board.model import (
    ACTIONS_PER_TURN,
    FACE_DOWN,
    FACE_UP,
    TILE_COUNTS,
    Refill,
    State,
    Step,
    TreasureChoice,
)
from domain.board.notation import parse_board
from domain.board.position import (
    FORMAT,
    VERSION,
    load_position,
    pending_agenda,
    read_colour,
    read_conflict,
    step_json,
)
from domain.common.colours import COLOURS
from domain.common.exact import is_int

TREASURES_AT_START = len(START_TEMPLES)  # B-SETUP-2: one on each starting temple
_NAMES = [str(c) for c in COLOURS]


def _split(total: int, parts: int, rng: random.Random) -> list[int]:
    """A random split of ``total`` units over ``parts`` bins."""
    out = [0] * parts
    for _ in range(total):
        out[rng.randrange(parts)] += 1
    return out


def position_from_view(view: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A position (``POSITION_FORMAT.md``) that shows exactly ``view`` to its viewer,
    the hidden parts sampled with ``rng``."""
    me = view["viewer"]
    if not is_int(me):
        raise ValueError("determinization needs a seat's view, not a spectator's")
    seats = view["seats"]
    n = len(seats)
    pending = view["pending"]
    cells, on_board_treasures, _ = parse_board(view["board"])
    unseen: list[int] = []
    my_hand = [int(seats[me]["hand"][name]) for name in _NAMES]
    for c in range(4):
        on_board = sum(1 for code in cells if code in (FACE_UP + c, FACE_DOWN + c))
        left = TILE_COUNTS[c] - on_board - my_hand[c]
        if left < 0:
            raise ValueError(f"the view shows too many {COLOURS[c]} tiles")
        unseen.extend([c] * left)
    rng.shuffle(unseen)

    def take(count: int) -> list[int]:
        if count > len(unseen):
            raise ValueError("the view's counts exceed the unseen tiles")
        drawn = unseen[len(unseen) - count :]
        del unseen[len(unseen) - count :]
        return drawn

    def counts(tiles: list[int]) -> dict[str, int]:
        return {name: tiles.count(c) for c, name in enumerate(_NAMES)}

    hands: list[dict[str, int]] = []
    for seat in range(n):
        if seat == me:
            hands.append({name: int(seats[me]["hand"][name]) for name in _NAMES})
        else:
            hands.append(counts(take(int(seats[seat]["hand_size"]))))
    out_of_game = counts(take(int(view["out_of_game"])))
    bag = take(int(view["bag_size"]))
    if unseen:
        raise ValueError(f"{len(unseen)} tiles unaccounted for by the view")

    my_points = {name: int(seats[me]["points"][name]) for name in _NAMES}
    my_total = sum(my_points.values())
    points = []
    for seat in range(n):
        if seats[seat]["points"] is not None:  # one's own, or all with open scoring
            points.append({name: int(seats[seat]["points"][name]) for name in _NAMES})
        else:
            points.append(dict(zip(_NAMES, _split(my_total, 4, rng), strict=True)))
    hidden = [s for s in range(n) if seats[s]["treasures"] is None]
    known_taken = sum(int(s["treasures"]) for s in seats if s["treasures"] is not None)
    hidden_taken = max(0, TREASURES_AT_START - len(on_board_treasures) - known_taken)
    split = _split(hidden_taken, len(hidden), rng) if hidden else []
    taken = [
        split[hidden.index(s)] if s in hidden else int(seats[s]["treasures"]) for s in range(n)
    ]

    decision = pending["decision"]
    agenda: tuple[Step, ...] = ()
    actions_left = pending.get("actions_left", ACTIONS_PER_TURN)
    if decision == "refill":
        agenda = (Refill(),)
    elif decision not in ("action", "over"):
        raw_conflict = pending.get("conflict")
        treasure = None
        if decision == "treasure":
            treasure = TreasureChoice(
                pending["awaiting"][0],
                tuple(square(*at) for at in pending["treasures"]),
                pending["take"],
            )
        # The tile whose wars are being fought carries the unification marker.
        fighting = view["unification"] is not None and (
            decision == "choose_war" or (raw_conflict or {}).get("kind") == "war"
        )
        agenda = pending_agenda(
            active=view["active"],
            conflict=None if raw_conflict is None else read_conflict(raw_conflict, n),
            wars=tuple(
                read_colour(c, "wars") for c in pending.get("colours", pending.get("wars", []))
            ),
            placed=square(*view["unification"]) if fighting else -1,
            candidates=tuple(square(*at) for at in pending.get("squares", []))
            if decision == "monument"
            else (),
            treasure=treasure,
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "seats": [s["name"] for s in seats],
        "seed": 0,
        "start_player": view["start_player"],
        "options": {k: v for k, v in view["options"].items() if v},  # as the game stores them
        "board": view["board"],
        "hands": hands,
        "bag": [_NAMES[c] for c in bag],
        "points": points,
        "treasures_taken": taken,
        "catastrophes": [s["catastrophes"] for s in seats],
        "monuments": view["monuments"],
        "declined": view["declined_monuments"],
        "out_of_game": out_of_game,
        "turn": view["turn"],
        "active": view["active"],
        "actions_left": actions_left,
        "agenda": [step_json(step) for step in agenda],
        "conflict": pending.get("conflict"),
        "ended": "",
    }


def determinize(view: Mapping[str, Any], rng: random.Random) -> State:
    """A full state consistent with ``view``, hidden parts sampled with ``rng``."""
    return load_position(position_from_view(view, rng))
