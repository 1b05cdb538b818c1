"""``legal_commands``: every command ``decide`` accepts from a seat, and no other.

The enumeration mirrors the guard clauses of ``decide``; both ask the same
predicates (``flow`` for who is awaited, ``display`` for where a card may go),
and a test checks both against a brute-force superset of candidates.
"""

from __future__ import annotations

from collections.abc import Iterator

from domain.cards import display
from domain.cards.commands import (
    BuildShip,
    ChooseWar,
    Command,
    CommitCards,
    Decline,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    SwapTreasure,
    TakePoint,
    WithdrawLeader,
)
from domain.cards.flow import awaited_seat, current_decision
from domain.cards.model import (
    BRIDGE_BASE,
    BRIDGES,
    COLOUR_OF,
    COLUMNS,
    DEPTHS,
    INDEX,
    SHIPS,
    Card,
    Commit,
    Offer,
    ShipOffer,
    ShipPoints,
    State,
    bridge_spot,
)
from domain.cards.model import ChooseWar as ChooseWarStep
from domain.common.colours import COLOURS, Colour


def card_spots(state: State) -> Iterator[int]:
    """Every spot holding a card (face-down bridge excluded)."""
    for c, column in enumerate(state.columns):
        base = c * DEPTHS
        for d in range(len(column)):
            yield base + d
    for b, card in enumerate(state.bridges):
        if card is not None and b != state.face_down:
            yield BRIDGE_BASE + b


def _where_of(spot: int) -> tuple[int | None, int, int | None]:
    if spot >= BRIDGE_BASE:
        return None, 0, spot - BRIDGE_BASE
    return spot // DEPTHS, spot % DEPTHS, None


# (column, depth, bridge) of each spot, precomputed for the move generator.
_WHERE = tuple(_where_of(spot) for spot in range(BRIDGE_BASE + BRIDGES))


def legal_commands(state: State, seat: int) -> Iterator[Command]:
    """Every command ``decide`` accepts from ``seat`` now, and no other."""
    if awaited_seat(state) != seat:
        return
    decision = current_decision(state)
    hand = state.hands[seat]
    if decision is None:
        yield from _legal_actions(state, seat)
    elif isinstance(decision, Offer):
        if hand[INDEX[decision.colour]]:
            yield TakePoint(seat, decision.colour)
        yield Decline(seat)
    elif isinstance(decision, ShipPoints):
        for colour in decision.colours:
            if hand[INDEX[colour]]:
                yield TakePoint(seat, colour)
        yield Decline(seat)
    elif isinstance(decision, ShipOffer):
        for ship in decision.ships:
            yield BuildShip(seat, ship)
        yield Decline(seat)
    elif isinstance(decision, ChooseWarStep):
        for colour in decision.colours:
            yield ChooseWar(seat, colour)
    elif isinstance(decision, Commit):
        conflict = state.conflict
        assert conflict is not None
        for count in range(hand[INDEX[conflict.card_colour]] + 1):
            yield CommitCards(seat, count)
    else:
        if hand[INDEX[Colour.RED]]:
            region = display.region_of_spot(state, bridge_spot(decision.bridge))
            for column in display.treasures_in_region(state, region):
                yield SwapTreasure(seat, column)
        yield Decline(seat)


def _legal_actions(state: State, seat: int) -> Iterator[Command]:
    hand = state.hands[seat]
    spots = list(card_spots(state))
    occupied = display.occupied(state)
    free = [s for s in spots if s not in occupied and state.card_at(s) not in SHIPS]
    differ = state.options.leader_colour_must_differ
    for colour in COLOURS:
        for spot in free:
            if differ:
                card = state.card_at(spot)
                if (Colour.RED if card is Card.TREASURE else COLOUR_OF.get(card)) is colour:  # type: ignore[arg-type]
                    continue
            column, depth, bridge = _WHERE[spot]
            yield PlaceLeader(seat, colour, column, depth, bridge)
    if state.options.allow_withdraw:
        for colour in COLOURS:
            if state.leader_spot(seat, colour) >= 0:
                yield WithdrawLeader(seat, colour)
    columns = [c for c in range(COLUMNS) if display.column_open(state, c)]
    bridges = [b for b in range(BRIDGES) if display.bridge_open(state, b)]
    for colour in COLOURS:
        if hand[INDEX[colour]]:
            for c in columns:
                yield PlayCard(seat, colour, column=c)
            for b in bridges:
                yield PlayCard(seat, colour, bridge=b)
    if state.catastrophes[seat]:
        for spot in free:
            if spot < BRIDGE_BASE and spot % DEPTHS == 0:
                continue
            column, depth, bridge = _WHERE[spot]
            yield PlayCatastrophe(seat, column, depth, bridge)
    yield Pass(seat)
