"""The immutable state of a board game and its cell encoding.

The board is a flat tuple of one small int per square (the cell codes below);
leaders are additionally indexed by ``seat * 4 + colour`` for quick lookup.
Colours are indices into ``COLOURS`` (black, red, blue, green) inside the
engine and :class:`~domain.common.colours.Colour` values at the API edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from domain.common.colours import COLOURS, Colour

# The dynasties in seat order (seat i plays DYNASTIES[i]).
DYNASTIES = ("archer", "bull", "pot", "lion")

BLACK, RED, BLUE, GREEN = 0, 1, 2, 3
HAND_SIZE = 6
CATASTROPHES_PER_SEAT = 2  # B-CAT-4
TILE_COUNTS = (30, 57, 36, 30)  # B-SETUP-4

# Cell codes of the flat board.
EMPTY = 0
FACE_UP = 1  # + colour: a face-up tile
FACE_DOWN = 5  # + colour: a tile turned face down under a monument
CATASTROPHE = 9
LEADER = 16  # + seat * 4 + colour
TEMPLE = FACE_UP + RED

# Whether a cell code joins a region (tiles face up or down, leaders: B-REGION-1).
CONNECTS: tuple[bool, ...] = tuple(1 <= code <= 8 or code >= LEADER for code in range(LEADER + 16))


def colour_index(colour: Colour) -> int:
    return COLOURS.index(colour)


class Monument(StrEnum):
    """The six two-coloured monuments (B-SETUP-6); the value is the wire name."""

    BLACK_GREEN = "black-green"
    BLACK_BLUE = "black-blue"
    BLACK_RED = "black-red"
    RED_BLUE = "red-blue"
    RED_GREEN = "red-green"
    BLUE_GREEN = "blue-green"


MONUMENTS: tuple[Monument, ...] = tuple(Monument)


@dataclass(frozen=True, slots=True)
class Options:
    """Rule options of the board game (all off by default)."""

    open_scoring: bool = False  # victory points are public, as some online implementations play


OPTION_NAMES: tuple[str, ...] = ("open_scoring",)
MONUMENT_COLOURS: tuple[tuple[int, int], ...] = tuple(
    (colour_index(Colour(m.value.split("-")[0])), colour_index(Colour(m.value.split("-")[1])))
    for m in MONUMENTS
)

# The kinds of decision a state can await (``State.decision``).
ACTION = "action"
REVOLT_SUPPORT = "revolt_support"
WAR_SUPPORT = "war_support"
CHOOSE_WAR = "choose_war"
MONUMENT = "monument"
TREASURE = "treasure"
REFILL = "refill"  # transient: the turn's actions are done, draws follow in the same command
OVER = "over"
DECISIONS = (ACTION, REVOLT_SUPPORT, WAR_SUPPORT, CHOOSE_WAR, MONUMENT, TREASURE, REFILL, OVER)

REVOLT = "revolt"
WAR = "war"


@dataclass(frozen=True, slots=True)
class Conflict:
    """A revolt or war in progress. Commitments are -1 until made."""

    kind: str  # REVOLT or WAR
    colour: int
    attacker: int  # seats
    defender: int
    attacker_at: int  # squares of the two leaders
    defender_at: int
    attacker_base: int  # strength on the board (B-REVOLT-2, B-WAR-4)
    defender_base: int
    attacker_commit: int = -1
    defender_commit: int = -1

    @property
    def awaiting(self) -> int:
        return self.attacker if self.attacker_commit < 0 else self.defender


@dataclass(frozen=True, slots=True)
class State:
    """A position of the board game; equal states are equal positions."""

    seats: tuple[str, ...]
    seed: int
    start_player: int
    board: tuple[int, ...]
    treasures: frozenset[int]  # squares still carrying a treasure
    leaders: tuple[int, ...]  # square per seat * 4 + colour, -1 in the supply
    hands: tuple[tuple[int, int, int, int], ...]  # tiles per colour per seat
    bag: tuple[int, ...]  # colours in drawing order
    points: tuple[tuple[int, int, int, int], ...]  # VP per colour per seat
    taken: tuple[int, ...]  # treasures taken per seat
    catastrophes: tuple[int, ...]  # left per seat
    monuments: tuple[tuple[int, int], ...]  # (monument index, top-left square) in build order
    declined: frozenset[int]  # top-left squares where a monument was declined (B-MONUMENT-3)
    out: tuple[int, int, int, int]  # tiles out of the game per colour
    turn: int
    active: int
    actions: int  # actions completed in this turn
    decision: str
    conflict: Conflict | None = None
    wars: tuple[int, ...] = ()  # colours of wars still to settle after the current one
    unification: int = -1  # square of the unification marker
    placed: int = -1  # square of the tile the current action placed (monument check pending)
    candidates: tuple[int, ...] = ()  # monument top-left squares offered
    treasure_seat: int = -1  # trader's owner choosing treasures
    treasure_squares: tuple[int, ...] = ()  # treasures of that kingdom
    treasure_take: int = 0  # how many to take
    ended: str = ""  # why the game ended: "treasures" or "bag"
    # (declined top-left, square) for each square whose declined tile is still on the board:
    # a declined square's ban lasts while one of its four tiles does (B-MONUMENT-3).
    declined_tiles: frozenset[tuple[int, int]] = frozenset()
    options: tuple[tuple[str, Any], ...] = ()
    cache: dict[str, Any] | None = field(default=None, compare=False, repr=False, hash=False)

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    def memo(self) -> dict[str, Any]:
        """Per-state memo for derived data, outside equality; states are immutable.

        It holds what ``regions`` derives from the board (labellings, kingdom counts)
        and the state after an event that ``decide`` computed ahead
        (``evolve.evolve_ahead``)."""
        memo = self.cache
        if memo is None:
            memo = {}
            object.__setattr__(self, "cache", memo)
        return memo

    def leader_at(self, seat: int, colour: int) -> int:
        return self.leaders[seat * 4 + colour]

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])
