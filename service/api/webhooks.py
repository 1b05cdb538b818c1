"""``/games/{id}/webhooks``: subscribe to a game's events, read a subscription and its
delivery log. The deliveries are jobs (``service.jobs.webhooks``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response
from marshmallow import RAISE, Schema, fields, validate

from domain.common.errors import FormatError
from service.api.auth import Caller
from service.api.background import triggers
from service.api.context import caller_for, services
from service.api.http import json_response, load_body
from service.api.problems import ApiProblem, forbidden, not_found
from service.api.schemas import SeatNumber, StrictInteger
from service.events import SERVICE_EVENTS, SERVICE_KIND
from service.jobs.ssrf import UrlRefused, check_url
from service.jobs.triggers import JobTriggers
from service.jobs.webhooks import Subscription

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


def _may_see(caller: Caller, seat: int | None) -> None:
    if seat is not None and not caller.admin and caller.seat != seat:
        raise forbidden(f"only seat {seat}'s token (or the admin's) may use its view")


@blueprint.post("/games/<gid:game_id>/webhooks")
def create_webhook(game_id: str) -> Response:
    caller = caller_for(game_id)
    body = load_body(WebhookCreateSchema())
    jobs = _jobs()
    game = services().games.load(game_id)
    seat = body["seat"]
    if seat is not None and seat >= len(game.info.seat_names):
        raise FormatError(f"the game has no seat {seat}", "seat")
    _may_see(caller, seat)
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
    sub = jobs.hooks.create(game_id, body["url"], body["events"], seat, game.version)
    response = json_response({**sub.public_json(), "secret": sub.secret}, 201)
    response.headers["Location"] = f"/games/{game_id}/webhooks/{sub.sub_id}"
    response.headers["Cache-Control"] = "no-store"  # the body holds the secret
    return response


def _subscription(game_id: str, sub_id: str) -> Subscription:
    caller = caller_for(game_id)
    sub = _jobs().hooks.get(game_id, sub_id)
    if sub is None:
        services().games.game_info(game_id)  # an unknown game is a 404 of its own
        raise not_found(f"no webhook {sub_id} in game {game_id}")
    _may_see(caller, sub.seat)
    return sub


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>")
def get_webhook(game_id: str, webhook_id: str) -> Response:
    return json_response(_subscription(game_id, webhook_id).public_json())


@blueprint.get("/games/<gid:game_id>/webhooks/<rid:webhook_id>/deliveries")
def webhook_deliveries(game_id: str, webhook_id: str) -> Response:
    sub = _subscription(game_id, webhook_id)
    items: list[dict[str, Any]] = _jobs().hooks.deliveries(game_id, sub.sub_id)
    return json_response({"items": items})
