"""``sample_command``: one legal command drawn at random, without enumerating them all.

The bots' playouts need a random legal command per position, thousands of times
a second; ``legal_commands`` builds every one (in mid-game about 250, nearly all
of them leader moves) just for one to be picked. Here the commands of an action
are split into kinds (cards, leaders, withdrawals, catastrophes, pass), a kind
is drawn by a fixed weight (a playout that mostly plays cards looks like a game;
uniform over commands, it mostly shuffles leaders), and then a command of that
kind uniformly, by the same predicates as ``legal_commands``, so no command
object but the chosen one is built. Other decisions have a few commands: one of
them uniformly.

:func:`support` lists what :func:`sample_command` can return, built from the
same groups, so a test can check it against ``legal_commands``: every sampled
command is legal and every legal command can be sampled.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from domain.cards import display
from domain.cards.commands import (
    Command,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    TakePoint,
    WithdrawLeader,
)
from domain.cards.flow import awaited_seat, current_decision
from domain.cards.legal import card_spots, legal_commands
from domain.cards.model import (
    BRIDGE_BASE,
    BRIDGES,
    COLOUR_OF,
    COLUMNS,
    DEPTHS,
    INDEX,
    SHIPS,
    Card,
    State,
)
from domain.common.colours import COLOURS, Colour
from domain.common.sampling import Group, draw, members

# Weights of the kinds of action (renormalised over the kinds that have a command).
CARD_WEIGHT = 0.30
SCORING_WEIGHT = 0.35
TAKE_POINT_WEIGHT = 0.9
BLACK = INDEX[Colour.BLACK]
LEADER_WEIGHT = 0.25
WITHDRAW_WEIGHT = 0.03
CATASTROPHE_WEIGHT = 0.03
PASS_WEIGHT = 0.02


def _where(spot: int) -> tuple[int | None, int, int | None]:
    if spot >= BRIDGE_BASE:
        return None, 0, spot - BRIDGE_BASE
    return spot // DEPTHS, spot % DEPTHS, None


def _scoring_cards(state: State, seat: int, colours: list[Colour]) -> list[tuple[Colour, int]]:
    """(colour in hand, open column) where a card of that colour scores for ``seat``: its
    leader of the colour is in the column's kingdom, or its king and no leader of the colour."""
    regs = display.regions(state)
    found: list[tuple[Colour, int]] = []
    for column in range(COLUMNS):
        if not display.column_open(state, column):
            continue
        inside = display.leaders_in_region(state, regs[column])
        if not any(leader // 4 == seat for leader in inside):
            continue
        owner = {leader % 4: leader // 4 for leader in inside}
        for colour in colours:
            i = INDEX[colour]
            if owner.get(i, owner.get(BLACK, -1)) == seat:
                found.append((colour, column))
    return found


def _action_groups(state: State, seat: int) -> list[Group[Command]]:
    hand = state.hands[seat]
    groups: list[Group[Command]] = []

    # Cards (C-CARD-1, C-CARD-2): a colour in hand on an open column or bridge.
    colours = [colour for colour in COLOURS if hand[INDEX[colour]]]
    places: list[tuple[int | None, int | None]] = [
        (c, None) for c in range(COLUMNS) if display.column_open(state, c)
    ]
    places += [(None, b) for b in range(BRIDGES) if display.bridge_open(state, b)]

    def card(i: int) -> Command:
        column, bridge = places[i // len(colours)]
        return PlayCard(seat, colours[i % len(colours)], column=column, bridge=bridge)

    groups.append(Group(CARD_WEIGHT, len(colours) * len(places), card))

    # The same, into a column where the card scores for ``seat`` (C-SCORE-1/2).
    scoring = _scoring_cards(state, seat, colours)

    def score(i: int) -> Command:
        colour, column = scoring[i]
        return PlayCard(seat, colour, column=column)

    groups.append(Group(SCORING_WEIGHT, len(scoring), score))

    # Leaders (C-LEADER-1): on any free card spot that is no ship.
    occupied = display.occupied(state)
    free = [s for s in card_spots(state) if s not in occupied and state.card_at(s) not in SHIPS]
    differ = state.options.leader_colour_must_differ

    def leader(i: int) -> Command | None:
        colour, spot = COLOURS[i % 4], free[i // 4]
        if differ:
            card = state.card_at(spot)
            if (Colour.RED if card is Card.TREASURE else COLOUR_OF.get(card)) is colour:  # type: ignore[arg-type]
                return None
        column, depth, bridge = _where(spot)
        return PlaceLeader(seat, colour, column, depth, bridge)

    groups.append(Group(LEADER_WEIGHT, 4 * len(free), leader))

    if state.options.allow_withdraw:
        placed = [colour for colour in COLOURS if state.leader_spot(seat, colour) >= 0]
        groups.append(
            Group(WITHDRAW_WEIGHT, len(placed), lambda i: WithdrawLeader(seat, placed[i]))
        )

    # Catastrophes (C-CAT-1): on a free spot, never a treasure* (depth 0 of a column).
    if state.catastrophes[seat]:
        targets = [s for s in free if s >= BRIDGE_BASE or s % DEPTHS != 0]

        def catastrophe(i: int) -> Command:
            column, depth, bridge = _where(targets[i])
            return PlayCatastrophe(seat, column, depth, bridge)

        groups.append(Group(CATASTROPHE_WEIGHT, len(targets), catastrophe))

    groups.append(Group(PASS_WEIGHT, 1, lambda _: Pass(seat)))
    return groups


def groups(state: State, seat: int) -> list[Group[Command]]:
    """The commands of ``seat`` now, as weighted groups of candidates (empty if not awaited)."""
    if awaited_seat(state) != seat:
        return []
    if current_decision(state) is None:
        return _action_groups(state, seat)
    options = list(legal_commands(state, seat))
    points = [c for c in options if isinstance(c, TakePoint)]
    if points:  # a point is nearly always worth taking (C-SCORE-1)
        others = [c for c in options if not isinstance(c, TakePoint)]
        return [
            Group(TAKE_POINT_WEIGHT, len(points), points.__getitem__),
            Group(1 - TAKE_POINT_WEIGHT, len(others), others.__getitem__),
        ]
    return [Group(1.0, len(options), options.__getitem__)]


def support(state: State, seat: int) -> Iterator[Command]:
    """Every command :func:`sample_command` can return for ``seat`` now."""
    return members(groups(state, seat))


def sample_command(state: State, seat: int, rng: random.Random) -> Command:
    """A random legal command of ``seat`` (awaited): a kind by weight, then one of it uniformly."""
    return draw(groups(state, seat), rng)
