"""The three bots over the generic :class:`GameRules` protocol.

Pure: the only randomness is a ``random.Random`` seeded from the bot seed, and
time enters only as a :class:`Budget` (a count of playouts and, optionally, an
injected ``deadline()`` predicate the caller builds from its own clock).

- ``random``: a uniformly random legal command.
- ``greedy``: one-ply lookahead: every legal command is applied to a
  determinized state and the one with the best evaluation is taken (ties at
  random).
- ``mcts``: determinized Monte Carlo search at the root (information-set
  style: each playout runs on one of several determinizations, so no single
  guess about the hidden parts is trusted). Only the ``Budget.arms`` moves
  with the best greedy value are searched (ties in a random order), each
  starting with that value as a prior worth a few playouts, so little time
  still plays no worse than ``greedy``. The playouts are shared out by
  sequential halving: every remaining move gets an equal share of the round,
  then the worse half is dropped, until one is left (simple regret, which is
  what a move choice needs, is what halving minimises; UCB1 spent most
  playouts on the first good move found). A playout plays the move, then
  ``Budget.depth`` commands drawn by the game's fast sampler (``sample``:
  mostly tiles or cards, favouring those that score for the mover, so the
  playout looks like a game), and is scored by the evaluation (or exactly, if
  the game ends).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.bots.evaluate import utility
from domain.common.errors import RulesError
from domain.common.protocol import GameRules

BOT_KINDS = ("random", "greedy", "mcts")


@dataclass(frozen=True)
class Budget:
    """How long a bot may think: ``playouts`` at most, and stop early when
    ``deadline()`` turns true (checked between playouts)."""

    playouts: int = 600  # the service's 500 ms on the board game: ~0.4 s of CPU (see docs/bots.md)
    deadline: Callable[[], bool] | None = None
    depth: int = 4  # commands per playout before the evaluation takes over
    determinizations: int = 8
    prior_visits: int = 3  # weight of the greedy value at the root
    arms: int = 12  # moves searched: the best ones by the greedy value


def _apply(rules: GameRules[Any, Any, Any], state: Any, command: Any) -> Any:
    for event in rules.decide(state, command):
        state = rules.evolve(state, event)
    return state


def _value(rules: GameRules[Any, Any, Any], state: Any, seat: int) -> float:
    return utility(rules.score_keys(state), seat, rules.is_over(state))


def _playout(
    rules: GameRules[Any, Any, Any], state: Any, seat: int, depth: int, rng: random.Random
) -> float:
    sample = rules.sample_command
    for _ in range(depth):
        awaited = rules.awaited(state)
        if not awaited:
            break
        actor = min(awaited) if len(awaited) == 1 else rng.choice(sorted(awaited))
        state = _apply(rules, state, sample(state, actor, rng))
    return _value(rules, state, seat)


def choose_command(
    kind: str,
    rules: GameRules[Any, Any, Any],
    view: Mapping[str, Any],
    *,
    seat: int,
    seed: int,
    budget: Budget | None = None,
) -> Any:
    """One legal command for ``seat`` from its ``view`` (never the full state)."""
    if kind not in BOT_KINDS:
        raise ValueError(f"unknown bot {kind!r}; expected one of {BOT_KINDS}")
    if view.get("viewer") != seat:
        raise ValueError("a bot decides from its own seat's view")
    budget = budget or Budget()
    rng = random.Random(f"{rules.kind}:{seed}:{view.get('turn')}")
    determinize = rules.determinize
    first = determinize(view, rng)
    if seat not in rules.awaited(first):
        raise ValueError(f"seat {seat} is not awaited")
    options = list(rules.legal_commands(first, seat))
    if kind == "random" or len(options) == 1:
        return options[rng.randrange(len(options))]
    priors = [_value(rules, _apply(rules, first, c), seat) for c in options]
    if kind == "greedy":
        best = max(priors)
        return rng.choice([c for c, v in zip(options, priors, strict=True) if v == best])
    return _search(
        rules,
        view=view,
        seat=seat,
        rng=rng,
        budget=budget,
        determinize=determinize,
        first=first,
        options=options,
        priors=priors,
    )


def _search(
    rules: GameRules[Any, Any, Any],
    *,
    view: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    budget: Budget,
    determinize: Callable[[Mapping[str, Any], random.Random], Any],
    first: Any,
    options: list[Any],
    priors: list[float],
) -> Any:
    worlds = [first] + [determinize(view, rng) for _ in range(budget.determinizations - 1)]
    w = budget.prior_visits
    visits = [float(w)] * len(options)
    totals = [p * w for p in priors]
    order = list(range(len(options)))
    rng.shuffle(order)  # equal moves are tried, and chosen, in a random order
    order.sort(key=lambda a: -priors[a])
    done = 0

    def run(i: int, world: Any, seed: int) -> None:
        nonlocal done
        done += 1
        try:
            after = _apply(rules, world, options[i])
        except RulesError:  # not legal in this sampled world: no information
            return
        totals[i] += _playout(rules, after, seat, budget.depth, random.Random(seed))
        visits[i] += 1

    def out() -> bool:
        return done >= budget.playouts or (budget.deadline is not None and budget.deadline())

    def mean(a: int) -> float:
        return totals[a] / visits[a]

    live = order[: budget.arms]
    step = 0
    rounds = max(1, math.ceil(math.log2(len(live))))
    while len(live) > 1 and not out():
        share = max(1, budget.playouts // (rounds * len(live)))
        for _ in range(share):
            # Common random numbers: the moves of a round meet the same world and the
            # same playout draws, so their difference is less noisy than their values.
            world = worlds[step % len(worlds)]
            step += 1
            seed = rng.getrandbits(64)
            for i in live:
                if out():
                    break
                run(i, world, seed)
        if out():
            break
        live.sort(key=lambda a: -mean(a))
        live = live[: (len(live) + 1) // 2]
    return options[max(live, key=mean)]
