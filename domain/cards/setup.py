"""Setup (C-SETUP-*): the shuffled pile and the start player derive from the seed."""

from __future__ import annotations

import random

from domain.cards.model import (
    BRIDGES,
    COLOUR_CARDS,
    COLUMNS,
    DECK,
    SHIPS,
    TWO_PLAYER_SET_ASIDE,
    Card,
    Options,
    Setup,
    State,
)


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


def initial_state(seats: tuple[str, ...], options: Options, seed: int, start_player: int) -> State:
    """The position right after GameStarted: treasures laid out, hands still empty."""
    pile, set_aside, _ = deal(seed, len(seats))
    n = len(seats)
    return State(
        setup=Setup(seats, options, seed, start_player, pile, set_aside),
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
        active=start_player,
        actions_left=2,
        agenda=(),
        conflict=None,
        over=None,
    )
