"""Strength benchmark of the bots (a script, not a timed test).

    .venv/bin/python -m tests.benchmarks.bench_bots [--games 100] [--kind board|cards]
        [--think-ms 100000] [--playouts 60] [--processes 2]
        [--pairings mcts-random,mcts-greedy:200,...]

Two-player games, each pairing's seats alternated game by game (game ``i``
uses seed ``i`` for both bots' pairing), bots deciding from their seat's view
only; a pairing plays ``--games`` games, or the count after its colon.
Reports per game kind and pairing: wins / draws / losses of the first bot, its
win rate (a draw counts half) with a 95 % Wilson interval, the think time per
move of each bot, and the average game length in commands; and the engine's
playout rate: how many truncated playouts (``Budget.depth`` commands drawn by
the game's sampler from a determinized mid-game position, then the
evaluation) a bot gets per second on one core.

Targets (issue 11): mcts beats random >= 90 % and greedy >= 65 %, greedy beats
random >= 75 %; +-7 points or better (>= 100 games per pairing on the board).
The think time is a playout count per move (``--playouts``), so results do
not depend on the machine's load, and a per-move deadline (``--think-ms``; the
clock lives here, in the script: the bots only see a ``deadline()``
predicate), which the default leaves out of reach.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from domain.board import RULES as BOARD
from domain.bots import Budget, choose_command
from domain.bots.engine import _playout
from domain.cards import RULES as CARDS
from domain.common.protocol import GameRules
from tests.autoplay import play_random_game

GAMES: dict[str, GameRules[Any, Any, Any]] = {"board": BOARD, "cards": CARDS}
PAIRINGS = ("mcts-random", "mcts-greedy", "greedy-random")


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval for a proportion (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def deadline_after(seconds: float) -> Callable[[], bool]:
    """A ``deadline()`` predicate for a bot: true once ``seconds`` have passed."""
    end = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= end


def think_ms(results: list[dict[str, Any]], bot: str) -> float:
    times = [t for r in results for t in r["think"][bot]]
    return 1000 * statistics.fmean(times) if times else 0.0


def play(args: tuple[str, str, str, int, float, int]) -> dict[str, Any]:
    """One game: bot ``first`` against ``second``; ``first`` sits at seat ``game % 2``."""
    kind, first, second, game, think_s, playouts = args
    rules = GAMES[kind]
    seat_of_first = game % 2
    bots = {seat_of_first: first, 1 - seat_of_first: second}
    state: Any = None
    for event in rules.start(["p1", "p2"], rules.normalize_options({}), game):
        state = rules.evolve(state, event)
    think: dict[str, list[float]] = {first: [], second: []}
    commands = 0
    while not rules.is_over(state):
        seat = min(rules.awaited(state))
        started = time.perf_counter()
        budget = Budget(playouts=playouts, deadline=deadline_after(think_s))
        command = choose_command(
            bots[seat],
            rules,
            rules.view(state, seat),
            seat=seat,
            seed=game * 1000 + commands,
            budget=budget,
        )
        think[bots[seat]].append(time.perf_counter() - started)
        for event in rules.decide(state, command):
            state = rules.evolve(state, event)
        commands += 1
    result = rules.result(state)
    assert result is not None
    places = result["places"]
    score = 1.0 if places[0] == [seat_of_first] else 0.5 if seat_of_first in places[0] else 0.0
    return {"score": score, "commands": commands, "think": think}


def playout_rate(kind: str, seconds: float = 3.0) -> float:
    """Truncated random playouts per second from determinized mid-game views."""
    rules = GAMES[kind]
    budget = Budget()
    rng = random.Random(1)
    positions = []
    for seed in range(3):
        game = play_random_game(rules, 2, seed, keep_states=True)
        states = [s for s in game.states if rules.awaited(s)]
        positions += states[len(states) // 4 : 3 * len(states) // 4 : 25]
    worlds = []
    for state in positions:
        seat = min(rules.awaited(state))
        worlds.append((rules.determinize(rules.view(state, seat), rng), seat))
    done = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        world, seat = worlds[done % len(worlds)]
        _playout(rules, world, seat, budget.depth, rng)
        done += 1
    return done / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    parser.add_argument("--kind", choices=sorted(GAMES), action="append")
    parser.add_argument("--think-ms", type=float, default=100_000.0, help="deadline per move")
    parser.add_argument("--playouts", type=int, default=60, help="playouts per move")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pairings", default=",".join(PAIRINGS))
    args = parser.parse_args()
    print(
        f"bench_bots: {args.pairings} ({args.games} games unless given), "
        f"{args.playouts} playouts/move (deadline {args.think_ms:g} ms), "
        f"{args.processes} processes"
    )
    for kind in args.kind or sorted(GAMES):
        print(
            f"\n## {kind}: {playout_rate(kind):,.0f} playouts/s per core "
            f"(depth {Budget().depth}, from determinized mid-game views)"
        )
        print(
            "| pairing | W/D/L | win rate | 95 % CI | think/move (ms, 1st / 2nd) | commands/game |"
        )
        print("|---|---|---|---|---|---|")
        for entry in args.pairings.split(","):
            pairing, _, count = entry.partition(":")
            first, second = pairing.split("-")
            jobs = [
                (kind, first, second, g, args.think_ms / 1000, args.playouts)
                for g in range(int(count) if count else args.games)
            ]
            with ProcessPoolExecutor(args.processes) as pool:
                results = list(pool.map(play, jobs))
            score = sum(r["score"] for r in results)
            wins = sum(r["score"] == 1.0 for r in results)
            draws = sum(r["score"] == 0.5 for r in results)
            low, high = wilson(score, len(results))

            print(
                f"| {pairing} | {wins}/{draws}/{len(results) - wins - draws} "
                f"| {100 * score / len(results):.0f} % | {100 * low:.0f}–{100 * high:.0f} % "
                f"| {think_ms(results, first):.1f} / {think_ms(results, second):.1f} "
                f"| {statistics.fmean(r['commands'] for r in results):.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
