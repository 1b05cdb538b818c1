"""Value types of the card game: cards, spots, options, pending steps and the state.

Everything is frozen. Hot data are plain tuples of ints and enum members so
that a new state costs a few tuple copies and no deep copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from domain.common.colours import COLOURS, Colour


class Card(StrEnum):
    """A card in the display, a hand, a pile: a colour, a treasure or a ship."""

    BLACK = "black"
    RED = "red"
    BLUE = "blue"
    GREEN = "green"
    TREASURE = "treasure"
    SHIP_BLACK = "ship-black"  # the blue-black ship
    SHIP_RED = "ship-red"  # the blue-red ship
    SHIP_GREEN = "ship-green"  # the blue-green ship


# Colour index in hands and counters: COLOURS order (black, red, blue, green).
INDEX: dict[Colour, int] = {c: i for i, c in enumerate(COLOURS)}
CARD_OF: dict[Colour, Card] = {c: Card(c.value) for c in COLOURS}
COLOUR_OF: dict[Card, Colour] = {v: k for k, v in CARD_OF.items()}
COLOUR_CARDS: tuple[Card, ...] = tuple(CARD_OF[c] for c in COLOURS)
SHIPS: tuple[Card, ...] = (Card.SHIP_BLACK, Card.SHIP_RED, Card.SHIP_GREEN)
SHIP_FOR: dict[Colour, Card] = {
    Colour.BLACK: Card.SHIP_BLACK,
    Colour.RED: Card.SHIP_RED,
    Colour.GREEN: Card.SHIP_GREEN,
}
# C-SHIP-5: a blue-X ship serves leaders of colour blue and of colour X.
SHIP_SERVES: dict[Card, frozenset[Colour]] = {
    ship: frozenset((Colour.BLUE, colour)) for colour, ship in SHIP_FOR.items()
}

# The dynasties in seat order (seat i plays DYNASTIES[i]).
DYNASTIES = ("lion", "vase", "bow", "bull")

# C-SETUP-2: 40 black, 65 red, 40 blue, 40 green (+ 8 treasures in the display).
DECK: tuple[int, int, int, int] = (40, 65, 40, 40)
TREASURES = 8
COLUMNS = 8
BRIDGES = 7
MAX_DEPTH = 8  # C-CARD-1: up to 8 cards below the treasure*
HAND_SIZE = 8
TWO_PLAYER_SET_ASIDE = 30
DEPTHS = MAX_DEPTH + 1  # spots per column, the treasure* included
BRIDGE_BASE = COLUMNS * DEPTHS  # spot of bridge b is BRIDGE_BASE + b


def column_spot(column: int, depth: int) -> int:
    """Spot number of a card in a column (depth 0 is the treasure*)."""
    return column * DEPTHS + depth


def bridge_spot(bridge: int) -> int:
    return BRIDGE_BASE + bridge


def spot_name(spot: int) -> str:
    """``c3.1`` (column 3, depth 1) or ``b2`` (bridge 2), for messages."""
    if spot >= BRIDGE_BASE:
        return f"b{spot - BRIDGE_BASE}"
    return f"c{spot // DEPTHS}.{spot % DEPTHS}"


def spot_column(spot: int) -> int:
    """The column whose kingdom a spot belongs to (a bridge b: column b)."""
    return spot - BRIDGE_BASE if spot >= BRIDGE_BASE else spot // DEPTHS


@dataclass(frozen=True, slots=True)
class Options:
    """The variants (all off by default): three of the digest, and the trader's swap as the
    Hungarian and Italian texts have it."""

    leader_colour_must_differ: bool = False  # C-LEADER-1 variant
    allow_withdraw: bool = False  # C-LEADER-2 variant
    open_vp_piles: bool = False  # C-VP-1 variant
    # C-TRADER-1 variant: one swap per join (default: the German all treasures but one)
    trader_takes_one: bool = False


# --- the agenda: what happens next within a turn -------------------------------
# The head of ``State.agenda`` is either a decision (someone must send a
# command) or an automatic step. Silent automatic steps are carried out by
# ``evolve`` at once; those that produce events (a conflict's outcome, the
# end-of-turn draws) are left at the head for ``decide`` to emit.


@dataclass(frozen=True, slots=True)
class Offer:
    """Decision: ``seat`` may put a ``colour`` card from hand on their VP pile.

    ``reason`` is ``"card"`` (C-SCORE-1/2) or ``"conflict"`` (the winner's card
    from hand when nobody played one, C-REVOLT-4 / C-WAR-5)."""

    seat: int
    colour: Colour
    reason: str


@dataclass(frozen=True, slots=True)
class ShipOffer:
    """Decision: the active player may build one of ``ships`` (C-SHIP-1)."""

    seat: int
    column: int
    ships: tuple[Colour, ...]  # named by the ship's non-blue colour
    run: Colour | None = None  # the colour of the run the ship replaces


@dataclass(frozen=True, slots=True)
class ShipPoints:
    """Decision: end-of-turn ship points still open for ``seat`` (C-SHIP-5)."""

    seat: int
    colours: tuple[Colour, ...]


@dataclass(frozen=True, slots=True)
class ChooseWar:
    """Decision: the active player picks the next external conflict (C-WAR-1)."""

    seat: int
    colours: tuple[Colour, ...]


@dataclass(frozen=True, slots=True)
class Commit:
    """Decision: ``seat`` commits cards to the current conflict (C-REVOLT-3, C-WAR-4)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TraderSwap:
    """Decision: the trader's owner may swap treasures for red cards (C-TRADER-1)."""

    seat: int
    bridge: int


