"""Setup (B-SETUP-*): the events that begin a game, and the position they lead to.

The bag's drawing order and the start player derive from the seed recorded in
``GameStarted``; the first hands are dealt by ``TilesDrawn`` events.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from domain.board.events import Event, GameStarted, TilesDrawn
from domain.board.geometry import (
    BORDER_TREASURES,
    COLS,
    RIVER,
    ROWS,
    SQUARES,
    START_TEMPLES,
    coords,
)
from domain.board.model import (
    ACTIONS_PER_TURN,
    CATASTROPHES_PER_SEAT,
    EMPTY,
    HAND_SIZE,
    MONUMENTS,
    OPTION_NAMES,
    RED,
    TEMPLE,
    TILE_COUNTS,
    Options,
    State,
)
from domain.common.codec import JSON
from domain.common.colours import COLOURS
from domain.common.errors import FormatError
from domain.common.exact import is_int


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Every option (booleans, default false) filled in; unknown keys are refused."""
    if not isinstance(options, Mapping):
        raise FormatError("options must be an object", "options")
    out: dict[str, Any] = dict.fromkeys(OPTION_NAMES, False)
    for key, value in options.items():
        if key not in out:
            raise FormatError(f"unknown option (known: {', '.join(OPTION_NAMES)})", str(key))
        if not isinstance(value, bool):
            raise FormatError(f"must be true or false, got {value!r}", key)
        out[key] = value
    return out


def setup_map(options: Mapping[str, Any]) -> JSON:
    """The board a game of ``options`` begins with (B-SETUP-1..6), as ``BoardMap``: the
    same for every game of these options. FormatError on bad options."""
    normal = normalize_options(options)

    def at(sq: int) -> list[int]:
        return list(coords(sq))

    return {
        "kind": "board",
        "options": normal,
        "rows": ROWS,
        "columns": COLS,
        "rivers": [at(sq) for sq in range(SQUARES) if RIVER[sq]],
        "temples": [at(sq) for sq in START_TEMPLES],
        "treasures": [at(sq) for sq in START_TEMPLES],  # B-SETUP-2: one on each temple
        "border_treasures": [at(sq) for sq in sorted(BORDER_TREASURES)],
        "monuments": [{"monument": str(m), "colours": str(m).split("-")} for m in MONUMENTS],
        "tiles": {str(c): n for c, n in zip(COLOURS, TILE_COUNTS, strict=True)},
        "hand_size": HAND_SIZE,
        "catastrophes": CATASTROPHES_PER_SEAT,
    }


def start(seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[Event]:
    """``GameStarted`` then each seat's six tiles in seat order (B-SETUP-4, B-SETUP-5)."""
    names = list(seat_names)
    if not 2 <= len(names) <= 4:
        raise FormatError(f"the board game takes 2 to 4 seats, not {len(names)}", "seats")
    if not is_int(seed):
        raise FormatError(f"expected an integer seed, got {seed!r}", "seed")
    opts = normalize_options(options)
    bag, start_player = bag_order(seed, len(names))
    events: list[Event] = [GameStarted(tuple(names), seed, start_player, Options(**opts))]
    for seat in range(len(names)):
        tiles = bag[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(TilesDrawn(seat, tuple(COLOURS[c] for c in tiles)))
    return events


def bag_order(seed: int, seat_count: int) -> tuple[tuple[int, ...], int]:
    """The bag's drawing order and the start player, both from the seed (B-SETUP-4, -5)."""
    rng = random.Random(seed)
    temples = len(START_TEMPLES)  # already on the board
    bag = [c for c, n in enumerate(TILE_COUNTS) for _ in range(n - (temples if c == RED else 0))]
    rng.shuffle(bag)
    return tuple(bag), rng.randrange(seat_count)


def initial_state(started: GameStarted) -> State:
    """The position right after ``GameStarted``: temples and treasures laid out, hands empty."""
    board = [EMPTY] * SQUARES
    for sq in START_TEMPLES:
        board[sq] = TEMPLE
    n = len(started.seats)
    bag, _ = bag_order(started.seed, n)
    return State(
        seats=tuple(started.seats),
        seed=started.seed,
        start_player=started.start_player,
        board=tuple(board),
        treasures=frozenset(START_TEMPLES),
        leaders=(-1,) * (4 * n),
        hands=((0, 0, 0, 0),) * n,
        bag=bag,
        points=((0, 0, 0, 0),) * n,
        taken=(0,) * n,
        catastrophes=(CATASTROPHES_PER_SEAT,) * n,
        monuments=(),
        declined=frozenset(),
        out=(0, 0, 0, 0),
        turn=1,
        active=started.start_player,
        actions_left=ACTIONS_PER_TURN,
        # only options that differ from their default: a game stored before an option
        # existed keeps the same position (and snapshots) as a new game without it
        options=tuple(
            (f.name, getattr(started.options, f.name))
            for f in fields(Options)
            if getattr(started.options, f.name) != f.default
        ),
    )
