"""Ratings: a projection of the rated games' logs.

A game created ``rated`` (every seat bound to a player of its own) updates its players'
ratings of its kind once it is over. The numbers come from ``openskill``'s Plackett-Luce
model (a Weng-Lin Bayesian rating for any number of players and ranked finishes, ties
included), fed with the game's own final places (``rules.result``: the places by each
seat's weakest colour, ties sharing a place); nothing here computes a rating itself.

The ratings are a read model (``RatingStore``): they can be dropped and rebuilt from the
games at any time (``rebuild``) and come out the same, because

- each game is counted once: ``RatingStore.apply`` writes a game's changes and its mark
  as counted in one atomic step, after checking the mark (a job run twice, or a worker
  that died half-way, counts it once: nothing is written before that step);
- games are counted in one order, the *order key* ``<ms the game ended>:<game id>`` (the
  time the last event of the game was recorded, from its log): ``apply`` refuses a game
  that comes before the last one counted (``OUT_OF_ORDER``), and the projection then
  rebuilds the kind, so the live numbers are always those of that order;
- a change is computed from the ratings it read, and ``apply`` refuses it if one of them
  changed meanwhile (``STALE``: computed again), so two workers never lose an update.

The live projection runs as a job (``service.jobs.ratings``) queued after the append
that ends a rated game.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from service.application.queries import GameQueries
from service.application.repository import GameRepository, LoadedGame
from service.errors import GameNotFound
from service.store.port import (
    APPLIED,
    COUNTED,
    OUT_OF_ORDER,
    REBUILDING,
    STALE,
    EventStore,
    PlayerRating,
    RatedGame,
    RatingChange,
    RatingStore,
)

log = logging.getLogger("tigris.ratings")

# Tries of one game against concurrent updates of its players' ratings (``STALE``).
TRIES = 10
REBUILD_TTL_S = 3600
# Not counted: the game is not rated, or not over.
UNRATED, NOT_OVER = "unrated", "not-over"


def model() -> PlackettLuce:
    """The rating model: openskill's Plackett-Luce with its defaults (mu 25, sigma 25/3,
    ordinal mu - 3 sigma)."""
    return PlackettLuce()


@dataclass(frozen=True, slots=True)
class Finish:
    """What a rated game's log says about its players: the order key, the version it
    ended at, when, and each seat's player and place (1 = first; ties share one)."""

    game_id: str
    kind: str
    order: str
    version: int
    ended_at: str
    seats: tuple[tuple[int, str, int], ...]  # (seat, player id, place), by seat


def order_key(ended_ms: int, game_id: str) -> str:
    return f"{ended_ms:015d}:{game_id}"


