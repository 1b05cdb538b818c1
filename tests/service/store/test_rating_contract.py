"""Contract of the ratings store port (``RatingStore``), run against every adapter (see
conftest): a game is counted once, atomically, in order, against the ratings it was
computed from; a rebuild holds a kind and drops it; pages and exact floats."""

from __future__ import annotations

import uuid

import pytest

from service.store.memory import InMemoryRatingStore
from service.store.port import (
    APPLIED,
    COUNTED,
    OUT_OF_ORDER,
    REBUILDING,
    STALE,
    PlayerRating,
    RatedGame,
    RatingChange,
    RatingStore,
)
from service.store.redis_ratings import RedisRatingStore
from tests.service.store.conftest import Backend

ANN, BOB, CY = (uuid.uuid4().hex for _ in range(3))
# Floats whose shortest text is long: they must read back exactly.
START = PlayerRating(25.0, 8.333333333333334, 0.0000000000000017763568394002505, 0)


@pytest.fixture
def ratings(backend: Backend, key_prefix: str) -> RatingStore:
    if backend.client is None:
        return InMemoryRatingStore()
    return RedisRatingStore(backend.client, prefix=key_prefix)


def rating(mu: float, games: int = 1) -> PlayerRating:
    return PlayerRating(mu, 7.1 + mu / 1000, mu - 3 * (7.1 + mu / 1000), games)


def game(
    game_id: str,
    ended_ms: int,
    *changes: tuple[str, PlayerRating | None, PlayerRating],
) -> RatedGame:
    return RatedGame(
        game_id,
        f"{ended_ms:015d}:{game_id}",
        100,
        "2026-01-01T00:00:00+00:00",
        tuple(
            RatingChange(player, seat, seat + 1, before, after)
            for seat, (player, before, after) in enumerate(changes)
        ),
    )


def test_a_game_is_counted_once_with_its_history_and_leaderboard(ratings: RatingStore) -> None:
    # given a first game between Ann and Bob
    first = game("g1", 1000, (ANN, None, rating(27.123456789012345)), (BOB, None, rating(22.9)))
    # when it is counted, then again
    assert ratings.apply("board", first) == APPLIED
    assert ratings.apply("board", first) == COUNTED
    # then each player has its rating (exact floats), one history entry, the leaderboard
    assert ratings.counted("board", "g1") and not ratings.counted("cards", "g1")
    assert ratings.ratings("board", [ANN, BOB, CY]) == {
        ANN: rating(27.123456789012345),
        BOB: rating(22.9),
    }
    assert ratings.leaderboard("board", 0, 10) == (
        [(ANN, rating(27.123456789012345)), (BOB, rating(22.9))],
        2,
    )
    entries, total = ratings.history("board", BOB, 0, 10)
    assert total == 1 and entries[0].game_id == "g1" and entries[0].before is None
    assert entries[0].after == rating(22.9) and entries[0].place == 2 and entries[0].seat == 1
    # and the other kind is untouched
    assert ratings.leaderboard("cards", 0, 10) == ([], 0)


def test_a_change_from_ratings_that_moved_on_writes_nothing(ratings: RatingStore) -> None:
    # given Ann rated by a first game
    assert ratings.apply("board", game("g1", 1000, (ANN, None, START))) == APPLIED
    # when a second game's change was computed from no rating (stale)
    stale = game("g2", 2000, (BOB, None, rating(30.0)), (ANN, None, rating(20.0, 2)))
    # then it is refused, and nothing of it is written, not even Bob's part
    assert ratings.apply("board", stale) == STALE
    assert not ratings.counted("board", "g2")
    assert ratings.ratings("board", [ANN, BOB]) == {ANN: START}
    assert ratings.history("board", BOB, 0, 10) == ([], 0)
    # and computed from Ann's current rating, it is counted
    fresh = game("g2", 2000, (BOB, None, rating(30.0)), (ANN, START, rating(20.0, 2)))
    assert ratings.apply("board", fresh) == APPLIED
    assert ratings.history("board", ANN, 0, 10)[0][0].before == START


