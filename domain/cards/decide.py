"""``decide``: judge a command by guard clauses into events.

Guard clauses, each naming the rule it enforces. After the command's own
events, ``decide`` appends the automatic events that follow from them (a
conflict's outcome, the end-of-turn draws, the next turn or the game end).
"""

from __future__ import annotations

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
    Resign,
    SwapTreasure,
    TakePoint,
    WithdrawLeader,
)
from domain.cards.events import (
    CardPlayed,
    CardsCommitted,
    CardsDrawn,
    CatastrophePlayed,
    ConflictResolved,
    Declined,
    Event,
    GameEnded,
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
from domain.cards.evolve import evolve
from domain.cards.flow import DECISION_NAMES, DECISION_RULES, current_decision
from domain.cards.model import (
    BRIDGE_BASE,
    BRIDGES,
    COLOUR_OF,
    COLUMNS,
    DEPTHS,
    END_RULES,
    HAND_SIZE,
    INDEX,
    MAX_DEPTH,
    SHIPS,
    Card,
    Commit,
    Decision,
    Offer,
    Refill,
    Resolve,
    ShipOffer,
    ShipPoints,
    State,
    TraderSwap,
    Wars,
    bridge_spot,
    column_spot,
    spot_name,
)
from domain.cards.model import ChooseWar as ChooseWarStep
from domain.common.colours import Colour
from domain.common.errors import FormatError, GameOver, IllegalCommand, NotAwaited
from domain.common.exact import is_int
from domain.common.resign import RESIGNED, ends_the_game

ACTIONS = (PlaceLeader, WithdrawLeader, PlayCard, PlayCatastrophe, Pass)


def decide(state: State, command: Command) -> list[Event]:
    """The events of a command, automatic follow-ups included; raise if illegal."""
    if state.over is not None:
        # The refusal names the rule under which the game ended.
        raise GameOver(
            END_RULES[state.over],
            f"the game is over ({state.over}); {type(command).__name__} refused",
        )
    seat = command.seat
    if not is_int(seat) or not 0 <= seat < state.seat_count:
        raise FormatError(f"no seat {seat!r} in a {state.seat_count}-player game", "seat")
    if isinstance(command, Resign):  # C-RESIGN-1: at any time, awaited or not
        return resign(state, seat)
    decision = current_decision(state)
    try:
        if isinstance(command, ACTIONS):
            events = [_judge_action(state, command, decision)]
        else:
            events = [_judge_decision(state, command, decision)]
    except (IllegalCommand, NotAwaited) as refusal:
        # Quote the offending command, as python-chess quotes the offending move.
        raise type(refusal)(refusal.rule, f"{quote(command)}: {refusal.message}") from None
    return _follow_up(state, events)


def resign(state: State, seat: int) -> list[Event]:
    """C-RESIGN-1: ``seat`` resigns, once; C-RESIGN-2: when only one seat is left that has
    not resigned, the game ends at once."""
    # C-RESIGN-1: a seat resigns once
    if seat in state.resigned:
        raise IllegalCommand("C-RESIGN-1", f"seat {seat} has resigned already")
    events: list[Event] = [SeatResigned(seat)]
    if ends_the_game(state.seat_count, (*state.resigned, seat)):
        events.append(GameEnded(RESIGNED))  # C-RESIGN-2
    return events


def quote(command: Command) -> str:
    """``PlayCard(seat=0, colour=red, column=3)``: a command as error messages show it."""
    parts = []
    for name in type(command).__dataclass_fields__:
        value = getattr(command, name)
        if value is not None:
            parts.append(f"{name}={getattr(value, 'value', value)}")
    return f"{type(command).__name__}({', '.join(parts)})"


def _not_awaited(state: State, command: Command, decision: Decision | None) -> NotAwaited:
    if decision is None:
        if state.actions_left <= 0 or state.agenda:
            return NotAwaited("C-TURN-1", "no action is awaited now")
        return NotAwaited("C-TURN-1", f"seat {state.active} is to take an action")
    what = DECISION_NAMES[type(decision)]
    return NotAwaited(
        DECISION_RULES[type(decision)], f"seat {decision.seat} is to decide on '{what}'"
    )


def _judge_action(state: State, command: Command, decision: Decision | None) -> Event:
    if (
        decision is not None
        or state.agenda
        or command.seat != state.active
        or state.actions_left <= 0
    ):
        raise _not_awaited(state, command, decision)
    if isinstance(command, PlaceLeader):
        return _place_leader(state, command)
    if isinstance(command, PlayCard):
        return _play_card(state, command)
    if isinstance(command, PlayCatastrophe):
        return _catastrophe(state, command)
    if isinstance(command, WithdrawLeader):
        # C-LEADER-2: only with the variant allow_withdraw.
        if not state.options.allow_withdraw:
            raise IllegalCommand(
                "C-LEADER-2", "withdrawing a leader needs the variant allow_withdraw"
            )
        _colour(command.leader, "leader")
        if state.leader_spot(command.seat, command.leader) < 0:
            raise IllegalCommand("C-LEADER-2", f"the {command.leader} leader is not in the display")
        return LeaderWithdrawn(command.seat, command.leader)
    assert isinstance(command, Pass)
    # C-TURN-1: passing is allowed.
    return Passed(command.seat)


def _colour(value: object, field: str) -> Colour:
    if not isinstance(value, Colour):
        raise FormatError(f"not a colour: {value!r}", field)
    return value


def _target(column: int | None, depth: int, bridge: int | None) -> int:
    """The spot a command names; FormatError when it names none."""
    if (column is None) == (bridge is None):
        raise FormatError("give exactly one of column and bridge", "column")
    if bridge is not None:
        if not is_int(bridge) or not 0 <= bridge < BRIDGES:
            raise FormatError(f"bridge must be 0..6, got {bridge!r}", "bridge")
        if depth != 0:
            raise FormatError(f"a bridge has no depth, got {depth!r}", "depth")
        return bridge_spot(bridge)
    if not is_int(column) or not 0 <= column < COLUMNS:
        raise FormatError(f"column must be 0..7, got {column!r}", "column")
    if not is_int(depth) or not 0 <= depth <= MAX_DEPTH:
        raise FormatError(f"depth must be 0..8, got {depth!r}", "depth")
    return column_spot(column, depth)


def _place_leader(state: State, command: PlaceLeader) -> Event:
    leader = _colour(command.leader, "leader")
    spot = _target(command.column, command.depth, command.bridge)
    where = f"{leader} leader to {spot_name(spot)}"
    card = state.card_at(spot)
    # C-LEADER-1: only onto a card
    if card is None:
        raise IllegalCommand("C-LEADER-1", f"{where}: no card at {spot_name(spot)}")
    # C-SHIP-3: never onto a ship
    if card in SHIPS:
        raise IllegalCommand(
            "C-SHIP-3", f"{where}: no leader may stand on a ship ({spot_name(spot)})"
        )
    # C-LEADER-1: one leader per card
    if spot in display.occupied(state):
        raise IllegalCommand("C-LEADER-1", f"{where}: a leader already stands at {spot_name(spot)}")
    # C-LEADER-1, variant leader_colour_must_differ: not onto a card of its own colour
    if state.options.leader_colour_must_differ:
        colour = Colour.RED if card is Card.TREASURE else COLOUR_OF[card]
        if colour is leader:
            raise IllegalCommand(
                "C-LEADER-1",
                f"{where}: variant leader_colour_must_differ: {spot_name(spot)} is {colour}",
            )
    return LeaderPlaced(command.seat, leader, command.column, command.depth, command.bridge)


def _play_card(state: State, command: PlayCard) -> Event:
    colour = _colour(command.colour, "colour")
    spot = _target(command.column, 0, command.bridge)
    if not state.hands[command.seat][INDEX[colour]]:
        raise IllegalCommand("C-TURN-2", f"no {colour} card in hand")
    if command.bridge is not None:
        if state.bridges[command.bridge] is not None:
            raise IllegalCommand("C-CARD-2", f"bridge {spot_name(spot)} is taken")
        if not display.bridge_open(state, command.bridge):
            raise IllegalCommand(
                "C-CARD-2", f"{spot_name(spot)} needs 3 cards below both neighbouring treasures*"
            )
    elif not display.column_open(state, spot // DEPTHS):
        raise IllegalCommand("C-CARD-1", f"column {command.column} already holds 8 cards")
    return CardPlayed(command.seat, colour, command.column, command.bridge)


def _catastrophe(state: State, command: PlayCatastrophe) -> Event:
    spot = _target(command.column, command.depth, command.bridge)
    # C-CAT-1: one catastrophe card per player and game
    if not state.catastrophes[command.seat]:
        raise IllegalCommand(
            "C-CAT-1", "the catastrophe card has been used already (once per game)"
        )
    card = state.card_at(spot)
    # C-CAT-1: it removes a card
    if card is None:
        raise IllegalCommand("C-CAT-1", f"no card at {spot_name(spot)}")
    # C-CAT-1: never a treasure*
    if spot < BRIDGE_BASE and spot % DEPTHS == 0:
        raise IllegalCommand("C-CAT-1", f"{spot_name(spot)} is a treasure*")
    # C-SHIP-3: never a ship
    if card in SHIPS:
        raise IllegalCommand("C-SHIP-3", f"a ship cannot be removed ({spot_name(spot)})")
    # C-CAT-1: never a card a leader stands on
    if spot in display.occupied(state):
        raise IllegalCommand("C-CAT-1", f"a leader stands at {spot_name(spot)}")
    return CatastrophePlayed(command.seat, command.column, command.depth, command.bridge)


def _judge_decision(state: State, command: Command, decision: Decision | None) -> Event:
    if decision is None or decision.seat != command.seat:
        raise _not_awaited(state, command, decision)
    seat = command.seat
    hand = state.hands[seat]
    if isinstance(command, Decline):
        if isinstance(decision, (ChooseWarStep, Commit)):
            # C-WAR-1 / C-REVOLT-3: a conflict cannot be declined (commit 0 cards instead).
            raise _not_awaited(state, command, decision)
        return Declined(seat, DECISION_NAMES[type(decision)])
    if isinstance(command, TakePoint):
        colour = _colour(command.colour, "colour")
        if isinstance(decision, Offer):
            rule = "C-SCORE-1"
            if decision.reason == "conflict":
                # a war's offer is followed by the rest of its join (a Wars step)
                war = any(isinstance(step, Wars) for step in state.agenda)
                rule = "C-WAR-5" if war else "C-REVOLT-4"
            if colour is not decision.colour:
                raise IllegalCommand(rule, f"the point offered is {decision.colour}, not {colour}")
        elif isinstance(decision, ShipPoints):
            rule = "C-SHIP-5"
            if colour not in decision.colours:
                offered = ", ".join(c.value for c in decision.colours)
                raise IllegalCommand(rule, f"ship points are open in {offered}, not {colour}")
        else:
            raise _not_awaited(state, command, decision)
        if not hand[INDEX[colour]]:
            raise IllegalCommand(rule, f"no {colour} card in hand")
        return PointScored(seat, colour)
    if isinstance(command, BuildShip):
        if not isinstance(decision, ShipOffer):
            raise _not_awaited(state, command, decision)
        ship = _colour(command.ship, "ship")
        if ship not in decision.ships:
            offered = ", ".join(c.value for c in decision.ships)
            raise IllegalCommand(
                "C-SHIP-1", f"the blue-{ship} ship is not to be had here (offered: {offered})"
            )
        return ShipBuilt(seat, ship, decision.column)
    if isinstance(command, ChooseWar):
        if not isinstance(decision, ChooseWarStep):
            raise _not_awaited(state, command, decision)
        colour = _colour(command.colour, "colour")
        if colour not in decision.colours:
            raise IllegalCommand("C-WAR-1", f"there is no {colour} conflict to fight")
        return WarChosen(seat, colour)
    if isinstance(command, CommitCards):
        if not isinstance(decision, Commit):
            raise _not_awaited(state, command, decision)
        conflict = state.conflict
        assert conflict is not None
        count = command.count
        if not is_int(count) or count < 0:
            raise FormatError(f"count must be an integer >= 0, got {count!r}", "count")
        rule = "C-REVOLT-2" if conflict.kind == "revolt" else "C-WAR-3"
        have = hand[INDEX[conflict.card_colour]]
        if count > have:
            raise IllegalCommand(rule, f"only {have} {conflict.card_colour} in hand, not {count}")
        return CardsCommitted(seat, conflict.card_colour, count)
    if isinstance(command, SwapTreasure):
        if not isinstance(decision, TraderSwap):
            raise _not_awaited(state, command, decision)
        column = command.column
        if not is_int(column) or not 0 <= column < COLUMNS:
            raise FormatError(f"column must be 0..7, got {column!r}", "column")
        region = display.region_of_spot(state, bridge_spot(decision.bridge))
        if column not in display.treasures_in_region(state, region):
            raise IllegalCommand(
                "C-TRADER-1", f"column {column} holds no treasure card of the joined kingdom"
            )
        if not hand[INDEX[Colour.RED]]:
            raise IllegalCommand(
                "C-TRADER-1", "a treasure is swapped only for a red card from hand"
            )
        return TreasureSwapped(seat, column)
    raise FormatError(f"unknown command {type(command).__name__}", "type")


# --- automatic follow-ups ---------------------------------------------------------


def _follow_up(state: State, events: list[Event]) -> list[Event]:
    for event in events:
        state = evolve(state, event)
    while state.over is None and state.agenda:
        head = state.agenda[0]
        new: list[Event]
        if isinstance(head, Resolve):
            new = [resolve_conflict(state)]
        elif isinstance(head, Refill):
            new = end_of_turn(state)
        else:
            break
        for event in new:
            state = evolve(state, event)
        events.extend(new)
    return events


def resolve_conflict(state: State) -> ConflictResolved:
    conflict = state.conflict
    assert conflict is not None
    attack, defence = display.strengths(state)
    # C-REVOLT-3 / C-WAR-4: higher wins, a tie goes to the defender.
    attacker_wins = attack > defence
    committed = max(conflict.attacker_cards, 0), max(conflict.defender_cards, 0)
    return ConflictResolved(
        conflict.kind,
        conflict.colour,
        conflict.attacker,
        conflict.defender,
        attack,
        defence,
        winner=conflict.attacker if attacker_wins else conflict.defender,
        loser=conflict.defender if attacker_wins else conflict.attacker,
        attacker_base=attack - committed[0],
        attacker_committed=committed[0],
        defender_base=defence - committed[1],
        defender_committed=committed[1],
    )


def end_of_turn(state: State) -> list[Event]:
    """C-TURN-3 / C-END-1 / C-END-2: refill every hand, then check the game end."""
    n = state.seat_count
    order = [(state.active + k) % n for k in range(n)]
    need = {seat: HAND_SIZE - state.hand_size(seat) for seat in order}
    if sum(need.values()) > state.pile_size:
        return [GameEnded("pile")]
    events: list[Event] = []
    hands = list(state.hands)
    at = state.drawn
    for seat in order:
        if need[seat] > 0:
            cards = tuple(COLOUR_OF[c] for c in state.pile[at : at + need[seat]])
            at += need[seat]
            events.append(CardsDrawn(seat, cards))
            hand = list(hands[seat])
            for colour in cards:
                hand[INDEX[colour]] += 1
            hands[seat] = tuple(hand)
    if display.treasures_left(state) <= 1:
        events.append(GameEnded("treasures"))
    elif display.blocked(state, tuple(hands)):
        events.append(GameEnded("blocked"))
    else:
        events.append(TurnBegan(state.turn + 1, (state.active + 1) % n))
    return events
