"""``/games/{id}/webhooks``: subscribe to a game's events; list, read, delete and re-enable
subscriptions; read a subscription's delivery log. The deliveries are jobs
(``service.jobs.webhooks``).

Every endpoint needs a credential: a seat token of the game or the admin token. Who may
do what, the limits and the URL check are the application's
(``service.application.webhooks``); a limit reached is 409 ``too-many-webhooks``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response
from marshmallow import RAISE, Schema, fields, validate

from service.api.auth import bearer_token, is_admin
from service.api.background import triggers
from service.api.context import services
from service.api.http import json_response, load_body
from service.api.problems import ApiProblem, conflict, forbidden, not_found, unauthorized
from service.api.schemas import SeatNumber, StrictInteger
from service.application.webhooks import (
    Subscriber,
    WebhookForbidden,
    WebhookLimits,
    WebhookNotFound,
    Webhooks,
    WebhookUnauthorized,
)
from service.store.port import Subscription, TooManyWebhooks

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


def _webhooks() -> Webhooks:
    found = triggers()
    if found is None:
        raise ApiProblem(
            503,
            "jobs-unavailable",
            "Background jobs unavailable",
            "webhooks need a queue Redis (RQ_REDIS_URL)",
        )
    games = services().games
    settings = found.settings
    return Webhooks(
        games,
        services().credentials,
        found.hooks,
        WebhookLimits(
            per_game=settings.webhooks_per_game,
            per_token=settings.webhooks_per_token,
            allow_private=settings.webhook_allow_private,
        ),
        on_enabled=found.deliver,
    )


@contextmanager
def _problems() -> Iterator[None]:
    """The application's refusals as problems."""
    try:
        yield
    except WebhookUnauthorized as exc:
        raise unauthorized(str(exc)) from None
    except WebhookForbidden as exc:
        raise forbidden(str(exc)) from None
    except WebhookNotFound as exc:
        raise not_found(str(exc)) from None
    except TooManyWebhooks as exc:
        raise conflict(
            "too-many-webhooks",
            "Too many webhooks",
            f"this {exc.scope} has {exc.limit} webhook subscriptions already (the most it "
            "may have): delete one first",
            limit=exc.limit,
            scope=exc.scope,
        ) from None


def _who(game_id: str) -> Subscriber:
    token = bearer_token()
    admin = token is not None and is_admin(token, services().settings.admin_token)
    with _problems():
        return _webhooks().subscriber(game_id, token, admin=admin)


def subscription_json(sub: Subscription) -> dict[str, Any]:
    """A subscription as the API shows it (never its secret)."""
    due = sub.next_attempt_at
    next_at = None if due is None else datetime.fromtimestamp(due, UTC).isoformat()
    return {
        "id": sub.sub_id,
        "url": sub.url,
        "events": list(sub.events),
        "seat": sub.seat,
        "status": sub.status,
        "disabled_reason": sub.disabled_reason,
        "failures": sub.failures,
        "delivered_version": sub.cursor,
        "created_at": sub.created_at,
        "next_attempt_at": next_at,
    }


def _private(body: Any) -> Response:
    response = json_response(body)
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _managed(game_id: str, act: Callable[[Webhooks, Subscriber], Any]) -> Any:
    who = _who(game_id)
    with _problems():
        return act(_webhooks(), who)


@blueprint.post("/games/<gid:game_id>/webhooks")
def create_webhook(game_id: str) -> Response:
    who = _who(game_id)
    body = load_body(WebhookCreateSchema())
    with _problems():
        sub = _webhooks().subscribe(game_id, who, body["url"], body["events"], body["seat"])
    response = json_response({**subscription_json(sub), "secret": sub.secret}, 201)
    response.headers["Location"] = f"/games/{game_id}/webhooks/{sub.sub_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    return response


@blueprint.get("/games/<gid:game_id>/webhooks")
def list_webhooks(game_id: str) -> Response:
    subs = _managed(game_id, lambda hooks, who: hooks.visible(game_id, who))
    return _private({"items": [subscription_json(sub) for sub in subs]})


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
def get_webhook(game_id: str, webhook_id: str) -> Response:
    sub = _managed(game_id, lambda hooks, who: hooks.get(game_id, webhook_id, who))
    return _private(subscription_json(sub))


@blueprint.delete("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
def delete_webhook(game_id: str, webhook_id: str) -> Response:
    _managed(game_id, lambda hooks, who: hooks.delete(game_id, webhook_id, who))
    return Response(status=204)


@blueprint.post("/games/<gid:game_id>/webhooks/<rid:webhook_id>/enable")
def enable_webhook(game_id: str, webhook_id: str) -> Response:
    """Active again (after a 410 Gone or too many failures): deliveries resume at the last
    version delivered, the batch under way first (the same ``webhook-id``)."""
    sub = _managed(game_id, lambda hooks, who: hooks.enable(game_id, webhook_id, who))
    return _private(subscription_json(sub))


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>/deliveries")
def webhook_deliveries(game_id: str, webhook_id: str) -> Response:
    items = _managed(game_id, lambda hooks, who: hooks.deliveries(game_id, webhook_id, who))
    return _private({"items": items})