class RatingProjection:
    """Counts rated games into the ratings read model, and rebuilds it."""

    def __init__(
        self,
        store: RatingStore,
        repository: GameRepository,
        queries: GameQueries,
        events: EventStore,
    ) -> None:
        self.store = store
        self._repository = repository
        self._queries = queries
        self._events = events
        self._model = model()

    # ------------------------------------------------------------------ one game
    def finish(self, game: LoadedGame) -> Finish | None:
        """What ``game`` counts for, if it is rated and over (else None)."""
        info = game.info
        if not info.rated or not game.rules.is_over(game.state):
            return None
        result = game.rules.result(game.state)
        if result is None:
            return None
        places = {int(entry["seat"]): int(entry["place"]) for entry in result["seats"]}
        last = self._queries.events(game.game_id, game.version - 1, 1, game=game)[0]
        ended_at = str(last.metadata["recorded_at"])
        ended_ms = int(datetime.fromisoformat(ended_at).timestamp() * 1000)
        seats = tuple((seat, info.players[seat], places[seat]) for seat in sorted(info.players))
        return Finish(
            game.game_id,
            game.kind,
            order_key(ended_ms, game.game_id),
            game.version,
            ended_at,
            seats,
        )

    def changes(self, finish: Finish, before: dict[str, PlayerRating]) -> RatedGame:
        """The new ratings of ``finish``'s players from their ratings ``before`` (openskill's
        ``rate``: one team per seat, ranked by place)."""
        teams = []
        for _, player, _ in finish.seats:
            known = before.get(player)
            if known is None:
                teams.append([self._model.rating(name=player)])
            else:
                teams.append([self._model.rating(mu=known.mu, sigma=known.sigma, name=player)])
        rated = self._model.rate(teams, ranks=[float(place) for _, _, place in finish.seats])
        changes = []
        for (seat, player, place), (after,) in zip(finish.seats, rated, strict=True):
            old = before.get(player)
            mu, sigma = float(after.mu), float(after.sigma)
            new = PlayerRating(
                mu, sigma, float(after.ordinal()), 1 if old is None else old.games + 1
            )
            changes.append(RatingChange(player, seat, place, old, new))
        return RatedGame(
            finish.game_id, finish.order, finish.version, finish.ended_at, tuple(changes)
        )

    def count(self, finish: Finish, owner: str = "") -> str:
        """Count one game: what ``RatingStore.apply`` last answered (``STALE`` only after
        ``TRIES`` tries)."""
        outcome = STALE
        for _ in range(TRIES):
            if self.store.counted(finish.kind, finish.game_id):
                return COUNTED
            players = [player for _, player, _ in finish.seats]
            before = self.store.ratings(finish.kind, players)
            outcome = self.store.apply(finish.kind, self.changes(finish, before), owner)
            if outcome != STALE:
                return outcome
        return outcome

    def rate(self, game_id: str) -> str:
        """The live projection of one game (the job queued when a rated game ends):
        ``APPLIED``, ``COUNTED``, ``UNRATED``, ``NOT_OVER``, ``OUT_OF_ORDER`` (the caller
        rebuilds the kind) or ``REBUILDING`` (the caller tries later)."""
        game = self._repository.get(game_id)
        if not game.info.rated:
            return UNRATED
        finish = self.finish(game)
        if finish is None:
            return NOT_OVER
        return self.count(finish)

    # ------------------------------------------------------------------ rebuild
    def rated_games(self, kind: str, page: int = 200) -> Iterator[LoadedGame]:
        """Every rated game of ``kind`` that is over, from the game index (archived ones
        too: their info stays, and their events are read from the archive tier)."""
        cursor: str | None = None
        while True:
            ids, cursor = self._events.list_game_ids(cursor, page)
            for record in self._events.infos(ids):
                if record is None:
                    continue
                fields = record.fields
                wanted = fields.get("rated") == "1" and fields.get("kind") == kind
                if wanted and fields.get("status") == "over":
                    try:
                        yield self._repository.get(record.game_id)
                    except GameNotFound:
                        continue
            if cursor is None:
                return

    def rebuild(self, kind: str, games: Iterable[LoadedGame] | None = None) -> int:
        """Drop ``kind``'s read model and count every rated game of it again (``games``:
        those, else every one the game index lists), in the projection's order; returns how
        many games were counted, or -1 (nothing done) when another rebuild holds the kind.
        While it runs, live counts of the kind wait (``REBUILDING``)."""
        owner = uuid.uuid4().hex
        if not self.store.begin_rebuild(kind, owner, REBUILD_TTL_S):
            return -1
        try:
            finishes: list[Finish] = []
            for game in self.rated_games(kind) if games is None else games:
                finish = self.finish(game)
                if finish is not None:
                    finishes.append(finish)
            counted = 0
            for finish in sorted(finishes, key=lambda f: f.order):
                outcome = self.count(finish, owner)
                if outcome == APPLIED:
                    counted += 1
                elif outcome != COUNTED:
                    log.warning("rebuild of %s: game %s %s", kind, finish.game_id, outcome)
            return counted
        finally:
            self.store.end_rebuild(kind, owner)


def rating_json(rating: PlayerRating | None) -> dict[str, Any] | None:
    if rating is None:
        return None
    return {
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "games": rating.games,
    }


__all__ = [
    "APPLIED",
    "COUNTED",
    "NOT_OVER",
    "OUT_OF_ORDER",
    "REBUILDING",
    "UNRATED",
    "RatingProjection",
]
