"""Benchmark of the pure rules engines (a script, not a timed test).

    .venv/bin/python -m tests.benchmarks.bench_domain [--games 30] [--kind board|cards]

Reports, per game kind, on one core:
- ``legal_commands``: full enumeration for the awaited seat, over every position
  reached in the random games (median, p99), and over the positions where the
  active player chooses an action (the largest sets: tiles, leaders, swaps...);
- decide + evolve per command (median, p99), replaying the recorded commands;
- a complete random 4-player game, commands chosen from ``legal_commands`` (median, max);
- folding a whole game's events (median, max).
Targets: legal_commands median <= 1 ms, decide+evolve median <= 100 us,
complete 4-player game <= 250 ms, fold <= 10 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from typing import Any

from domain.common.protocol import GameRules
from domain.games import all_games
from tests.autoplay import play_random_game


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:,.2f} ms"


def bench(rules: GameRules[Any, Any, Any], games: int, seats: int) -> dict[str, str]:
    game_times: list[float] = []
    fold_times: list[float] = []
    legal_times: list[float] = []
    action_legal_times: list[float] = []  # positions where the active player picks an action
    step_times: list[float] = []
    lengths: list[int] = []
    for seed in range(1, games + 1):
        t0 = time.perf_counter()
        played = play_random_game(rules, seats, seed)
        game_times.append(time.perf_counter() - t0)
        lengths.append(len(played.events))

        t0 = time.perf_counter()
        rules.fold(played.events)
        fold_times.append(time.perf_counter() - t0)

        # Replay the game: time legal_commands at every position and decide+evolve per command.
        state = rules.fold(played.events[: played.setup_events])
        for command in played.commands:
            for seat in sorted(rules.awaited(state)):
                t0 = time.perf_counter()
                list(rules.legal_commands(state, seat))
                elapsed = time.perf_counter() - t0
                legal_times.append(elapsed)
                if rules.pending(state).get("decision") == "action":
                    action_legal_times.append(elapsed)
            t0 = time.perf_counter()
            for event in rules.decide(state, command):
                state = rules.evolve(state, event)
            step_times.append(time.perf_counter() - t0)
    return {
        "games": str(games),
        "events per game (median)": f"{statistics.median(lengths):.0f}",
        "legal_commands median": fmt_us(statistics.median(legal_times)),
        "legal_commands p99": fmt_us(percentile(legal_times, 0.99)),
        "legal_commands median, action positions only": fmt_us(
            statistics.median(action_legal_times)
        ),
        "legal_commands p99, action positions only": fmt_us(percentile(action_legal_times, 0.99)),
        "decide+evolve median": fmt_us(statistics.median(step_times)),
        "decide+evolve p99": fmt_us(percentile(step_times, 0.99)),
        "random 4-player game median": fmt_us(statistics.median(game_times)),
        "random 4-player game max": fmt_us(max(game_times)),
        "fold whole game median": fmt_us(statistics.median(fold_times)),
        "fold whole game max": fmt_us(max(fold_times)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--kind", choices=["board", "cards"], action="append")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the targets say
    print(
        f"# domain benchmark — {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, one core, {args.games} seeded 4-player games per kind\n"
    )
    for kind, rules in all_games().items():
        if args.kind and kind not in args.kind:
            continue
        rows = bench(rules, args.games, 4)
        print(f"## {kind}\n")
        print("| measure | value |\n|---|---|")
        for name, value in rows.items():
            print(f"| {name} | {value} |")
        print()


if __name__ == "__main__":
    main()
