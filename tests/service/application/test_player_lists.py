"""A player's game lists never miss an acknowledged change: each entry is written before the
append that makes it true and removed only after the one that makes it false, so a process
that dies in between leaves an entry too many (skipped when listed), never one too few; and
the lists can be written again from the games."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.players import Membership, lists_of
from service.errors import StoreUnavailable
from service.store.memory import InMemoryEventStore, InMemoryPlayerStore
from service.store.port import PLAYER_LISTS
from tests.autoplay import choose_command

ADMIN = CommandMeta(command_id="lists-test", actor="admin", seat=None)
ANN, BOB = "a" * 32, "b" * 32


class DyingStore(InMemoryPlayerStore):
    """Refuses every write while ``dying`` (a process that died, or a store that is gone)."""

    dying = False

    def add_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        if self.dying:
            raise StoreUnavailable("the process died")
        super().add_game(player_id, game_id, created_ms, lists)

    def remove_game(
        self, player_id: str, game_id: str, created_ms: int, lists: Sequence[str | None]
    ) -> None:
        if self.dying:
            raise StoreUnavailable("the process died")
        super().remove_game(player_id, game_id, created_ms, lists)


def dying_after_appends(service: GameService, store: DyingStore) -> list[bool]:
    """What follows an append (``PlayerGames.left``) is lost while the returned flag is set:
    the process died right after its append."""
    flag = [False]
    left = service.player_games.left

    def lost(change: Membership) -> None:
        store.dying = flag[0]
        try:
            left(change)
        finally:
            store.dying = False

    service.player_games.left = lost  # type: ignore[method-assign]
    return flag


def listed(store: InMemoryPlayerStore, player: str) -> dict[str | None, set[str]]:
    return {
        which: {game_id for _, game_id in store.list_games(player, which, None, 500)[0]}
        for which in (None, *PLAYER_LISTS)
    }


def truth(service: GameService, game_ids: list[str], player: str) -> dict[str | None, set[str]]:
    found: dict[str | None, set[str]] = {which: set() for which in (None, *PLAYER_LISTS)}
    for game_id in game_ids:
        game = service.repository.get(game_id)
        info = game.info
        for which in lists_of(info.players, info.status, game.rules.awaited(game.state)).get(
            player, ()
        ):
            found[which].add(game_id)
    return found


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_lists_hold_every_true_entry_even_when_removals_are_lost(kind: str) -> None:
    store = DyingStore()
    service = GameService(InMemoryEventStore(), players=store)
    dying = dying_after_appends(service, store)
    # given two games where Ann holds two seats of one and Bob the rest
    ids = [
        service.commands.create_game(
            kind, ["Ann", "Bob", "Ann too"], {}, 7, ADMIN, players={0: ANN, 1: BOB, 2: ANN}
        ).game_id,
        service.commands.create_game(
            kind, ["Bob", "Ann"], {}, 8, ADMIN, players={0: BOB, 1: ANN}
        ).game_id,
    ]
    rng = random.Random(kind)
    # when commands are played, the writes after every third append lost
    for n in range(60):
        game_id = ids[n % 2]
        game = service.repository.get(game_id)
        if game.rules.is_over(game.state):
            continue
        command = choose_command(game.rules, game.state, rng)
        dying[0] = n % 3 == 0
        meta = CommandMeta(command_id=f"c{n}", actor=f"seat:{command.seat}", seat=command.seat)
        service.commands.handle(game_id, command, meta=meta)
        # then every list holds every game that belongs in it (maybe more)
        for player in (ANN, BOB):
            lists, true = listed(store, player), truth(service, ids, player)
            for which in true:
                assert true[which] <= lists[which], (n, player, which)
    # and written again from the games, the lists hold exactly the true entries again
    fresh = InMemoryPlayerStore()
    rebuilt = GameService(service.store, players=fresh)
    assert rebuilt.player_games.rebuild(service.repository.get(g) for g in ids) == 4
    for player in (ANN, BOB):
        assert listed(fresh, player) == truth(service, ids, player)


def test_a_lost_write_before_the_append_stores_nothing() -> None:
    store = DyingStore()
    service = GameService(InMemoryEventStore(), players=store)
    store.dying = True
    # when the player's lists cannot be written before a creation binding a seat to Ann
    with pytest.raises(StoreUnavailable):
        service.commands.create_game("cards", ["Ann", "Bob"], {}, 1, ADMIN, players={0: ANN})
    # then no game was stored (the index entry alone is skipped by listings)
    store.dying = False
    assert service.queries.list_games(limit=10)[0] == []
