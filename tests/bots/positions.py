"""Positions for the bot tests: awaited states from seeded random games, every
decision kind included, and a scrambler that changes every secret of a seat."""

from __future__ import annotations

import random
from typing import Any

from domain.board import RULES as BOARD
from domain.cards import RULES as CARDS
from domain.common.protocol import GameRules
from tests.autoplay import play_random_game

Rules = GameRules[Any, Any, Any]
GAMES: dict[str, Rules] = {"board": BOARD, "cards": CARDS}


def decision_of(rules: Rules, state: Any) -> str:
    return str(rules.pending(state)["decision"])


def sample_positions(rules: Rules, seeds: range, per_kind: int, every: int) -> list[Any]:
    """Awaited states: every ``every``-th one, plus up to ``per_kind`` of each
    decision kind per game (so rare decisions are always covered)."""
    out: list[Any] = []
    for seed in seeds:
        game = play_random_game(rules, 2 + seed % 3, seed, keep_states=True)
        taken: dict[str, int] = {}
        for i, state in enumerate(game.states[game.setup_events - 1 :]):
            if not rules.awaited(state):
                continue
            kind = decision_of(rules, state)
            if i % every == 0 or (kind != "action" and taken.get(kind, 0) < per_kind):
                taken[kind] = taken.get(kind, 0) + 1
                out.append(state)
    return out


def scramble(rules: Rules, state: Any, seat: int, rng: random.Random) -> Any:
    """Another full state that ``seat`` cannot tell from ``state``: every secret
    it cannot see is redrawn (others' hands, the bag / pile, the set-aside
    cards, a face-down card, hidden VP, the seed)."""
    data = rules.dump_position(state)
    data["seed"] = rng.randrange(2**31)
    others = [s for s in range(len(data["seats"])) if s != seat]
    if rules.kind == "board":
        pool = list(data["bag"])
        for s in others:
            pool += [c for c, n in data["hands"][s].items() for _ in range(n)]
        pool += [c for c, n in data["out_of_game"].items() for _ in range(n)]
        rng.shuffle(pool)
        for s in others:
            size = sum(data["hands"][s].values())
            tiles, pool = pool[:size], pool[size:]
            data["hands"][s] = {c: tiles.count(c) for c in data["hands"][s]}
            data["points"][s] = {c: rng.randrange(8) for c in data["points"][s]}
        out_size = sum(data["out_of_game"].values())
        tiles, pool = pool[:out_size], pool[out_size:]
        data["out_of_game"] = {c: tiles.count(c) for c in data["out_of_game"]}
        data["bag"] = pool
        hidden = sum(data["treasures_taken"][s] for s in others)
        for s in others:
            data["treasures_taken"][s] = 0
        for _ in range(hidden):
            data["treasures_taken"][rng.choice(others)] += 1
        return rules.load_position(data)
    drawn = data["drawn"]
    pool = list(data["pile"][drawn:]) + list(data["set_aside"])
    for s in others:
        pool += [c for c, n in data["hands"][s].items() for _ in range(n)]
    if data["face_down"] is not None:
        pool.append(data["bridges"][data["face_down"]])
    open_piles = data["options"]["open_vp_piles"]
    below: list[str] = []
    if not open_piles:
        for pile in data["vp"]:
            below += pile[:-1]
    pool += [c for c in below if c != "treasure"]
    rng.shuffle(pool)
    rng.shuffle(below)  # where the treasures lie among the hidden VP cards
    for s in others:
        size = sum(data["hands"][s].values())
        cards, pool = pool[:size], pool[size:]
        data["hands"][s] = {c: cards.count(c) for c in data["hands"][s]}
    if data["face_down"] is not None:
        data["bridges"][data["face_down"]] = pool.pop()
    if not open_piles:
        refill = iter(below)
        for pile in data["vp"]:
            for i in range(len(pile) - 1):
                card = next(refill)
                pile[i] = "treasure" if card == "treasure" else pool.pop()
    else:
        for pile in data["vp"]:
            hidden_part = pile[:-1]
            rng.shuffle(hidden_part)
            pile[:-1] = hidden_part
    aside = len(data["set_aside"])
    data["set_aside"], pool = pool[:aside], pool[aside:]
    data["pile"] = list(data["pile"][:drawn]) + pool
    return rules.load_position(data)