def test_a_game_that_ended_before_the_last_one_counted_is_refused(ratings: RatingStore) -> None:
    assert ratings.apply("board", game("g2", 2000, (ANN, None, START))) == APPLIED
    early = game("g1", 1000, (BOB, None, START))
    assert ratings.apply("board", early) == OUT_OF_ORDER
    assert not ratings.counted("board", "g1")
    assert ratings.ratings("board", [BOB]) == {}


def test_a_rebuild_drops_the_kind_and_holds_it(ratings: RatingStore) -> None:
    # given two counted games of the board game and one of the card game
    assert ratings.apply("board", game("g1", 1000, (ANN, None, START))) == APPLIED
    assert ratings.apply("board", game("g2", 2000, (BOB, None, START))) == APPLIED
    assert ratings.apply("cards", game("c1", 1000, (ANN, None, START))) == APPLIED
    # when a rebuild of the board game begins
    assert ratings.begin_rebuild("board", "me", 60)
    # then the board game's read model is gone, the card game's is not
    assert ratings.leaderboard("board", 0, 10) == ([], 0)
    assert ratings.history("board", ANN, 0, 10) == ([], 0)
    assert not ratings.counted("board", "g1")
    assert ratings.ratings("cards", [ANN]) == {ANN: START}
    # and no other rebuild nor live count gets in, while the owner's counts do
    assert not ratings.begin_rebuild("board", "other", 60)
    assert ratings.apply("board", game("g1", 1000, (ANN, None, START))) == REBUILDING
    assert ratings.apply("board", game("g1", 1000, (ANN, None, START)), "me") == APPLIED
    # and once it ends, live counts go on after the rebuilt ones
    ratings.end_rebuild("board", "me")
    assert ratings.apply("board", game("g2", 2000, (BOB, None, START))) == APPLIED
    assert ratings.leaderboard("board", 0, 10)[1] == 2


def test_leaderboards_and_histories_are_pages(ratings: RatingStore) -> None:
    # given three players and a history of three games for Ann
    ann: PlayerRating | None = None
    for n, (other, mu) in enumerate(((BOB, 30.0), (CY, 25.0), (BOB, 31.0))):
        before = ratings.ratings("board", [other]).get(other)
        after = rating(mu, 1 if before is None else before.games + 1)
        changes = ((ANN, ann, rating(20.0 + n, n + 1)), (other, before, after))
        assert ratings.apply("board", game(f"g{n}", 1000 + n, *changes)) == APPLIED
        ann = rating(20.0 + n, n + 1)
    # then the leaderboard is best ordinal first, a page at a time
    everyone, total = ratings.leaderboard("board", 0, 10)
    assert total == 3
    ordinals = [r.ordinal for _, r in everyone]
    assert ordinals == sorted(ordinals, reverse=True)
    assert ratings.leaderboard("board", 1, 1) == (everyone[1:2], 3)
    assert ratings.leaderboard("board", 3, 5) == ([], 3)
    # and a history is newest first, a page at a time
    history, count = ratings.history("board", ANN, 0, 10)
    assert count == 3 and [e.game_id for e in history] == ["g2", "g1", "g0"]
    assert ratings.history("board", ANN, 1, 1) == (history[1:2], 3)
    assert ratings.history("board", ANN, 3, 1) == ([], 3)


def test_a_noted_game_is_expected_until_counted_or_forgotten(ratings: RatingStore) -> None:
    # given two rated games noted at their creation
    ratings.expect("board", "g1")
    ratings.expect("board", "g2")
    # then both are expected (of their kind only)
    assert ratings.expected("board", 10) == ["g1", "g2"]
    assert ratings.expected("cards", 10) == []
    # when one is counted and the other forgotten, then neither is
    assert ratings.apply("board", game("g1", 1000, (ANN, None, START))) == APPLIED
    assert ratings.expected("board", 10) == ["g2"]
    ratings.forget("board", "g2")
    assert ratings.expected("board", 10) == []
    # and a rebuild keeps what is expected (it is no part of the read model)
    ratings.expect("board", "g3")
    assert ratings.begin_rebuild("board", "me", 60)
    assert ratings.expected("board", 10) == ["g3"]
