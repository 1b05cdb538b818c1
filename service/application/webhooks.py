"""Webhook subscriptions: who may subscribe to a game's events and manage a subscription,
the limits, the URL check, and re-enabling. The deliveries are jobs
(``service.jobs.webhooks``); the subscriptions live behind the ``WebhookStore`` port.

A subscriber is a seat token of the game (its subscription carries that seat's view, and
it sees and manages only the subscriptions it made: its owner is ``token:<sha256>``) or the
admin token (any view, every subscription: owner ``admin``). A game has at most
``per_game`` subscriptions and an owner at most ``per_token`` in one game
(``TooManyWebhooks``). A URL is checked against server-side request forgery
(``service.application.ssrf``) when a subscription is made, and again at each delivery.
A subscription starts at the game's current version: events from now on.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from domain.common.errors import FormatError
from service.application.archive_tier import is_archived
from service.application.feed import ENTRY_TYPES, PlayerFeeds
from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.application.ssrf import CheckedUrl, UrlRefused, check_url
from service.application.tokens import Credentials, hash_token
from service.errors import GameArchived, ServiceError
from service.events import SERVICE_EVENTS, SERVICE_KIND
from service.store.port import ADMIN_OWNER, Subscription, WebhookStore


class WebhookUnauthorized(ServiceError):
    """No credential at all (401)."""


class WebhookForbidden(ServiceError):
    """A credential that may not do this (403)."""


class WebhookNotFound(ServiceError, LookupError):
    """No such subscription of the caller's (another owner's is not found either: 404)."""


@dataclass(frozen=True, slots=True)
class WebhookLimits:
    per_game: int = 20
    per_token: int = 5
    allow_private: bool = False  # loopback and private addresses allowed (tests only)


@dataclass(frozen=True, slots=True)
class Subscriber:
    """Who manages webhooks: the admin, or the holder of a seat token of the game."""

    owner: str  # ``admin`` or ``token:<sha256 of the seat token>``
    seat: int | None = None
    admin: bool = False

    def sees(self, sub: Subscription) -> bool:
        return self.admin or sub.owner == self.owner


def new_secret() -> str:
    """A ``whsec_`` secret (Standard Webhooks: base64 of the key; no ``-`` or ``_``)."""
    return "whsec_" + secrets.token_urlsafe(32).replace("-", "A").replace("_", "B")


class Webhooks:
    """The subscription policy on a game service, a token store and a webhook store.
    ``on_enabled``: what follows re-enabling (the deliveries due are enqueued)."""

    def __init__(
        self,
        games: GameService,
        credentials: Credentials,
        hooks: WebhookStore,
        limits: WebhookLimits,
        *,
        on_enabled: Callable[[LoadedGame], object] = lambda game: None,
        url_check: Callable[..., CheckedUrl] = check_url,
    ) -> None:
        self.games = games
        self.credentials = credentials
        self.hooks = hooks
        self.limits = limits
        self._on_enabled = on_enabled
        self._check_url = url_check

    def subscriber(self, game_id: str, token: str | None, *, admin: bool) -> Subscriber:
        """Who ``token`` is for the webhooks of ``game_id`` (``admin``: it is the admin
        token). An unknown game is ``GameNotFound`` whatever the token; no token is
        ``WebhookUnauthorized``; a token that is no seat token of this game (another
        game's, or none at all) ``WebhookForbidden``."""
        if token is None:
            self.games.queries.game_info(game_id)
            raise WebhookUnauthorized("webhooks need a seat token of this game or the admin token")
        if admin:
            return Subscriber(ADMIN_OWNER, admin=True)
        seat = self.credentials.seat_of(game_id, token)
        if seat is None:
            self.games.queries.game_info(game_id)
            raise WebhookForbidden("this token is no seat token of this game")
        return Subscriber("token:" + hash_token(token), seat=seat)

    def subscribe(
        self, game_id: str, who: Subscriber, url: str, events: Sequence[str], seat: int | None
    ) -> Subscription:
        """A new subscription of ``who`` to ``game_id``'s events of the types ``events``
        (none: every type) as ``seat`` sees them (None: a spectator; a seat token's is its
        own seat's view whatever it asks, and it may name no other)."""
        game = self.games.repository.get(game_id)
        if is_archived(self.games.store.info(game_id)):  # nothing is appended any more
            raise GameArchived(game_id)
        if seat is not None and seat >= len(game.info.seat_names):
            raise FormatError(f"the game has no seat {seat}", "seat")
        if not who.admin:
            if seat is not None and seat != who.seat:
                raise WebhookForbidden(
                    f"only seat {seat}'s token (or the admin's) may use its view"
                )
            seat = who.seat  # a seat's subscription carries that seat's view
        known = {f"{game.kind}.{name}" for name in game.rules.events.names}
        known |= {f"{SERVICE_KIND}.{name}" for name in SERVICE_EVENTS.names}
        for i, name in enumerate(events):
            if name not in known:
                raise FormatError(
                    f"unknown event type {name!r} for a {game.kind} game", f"events[{i}]"
                )
        try:
            self._check_url(url, allow_private=self.limits.allow_private)
        except UrlRefused as exc:
            raise FormatError(f"webhook URL refused: {exc}", "url") from None
        sub = Subscription(
            sub_id=uuid.uuid4().hex,
            game_id=game_id,
            url=url,
            events=tuple(events),
            seat=seat,
            secret=new_secret(),
            status="active",
            failures=0,
            cursor=game.version,  # events from now on
            created_at=datetime.now(UTC).isoformat(),
            owner=who.owner,
        )
        self.hooks.create(sub, per_game=self.limits.per_game, per_owner=self.limits.per_token)
        return sub

    def visible(self, game_id: str, who: Subscriber) -> list[Subscription]:
        """The subscriptions of ``game_id`` that ``who`` sees, oldest first."""
        subs = [sub for sub in self.hooks.of_game(game_id) if who.sees(sub)]
        return sorted(subs, key=lambda sub: (sub.created_at, sub.sub_id))

    def get(self, game_id: str, sub_id: str, who: Subscriber) -> Subscription:
        sub = self.hooks.get(game_id, sub_id)
        if sub is None or not who.sees(sub):
            raise WebhookNotFound(f"no webhook {sub_id} of yours in game {game_id}")
        return sub

    def delete(self, game_id: str, sub_id: str, who: Subscriber) -> None:
        sub = self.get(game_id, sub_id, who)
        if not self.hooks.delete(game_id, sub.sub_id):
            raise WebhookNotFound(f"no webhook {sub_id} of yours in game {game_id}")

    def enable(self, game_id: str, sub_id: str, who: Subscriber) -> Subscription:
        """Active again (after a 410 Gone or too many failures): deliveries resume at the
        last version delivered, the batch under way first (the same ``webhook-id``)."""
        sub = self.get(game_id, sub_id, who)
        if not self.hooks.enable(sub):
            raise WebhookNotFound(f"no webhook {sub_id} of yours in game {game_id}")
        self._on_enabled(self.games.repository.get(game_id))
        return self.get(game_id, sub_id, who)

    def deliveries(self, game_id: str, sub_id: str, who: Subscriber) -> list[dict[str, object]]:
        """The delivery log, newest first."""
        return self.hooks.deliveries(game_id, self.get(game_id, sub_id, who).sub_id)


class PlayerWebhooks:
    """A player's webhooks: its feed's entries (``service.application.feed``) POSTed as
    they come, signed and retried as a game's are (``service.jobs.feed``). Only the
    player's key manages them; a player has at most ``limits.per_token``. ``hooks`` is the
    players' webhook store, where the player's id stands for a game's; a subscription's
    cursor is the number of the last feed entry delivered, and it starts at the feed's
    last entry: entries from now on."""

    def __init__(
        self,
        feeds: PlayerFeeds,
        hooks: WebhookStore,
        limits: WebhookLimits,
        *,
        on_enabled: Callable[[str], object] = lambda player_id: None,
    ) -> None:
        self.feeds = feeds
        self.hooks = hooks
        self.limits = limits
        self._on_enabled = on_enabled

    def subscribe(self, player_id: str, url: str, events: Sequence[str]) -> Subscription:
        for i, name in enumerate(events):
            if name not in ENTRY_TYPES:
                raise FormatError(f"unknown feed entry type {name!r}", f"events[{i}]")
        try:
            check_url(url, allow_private=self.limits.allow_private)
        except UrlRefused as exc:
            raise FormatError(f"webhook URL refused: {exc}", "url") from None
        _, last = self.feeds.store.bounds(player_id)
        sub = Subscription(
            sub_id=uuid.uuid4().hex,
            game_id=player_id,
            url=url,
            events=tuple(events),
            seat=None,
            secret=new_secret(),
            status="active",
            failures=0,
            cursor=last,
            created_at=datetime.now(UTC).isoformat(),
            owner=f"player:{player_id}",
        )
        per = self.limits.per_token
        self.hooks.create(sub, per_game=per, per_owner=per)
        return sub

    def visible(self, player_id: str) -> list[Subscription]:
        subs = self.hooks.of_game(player_id)
        return sorted(subs, key=lambda sub: (sub.created_at, sub.sub_id))

    def get(self, player_id: str, sub_id: str) -> Subscription:
        sub = self.hooks.get(player_id, sub_id)
        if sub is None:
            raise WebhookNotFound(f"no webhook {sub_id} of yours")
        return sub

    def delete(self, player_id: str, sub_id: str) -> None:
        if not self.hooks.delete(player_id, sub_id):
            raise WebhookNotFound(f"no webhook {sub_id} of yours")

    def enable(self, player_id: str, sub_id: str) -> Subscription:
        """Active again (after a 410 Gone or too many failures): deliveries resume after
        the last entry delivered, the batch under way first (the same ``webhook-id``)."""
        if not self.hooks.enable(self.get(player_id, sub_id)):
            raise WebhookNotFound(f"no webhook {sub_id} of yours")
        self._on_enabled(player_id)
        return self.get(player_id, sub_id)

    def deliveries(self, player_id: str, sub_id: str) -> list[dict[str, object]]:
        return self.hooks.deliveries(player_id, self.get(player_id, sub_id).sub_id)
