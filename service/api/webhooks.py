"""``/games/{id}/webhooks``: subscribe to a game's events; list, read, delete and re-enable
subscriptions; read a subscription's delivery log. The deliveries are jobs
(``service.jobs.webhooks``).

Every endpoint needs a credential: a seat token of the game (a subscription made with it
carries that seat's view, and the token sees and manages only the subscriptions it made) or
the admin token (any view, every subscription). A game has at most
``TIGRIS_WEBHOOKS_PER_GAME`` subscriptions and a token at most ``TIGRIS_WEBHOOKS_PER_TOKEN``
in one game (409 ``too-many-webhooks``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from marshmallow import RAISE, Schema, fields, validate

from domain.common.errors import FormatError
from service.api.auth import Caller, bearer_token, is_admin
from service.api.background import triggers
from service.api.context import services
from service.api.http import json_response, load_body
from service.api.problems import ApiProblem, conflict, forbidden, not_found, unauthorized
from service.api.schemas import SeatNumber, StrictInteger
from service.application.tokens import hash_token
from service.events import SERVICE_EVENTS, SERVICE_KIND
from service.jobs.ssrf import UrlRefused, check_url
from service.jobs.triggers import JobTriggers
from service.jobs.webhooks import ADMIN_OWNER, Subscription, TooManyWebhooks

blueprint = Blueprint("webhooks", __name__)


class WebhookCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(required=True, validate=validate.Length(min=1, max=2000))
    events = fields.List(
        fields.String(validate=validate.Length(min=1, max=100)),
        load_default=list,
        validate=validate.Length(max=100),
    )
    seat = StrictInteger(validate=SeatNumber(), load_default=None)


def _jobs() -> JobTriggers:
    found = triggers()
    if found is None:
        raise ApiProblem(
            503,
            "jobs-unavailable",
            "Background jobs unavailable",
            "webhooks need a queue Redis (RQ_REDIS_URL)",
        )
    return found


def _who(game_id: str) -> tuple[Caller, str]:
    """The caller of a webhook endpoint and the owner it stands for: a seat token of this
    game (its SHA-256) or the admin token. 401 without a token, 403 with a token that is
    no seat token of this game (another game's, or none at all)."""
    found = services()
    token = bearer_token()
    if token is None:
        found.games.queries.game_info(game_id)  # an unknown game is a 404 whatever the token
        raise unauthorized("webhooks need a seat token of this game or the admin token")
    if is_admin(token, found.settings.admin_token):
        return Caller(admin=True), ADMIN_OWNER
    seat = found.credentials.seat_of(game_id, token)
    if seat is None:
        found.games.queries.game_info(game_id)
        raise forbidden("this token is no seat token of this game")
    return Caller(seat=seat), "token:" + hash_token(token)


@blueprint.post("/games/<gid:game_id>/webhooks")
def create_webhook(game_id: str) -> Response:
    caller, owner = _who(game_id)
    body = load_body(WebhookCreateSchema())
    jobs = _jobs()
    game = services().games.repository.get(game_id)
    seat = body["seat"]
    if seat is not None and seat >= len(game.info.seat_names):
        raise FormatError(f"the game has no seat {seat}", "seat")
    if not caller.admin:
        if seat is not None and seat != caller.seat:
            raise forbidden(f"only seat {seat}'s token (or the admin's) may use its view")
        seat = caller.seat  # a seat's subscription carries that seat's view
    known = {f"{game.kind}.{name}" for name in game.rules.events.names}
    known |= {f"{SERVICE_KIND}.{name}" for name in SERVICE_EVENTS.names}
    for i, name in enumerate(body["events"]):
        if name not in known:
            raise FormatError(f"unknown event type {name!r} for a {game.kind} game", f"events[{i}]")
    try:
        check_url(body["url"], allow_private=jobs.settings.webhook_allow_private)
    except UrlRefused as exc:
        raise FormatError(f"webhook URL refused: {exc}", "url") from None
    # Events from now on: the subscription starts at the game's current version.
    try:
        sub = jobs.hooks.create(
            game_id,
            body["url"],
            body["events"],
            seat,
            game.version,
            owner=owner,
            per_game=jobs.settings.webhooks_per_game,
            per_owner=jobs.settings.webhooks_per_token,
        )
    except TooManyWebhooks as exc:
        raise conflict(
            "too-many-webhooks",
            "Too many webhooks",
            f"this {exc.scope} has {exc.limit} webhook subscriptions already (the most it "
            "may have): delete one first",
            limit=exc.limit,
            scope=exc.scope,
        ) from None
    response = json_response({**sub.public_json(), "secret": sub.secret}, 201)
    response.headers["Location"] = f"/games/{game_id}/webhooks/{sub.sub_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    return response


def _sees(owner: str, sub: Subscription) -> bool:
    return owner in (ADMIN_OWNER, sub.owner)


@blueprint.get("/games/<gid:game_id>/webhooks")
def list_webhooks(game_id: str) -> Response:
    _, owner = _who(game_id)
    subs = [sub for sub in _jobs().hooks.of_game(game_id) if _sees(owner, sub)]
    subs.sort(key=lambda sub: (sub.created_at, sub.sub_id))
    response = json_response({"items": [sub.public_json() for sub in subs]})
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _subscription(game_id: str, sub_id: str) -> Subscription:
    """``sub_id`` of ``game_id`` if the caller may see it; another owner's is a 404 too."""
    _, owner = _who(game_id)
    sub = _jobs().hooks.get(game_id, sub_id)
    if sub is None or not _sees(owner, sub):
        raise not_found(f"no webhook {sub_id} of yours in game {game_id}")
    return sub


def _shown(sub: Subscription) -> Response:
    response = json_response(sub.public_json())
    response.headers["Cache-Control"] = "private, no-store"
    return response


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
def get_webhook(game_id: str, webhook_id: str) -> Response:
    return _shown(_subscription(game_id, webhook_id))


@blueprint.delete("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
def delete_webhook(game_id: str, webhook_id: str) -> Response:
    sub = _subscription(game_id, webhook_id)
    if not _jobs().hooks.delete(game_id, sub.sub_id):
        raise not_found(f"no webhook {webhook_id} of yours in game {game_id}")
    return Response(status=204)


@blueprint.post("/games/<gid:game_id>/webhooks/<rid:webhook_id>/enable")
def enable_webhook(game_id: str, webhook_id: str) -> Response:
    """Active again (after a 410 Gone or too many failures): deliveries resume at the last
    version delivered, the batch under way first (the same ``webhook-id``)."""
    sub = _subscription(game_id, webhook_id)
    jobs = _jobs()
    if not jobs.hooks.enable(sub):
        raise not_found(f"no webhook {webhook_id} of yours in game {game_id}")
    jobs.deliver(services().games.repository.get(game_id))
    enabled = jobs.hooks.get(game_id, sub.sub_id)
    if enabled is None:
        raise not_found(f"no webhook {webhook_id} of yours in game {game_id}")
    return _shown(enabled)


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>/deliveries")
def webhook_deliveries(game_id: str, webhook_id: str) -> Response:
    sub = _subscription(game_id, webhook_id)
    items: list[dict[str, Any]] = _jobs().hooks.deliveries(game_id, sub.sub_id)
    response = json_response({"items": items})
    response.headers["Cache-Control"] = "private, no-store"
    return response
