"""The display: kingdoms, leaders on cards, where a card may be played, the strengths
of a conflict, removing cards with gaps closing upward.

A column (treasure* and the cards below it) is always one connected piece
(C-KINGDOM-1), so a kingdom is a run of neighbouring columns linked by bridge
cards, together with those bridges. Region ids are the leftmost column of the
run; they are computed once per state and memoised.
"""

from __future__ import annotations

from functools import lru_cache

from domain.cards.model import (
    BRIDGES,
    CARD_OF,
    COLUMNS,
    DEPTHS,
    INDEX,
    MAX_DEPTH,
    SHIP_SERVES,
    SHIPS,
    Card,
    State,
    spot_column,
)
from domain.common.colours import COLOURS, Colour


@lru_cache(maxsize=512)
def _regions(mask: int) -> tuple[int, ...]:
    ids: list[int] = []
    current = 0
    for c in range(COLUMNS):
        if c and not (mask >> (c - 1)) & 1:
            current = c
        ids.append(current)
    return tuple(ids)


def regions(state: State, joined: bool = False) -> tuple[int, ...]:
    """Region id of each column. ``joined``: count the face-down bridge as a link
    (the joined kingdom of C-JOIN-1); otherwise it belongs to neither side."""
    key = "rj" if joined else "r"
    cached = state._memo.get(key)
    if cached is None:
        mask = 0
        for b, card in enumerate(state.bridges):
            if card is not None and (joined or b != state.face_down):
                mask |= 1 << b
        cached = _regions(mask)
        state._memo[key] = cached
    return cached


def occupied(state: State) -> dict[int, int]:
    """Spot -> leader index (seat * 4 + colour index) for leaders in the display."""
    cached = state._memo.get("occ")
    if cached is None:
        cached = {spot: i for i, spot in enumerate(state.leaders) if spot >= 0}
        state._memo["occ"] = cached
    return cached


def region_of_spot(state: State, spot: int, joined: bool = False) -> int:
    return regions(state, joined)[spot_column(spot)]


def leaders_in_region(state: State, region: int, joined: bool = False) -> list[int]:
    """Leader indices (seat * 4 + colour index) standing in a region."""
    regs = regions(state, joined)
    return [
        i for i, spot in enumerate(state.leaders) if spot >= 0 and regs[spot_column(spot)] == region
    ]


def region_columns(state: State, region: int, joined: bool = False) -> list[int]:
    regs = regions(state, joined)
    return [c for c in range(COLUMNS) if regs[c] == region]


def region_bridges(state: State, region: int, joined: bool = False) -> list[int]:
    """Bridge slots holding a card that links inside the region."""
    regs = regions(state, joined)
    return [
        b
        for b in range(BRIDGES)
        if state.bridges[b] is not None
        and (joined or b != state.face_down)
        and regs[b] == region
        and regs[b + 1] == region
    ]


def count_in_region(state: State, region: int, colour: Colour) -> int:
    """C-WAR-3: cards of ``colour`` in a kingdom (without the face-down bridge).

    Ships never count; a treasure* counts as red (digest decision)."""
    card = CARD_OF[colour]
    total = 0
    for c in region_columns(state, region):
        column = state.columns[c]
        total += column.count(card)
        if colour is Colour.RED and column[0] is Card.TREASURE:
            total += 1
    for b in region_bridges(state, region):
        if state.bridges[b] is card:
            total += 1
    return total


def treasures_in_region(state: State, region: int, joined: bool = False) -> list[int]:
    """Columns of a region whose head is still a treasure card (not replaced)."""
    return [
        c for c in region_columns(state, region, joined) if state.columns[c][0] is Card.TREASURE
    ]


def treasures_left(state: State) -> int:
    """C-END-2: treasure cards (not replaced ones) still in the display."""
    return sum(1 for column in state.columns if column[0] is Card.TREASURE)


