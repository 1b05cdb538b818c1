"""``/games/{id}/webhooks``: subscribe to a game's events; list, read, delete and re-enable
subscriptions; read a subscription's delivery log. The deliveries are jobs
(``service.jobs.webhooks``).

Every endpoint needs a credential: a seat token of the game or the admin token. Who may
do what, the limits and the URL check are the application's
(``service.application.webhooks``); a limit reached is 409 ``too-many-webhooks``."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response
from marshmallow import RAISE, Schema, fields, validate

from domain.common.codec import JSON
from service.api.auth import bearer_token, is_admin
from service.api.background import triggers
from service.api.context import services
from service.api.declare import BODY_WRITE_PROBLEMS, body, links, ok, operation, ref
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
@operation(
    "createWebhook",
    tags=["webhooks"],
    summary=("Subscribe a URL to the game's events (Standard Webhooks, signed)."),
    description=(
        "Needs a seat token of this game (the subscription then "
        "carries that seat's view) or\n"
        "the admin token (any `seat`; none: a spectator's view): 401 "
        "without a token, 403 with\n"
        "a token that is no seat token of this game. Every event "
        "appended from now on is\n"
        "POSTed to `url` (in batches, in order; the payload is the "
        "`gameEvents` webhook),\n"
        "filtered by `events` (event types; empty: all). Each delivery "
        "is signed per the\n"
        "Standard Webhooks specification (`webhook-id`, "
        "`webhook-timestamp`,\n"
        "`webhook-signature`) with the `secret`, which is returned "
        "only here; every attempt at\n"
        "a batch carries the same events under the same `webhook-id`. "
        "A failed delivery is\n"
        "retried on the Standard Webhooks schedule (5 s, 5 min, 30 "
        "min, 2 h, 5 h, 10 h, 10 h,\n"
        "with jitter; a 429 or 503 with `Retry-After` is retried "
        "then); after repeated\n"
        "failures, or at once on a 410 Gone, the subscription is "
        "disabled (`status`,\n"
        "`disabled_reason`). A game has at most "
        "`TIGRIS_WEBHOOKS_PER_GAME` (20) subscriptions\n"
        "and a token at most `TIGRIS_WEBHOOKS_PER_TOKEN` (5) in one "
        "game: 409\n"
        "`too-many-webhooks`. URLs on loopback, link-local or private "
        "addresses are refused\n"
        "(422) unless the server allows them.\n"
    ),
    security=[{"bearerAuth": []}],
    request_body=body(
        "WebhookCreate", example={"url": "https://example.org/hooks/tigris", "events": []}
    ),
    responses={
        201: ok(
            "The subscription, with its secret (shown once).",
            "WebhookCreated",
            headers={"Location": "Location"},
            links=links(
                "$request.path.game_id",
                ("getWebhook", {"webhook_id": "$response.body#/id"}),
                ("getWebhookDeliveries", {"webhook_id": "$response.body#/id"}),
            ),
        )
    },
    problems=BODY_WRITE_PROBLEMS,
)
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
@operation(
    "listWebhooks",
    tags=["webhooks"],
    summary=("The subscriptions the caller may manage (a seat token's own; the admin's, all)."),
    security=[{"bearerAuth": []}],
    responses={
        200: ok(
            "The subscriptions, oldest first (never their secrets).",
            {
                "type": "object",
                "required": ["items"],
                "additionalProperties": False,
                "properties": {"items": {"type": "array", "items": ref("Webhook")}},
            },
            headers={"Cache-Control": "PrivateNoStore"},
        )
    },
    problems=["Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def list_webhooks(game_id: str) -> Response:
    subs = _managed(game_id, lambda hooks, who: hooks.visible(game_id, who))
    return _private({"items": [subscription_json(sub) for sub in subs]})


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
@operation(
    "getWebhook",
    tags=["webhooks"],
    summary="A subscription and its state (never its secret).",
    description=(
        "A seat token reads only the subscriptions it made (another's "
        "is a 404); the admin token, any."
    ),
    security=[{"bearerAuth": []}],
    responses={
        200: ok("The subscription.", "Webhook", headers={"Cache-Control": "PrivateNoStore"})
    },
    problems=["RateLimited", "Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def get_webhook(game_id: str, webhook_id: str) -> Response:
    sub = _managed(game_id, lambda hooks, who: hooks.get(game_id, webhook_id, who))
    return _private(subscription_json(sub))


@blueprint.delete("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
@operation(
    "deleteWebhook",
    tags=["webhooks"],
    summary=("Remove a subscription (no more deliveries; its log goes too)."),
    description=("A seat token removes only the subscriptions it made; the admin token, any."),
    security=[{"bearerAuth": []}],
    responses={204: ok("Removed.")},
    problems=["Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def delete_webhook(game_id: str, webhook_id: str) -> Response:
    _managed(game_id, lambda hooks, who: hooks.delete(game_id, webhook_id, who))
    return Response(status=204)


@blueprint.post("/games/<gid:game_id>/webhooks/<rid:webhook_id>/enable")
@operation(
    "enableWebhook",
    tags=["webhooks"],
    summary=("Re-enable a disabled subscription (after a 410 Gone or repeated failures)."),
    description=(
        "The subscription is active again, its failures forgotten; "
        "deliveries resume after\n"
        "`delivered_version`, the batch that failed first (under the "
        "same `webhook-id`).\n"
        "Enabling an active subscription changes nothing.\n"
    ),
    security=[{"bearerAuth": []}],
    responses={
        200: ok("The subscription, active.", "Webhook", headers={"Cache-Control": "PrivateNoStore"})
    },
    problems=["Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def enable_webhook(game_id: str, webhook_id: str) -> Response:
    """Active again (after a 410 Gone or too many failures): deliveries resume at the last
    version delivered, the batch under way first (the same ``webhook-id``)."""
    sub = _managed(game_id, lambda hooks, who: hooks.enable(game_id, webhook_id, who))
    return _private(subscription_json(sub))


def deliveries_page() -> JSON:
    """The answer of a webhook's delivery log (a game's webhook or a player's)."""
    return ok(
        "The delivery attempts.",
        {
            "type": "object",
            "required": ["items"],
            "additionalProperties": False,
            "properties": {"items": {"type": "array", "items": ref("WebhookDelivery")}},
        },
        headers={"Cache-Control": "PrivateNoStore"},
    )


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>/deliveries")
@operation(
    "getWebhookDeliveries",
    tags=["webhooks"],
    summary=("The subscription's delivery log (the last 100 attempts, newest first)."),
    security=[{"bearerAuth": []}],
    responses={
        200: deliveries_page(),
    },
    problems=["RateLimited", "Unauthorized", "Forbidden", "NotFound", "Unavailable"],
)
def webhook_deliveries(game_id: str, webhook_id: str) -> Response:
    items = _managed(game_id, lambda hooks, who: hooks.deliveries(game_id, webhook_id, who))
    return _private({"items": items})


