"""Players: one secret key for all of a person's seats, and the person's games.

A player is made by ``Players.create`` (a display name): it gets an id (32 hex digits) and a
secret key ``pk_<id>_<secret>`` (256 bits), shown once; only the key's SHA-256 is stored,
as for seat tokens. A seat is *bound* to a player when its game is created (a seat spec
naming the player) or when an open seat is claimed with the player's key; the binding is
the game's info field ``players`` (seat -> player id), written in the same atomic append
that creates the game or stores the claim, so a game never exists, nor a seat is claimed,
without it. A player's key then acts in every seat bound to it, and in no other
(``seats_of``); a bound seat gets no seat token at creation.

A player's games are lists (``PlayerStore``): all its games, and by status (``open``,
``active``, ``over``) and ``awaiting`` (a seat of the player is awaited). They follow the
rule of the game index: an entry is added *before* the append that makes it true and
removed only *after* the append that makes it false, so an acknowledged change is never
missing from a list (``PlayerGames.entering`` / ``left``). An entry that is no longer true
(the process died between an append and its removal) is skipped, and removed, when listed.
The games' info records are the source of truth: ``PlayerGames.rebuild`` writes the lists
again from the games (``python -m service rebuild-index`` does, after the game index).
"""

from __future__ import annotations

import hmac
import re
import secrets
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from service.application.tokens import TOKEN_BYTES, hash_token
from service.store.port import PlayerRecord, PlayerStore

if TYPE_CHECKING:
    from service.application.repository import LoadedGame

KEY_PREFIX = "pk_"
_KEY = re.compile(r"pk_([0-9a-f]{32})_([A-Za-z0-9_-]{43})\Z")


def is_player_key(token: str) -> bool:
    """Whether ``token`` is written as a player key (a seat token never starts so)."""
    return token.startswith(KEY_PREFIX)


def new_key(player_id: str) -> str:
    return f"{KEY_PREFIX}{player_id}_{secrets.token_urlsafe(TOKEN_BYTES)}"


def seats_of(players: Mapping[int, str], player_id: str) -> tuple[int, ...]:
    """The seats of a game (its info's ``players``) bound to ``player_id``, ascending."""
    return tuple(sorted(seat for seat, owner in players.items() if owner == player_id))


class Players:
    """Making players and telling whom a key stands for. A key never changes its player, so
    known key hashes are remembered in the process (at most ``remember``)."""

    def __init__(
        self, store: PlayerStore, clock: Callable[[], datetime], *, remember: int = 4096
    ) -> None:
        self.store = store
        self._clock = clock
        self._known: dict[str, PlayerRecord] = {}
        self._remember = remember

    def create(self, name: str) -> tuple[PlayerRecord, str]:
        """A new player called ``name`` and its key (shown once)."""
        while True:
            player_id = uuid.uuid4().hex
            key = new_key(player_id)
            record = PlayerRecord(
                player_id, name, hash_token(key), self._clock().isoformat(timespec="seconds")
            )
            if self.store.create(record):
                return record, key

    def get(self, player_id: str) -> PlayerRecord | None:
        return self.store.get(player_id)

    def player_of(self, key: str) -> PlayerRecord | None:
        """The player whose key ``key`` is (None: no such player, or a wrong secret)."""
        match = _KEY.match(key)
        if match is None:
            return None
        digest = hash_token(key)
        known = self._known.get(digest)
        if known is not None:
            return known
        record = self.store.get(match.group(1))
        if record is None or not hmac.compare_digest(record.key_hash, digest):
            return None
        if len(self._known) >= self._remember:
            self._known.clear()
        self._known[digest] = record
        return record


# ------------------------------------------------------------------------ a player's games
Lists = dict[str, frozenset[str | None]]  # player id -> the lists a game belongs in


def lists_of(players: Mapping[int, str], status: str, awaited: Iterable[int]) -> Lists:
    """The lists of each player of a game with ``status`` whose ``awaited`` seats are
    awaited: all (None), its status, and ``awaiting`` if one of its seats is awaited."""
    waiting = {players[seat] for seat in awaited if seat in players}
    if status != "active":
        waiting = set()
    return {
        player: frozenset({None, status, *(("awaiting",) if player in waiting else ())})
        for player in set(players.values())
    }


@dataclass(frozen=True, slots=True)
class Membership:
    """What a write changes in the players' lists: the lists before and after it."""

    game_id: str
    created_ms: int
    before: Lists
    after: Lists

    @property
    def changed(self) -> bool:
        return self.before != self.after


class PlayerGames:
    """Keeps the players' game lists (see the module docstring)."""

    def __init__(self, store: PlayerStore) -> None:
        self.store = store

    def entering(self, change: Membership) -> None:
        """Before the append: add the game to every list it will be in."""
        for player, lists in change.after.items():
            added = lists - change.before.get(player, frozenset())
            if added:
                self.store.add_game(player, change.game_id, change.created_ms, sorted_lists(added))

    def left(self, change: Membership) -> None:
        """After the append: remove the game from the lists it left. The lists it is in are
        written again first: a racing earlier write's removal may have taken them out."""
        for player, lists in change.after.items():
            self.store.add_game(player, change.game_id, change.created_ms, sorted_lists(lists))
        for player, lists in change.before.items():
            gone = lists - change.after.get(player, frozenset())
            if gone:
                self.store.remove_game(
                    player, change.game_id, change.created_ms, sorted_lists(gone)
                )

    def rebuild(self, games: Iterable[LoadedGame]) -> int:
        """Write every player's lists again from ``games`` (their info and state: the source
        of truth), after losing them; returns how many (game, player) entries. It only adds
        (an entry that is no longer true is skipped when listed), so it is safe to run
        while the service writes, and to run again."""
        count = 0
        for game in games:
            info = game.info
            if not info.players:
                continue
            lists = lists_of(info.players, info.status, game.rules.awaited(game.state))
            for player, mine in lists.items():
                self.store.add_game(player, game.game_id, info.created_ms, sorted_lists(mine))
                count += 1
        return count


def sorted_lists(lists: Iterable[str | None]) -> list[str | None]:
    return sorted(lists, key=lambda name: "" if name is None else name)
