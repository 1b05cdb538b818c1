"""``decide``: judge a command by guard clauses, each naming its rule id.

A valid command yields its own event (a commitment that settles a conflict, with the
record of its outcome, ``ConflictResolved``); if that completes the turn's second
action, the refill draws, ``TurnEnded`` and possibly ``GameEnded`` follow in
the same list (B-TURN-4, B-END-1, B-END-2).
"""

from __future__ import annotations

from domain.board.commands import (
    BuildMonument,
    ChooseWar,
    Command,
    CommitSupport,
    DeclineMonument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Resign,
    SwapTiles,
    TakeTreasures,
    WithdrawLeader,
)
from domain.board.events import (
    CatastrophePlaced,
    Event,
    GameEnded,
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
from domain.board.evolve import evolve_ahead, settle
from domain.board.flow import awaited_seat, decision_rule
from domain.board.geometry import (
    BORDER_TREASURES,
    COLS,
    NEIGHBOURS,
    RIVER,
    ROWS,
    coords,
    on_board,
    square,
)
from domain.board.model import (
    ACTION,
    BLUE,
    CATASTROPHE,
    CHOOSE_WAR,
    COMMIT,
    EMPTY,
    FACE_DOWN,
    FACE_UP,
    HAND_SIZE,
    LEADER,
    MONUMENT,
    MONUMENT_COLOURS,
    MONUMENTS,
    OVER,
    REFILL,
    REVOLT,
    TEMPLE,
    TREASURE,
    Monument,
    State,
    colour_index,
)
from domain.board.notation import square_name, token
from domain.board.regions import kingdom_count, lifted_regions, regions
from domain.common.colours import COLOURS, Colour
from domain.common.errors import FormatError, GameOver, IllegalCommand, NotAwaited
from domain.common.exact import is_int
from domain.common.resign import RESIGNED, ends_the_game

# Which decision each command answers.
ANSWERS: dict[type[Command], tuple[str, ...]] = {
    PlaceLeader: (ACTION,),
    WithdrawLeader: (ACTION,),
    PlaceTile: (ACTION,),
    PlaceCatastrophe: (ACTION,),
    SwapTiles: (ACTION,),
    Pass: (ACTION,),
    CommitSupport: (COMMIT,),
    ChooseWar: (CHOOSE_WAR,),
    BuildMonument: (MONUMENT,),
    DeclineMonument: (MONUMENT,),
    TakeTreasures: (TREASURE,),
}


def to_square(at: object, field: str = "at") -> int:
    """A ``(row, col)`` pair as a square index; FormatError if it is not on the board."""
    if not isinstance(at, tuple | list) or len(at) != 2 or not all(is_int(v) for v in at):
        raise FormatError(f"expected [row, col], got {at!r}", field)
    if not on_board(at[0], at[1]):
        raise FormatError(
            f"{list(at)} is off the {ROWS}x{COLS} board: a square is [row, col], "
            f"row 0-{ROWS - 1} and column 0-{COLS - 1}",
            field,
        )
    return square(at[0], at[1])


def to_colour(value: object, field: str) -> int:
    try:
        return colour_index(Colour(str(value)))
    except ValueError:
        raise FormatError(f"unknown colour {value!r}", field) from None


def occupant(state: State, sq: int) -> str:
    """The notation token of a square, to quote it in error messages."""
    return repr(token(state.board[sq], sq in state.treasures, sq == state.unification))


# The rule under which a game ended, by ``State.ended``: a command after the end names it.
END_RULES = {"treasures": "B-END-1", "bag": "B-END-2", RESIGNED: "B-RESIGN-2"}


def decide(state: State, command: Command) -> list[Event]:
    if state.decision == OVER:
        rule = END_RULES.get(state.ended, "B-END-1")
        raise GameOver(rule, f"the game is over; {type(command).__name__} refused")
    seat = command.seat
    if not is_int(seat) or not 0 <= seat < state.seat_count:
        raise FormatError(f"no seat {seat!r} in a {state.seat_count}-seat game", "seat")
    if isinstance(command, Resign):  # B-RESIGN-1: at any time, awaited or not
        return resign(state, seat)
    expected = awaited_seat(state)
    rule = decision_rule(state)
    if seat != expected:
        raise NotAwaited(
            rule, f"seat {seat} may not act now: awaiting seat {expected} ({state.decision})"
        )
    answers = ANSWERS.get(type(command))
    if answers is None:
        raise FormatError(f"not a board-game command: {command!r}", "type")
    if state.decision not in answers:
        raise NotAwaited(
            rule, f"{type(command).__name__} does not answer the awaited {state.decision} decision"
        )
    events = _judge(state, command)
    return _complete(state, events)


def resign(state: State, seat: int) -> list[Event]:
    """B-RESIGN-1: ``seat`` resigns, once; B-RESIGN-2: when only one seat is left that has
    not resigned, the game ends at once."""
    # B-RESIGN-1: a seat resigns once
    if seat in state.resigned:
        raise IllegalCommand("B-RESIGN-1", f"seat {seat} has resigned already")
    events: list[Event] = [SeatResigned(seat)]
    if ends_the_game(state.seat_count, (*state.resigned, seat)):
        events.append(GameEnded(RESIGNED))  # B-RESIGN-2
    return events


def _judge(state: State, command: Command) -> list[Event]:
    if isinstance(command, PlaceTile):
        return [_place_tile(state, command)]
    if isinstance(command, PlaceLeader):
        return [_place_leader(state, command)]
    if isinstance(command, WithdrawLeader):
        colour = to_colour(command.leader, "leader")
        # B-LEADER-5: only a leader on the board can be withdrawn
        if state.leader_at(command.seat, colour) < 0:
            raise IllegalCommand("B-LEADER-5", f"the {COLOURS[colour]} leader is not on the board")
        return [LeaderWithdrawn(command.seat, COLOURS[colour])]
    if isinstance(command, PlaceCatastrophe):
        return [_place_catastrophe(state, command)]
    if isinstance(command, SwapTiles):
        return _swap(state, command)
    if isinstance(command, Pass):
        return [Passed(command.seat)]
    if isinstance(command, CommitSupport):
        committed = _commit(state, command)
        outcome = settle(state, committed)  # B-REVOLT-4, B-WAR-5: the defender's settles it
        return [committed] if outcome is None else [committed, outcome]
    if isinstance(command, ChooseWar):
        colour = to_colour(command.colour, "colour")
        # B-WAR-2: only a pending war can be chosen
        if colour not in state.wars:
            pending = ", ".join(str(COLOURS[c]) for c in state.wars)
            raise IllegalCommand(
                "B-WAR-2", f"no pending {COLOURS[colour]} war (pending: {pending})"
            )
        return [WarChosen(command.seat, COLOURS[colour])]
    if isinstance(command, BuildMonument):
        return [_build(state, command)]
    if isinstance(command, DeclineMonument):
        return [MonumentDeclined(command.seat)]
    if isinstance(command, TakeTreasures):
        return [_take(state, command)]
    raise FormatError(f"not a board-game command: {command!r}", "type")


def _place_tile(state: State, command: PlaceTile) -> TilePlaced:
    colour = to_colour(command.colour, "colour")
    sq = to_square(command.at)
    where = square_name(sq)
    # B-TILE-1: the tile comes from the player's hand
    if state.hands[command.seat][colour] < 1:
        raise IllegalCommand("B-TILE-1", f"no {COLOURS[colour]} tile in hand")
    # B-TILE-1: only on an empty square
    if state.board[sq] != EMPTY:
        raise IllegalCommand("B-TILE-1", f"square {where} is not empty: {occupant(state, sq)}")
    # B-TILE-1: blue tiles on rivers only, other colours never on rivers
    if RIVER[sq] != (colour == BLUE):
        kind = "river" if RIVER[sq] else "land"
        raise IllegalCommand("B-TILE-1", f"a {COLOURS[colour]} tile cannot go on {kind} {where}")
    # B-TILE-2: at most two kingdoms joined
    if kingdom_count(state, sq) > 2:
        raise IllegalCommand("B-TILE-2", f"a tile on {where} would join three or more kingdoms")
    return TilePlaced(command.seat, COLOURS[colour], coords(sq))


def _place_leader(state: State, command: PlaceLeader) -> Event:
    colour = to_colour(command.leader, "leader")
    sq = to_square(command.at)
    where = square_name(sq)
    origin = state.leader_at(command.seat, colour)
    # B-LEADER-4: a move lifts the leader first and must land elsewhere
    if origin == sq:
        raise IllegalCommand(
            "B-LEADER-4", f"the {COLOURS[colour]} leader already stands on {where}"
        )
    reg = regions(state) if origin < 0 else lifted_regions(state, origin)
    # B-LEADER-1: never on a river
    if RIVER[sq]:
        raise IllegalCommand("B-LEADER-1", f"a leader cannot stand on river square {where}")
    # B-LEADER-1: only on an empty square
    if state.board[sq] != EMPTY:
        raise IllegalCommand("B-LEADER-1", f"square {where} is not empty: {occupant(state, sq)}")
    # B-LEADER-2: next to a face-up temple
    if not any(state.board[n] == TEMPLE for n in NEIGHBOURS[sq]):
        raise IllegalCommand("B-LEADER-2", f"square {where} is not next to a face-up temple")
    # B-LEADER-3: a leader never joins two kingdoms
    if len(reg.kingdoms_next_to(sq)) > 1:
        raise IllegalCommand("B-LEADER-3", f"a leader on {where} would join two kingdoms")
    if origin < 0:
        return LeaderPlaced(command.seat, COLOURS[colour], coords(sq))
    return LeaderMoved(command.seat, COLOURS[colour], coords(origin), coords(sq))


def _place_catastrophe(state: State, command: PlaceCatastrophe) -> CatastrophePlaced:
    sq = to_square(command.at)
    where = square_name(sq)
    code = state.board[sq]
    # B-CAT-4: two catastrophes per player
    if state.catastrophes[command.seat] < 1:
        raise IllegalCommand("B-CAT-4", "no catastrophe tile left")
    # B-CAT-1: nothing goes on a catastrophe
    if code == CATASTROPHE:
        raise IllegalCommand("B-CAT-1", f"square {where} already holds a catastrophe")
    # B-CAT-2: not on a leader
    if code >= LEADER:
        raise IllegalCommand("B-CAT-2", f"square {where} holds a leader: {occupant(state, sq)}")
    # B-CAT-2: not on a monument
    if FACE_DOWN <= code < CATASTROPHE:
        raise IllegalCommand("B-CAT-2", f"square {where} is part of a monument")
    # B-CAT-2: not on a treasure
    if sq in state.treasures:
        raise IllegalCommand("B-CAT-2", f"square {where} carries a treasure")
    return CatastrophePlaced(command.seat, coords(sq))


def _swap(state: State, command: SwapTiles) -> list[Event]:
    counts = command.counts
    for name, n in zip(("black", "red", "blue", "green"), counts, strict=True):
        if not is_int(n) or n < 0:
            raise FormatError(f"expected a count >= 0, got {n!r}", name)
    total = sum(counts)
    hand = state.hands[command.seat]
    # B-SWAP-1: one to six tiles
    if not 1 <= total <= HAND_SIZE:
        raise IllegalCommand("B-SWAP-1", f"swap 1 to 6 tiles, not {total}")
    # B-SWAP-1: only tiles in hand
    for colour, n in enumerate(counts):
        if n > hand[colour]:
            raise IllegalCommand(
                "B-SWAP-1", f"cannot discard {n} {COLOURS[colour]}: {hand[colour]} in hand"
            )
    # B-SWAP-2: the bag cannot supply them, the game ends at once
    if len(state.bag) < total:
        return [GameEnded("bag")]
    drawn = tuple(COLOURS[c] for c in state.bag[:total])
    return [TilesSwapped(command.seat, *counts, drawn=drawn)]


def _commit(state: State, command: CommitSupport) -> SupportCommitted:
    conflict = state.conflict
    assert conflict is not None
    rule = "B-REVOLT-3" if conflict.kind == REVOLT else "B-WAR-5"
    count = command.count
    if not is_int(count):
        raise FormatError(f"expected an integer, got {count!r}", "count")
    have = state.hands[command.seat][conflict.colour]
    # B-REVOLT-3 / B-WAR-5: 0..all tiles of the conflict's colour in hand
    if not 0 <= count <= have:
        raise IllegalCommand(
            rule, f"cannot commit {count} {COLOURS[conflict.colour]}: {have} in hand"
        )
    return SupportCommitted(command.seat, COLOURS[conflict.colour], count)


def _build(state: State, command: BuildMonument) -> MonumentBuilt:
    try:
        monument = Monument(command.monument)
    except ValueError:
        raise FormatError(f"unknown monument {command.monument!r}", "monument") from None
    tl = to_square(command.at)
    index = MONUMENTS.index(monument)
    # B-MONUMENT-1: only on a 2x2 square the placed tile completed
    if tl not in state.candidates:
        offered = ", ".join(square_name(s) for s in state.candidates)
        raise IllegalCommand(
            "B-MONUMENT-1", f"no monument square at {square_name(tl)} (offered: {offered})"
        )
    colour = state.board[tl] - FACE_UP
    # B-MONUMENT-1: each monument is built once
    if any(m == index for m, _ in state.monuments):
        raise IllegalCommand("B-MONUMENT-1", f"the {monument} monument is already built")
    # B-MONUMENT-1: the monument must have the tiles' colour
    if colour not in MONUMENT_COLOURS[index]:
        raise IllegalCommand("B-MONUMENT-1", f"the {monument} monument has no {COLOURS[colour]}")
    return MonumentBuilt(command.seat, monument, coords(tl))


def _take(state: State, command: TakeTreasures) -> TreasuresTaken:
    if not isinstance(command.squares, tuple | list):
        raise FormatError("expected a list of squares", "squares")
    chosen = [to_square(at, "squares") for at in command.squares]
    # B-TREASURE-1: each treasure once
    if len(set(chosen)) != len(chosen):
        raise FormatError("a square is named twice", "squares")
    names = ", ".join(square_name(s) for s in state.treasure_squares)
    # B-TREASURE-1: treasures of this kingdom only
    for sq in chosen:
        if sq not in state.treasure_squares:
            raise IllegalCommand(
                "B-TREASURE-1", f"no treasure of the kingdom on {square_name(sq)} ({names})"
            )
    # B-TREASURE-1: all treasures but one
    if len(chosen) != state.treasure_take:
        raise IllegalCommand(
            "B-TREASURE-1", f"take exactly {state.treasure_take} of the treasures {names}"
        )
    border = [sq for sq in state.treasure_squares if sq in BORDER_TREASURES]
    need = min(len(border), state.treasure_take)
    # B-TREASURE-2: border treasures are taken first
    if sum(1 for sq in chosen if sq in BORDER_TREASURES) < need:
        raise IllegalCommand("B-TREASURE-2", "border treasures must be taken first")
    return TreasuresTaken(command.seat, tuple(coords(sq) for sq in sorted(chosen)))


def _complete(state: State, events: list[Event]) -> list[Event]:
    """Append the end of the turn when the events complete the second action (B-TURN-4)."""
    if isinstance(events[-1], GameEnded):
        return events
    after = state
    for event in events:
        after = evolve_ahead(after, event)  # the caller's evolve of these events reuses them
    if after.decision != REFILL:
        return events
    n = after.seat_count
    bag = after.bag
    drawn = 0
    for i in range(n):
        seat = (after.active + i) % n
        need = HAND_SIZE - sum(after.hands[seat])
        if need <= 0:
            continue
        # B-END-2: the bag runs out while a player must draw
        if len(bag) - drawn < need:
            events.append(GameEnded("bag"))
            return events
        events.append(TilesDrawn(seat, tuple(COLOURS[c] for c in bag[drawn : drawn + need])))
        drawn += need
    events.append(TurnEnded(after.active))
    # B-END-1: fewer than 3 treasures left on the board
    if len(after.treasures) < 3:
        events.append(GameEnded("treasures"))
    return events