# What a subscription's URL receives: the contract's ``webhooks`` (OpenAPI 3.1).
WEBHOOKS: dict[str, Any] = {
    "gameEvents": {
        "post": {
            "tags": ["webhooks"],
            "operationId": "gameEventsWebhook",
            "summary": ("What a subscription's URL receives, a batch of the game's events."),
            "description": (
                "One POST per batch of events (in order, up to 100), as the "
                "subscription's seat (or a\n"
                "spectator) may see them, filtered by its `events`; signed per "
                "the Standard Webhooks\n"
                "specification with the subscription's `secret`. Every attempt "
                "at a batch carries the\n"
                "same events under the same `webhook-id` "
                "(`msg_<subscription>_<first>_<last>`): drop\n"
                "a repeat by it. Any 2xx acknowledges the batch. A 410 Gone "
                "disables the\n"
                "subscription; after anything else the batch is tried again on "
                "the Standard Webhooks\n"
                "schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each ±10 "
                "%), or when a 429 or 503\n"
                "says in `Retry-After` (seconds or an HTTP date, within the "
                "server's cap).\n"
            ),
            "security": [],
            "parameters": [
                {
                    "name": "webhook-id",
                    "in": "header",
                    "required": True,
                    "description": "The message's id, the same for every attempt at this batch.",
                    "schema": {"type": "string", "pattern": "^msg_[0-9a-f]{32}_[0-9]+_[0-9]+$"},
                },
                {
                    "name": "webhook-timestamp",
                    "in": "header",
                    "required": True,
                    "description": "When this attempt was signed (Unix seconds).",
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                },
                {
                    "name": "webhook-signature",
                    "in": "header",
                    "required": True,
                    "description": (
                        "Space-separated signatures, `v1,<base64 HMAC-SHA256>` of "
                        "`<id>.<timestamp>.<body>`."
                    ),
                    "schema": {"type": "string"},
                },
            ],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": ref("WebhookPayload")}},
            },
            "responses": {
                "204": {"description": "Received (any 2xx does); the next batch follows."},
                "410": {
                    "description": (
                        "The receiver is gone; the subscription is disabled (until re-enabled)."
                    )
                },
                "429": {
                    "description": "Too many requests; tried again after `Retry-After` if given.",
                    "headers": {
                        "Retry-After": {
                            "description": "Seconds, or an HTTP date.",
                            "schema": {"type": "string"},
                        }
                    },
                },
                "503": {
                    "description": "Unavailable; tried again after `Retry-After` if given.",
                    "headers": {
                        "Retry-After": {
                            "description": "Seconds, or an HTTP date.",
                            "schema": {"type": "string"},
                        }
                    },
                },
            },
        }
    }
}


def _player_feed_webhook() -> dict[str, Any]:
    """What a player's webhook URL receives (``service.jobs.feed``): a game webhook's
    message, its body the player's feed entries."""
    post = copy.deepcopy(WEBHOOKS["gameEvents"]["post"])
    post["operationId"] = "playerFeedWebhook"
    post["summary"] = "What a player's webhook URL receives, a batch of its feed entries."
    post["description"] = (
        "One POST per batch of feed entries (in order, up to 100), filtered by the "
        "subscription's `events`; signed, retried and disabled exactly as a game's webhook "
        "(`gameEvents`). Every attempt at a batch carries the same entries under the same "
        "`webhook-id` (`msg_<subscription>_<first>_<last>`, entry numbers): drop a repeat by "
        "it.\n"
    )
    post["requestBody"]["content"]["application/json"]["schema"] = ref("PlayerFeedPayload")
    return {"post": post}


WEBHOOKS["playerFeed"] = _player_feed_webhook()
