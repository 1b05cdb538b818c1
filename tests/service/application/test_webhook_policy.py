"""The webhook subscription policy and the audit policy are the application's
(``service.application.webhooks``, ``service.application.audit``): shown here on the
in-memory twins of the ports, without HTTP, Redis or a queue."""

from __future__ import annotations

import pytest

from domain.common.errors import FormatError
from service.application.audit import Audit, AuditForbidden, AuditUnavailable
from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.tokens import Credentials, hash_token
from service.application.webhooks import (
    WebhookForbidden,
    WebhookLimits,
    WebhookNotFound,
    Webhooks,
    WebhookUnauthorized,
)
from service.errors import GameNotFound
from service.store.memory import InMemoryAuditLog, InMemoryEventStore, InMemoryWebhookStore
from service.store.port import AuditSummary, TooManyWebhooks

PUBLIC = "https://93.184.216.34/hook"  # an IP literal: checked without a DNS lookup
SYSTEM = CommandMeta(command_id="create", actor="system", seat=None)


@pytest.fixture
def games() -> tuple[GameService, InMemoryEventStore]:
    store = InMemoryEventStore()
    return GameService(store), store


def policy(
    games: tuple[GameService, InMemoryEventStore], per_game: int = 20, per_token: int = 5
) -> tuple[Webhooks, list[str]]:
    service, store = games
    enabled: list[str] = []
    hooks = Webhooks(
        service,
        Credentials(store.tokens, bot_seats=lambda game_id: ()),
        InMemoryWebhookStore(),
        WebhookLimits(per_game=per_game, per_token=per_token),
        on_enabled=lambda game: enabled.append(game.game_id),
    )
    return hooks, enabled


def new_game(games: tuple[GameService, InMemoryEventStore]) -> str:
    service, _ = games
    hashes = [hash_token("t0"), hash_token("t1")]
    return service.commands.create_game(
        "board", ["a", "b"], {}, 1, SYSTEM, token_hashes=hashes
    ).game_id


def test_who_may_manage_webhooks(games: tuple[GameService, InMemoryEventStore]) -> None:
    hooks, _ = policy(games)
    game_id = new_game(games)
    # a seat token of the game is that seat; the admin is the admin
    assert hooks.subscriber(game_id, "t1", admin=False).seat == 1
    assert hooks.subscriber(game_id, "x", admin=True).admin
    # no token: unauthorized; a token of no seat of this game: forbidden
    with pytest.raises(WebhookUnauthorized):
        hooks.subscriber(game_id, None, admin=False)
    with pytest.raises(WebhookForbidden):
        hooks.subscriber(game_id, "stranger", admin=False)
    # an unknown game is not found whatever the token
    with pytest.raises(GameNotFound):
        hooks.subscriber("nope", None, admin=False)


def test_a_seat_subscribes_with_its_own_view_only(
    games: tuple[GameService, InMemoryEventStore],
) -> None:
    hooks, _ = policy(games)
    game_id = new_game(games)
    seat1 = hooks.subscriber(game_id, "t1", admin=False)
    # a seat token's subscription carries its seat's view, from the current version on
    sub = hooks.subscribe(game_id, seat1, PUBLIC, [], None)
    version = games[0].repository.get(game_id).version
    assert (sub.seat, sub.owner, sub.cursor) == (1, "token:" + hash_token("t1"), version)
    assert sub.secret.startswith("whsec_")
    # it may not ask for another seat's view; the admin may ask for any
    with pytest.raises(WebhookForbidden):
        hooks.subscribe(game_id, seat1, PUBLIC, [], 0)
    admin = hooks.subscriber(game_id, "x", admin=True)
    assert hooks.subscribe(game_id, admin, PUBLIC, [], 0).seat == 0
    # no seat beyond the game's, no unknown event type, no private address
    with pytest.raises(FormatError):
        hooks.subscribe(game_id, admin, PUBLIC, [], 2)
    with pytest.raises(FormatError):
        hooks.subscribe(game_id, admin, PUBLIC, ["board.Nothing"], None)
    with pytest.raises(FormatError, match="URL refused"):
        hooks.subscribe(game_id, admin, "http://127.0.0.1/hook", [], None)


def test_each_owner_sees_and_manages_only_its_own(
    games: tuple[GameService, InMemoryEventStore],
) -> None:
    hooks, enabled = policy(games)
    game_id = new_game(games)
    seat0, seat1 = (hooks.subscriber(game_id, t, admin=False) for t in ("t0", "t1"))
    admin = hooks.subscriber(game_id, "x", admin=True)
    mine = hooks.subscribe(game_id, seat0, PUBLIC, [], None)
    theirs = hooks.subscribe(game_id, seat1, PUBLIC, [], None)
    # each seat sees its own, the admin every one
    assert [s.sub_id for s in hooks.visible(game_id, seat0)] == [mine.sub_id]
    assert {s.sub_id for s in hooks.visible(game_id, admin)} == {mine.sub_id, theirs.sub_id}
    # another owner's is not found, neither to read, enable nor delete
    for act in (hooks.get, hooks.enable, hooks.delete, hooks.deliveries):
        with pytest.raises(WebhookNotFound):
            act(game_id, theirs.sub_id, seat0)
    # enabling one's own starts what follows (the deliveries due)
    hooks.hooks.disable(mine, "the receiver answered 410 Gone")
    assert hooks.enable(game_id, mine.sub_id, seat0).status == "active"
    assert enabled == [game_id]
    hooks.delete(game_id, mine.sub_id, seat0)
    assert hooks.visible(game_id, admin) == [theirs]


def test_the_limits_come_from_the_policy(games: tuple[GameService, InMemoryEventStore]) -> None:
    hooks, _ = policy(games, per_game=3, per_token=1)
    game_id = new_game(games)
    seat0 = hooks.subscriber(game_id, "t0", admin=False)
    hooks.subscribe(game_id, seat0, PUBLIC, [], None)
    with pytest.raises(TooManyWebhooks) as refused:
        hooks.subscribe(game_id, seat0, PUBLIC, [], None)
    assert refused.value.scope == "token"


def test_only_the_admin_reads_the_audit(games: tuple[GameService, InMemoryEventStore]) -> None:
    service, _ = games
    new_game(games)
    audit = Audit(service, InMemoryAuditLog())
    # given a run over the one sound game
    assert audit.run() == {"games": 1, "mismatches": 0}
    # then the admin reads it, no one else does
    summary = audit.report(admin=True)
    assert (summary.runs, summary.games_checked, summary.recent) == (1, 1, ())
    with pytest.raises(AuditForbidden):
        audit.report(admin=False)
    # without an audit log (no queue Redis) there is nothing to read
    with pytest.raises(AuditUnavailable):
        Audit(service, None).report(admin=True)
    assert isinstance(summary, AuditSummary)
