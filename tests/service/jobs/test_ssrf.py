"""Server-side request forgery: an IPv6 address that carries a private IPv4 address is
refused like that IPv4 address, whatever the form (issue 21, point 4), when a subscription
is made and again at delivery, where the address the URL resolves to is checked."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service.api import create_app
from service.application.ssrf import UrlRefused, check_url, is_public
from tests.service.api.conftest import ADMIN_TOKEN, admin
from tests.service.jobs.conftest import Jobs
from tests.service.jobs.receiver import Receiver
from tests.service.jobs.test_webhooks import create_game, play

# One private IPv4 address (mostly loopback) in every IPv6 form that carries one.
EMBEDDED_PRIVATE = {
    "IPv4-compatible ::a.b.c.d": "::127.0.0.1",
    "IPv4-compatible, private network": "::10.1.2.3",
    "IPv4-mapped ::ffff:a.b.c.d": "::ffff:127.0.0.1",
    "IPv4-translated ::ffff:0:a.b.c.d": "::ffff:0:127.0.0.1",
    "NAT64 64:ff9b::/96": "64:ff9b::127.0.0.1",
    "NAT64 64:ff9b::/96, cloud metadata": "64:ff9b::a9fe:a9fe",
    "NAT64 local-use 64:ff9b:1::/48": "64:ff9b:1::7f00:1",
    "6to4 2002::/16": "2002:7f00:1::",
    "6to4 2002::/16, private network": "2002:c0a8:a::1",
    "Teredo 2001::/32, loopback client": "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "Teredo 2001::/32, private server": "2001:0:a01:203::f7f7:f7f7",
}
FORMS = pytest.mark.parametrize(
    "address", list(EMBEDDED_PRIVATE.values()), ids=list(EMBEDDED_PRIVATE)
)


@FORMS
def test_an_ipv6_address_carrying_a_private_ipv4_is_not_public(address: str) -> None:
    # given an IPv6 address that carries a private IPv4 address
    # when it is judged, then it is not public
    assert not is_public(address)


@FORMS
def test_the_resolved_address_check_refuses_every_embedding_form(address: str) -> None:
    # given a URL whose host resolves (as a literal) to such an address
    # when it is checked, as at subscription and at each delivery
    # then it is refused, naming the address
    with pytest.raises(UrlRefused, match="non-public address"):
        check_url(f"http://[{address}]:8080/hook")
    # (and the tests' setting that allows private receivers lets it through)
    assert check_url(f"http://[{address}]:8080/hook", allow_private=True).address


@pytest.mark.parametrize(
    "address",
    ["64:ff9b::8.8.8.8", "::ffff:93.184.215.14", "2606:4700:4700::1111", "93.184.215.14"],
)
def test_public_addresses_stay_allowed(address: str) -> None:
    # given a public IPv4 address, alone or carried by NAT64 or IPv4-mapped IPv6, or a
    # public IPv6 address: then it is public
    assert is_public(address)


@FORMS
def test_a_subscription_to_an_embedded_private_ipv4_is_refused(
    client: FlaskClient, address: str
) -> None:
    # given a game
    game_id, _ = create_game(client)
    # when a webhook to such an address is subscribed (with the admin's token)
    response = client.post(
        f"/games/{game_id}/webhooks", json={"url": f"http://[{address}]/hook"}, headers=admin()
    )
    # then it is refused, naming the field
    assert response.status_code in (400, 422), response.get_json()
    assert response.get_json()["field"] == "url"


@FORMS
def test_a_delivery_to_an_embedded_private_ipv4_is_refused(
    client: FlaskClient,
    jobs: Jobs,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    address: str,
) -> None:
    # given a subscription to such an address made while private addresses were allowed
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "1")
    game_id, tokens = create_game(client)
    config = {"REDIS_URL": jobs.settings.rq_redis_url, "TIGRIS_ADMIN_TOKEN": ADMIN_TOKEN}
    allowed = create_app(config).test_client()
    url = f"http://[{address}]:{receiver.port}/hook"
    created = allowed.post(f"/games/{game_id}/webhooks", json={"url": url}, headers=admin())
    assert created.status_code == 201, created.get_json()
    sub_id = created.get_json()["id"]
    # when an event happens and the workers run without that setting
    monkeypatch.setenv("TIGRIS_WEBHOOK_ALLOW_PRIVATE", "0")
    play(client, game_id, tokens, 1)
    jobs.run()
    # then nothing was sent, and the log says the resolved address was refused
    assert receiver.of("/hook") == []
    log = client.get(f"/games/{game_id}/webhooks/{sub_id}/deliveries", headers=admin())
    items = log.get_json()["items"]
    assert items and "URL refused" in items[0]["error"], items
    assert "non-public address" in items[0]["error"]