@dataclass(frozen=True, slots=True)
class CheckShip:
    """Automatic, once the action is complete: offer a ship for a run of 4 or more cards of
    one colour in ``column`` that is longer than the column's longest run of that colour
    before the action (``before``, per colour in ``COLOURS`` order) (C-SHIP-1)."""

    column: int
    before: tuple[int, int, int, int] = (0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Wars:
    """Automatic: the external conflicts of a join still to fight (C-WAR-6)."""

    bridge: int
    colours: tuple[Colour, ...]


@dataclass(frozen=True, slots=True)
class Resolve:
    """Automatic, with an event: both sides have committed; settle the conflict."""


@dataclass(frozen=True, slots=True)
class EndAction:
    """Automatic: one action is complete; end the turn if none is left."""


@dataclass(frozen=True, slots=True)
class Refill:
    """Automatic, with events: refill hands, check the game end (C-TURN-3)."""


Decision = Offer | ShipOffer | ShipPoints | ChooseWar | Commit | TraderSwap
Step = Decision | CheckShip | Wars | Resolve | EndAction | Refill
DECISIONS = (Offer, ShipOffer, ShipPoints, ChooseWar, Commit, TraderSwap)


class Conflict(NamedTuple):
    """The conflict being fought; card counts are -1 until committed.

    A named tuple (built on every commitment, so cheap to build); it is only
    ever compared with other conflicts."""

    kind: str  # "revolt" (internal) or "war" (external)
    colour: Colour
    attacker: int
    defender: int
    bridge: int = -1  # the face-down bridge of a war
    attacker_cards: int = -1
    defender_cards: int = -1

    @property
    def card_colour(self) -> Colour:
        """The colour of the cards played: red in a revolt (C-REVOLT-2), else the leaders'."""
        return Colour.RED if self.kind == "revolt" else self.colour


# The rule under which a game ended, by ``State.over`` reason: a command sent after the
# end is refused naming it. ``blocked`` is this project's own end (DECISIONS.md point 9).
END_RULES = {
    "pile": "C-END-1",
    "treasures": "C-END-2",
    "blocked": "C-END-BLOCKED",
    "resigned": "C-RESIGN-2",
}


@dataclass(frozen=True, slots=True)
class Setup:
    """What the setup event fixes for the whole game (C-SETUP-4)."""

    seats: tuple[str, ...]
    options: Options
    seed: int
    start_player: int
    pile: tuple[Card, ...]  # the whole shuffled pile, first card drawn first
    set_aside: tuple[Card, ...]  # the 30 cards removed with 2 players


class _StateFields(NamedTuple):
    """A position of the card game (the fields; see ``State``).

    ``columns[c][0]`` is the treasure* of column c (TREASURE, or RED once
    swapped); ``columns[c][d]`` the card at depth d. ``leaders[seat * 4 + i]``
    is the spot of that seat's leader of colour ``COLOURS[i]``, -1 in supply.
    Hands and the discard pile are counts in COLOURS order. ``pile[drawn:]``
    is the draw pile, next card first.
    """

    setup: Setup
    drawn: int
    columns: tuple[tuple[Card, ...], ...]
    bridges: tuple[Card | None, ...]
    face_down: int  # the bridge laid face down during a join, else -1
    leaders: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    vp: tuple[tuple[Card, ...], ...]
    discard: tuple[int, ...]
    destroyed: tuple[Card, ...]  # cards removed by catastrophes, in order
    catastrophes: tuple[bool, ...]  # still held
    ships: tuple[Card, ...]  # ships still available
    turn: int
    active: int
    actions_left: int
    agenda: tuple[Step, ...]
    conflict: Conflict | None
    over: str | None  # why the game ended ("pile", "treasures", "blocked", "resigned"), else None
    resigned: tuple[int, ...] = ()  # seats that resigned, in the order they did (C-RESIGN-1)


class State(_StateFields):
    """A position of the card game: an immutable named tuple of the fields above.

    A tuple rather than a dataclass because ``evolve`` builds one per event and
    folding a game must stay within milliseconds. Kingdoms and similar derived
    data are memoised per instance (``_memo``), outside equality.
    """

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a State is immutable (tried to set {name!r})")

    @property
    def _memo(self) -> dict[str, Any]:
        return self.__dict__

    @property
    def seats(self) -> tuple[str, ...]:
        return self.setup.seats

    @property
    def options(self) -> Options:
        return self.setup.options

    @property
    def seed(self) -> int:
        return self.setup.seed

    @property
    def start_player(self) -> int:
        return self.setup.start_player

    @property
    def pile(self) -> tuple[Card, ...]:
        return self.setup.pile

    @property
    def set_aside(self) -> tuple[Card, ...]:
        return self.setup.set_aside

    @property
    def seat_count(self) -> int:
        return len(self.setup.seats)

    @property
    def pile_size(self) -> int:
        return len(self.pile) - self.drawn

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def leader_spot(self, seat: int, colour: Colour) -> int:
        return self.leaders[seat * 4 + INDEX[colour]]

    def card_at(self, spot: int) -> Card | None:
        """The card on a spot, or None if the spot is empty."""
        if spot >= BRIDGE_BASE:
            return self.bridges[spot - BRIDGE_BASE]
        column = self.columns[spot // DEPTHS]
        depth = spot % DEPTHS
        return column[depth] if depth < len(column) else None


_FIELD_INDEX = {name: i for i, name in enumerate(_StateFields._fields)}


_new_tuple = tuple.__new__


def update(state: State, **changes: Any) -> State:
    """A copy of ``state`` with some fields changed (the hot path of ``evolve``)."""
    values = list(state)
    for name, value in changes.items():
        values[_FIELD_INDEX[name]] = value
    new: State = _new_tuple(State, values)
    return new
