"""Setup (C-SETUP-*): the events that begin a game, and the position they lead to.

The shuffled pile and the start player derive from the seed recorded in
``GameStarted``; the first hands are dealt by ``CardsDrawn`` events.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.cards.events import CardsDrawn, Event, GameStarted
from domain.cards.model import (
    BRIDGES,
    COLOUR_CARDS,
    COLOUR_OF,
    COLUMNS,
    DECK,
    HAND_SIZE,
    MAX_DEPTH,
    SHIPS,
    TWO_PLAYER_SET_ASIDE,
    Card,
    Options,
    Setup,
    State,
)
from domain.common.codec import JSON
from domain.common.errors import FormatError
from domain.common.exact import is_int

OPTION_NAMES = ("leader_colour_must_differ", "allow_withdraw", "open_vp_piles", "trader_takes_one")


def normalize_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The four variants, booleans, default False; unknown keys are refused."""
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
    """The display a game of ``options`` begins with (C-SETUP-*), as ``CardsMap``: the same
    for every game of these options. FormatError on bad options."""
    normal = normalize_options(options)
    return {
        "kind": "cards",
        "options": normal,
        "columns": COLUMNS,
        "column_cards": MAX_DEPTH,
        "treasures": list(range(COLUMNS)),  # C-SETUP-2: a treasure on top of each column
        "bridges": [{"bridge": b, "columns": [b, b + 1]} for b in range(BRIDGES)],
        "ships": [str(ship) for ship in SHIPS],
        "cards": {str(card): n for card, n in zip(COLOUR_CARDS, DECK, strict=True)},
        "hand_size": HAND_SIZE,
        "set_aside_for_two": TWO_PLAYER_SET_ASIDE,
    }


def start(seat_names: Sequence[str], options: Mapping[str, Any], seed: int) -> list[Event]:
    """GameStarted, then 8 cards dealt to each seat in seat order (C-SETUP-4)."""
    if isinstance(seat_names, str) or not 2 <= len(seat_names) <= 4:
        raise FormatError("the card game needs 2 to 4 seats", "seats")
    if not all(isinstance(name, str) for name in seat_names):
        raise FormatError("seat names must be strings", "seats")
    if not is_int(seed):
        raise FormatError(f"seed must be an integer, got {seed!r}", "seed")
    normal = normalize_options(options)
    pile, _, start_player = deal(seed, len(seat_names))
    events: list[Event] = [GameStarted(tuple(seat_names), Options(**normal), seed, start_player)]
    for seat in range(len(seat_names)):
        cards = pile[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
        events.append(CardsDrawn(seat, tuple(COLOUR_OF[c] for c in cards)))
    return events


def deal(seed: int, seat_count: int) -> tuple[tuple[Card, ...], tuple[Card, ...], int]:
    """``(pile, set_aside, start_player)`` for a seed: a local ``Random(seed)``
    shuffles the 185 cards; with 2 players the first 30 leave the game."""
    rng = random.Random(seed)
    deck = [card for card, n in zip(COLOUR_CARDS, DECK, strict=True) for _ in range(n)]
    rng.shuffle(deck)
    set_aside: list[Card] = []
    if seat_count == 2:
        set_aside, deck = deck[:TWO_PLAYER_SET_ASIDE], deck[TWO_PLAYER_SET_ASIDE:]
    return tuple(deck), tuple(set_aside), rng.randrange(seat_count)


def initial_state(started: GameStarted) -> State:
    """The position right after ``GameStarted``: treasures laid out, hands still empty."""
    seats = tuple(started.seats)
    pile, set_aside, _ = deal(started.seed, len(seats))
    n = len(seats)
    return State(
        setup=Setup(seats, started.options, started.seed, started.start_player, pile, set_aside),
        drawn=0,
        columns=((Card.TREASURE,),) * COLUMNS,
        bridges=(None,) * BRIDGES,
        face_down=-1,
        leaders=(-1,) * (4 * n),
        hands=((0, 0, 0, 0),) * n,
        vp=((),) * n,
        discard=(0, 0, 0, 0),
        destroyed=(),
        catastrophes=(True,) * n,
        ships=SHIPS,
        turn=1,
        active=started.start_player,
        actions_left=2,
        agenda=(),
        conflict=None,
        over=None,
    )
