"""``legal_commands`` is complete and exact: on many positions from random games,
``decide`` accepts exactly the yielded commands out of a brute-force superset;
plus perft-style golden counts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domain.cards import (
    RULES,
    BuildShip,
    ChooseWar,
    Command,
    CommitCards,
    Decline,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    State,
    SwapTreasure,
    TakePoint,
    WithdrawLeader,
    decide,
    evolve,
    fold,
    legal_commands,
)
from domain.cards.flow import awaited_seat
from domain.common.colours import COLOURS
from domain.common.errors import RulesError
from tests.autoplay import play_random_game
from tests.cards.test_random_games import options_for


def candidates(state: State, seat: int) -> Iterator[Command]:
    """Every well-formed command of every type from ``seat``: a superset of the legal ones."""
    spots: list[dict[str, int]] = [{"column": c, "depth": d} for c in range(8) for d in range(9)]
    spots += [{"bridge": b} for b in range(7)]
    for colour in COLOURS:
        for spot in spots:
            yield PlaceLeader(seat, colour, **spot)
        yield WithdrawLeader(seat, colour)
        for c in range(8):
            yield PlayCard(seat, colour, column=c)
        for b in range(7):
            yield PlayCard(seat, colour, bridge=b)
        yield TakePoint(seat, colour)
        yield BuildShip(seat, colour)
        yield ChooseWar(seat, colour)
    for spot in spots:
        yield PlayCatastrophe(seat, **spot)
    for count in range(max(state.hands[seat]) + 2):
        yield CommitCards(seat, count)
    for c in range(8):
        yield SwapTreasure(seat, c)
    yield Pass(seat)
    yield Decline(seat)


def sample_positions() -> list[State]:
    """Positions of every kind of pending decision, from seeded random games."""
    picked: list[State] = []
    for seed in (3, 4, 5, 10, 11):
        game = play_random_game(RULES, 2 + seed % 3, seed, options_for(seed), keep_states=True)
        for i, state in enumerate(game.states):
            kind = RULES.pending(state)["decision"]
            every = {"action": 23, "commit": 9}.get(kind, 3)
            if i % every == 0:
                picked.append(state)
    return picked


POSITIONS = sample_positions()


def test_the_sample_covers_every_kind_of_decision() -> None:
    kinds = {RULES.pending(s)["decision"] for s in POSITIONS}
    assert kinds >= {
        "action",
        "point",
        "ship",
        "commit",
        "choose_war",
        "treasure_swap",
        "ship_points",
    }


@pytest.mark.parametrize("part", range(4))
def test_decide_accepts_exactly_the_legal_commands(part: int) -> None:
    for state in POSITIONS[part::4]:
        for seat in range(state.seat_count):
            legal = list(legal_commands(state, seat))
            assert len(legal) == len(set(legal)), "a command is listed twice"
            if seat != awaited_seat(state):
                assert not legal
            accepted = set()
            for command in candidates(state, seat):
                try:
                    decide(state, command)
                except RulesError:
                    continue
                accepted.add(command)
            missing, extra = set(legal) - accepted, accepted - set(legal)
            assert not missing and not extra, f"{RULES.pending(state)}: {missing=} {extra=}"


def perft(state: State, depth: int) -> int:
    """Leaf count of the tree of legal commands (the awaited seat moves)."""
    if depth == 0 or state.over is not None:
        return 1
    seat = awaited_seat(state)
    assert seat is not None
    total = 0
    for command in legal_commands(state, seat):
        after = state
        for event in decide(state, command):
            after = evolve(after, event)
        total += perft(after, depth - 1)
    return total


def start(seats: int, seed: int) -> State:
    return fold(RULES.start([f"p{i}" for i in range(seats)], {}, seed))


def test_perft_one_at_the_start_is_leaders_plus_cards_plus_pass() -> None:
    for seed in range(5):
        state = start(2, seed)
        colours_in_hand = sum(1 for n in state.hands[state.active] if n)
        # 4 leaders x 8 treasures, a card of each colour held x 8 columns, pass;
        # no bridge is open and the catastrophe has nothing to remove
        assert perft(state, 1) == 32 + 8 * colours_in_hand + 1


@pytest.mark.parametrize(
    ("seats", "seed", "depth", "nodes"),
    [(2, 1, 1, 57), (2, 1, 2, 3249), (3, 2, 2, 4129), (4, 3, 2, 4185)],
)
def test_perft_golden_counts(seats: int, seed: int, depth: int, nodes: int) -> None:
    assert perft(start(seats, seed), depth) == nodes