def blocked(state: State, hands: tuple[tuple[int, ...], ...]) -> bool:
    """Decision (the texts leave it open): the game can never end by C-END-1/2.

    No civilization card can be played again (every column holds 8 cards,
    every bridge slot is filled, no catastrophe card is left to make room) and
    no card can leave a hand (``hands``: after the refill) either: nobody holds
    a red card (revolts, C-REVOLT-4) or a card of a colour that a built ship
    serves (C-SHIP-5). Then the pile never shrinks again, so the game ends."""
    if (
        any(state.catastrophes)
        or any(len(column) <= MAX_DEPTH for column in state.columns)
        or any(card is None for card in state.bridges)
    ):
        return False
    spendable = {Colour.RED}
    for ship in SHIPS:
        if ship not in state.ships:
            spendable |= SHIP_SERVES[ship]
    return not any(hand[INDEX[colour]] for hand in hands for colour in spendable)


def column_open(state: State, column: int) -> bool:
    """C-CARD-1: a column takes cards until 8 lie below its treasure*."""
    return len(state.columns[column]) <= MAX_DEPTH


def bridge_open(state: State, bridge: int) -> bool:
    """C-CARD-2: an empty bridge slot between two columns of 3 or more cards each."""
    return (
        state.bridges[bridge] is None
        and len(state.columns[bridge]) > 3
        and len(state.columns[bridge + 1]) > 3
    )


def strengths(state: State) -> tuple[int, int]:
    """``(attacker, defender)`` strength of the current conflict (C-REVOLT-2, C-WAR-3)."""
    conflict = state.conflict
    assert conflict is not None
    result = []
    for seat, cards in (
        (conflict.attacker, conflict.attacker_cards),
        (conflict.defender, conflict.defender_cards),
    ):
        spot = state.leader_spot(seat, conflict.colour)
        if conflict.kind == "revolt":
            # C-REVOLT-2: +1 for a leader on a red card (temple or treasure*).
            bonus = 1 if state.card_at(spot) in (Card.RED, Card.TREASURE) else 0
        else:
            bonus = count_in_region(state, region_of_spot(state, spot), conflict.colour)
        result.append(max(cards, 0) + bonus)
    return result[0], result[1]


def ships_in_region(state: State, region: int) -> list[Card]:
    return [
        card for c in region_columns(state, region) for card in state.columns[c] if card in SHIPS
    ]


def ship_point_colours(state: State, seat: int) -> tuple[Colour, ...]:
    """C-SHIP-5: colours of ``seat``'s leaders in a kingdom with a matching ship."""
    if len(state.ships) == len(SHIPS):
        return ()  # no ship built yet (the usual case: keep the end of turn cheap)
    found: list[Colour] = []
    regs = regions(state)
    for i, colour in enumerate(COLOURS):
        spot = state.leaders[seat * 4 + i]
        if spot < 0:
            continue
        for ship in ships_in_region(state, regs[spot_column(spot)]):
            if colour in SHIP_SERVES[ship]:
                found.append(colour)
                break
    return tuple(found)


def remove_cards(
    columns: tuple[tuple[Card, ...], ...],
    leaders: tuple[int, ...],
    column: int,
    depths: set[int],
) -> tuple[tuple[tuple[Card, ...], ...], tuple[int, ...]]:
    """Take cards out of a column; the gap closes upward (C-CAT-2, C-WAR-5).

    Leaders on removed cards go back to supply (C-LEADER-4); leaders below
    move up with their cards."""
    old = columns[column]
    new_column = tuple(card for d, card in enumerate(old) if d not in depths)
    base = column * DEPTHS
    new_leaders = list(leaders)
    for i, spot in enumerate(leaders):
        if base <= spot < base + DEPTHS:
            depth = spot - base
            if depth in depths:
                new_leaders[i] = -1
            else:
                new_leaders[i] = spot - sum(1 for d in depths if d < depth)
    new_columns = (*columns[:column], new_column, *columns[column + 1 :])
    return new_columns, tuple(new_leaders)
