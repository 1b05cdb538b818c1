"""The three bots over the generic :class:`GameRules` protocol.

Pure: the only randomness is a ``random.Random`` seeded from the bot seed, and
time enters only as a :class:`Budget` (a count of playouts and, optionally, an
injected ``deadline()`` predicate the caller builds from its own clock).

- ``random``: a uniformly random legal command.
- ``greedy``: one-ply lookahead: every legal command is applied to a
  determinized state and the one with the best evaluation is taken (ties at
  random).
- ``mcts``: determinized Monte Carlo search at the root (information-set
  style: each iteration runs on one of several determinizations, so no single
  guess about the hidden parts is trusted). Moves are chosen by UCB1; each
  iteration plays the move, then a fast random playout truncated after
  ``Budget.depth`` commands and scored by the evaluation (or exactly, if the
  game ends). Each move starts with the greedy value as a prior worth a few
  visits, so little time still plays no worse than ``greedy``. The most
  visited move is played.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.board import determinize as board_determinize
from domain.bots.evaluate import score_keys, utility
from domain.cards import determinize as cards_determinize
from domain.common.errors import RulesError
from domain.common.protocol import GameRules

BOT_KINDS = ("random", "greedy", "mcts")


@dataclass(frozen=True)
class Budget:
    """How long a bot may think: ``playouts`` at most, and stop early when
    ``deadline()`` turns true (checked between playouts)."""

    playouts: int = 250  # about 1 s on the board game (~300 playouts/s), less for cards
    deadline: Callable[[], bool] | None = None
    depth: int = 12  # commands per playout before the evaluation takes over
    determinizations: int = 8
    prior_visits: int = 3  # weight of the greedy value at the root
    exploration: float = 0.7


def determinizer(
    rules: GameRules[Any, Any, Any],
) -> Callable[[Mapping[str, Any], random.Random], Any]:
    """The game's ``determinize(view, rng)``."""
    if rules.kind == "board":
        return board_determinize.determinize
    if rules.kind == "cards":
        return cards_determinize.determinize
    raise ValueError(f"no determinizer for game kind {rules.kind!r}")


def _apply(rules: GameRules[Any, Any, Any], state: Any, command: Any) -> Any:
    for event in rules.decide(state, command):
        state = rules.evolve(state, event)
    return state


def _value(rules: GameRules[Any, Any, Any], state: Any, seat: int) -> float:
    return utility(score_keys(state), seat, rules.is_over(state))


def _playout(
    rules: GameRules[Any, Any, Any], state: Any, seat: int, depth: int, rng: random.Random
) -> float:
    for _ in range(depth):
        awaited = rules.awaited(state)
        if not awaited:
            break
        actor = min(awaited) if len(awaited) == 1 else rng.choice(sorted(awaited))
        options = list(rules.legal_commands(state, actor))
        state = _apply(rules, state, options[rng.randrange(len(options))])
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
    determinize = determinizer(rules)
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
    # Moves the greedy value already rules out by far are not worth playouts.
    best_prior = max(priors)
    arms = [i for i, p in enumerate(priors) if p >= best_prior - 0.25]
    rng.shuffle(arms)  # equal moves are tried, and chosen, in a random order
    done = 0
    while done < budget.playouts:
        if budget.deadline is not None and budget.deadline():
            break
        n = sum(visits[i] for i in arms)
        log_n = math.log(n)
        i = max(
            arms,
            key=lambda a: totals[a] / visits[a] + budget.exploration * math.sqrt(log_n / visits[a]),
        )
        world = worlds[done % len(worlds)]
        done += 1
        try:
            after = _apply(rules, world, options[i])
        except RulesError:  # not legal in this sampled world: no information
            continue
        totals[i] += _playout(rules, after, seat, budget.depth, rng)
        visits[i] += 1
    return options[max(arms, key=lambda a: (visits[a], totals[a] / visits[a]))]
