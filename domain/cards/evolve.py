"""``evolve``: apply one event, then carry out the silent automatic steps.

One function per event type. The flow of a turn lives in ``State.agenda``;
``_advance`` runs its automatic heads until a decision (or an automatic step
that needs events from ``decide``) is at the front.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.cards import display
from domain.cards.events import (
    CardPlayed,
    CardsCommitted,
    CardsDrawn,
    CatastrophePlayed,
    ConflictResolved,
    Declined,
    Event,
    GameEnded,
    GameStarted,
    LeaderPlaced,
    LeaderWithdrawn,
    Passed,
    PointScored,
    SeatResigned,
    ShipBuilt,
    TreasureSwapped,
    TurnBegan,
    WarChosen,
)
from domain.cards.model import (
    CARD_OF,
    COLOUR_OF,
    INDEX,
    SHIP_FOR,
    Card,
    CheckShip,
    ChooseWar,
    Commit,
    Conflict,
    EndAction,
    Offer,
    Refill,
    Resolve,
    ShipOffer,
    ShipPoints,
    State,
    Step,
    TraderSwap,
    Wars,
    bridge_spot,
    column_spot,
    spot_column,
    update,
)
from domain.cards.setup import initial_state
from domain.common.colours import COLOURS, Colour
from domain.common.resign import RESIGNED


def evolve(state: State | None, event: Event) -> State:
    """Apply one event. ``state`` is None only for GameStarted."""
    if state is None:
        if not isinstance(event, GameStarted):
            raise ValueError(f"a game begins with GameStarted, not {type(event).__name__}")
        return initial_state(event)
    if isinstance(event, GameStarted):
        raise ValueError("GameStarted can only begin a game")
    return _HANDLERS[type(event)](state, event)


def fold(events: Iterable[Event]) -> State:
    state: State | None = None
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("cannot fold an empty event sequence: a game begins with GameStarted")
    return state


# --- small helpers -------------------------------------------------------------


def _with_hand(
    hands: tuple[tuple[int, ...], ...], seat: int, colour: Colour, delta: int
) -> tuple[tuple[int, ...], ...]:
    hand = list(hands[seat])
    hand[INDEX[colour]] += delta
    return (*hands[:seat], tuple(hand), *hands[seat + 1 :])


def _with_vp(
    vp: tuple[tuple[Card, ...], ...], seat: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    return (*vp[:seat], vp[seat] + cards, *vp[seat + 1 :])


def _add(counts: tuple[int, ...], colour: Colour, n: int) -> tuple[int, ...]:
    i = INDEX[colour]
    return (*counts[:i], counts[i] + n, *counts[i + 1 :])


def _set(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*items[:i], value, *items[i + 1 :])


def _spot(column: int | None, depth: int, bridge: int | None) -> int:
    return bridge_spot(bridge) if bridge is not None else column_spot(column or 0, depth)


def _action_taken(state: State, **changes: Any) -> State:
    """An action was carried out: one fewer left, then its follow-up steps."""
    steps: tuple[Step, ...] = changes.pop("steps", ())
    left = state.actions_left - 1
    if not steps and left:
        return update(state, actions_left=left, agenda=(), **changes)  # the usual, quick case
    return _advance(update(state, actions_left=left, agenda=(*steps, EndAction()), **changes))


# --- the flow ------------------------------------------------------------------


def _advance(state: State) -> State:
    """Carry out silent automatic steps at the head of the agenda."""
    while state.agenda and state.over is None:
        head = state.agenda[0]
        rest = state.agenda[1:]
        if isinstance(head, CheckShip):
            state = update(state, agenda=_check_ship(state, head) + rest)
        elif isinstance(head, Wars):
            state = _next_war(state, head, rest)
        elif isinstance(head, EndAction):
            if state.actions_left > 0:
                state = update(state, agenda=rest)
            else:
                # C-TURN-3: ship points for the active player, then refill.
                colours = display.ship_point_colours(state, state.active)
                points: tuple[Step, ...] = ()
                if colours and state.hand_size(state.active):
                    points = (ShipPoints(state.active, colours),)
                state = update(state, agenda=(*points, Refill(), *rest))
        else:
            return state  # a decision, or a step that needs events
    return state


def longest_runs(cards: tuple[Card, ...]) -> tuple[int, int, int, int]:
    """Per colour (``COLOURS`` order), the longest run of that colour's cards directly one
    below another under the treasure* (C-SHIP-1); a ship breaks a run."""
    best = [0, 0, 0, 0]
    run, previous = 0, None
    for card in cards[1:]:
        run = run + 1 if card is previous else 1
        previous = card
        colour = COLOUR_OF.get(card)
        if colour is not None:
            i = INDEX[colour]
            best[i] = max(best[i], run)
    return (best[0], best[1], best[2], best[3])


def run_of(cards: tuple[Card, ...], colour: Colour) -> tuple[int, int]:
    """``(first depth, length)`` of the longest run of ``colour`` (the lowest if tied)."""
    card = CARD_OF[colour]
    found = (0, 0)
    depth = 1
    while depth < len(cards):
        if cards[depth] is card:
            end = depth
            while end + 1 < len(cards) and cards[end + 1] is card:
                end += 1
            if end - depth + 1 >= found[1]:
                found = (depth, end - depth + 1)
            depth = end + 1
        else:
            depth += 1
    return found


def ship_options(state: State, column: int, colour: Colour) -> tuple[Colour, ...]:
    """C-SHIP-1: the ships that may replace a run of ``colour`` (blue: any ship left;
    another colour: its own blue ship, if left)."""
    if colour is Colour.BLUE:
        return tuple(c for c, ship in SHIP_FOR.items() if ship in state.ships)
    ship = SHIP_FOR.get(colour)
    return (colour,) if ship is not None and ship in state.ships else ()


def _check_ship(state: State, step: CheckShip) -> tuple[Step, ...]:
    """C-SHIP-1 after the action: the first colour whose run in the column is new (4 or
    more, longer than before the action) is offered a ship; the column is then checked
    again for another colour (8 cards may hold two runs of 4)."""
    after = longest_runs(state.columns[step.column])
    for i, colour in enumerate(COLOURS):
        if after[i] >= 4 and after[i] > step.before[i]:
            done = tuple(99 if j == i else n for j, n in enumerate(step.before))
            again = CheckShip(step.column, (done[0], done[1], done[2], done[3]))
            ships = ship_options(state, step.column, colour)
            if not ships:
                return (again,)
            return (ShipOffer(state.active, step.column, ships, colour), again)
    return ()


def war_colours(state: State, bridge: int, colours: Iterable[Colour]) -> tuple[Colour, ...]:
    """C-WAR-6: the conflicts whose two leaders still share the joined kingdom."""
    region = display.region_of_spot(state, bridge_spot(bridge), joined=True)
    inside = display.leaders_in_region(state, region, joined=True)
    valid: list[Colour] = []
    for colour in colours:
        i = INDEX[colour]
        if sum(1 for leader in inside if leader % 4 == i) == 2:
            valid.append(colour)
    return tuple(valid)


def war_sides(state: State, bridge: int, colour: Colour) -> tuple[int, int]:
    """C-WAR-2: ``(attacker, defender)`` of the war in ``colour``."""
    region = display.region_of_spot(state, bridge_spot(bridge), joined=True)
    i = INDEX[colour]
    seats = {
        leader // 4
        for leader in display.leaders_in_region(state, region, joined=True)
        if leader % 4 == i
    }
    n = state.seat_count
    order = [(state.active + k) % n for k in range(n)]
    attacker = next(seat for seat in order if seat in seats)
    (defender,) = seats - {attacker}
    return attacker, defender


def start_war(
    state: State, bridge: int, colour: Colour, remaining: tuple[Colour, ...], rest: tuple[Step, ...]
) -> State:
    attacker, defender = war_sides(state, bridge, colour)
    conflict = Conflict("war", colour, attacker, defender, bridge=bridge)
    agenda = (Commit(attacker), Commit(defender), Resolve(), Wars(bridge, remaining), *rest)
    return update(state, conflict=conflict, agenda=agenda)


def _next_war(state: State, head: Wars, rest: tuple[Step, ...]) -> State:
    valid = war_colours(state, head.bridge, head.colours)
    if len(valid) == 1:
        return start_war(state, head.bridge, valid[0], (), rest)
    if valid:
        return update(
            state, agenda=(ChooseWar(state.active, valid), Wars(head.bridge, valid), *rest)
        )
    # C-WAR-6: the wars are over; the bridge turns face up and the trader may act.
    swap = trader_swap(state, head.bridge)
    return update(state, face_down=-1, agenda=rest if swap is None else (swap, *rest))


def trader_swap(state: State, bridge: int) -> TraderSwap | None:
    """C-TRADER-1: the swap offered after a join, if a trader may make one."""
    region = display.region_of_spot(state, bridge_spot(bridge), joined=True)
    if len(display.treasures_in_region(state, region, joined=True)) < 2:
        return None
    green = INDEX[Colour.GREEN]
    for leader in display.leaders_in_region(state, region, joined=True):
        if leader % 4 == green and state.hand_size(leader // 4):
            return TraderSwap(leader // 4, bridge)
    return None


def score_offer(state: State, column: int, colour: Colour) -> Offer | None:
    """C-SCORE-1/2: who may score for a card played into ``column``."""
    region = display.regions(state)[column]
    inside = display.leaders_in_region(state, region)
    i = INDEX[colour]
    owner = next((leader // 4 for leader in inside if leader % 4 == i), None)
    if owner is None:
        king = INDEX[Colour.BLACK]
        owner = next((leader // 4 for leader in inside if leader % 4 == king), None)
    # Offered whenever the hand is not empty, so that an offer reveals nothing
    # about the colours in that hand.
    if owner is None or not state.hand_size(owner):
        return None
    return Offer(owner, colour, "card")


# --- one function per event ----------------------------------------------------


def _cards_drawn(state: State, event: CardsDrawn) -> State:
    n = len(event.cards)
    drawn = state.pile[state.drawn : state.drawn + n]
    if tuple(COLOUR_OF[c] for c in drawn) != tuple(event.cards):
        raise ValueError("CardsDrawn does not match the top of the pile")
    hand = list(state.hands[event.seat])
    for colour in event.cards:
        hand[INDEX[colour]] += 1
    return update(state, drawn=state.drawn + n, hands=_set(state.hands, event.seat, tuple(hand)))


def _leader_placed(state: State, event: LeaderPlaced) -> State:
    index = event.seat * 4 + INDEX[event.leader]
    spot = _spot(event.column, event.depth, event.bridge)
    leaders = _set(state.leaders, index, spot)
    regs = display.regions(state)  # placing a leader does not change the kingdoms
    region = regs[spot_column(spot)]
    colour = index % 4
    rival = next(
        (
            j
            for j in range(colour, len(leaders), 4)
            if j != index and leaders[j] >= 0 and regs[spot_column(leaders[j])] == region
        ),
        None,
    )
    steps: tuple[Step, ...] = ()
    conflict = None
    if rival is not None:
        # C-LEADER-3 / C-REVOLT-1: an internal conflict.
        conflict = Conflict("revolt", event.leader, event.seat, rival // 4)
        steps = (Commit(event.seat), Commit(rival // 4), Resolve())
    return _action_taken(state, leaders=leaders, conflict=conflict, steps=steps)


def _leader_withdrawn(state: State, event: LeaderWithdrawn) -> State:
    index = event.seat * 4 + INDEX[event.leader]
    return _action_taken(state, leaders=_set(state.leaders, index, -1))


def _card_played(state: State, event: CardPlayed) -> State:
    card = CARD_OF[event.colour]
    hands = _with_hand(state.hands, event.seat, event.colour, -1)
    if event.bridge is not None:
        b = event.bridge
        state = update(state, hands=hands, bridges=_set(state.bridges, b, card), face_down=b)
        # C-JOIN-1: every colour with two leaders in the joined kingdom is a war.
        region = display.region_of_spot(state, bridge_spot(b), joined=True)
        inside = display.leaders_in_region(state, region, joined=True)
        colours = tuple(
            c for i, c in enumerate(COLOURS) if sum(1 for j in inside if j % 4 == i) == 2
        )
        # C-SHIP-1: the wars' removals close gaps in columns; once the whole action (wars,
        # trader swap) is done, every column with a new run of 4 is offered a ship.
        checks = tuple(
            CheckShip(n, longest_runs(cards))
            for n, cards in enumerate(state.columns)
            if len(cards) >= 5
        )
        return _action_taken(state, steps=(Wars(b, colours), *checks))
    c = event.column or 0
    before = longest_runs(state.columns[c])
    state = update(state, hands=hands, columns=_set(state.columns, c, (*state.columns[c], card)))
    offer = score_offer(state, c, event.colour)
    check = CheckShip(c, before)
    steps: tuple[Step, ...] = (check,) if offer is None else (offer, check)
    return _action_taken(state, steps=steps)


def _catastrophe_played(state: State, event: CatastrophePlayed) -> State:
    catastrophes = _set(state.catastrophes, event.seat, False)
    if event.bridge is not None:
        card = state.bridges[event.bridge]
        assert card is not None
        return _action_taken(
            state,
            catastrophes=catastrophes,
            bridges=_set(state.bridges, event.bridge, None),
            destroyed=(*state.destroyed, card),
        )
    c = event.column or 0
    card = state.columns[c][event.depth]
    columns, leaders = display.remove_cards(state.columns, state.leaders, c, {event.depth})
    return _action_taken(
        state,
        catastrophes=catastrophes,
        columns=columns,
        leaders=leaders,
        destroyed=(*state.destroyed, card),
    )


def _passed(state: State, event: Passed) -> State:
    return _advance(update(state, actions_left=0, agenda=(EndAction(),)))


def _point_scored(state: State, event: PointScored) -> State:
    hands = _with_hand(state.hands, event.seat, event.colour, -1)
    vp = _with_vp(state.vp, event.seat, (CARD_OF[event.colour],))
    head, rest = state.agenda[0], state.agenda[1:]
    if isinstance(head, ShipPoints):
        left = tuple(c for c in head.colours if c is not event.colour)
        if left and sum(hands[event.seat]):
            rest = (ShipPoints(head.seat, left), *rest)
    return _advance(update(state, hands=hands, vp=vp, agenda=rest))


def _declined(state: State, event: Declined) -> State:
    return _advance(update(state, agenda=state.agenda[1:]))


def _ship_built(state: State, event: ShipBuilt) -> State:
    """C-SHIP-1/2: the lowest four cards of the run go to the discard pile; the ship takes
    the place of the uppermost of them, the cards below it close up under it."""
    c = event.column
    offer = state.agenda[0]
    assert isinstance(offer, ShipOffer)
    cards = state.columns[c]
    colour = offer.run if offer.run is not None else COLOUR_OF[cards[-1]]
    first, length = run_of(cards, colour)
    top = first + length - 4
    columns, leaders = display.remove_cards(
        state.columns, state.leaders, c, set(range(top, top + 4))
    )
    ship = SHIP_FOR[event.ship]
    rest = columns[c]
    columns = _set(columns, c, (*rest[:top], ship, *rest[top:]))
    base = column_spot(c, 0)
    leaders = tuple(  # leaders on the cards below the ship move down with them
        spot + 1 if base + top <= spot < base + len(rest) else spot for spot in leaders
    )
    return _advance(
        update(
            state,
            columns=columns,
            leaders=leaders,
            discard=_add(state.discard, colour, 4),
            ships=tuple(s for s in state.ships if s is not ship),
            agenda=state.agenda[1:],
        )
    )


def _war_chosen(state: State, event: WarChosen) -> State:
    wars = state.agenda[1]
    assert isinstance(wars, Wars)
    remaining = tuple(c for c in wars.colours if c is not event.colour)
    return start_war(state, wars.bridge, event.colour, remaining, state.agenda[2:])


def _cards_committed(state: State, event: CardsCommitted) -> State:
    conflict = state.conflict
    assert conflict is not None
    if event.seat == conflict.attacker and conflict.attacker_cards < 0:
        conflict = conflict._replace(attacker_cards=event.count)
    else:
        conflict = conflict._replace(defender_cards=event.count)
    hands = _with_hand(state.hands, event.seat, event.colour, -event.count)
    return _advance(update(state, hands=hands, conflict=conflict, agenda=state.agenda[1:]))


def _conflict_resolved(state: State, event: ConflictResolved) -> State:
    conflict = state.conflict
    assert conflict is not None
    colour = conflict.colour
    card = CARD_OF[colour]
    played_colour = conflict.card_colour  # red in a revolt
    winner = event.winner
    loser = conflict.defender if winner == conflict.attacker else conflict.attacker
    loser_index = loser * 4 + INDEX[colour]
    loser_spot = state.leaders[loser_index]
    # C-REVOLT-4 / C-WAR-4: the loser's leader goes home.
    leaders = _set(state.leaders, loser_index, -1)
    played = conflict.attacker_cards + conflict.defender_cards
    spoils: tuple[Card, ...] = (CARD_OF[played_colour],) if played else ()
    discard = _add(state.discard, played_colour, played - 1) if played else state.discard
    columns, bridges = state.columns, state.bridges
    if conflict.kind == "war":
        # C-WAR-5: the loser's former kingdom loses its cards of the colour.
        side = display.region_of_spot(state, loser_spot)
        held = {spot for spot in leaders if spot >= 0}
        for b in display.region_bridges(state, side):
            if bridges[b] is card and bridge_spot(b) not in held:
                bridges = _set(bridges, b, None)
                spoils += (card,)
        for c in display.region_columns(state, side):
            depths = {
                d
                for d in range(1, len(columns[c]))
                if columns[c][d] is card and column_spot(c, d) not in held
            }
            if depths:
                columns, leaders = display.remove_cards(columns, leaders, c, depths)
                held = {spot for spot in leaders if spot >= 0}
                spoils += (card,) * len(depths)
    state = update(
        state,
        leaders=leaders,
        columns=columns,
        bridges=bridges,
        discard=discard,
        vp=_with_vp(state.vp, winner, spoils),
        conflict=None,
        agenda=state.agenda[1:],
    )
    if not played and state.hand_size(winner):
        # Nobody played a card: the winner may score one from hand instead.
        state = update(state, agenda=(Offer(winner, played_colour, "conflict"), *state.agenda))
    return _advance(state)


def _treasure_swapped(state: State, event: TreasureSwapped) -> State:
    hands = _with_hand(state.hands, event.seat, Colour.RED, -1)
    column = (Card.RED, *state.columns[event.column][1:])
    state = update(
        state,
        hands=hands,
        columns=_set(state.columns, event.column, column),
        vp=_with_vp(state.vp, event.seat, (Card.TREASURE,)),
    )
    head = state.agenda[0]
    assert isinstance(head, TraderSwap)
    rest = state.agenda[1:]
    if state.options.trader_takes_one:  # the Hungarian and Italian texts: one treasure
        return _advance(update(state, agenda=rest))
    again = trader_swap(state, head.bridge)  # the German text: all but one, one at a time
    if again is not None and again.seat == event.seat:
        rest = (again, *rest)
    return _advance(update(state, agenda=rest))


def _turn_began(state: State, event: TurnBegan) -> State:
    return update(state, turn=event.turn, active=event.seat, actions_left=2, agenda=())


def _seat_resigned(state: State, event: SeatResigned) -> State:
    # C-RESIGN-1: the seat stays, its decisions made for it
    return update(state, resigned=(*state.resigned, event.seat))


def _game_ended(state: State, event: GameEnded) -> State:
    if event.reason == RESIGNED:  # C-RESIGN-2: ends at once, even within a conflict
        return update(state, over=event.reason, actions_left=0, agenda=(), conflict=None)
    return update(state, over=event.reason, actions_left=0, agenda=())


_HANDLERS: dict[type[Any], Callable[[State, Any], State]] = {
    CardsDrawn: _cards_drawn,
    LeaderPlaced: _leader_placed,
    LeaderWithdrawn: _leader_withdrawn,
    CardPlayed: _card_played,
    CatastrophePlayed: _catastrophe_played,
    Passed: _passed,
    PointScored: _point_scored,
    Declined: _declined,
    ShipBuilt: _ship_built,
    WarChosen: _war_chosen,
    CardsCommitted: _cards_committed,
    ConflictResolved: _conflict_resolved,
    TreasureSwapped: _treasure_swapped,
    TurnBegan: _turn_began,
    SeatResigned: _seat_resigned,
    GameEnded: _game_ended,
}
