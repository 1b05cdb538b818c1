"""``evolve``: one function per event, each applying the event and its consequences.

Events carry only what a player decided (or drew); points, conflict outcomes,
leaders returning (B-LEADER-7), forced treasures and monument VP follow from
the rules (``domain.board.engine``), so they are derived again here. The record of a
conflict's outcome (``ConflictResolved``) changes nothing: the commitment before it
settled the conflict, as it did in streams stored before the record existed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.board.engine import Work, leader_colour, leader_owner
from domain.board.events import (
    CatastrophePlaced,
    ConflictResolved,
    Event,
    GameEnded,
    GameStarted,
    LeaderMoved,
    LeaderPlaced,
    LeaderWithdrawn,
    MonumentBuilt,
    MonumentDeclined,
    Passed,
    SeatResigned,
    SupportCommitted,
    TilePlaced,
    TilesDrawn,
    TilesSwapped,
    TreasuresTaken,
    TurnEnded,
    WarChosen,
)
from domain.board.geometry import block, square
from domain.board.model import (
    ACTIONS_PER_TURN,
    BLACK,
    CATASTROPHE,
    EMPTY,
    FACE_DOWN,
    FACE_UP,
    LEADER,
    MONUMENTS,
    CheckMonument,
    MonumentOffer,
    State,
    Wars,
    colour_index,
)
from domain.board.setup import initial_state
from domain.common.resign import RESIGNED

# The memo key under which ``evolve_ahead`` leaves ``(event, state after it)``.
_AHEAD = "evolved"


def _sq(at: tuple[int, int]) -> int:
    return square(at[0], at[1])


def evolve(state: State | None, event: Event) -> State:
    """Apply one event (``state`` is None only for :class:`GameStarted`)."""
    if isinstance(event, GameStarted):
        if state is not None:
            raise ValueError("GameStarted must be the first event")
        return initial_state(event)
    if state is None:
        raise ValueError(f"the first event must be GameStarted, got {type(event).__name__}")
    cache = state.cache
    if cache is not None:
        ahead = cache.pop(_AHEAD, None)  # left by evolve_ahead for this very event object?
        if ahead is not None and ahead[0] is event:
            return ahead[1]  # type: ignore[no-any-return]
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TypeError(f"not a board-game event: {event!r}")
    w = Work(state)
    handler(w, event)
    return w.freeze()


def evolve_ahead(state: State, event: Event) -> State:
    """``evolve``, leaving the result in ``state``'s memo for the next ``evolve`` of this
    very event object (which then returns it at once, and forgets it).

    ``decide`` evolves the events it returns, to see whether they complete the turn;
    the caller then applies the same event objects to the same state with ``evolve``,
    and would otherwise compute every state a second time. The memo is outside the
    state's equality, and an ``evolve`` of any other event ignores and drops it.
    """
    after = evolve(state, event)
    state.memo()[_AHEAD] = (event, after)
    return after


def settle(state: State, event: SupportCommitted) -> ConflictResolved | None:
    """The outcome ``event`` settles on ``state`` (None: the defender has yet to commit),
    for ``decide`` to record; the state after ``event`` is left as ``evolve_ahead`` does."""
    w = Work(state)
    _support_committed(w, event)
    state.memo()[_AHEAD] = (event, w.freeze())
    return w.resolved


def fold(events: Iterable[Event]) -> State:
    """The state after ``events``: the same as evolving one by one, with one working copy."""
    it = iter(events)
    first = next(it, None)
    if first is None:
        raise ValueError("cannot fold an empty event sequence: a game begins with GameStarted")
    w = Work(evolve(None, first))
    for event in it:
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise ValueError(f"unexpected event after the setup: {event!r}")
        handler(w, event)
    return w.freeze()


# One function per event: each applies the event and what the rules make follow.


def _tiles_drawn(w: Work, e: TilesDrawn) -> None:
    hand = w.hands[e.seat]
    for tile in e.tiles:
        hand[colour_index(tile)] += 1
    w.bag = w.bag[len(e.tiles) :]


def _tile_placed_event(w: Work, e: TilePlaced) -> None:
    _tile_placed(w, e.seat, colour_index(e.colour), _sq(e.at))


def _leader_placed(w: Work, e: LeaderPlaced) -> None:
    colour = colour_index(e.leader)
    sq = _sq(e.at)
    w.set(sq, LEADER + e.seat * 4 + colour)
    w.leaders[e.seat * 4 + colour] = sq
    w.take_action(*w.arrive_leader(e.seat, colour, sq))
    w.advance()


def _leader_moved(w: Work, e: LeaderMoved) -> None:
    w.set(_sq(e.origin), EMPTY)  # B-LEADER-4: lifted first
    _leader_placed(w, LeaderPlaced(e.seat, e.leader, e.at))


def _leader_withdrawn(w: Work, e: LeaderWithdrawn) -> None:
    w.remove_leader(w.leaders[e.seat * 4 + colour_index(e.leader)])
    w.take_action()
    w.advance()


def _catastrophe_placed(w: Work, e: CatastrophePlaced) -> None:
    sq = _sq(e.at)
    code = w.board[sq]
    if FACE_UP <= code < FACE_DOWN:
        w.out[code - FACE_UP] += 1  # B-CAT-1: the tile leaves the game
    w.set(sq, CATASTROPHE)
    w.catastrophes[e.seat] -= 1
    w.return_stranded_leaders()  # B-CAT-3
    w.take_action()
    w.advance()


def _tiles_swapped(w: Work, e: TilesSwapped) -> None:
    hand = w.hands[e.seat]
    for colour, n in enumerate(e.counts):
        hand[colour] -= n
        w.out[colour] += n
    for tile in e.drawn:
        hand[colour_index(tile)] += 1
    w.bag = w.bag[len(e.drawn) :]
    w.take_action()
    w.advance()


def _passed(w: Work, e: Passed) -> None:
    w.take_action()
    w.advance()


def _support_committed(w: Work, e: SupportCommitted) -> None:
    w.commit(e.seat, e.count)  # the colour is the conflict's (version 1 did not record it)
    w.advance()


def _conflict_resolved(w: Work, e: ConflictResolved) -> None:
    """A record only: ``_support_committed`` settled the conflict (B-REVOLT-4, B-WAR-5)."""


def _war_chosen(w: Work, e: WarChosen) -> None:
    colour = colour_index(e.colour)
    del w.agenda[0]  # the ChooseWar step answered; the Wars step follows it
    wars = w.agenda[0]
    assert isinstance(wars, Wars)
    w.agenda[0] = Wars(tuple(c for c in wars.colours if c != colour))
    w.start_war(colour)


def _monument_built(w: Work, e: MonumentBuilt) -> None:
    tl = _sq(e.at)
    colour = w.board[tl] - FACE_UP
    for sq in block(tl):
        w.set(sq, FACE_DOWN + colour)
    w.monuments.append((MONUMENTS.index(e.monument), tl))
    del w.agenda[0]  # the MonumentOffer answered
    w.return_stranded_leaders()  # B-MONUMENT-5
    w.advance()


def _monument_declined(w: Work, e: MonumentDeclined) -> None:
    # B-MONUMENT-3: banned while any of the four declined tiles stays on the board
    offer = w.agenda[0]
    assert isinstance(offer, MonumentOffer)
    offered = offer.squares
    w.declined = w.declined | frozenset(offered)
    w.declined_tiles = w.declined_tiles | {(tl, sq) for tl in offered for sq in block(tl)}
    del w.agenda[0]  # the MonumentOffer answered
    w.advance()


def _treasures_taken(w: Work, e: TreasuresTaken) -> None:
    w.take_treasures(e.seat, [_sq(at) for at in e.squares])
    del w.agenda[0]  # the TreasureChoice answered; Treasures looks again
    w.advance()


def _turn_ended(w: Work, e: TurnEnded) -> None:
    w.active = (w.active + 1) % len(w.hands)
    w.turn += 1
    w.actions_left = ACTIONS_PER_TURN
    w.agenda = []


def _seat_resigned(w: Work, e: SeatResigned) -> None:
    w.resigned = (*w.resigned, e.seat)  # B-RESIGN-1: the seat stays, its turns made for it


def _game_ended(w: Work, e: GameEnded) -> None:
    w.agenda = []
    w.ended = e.reason
    if e.reason == RESIGNED:  # B-RESIGN-2: ends at once, even within a conflict
        w.conflict = None


_HANDLERS: dict[type[Event], Callable[[Work, Any], None]] = {
    TilesDrawn: _tiles_drawn,
    TilePlaced: _tile_placed_event,
    LeaderPlaced: _leader_placed,
    LeaderMoved: _leader_moved,
    LeaderWithdrawn: _leader_withdrawn,
    CatastrophePlaced: _catastrophe_placed,
    TilesSwapped: _tiles_swapped,
    Passed: _passed,
    SupportCommitted: _support_committed,
    ConflictResolved: _conflict_resolved,
    WarChosen: _war_chosen,
    MonumentBuilt: _monument_built,
    MonumentDeclined: _monument_declined,
    TreasuresTaken: _treasures_taken,
    TurnEnded: _turn_ended,
    SeatResigned: _seat_resigned,
    GameEnded: _game_ended,
}


def _tile_placed(w: Work, seat: int, colour: int, sq: int) -> None:
    kingdoms = w.kingdoms_next_to(sq)
    w.hands[seat][colour] -= 1
    if len(kingdoms) == 2:  # B-TILE-4: unification, no point
        w.set(sq, FACE_UP + colour)
        w.unification = sq
        w.take_action(Wars(tuple(w.war_colours())), CheckMonument(sq))
        w.advance()
        return
    if kingdoms:  # B-TILE-3: the leader of the tile's colour, else the king
        board = w.board
        by_colour = {leader_colour(board[x]): leader_owner(board[x]) for x in kingdoms[0]}
        scorer = by_colour.get(colour, by_colour.get(BLACK, -1))
        if scorer >= 0:
            w.score(scorer, colour)
    w.set(sq, FACE_UP + colour)
    w.take_action(CheckMonument(sq))
    w.advance()
