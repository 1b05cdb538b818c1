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

# The names of what a state can await (``State.decision``), as the card game names them
# where the role is the same (``action``, ``commit``, ``choose_war``, ``over``).
ACTION = "action"
COMMIT = "commit"
CHOOSE_WAR = "choose_war"
MONUMENT = "monument"
TREASURE = "treasure"
REFILL = "refill"  # transient: the turn's actions are done, draws follow in the same command
OVER = "over"
DECISIONS = (ACTION, COMMIT, CHOOSE_WAR, MONUMENT, TREASURE, REFILL, OVER)
# The names position format version 2 (and the views before it) gave the commit decision.
OLD_COMMIT_NAMES = ("revolt_support", "war_support")

REVOLT = "revolt"
WAR = "war"
ACTIONS_PER_TURN = 2  # B-TURN-1


# --- the agenda: what happens next within a turn -------------------------------
# As in the card game (``domain.cards.model``): the head of ``State.agenda`` is either a
# decision (someone must send a command) or an automatic step. ``evolve`` carries out the
# silent automatic steps at once (``engine.Work.advance``); ``Refill``, which produces
# events (the draws, ``TurnEnded``), is left at the head for ``decide`` to emit. An empty
# agenda with actions left: the active seat is to take an action.


@dataclass(frozen=True, slots=True)
class Commit:
    """Decision: ``seat`` commits tiles to the current conflict (B-REVOLT-3, B-WAR-5)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ChooseWar:
    """Decision: the active player picks the next war of a unification (B-WAR-2)."""

    seat: int
    colours: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MonumentOffer:
    """Decision: the active player may build a monument on one of ``squares`` (top-left
    corners) or decline (B-MONUMENT-1)."""

    seat: int
    squares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TreasureChoice:
    """Decision: the trader's owner takes ``take`` of the kingdom's ``squares``
    (B-TREASURE-1)."""

    seat: int
    squares: tuple[int, ...]
    take: int


@dataclass(frozen=True, slots=True)
class CheckMonument:
    """Automatic, once the action's conflicts are over: offer a monument on the 2x2
    squares the tile placed on ``square`` completed (B-MONUMENT-1..3)."""

    square: int


@dataclass(frozen=True, slots=True)
class Treasures:
    """Automatic: take forced treasures; a real choice becomes a ``TreasureChoice``
    (B-TREASURE-1..3)."""


@dataclass(frozen=True, slots=True)
class Wars:
    """Automatic: the wars of a unification still to fight after the current one
    (B-WAR-2, B-WAR-8)."""

    colours: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Resolve:
    """Automatic: both sides have committed; settle the conflict."""


@dataclass(frozen=True, slots=True)
class EndAction:
    """Automatic: one action is complete; end the turn if none is left."""


@dataclass(frozen=True, slots=True)
class Refill:
    """Automatic, with events: refill hands, check the game end (B-TURN-4)."""


Decision = Commit | ChooseWar | MonumentOffer | TreasureChoice
Step = Decision | CheckMonument | Treasures | Wars | Resolve | EndAction | Refill
STEP_DECISIONS: tuple[type[Decision], ...] = (Commit, ChooseWar, MonumentOffer, TreasureChoice)
# Names of the pending decisions, as in ``pending()`` (the card game's where the same).
DECISION_NAMES: dict[type[object], str] = {
    Commit: COMMIT,
    ChooseWar: CHOOSE_WAR,
    MonumentOffer: MONUMENT,
    TreasureChoice: TREASURE,
    Refill: REFILL,
}


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
    actions_left: int  # actions left in this turn (the one under way already counted)
    agenda: tuple[Step, ...] = ()  # what happens next within the turn (see above)
    conflict: Conflict | None = None
    unification: int = -1  # square of the unification marker
    ended: str = ""  # why the game ended: "treasures", "bag" or "resigned"
    # (declined top-left, square) for each square whose declined tile is still on the board:
    # a declined square's ban lasts while one of its four tiles does (B-MONUMENT-3).
    declined_tiles: frozenset[tuple[int, int]] = frozenset()
    options: tuple[tuple[str, Any], ...] = ()
    resigned: tuple[int, ...] = ()  # seats that resigned, in the order they did (B-RESIGN-1)
    cache: dict[str, Any] | None = field(default=None, compare=False, repr=False, hash=False)

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    # -- read off the agenda (``domain.board.flow`` says who is awaited) ----------

    @property
    def decision(self) -> str:
        """The name of what is awaited: ``action``, a decision's name, ``refill``, ``over``."""
        if self.ended:
            return OVER
        if not self.agenda:
            return ACTION
        return DECISION_NAMES.get(type(self.agenda[0]), "")

    @property
    def wars(self) -> tuple[int, ...]:
        """Colours of the wars to choose from, or still to fight after the current one."""
        for step in self.agenda:
            if isinstance(step, ChooseWar | Wars):
                return step.colours
        return ()

    @property
    def placed(self) -> int:
        """The square of the tile whose monument check is still to come, or -1."""
        for step in self.agenda:
            if isinstance(step, CheckMonument):
                return step.square
        return -1

    @property
    def candidates(self) -> tuple[int, ...]:
        """The monument squares offered (top-left corners)."""
        head = self.agenda[0] if self.agenda else None
        return head.squares if isinstance(head, MonumentOffer) else ()

    @property
    def treasure_choice(self) -> TreasureChoice | None:
        head = self.agenda[0] if self.agenda else None
        return head if isinstance(head, TreasureChoice) else None

    @property
    def treasure_seat(self) -> int:
        choice = self.treasure_choice
        return -1 if choice is None else choice.seat

    @property
    def treasure_squares(self) -> tuple[int, ...]:
        choice = self.treasure_choice
        return () if choice is None else choice.squares

    @property
    def treasure_take(self) -> int:
        choice = self.treasure_choice
        return 0 if choice is None else choice.take

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
