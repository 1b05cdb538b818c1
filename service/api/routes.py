"""The API's blueprints, in one list (``create_app`` registers them in this order, and
``python -m service.contract`` reads the contract's operations from their views), and the
contract's tags, one per group of operations."""

from __future__ import annotations

from flask import Blueprint

from service.api import (
    archives,
    audit,
    commands,
    events,
    explanations,
    feed,
    games,
    maps,
    metrics,
    ops,
    players,
    ratings,
    records,
    rules,
    streams,
    undo,
    views,
    webhooks,
)

# Every blueprint of the contract: each of their views declares its operation
# (``service.api.declare.operation``).
BLUEPRINTS: tuple[Blueprint, ...] = (
    ops.blueprint,
    metrics.blueprint,
    audit.blueprint,
    archives.blueprint,
    games.blueprint,
    commands.blueprint,
    views.blueprint,
    events.blueprint,
    streams.blueprint,
    webhooks.blueprint,
    undo.blueprint,
    records.blueprint,
    rules.blueprint,
    maps.blueprint,
    explanations.blueprint,
    players.blueprint,
    ratings.blueprint,
    feed.blueprint,
)

TAGS: tuple[tuple[str, str], ...] = (
    ("games", "Create games (with named or open seats), list them, read one, claim open seats."),
    ("players", "Players, each with one key for all of its seats, and their games."),
    ("ratings", "Players' ratings per kind from their rated games: leaderboards and histories."),
    ("commands", "A seat's commands, checked by the rules and stored as events."),
    ("views", "What the caller may see of a game now or at an earlier version."),
    ("events", "The game's event log, as pages and as a live stream (SSE)."),
    ("undo", "Requests to take a game back to an earlier version, and their answers."),
    ("webhooks", "Signed deliveries of a game's events to a subscriber's URL, and their log."),
    ("operations", "Liveness, readiness and this document."),
    (
        "records",
        "Game records (JSON Lines with a hash chain), their export and import, and move "
        "explanations.",
    ),
    ("rules", "The rules the engine follows, one anchor per rule id."),
)
