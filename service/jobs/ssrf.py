"""Server-side request forgery guard for webhook URLs.

A webhook URL is refused unless it is ``http``/``https`` with a host whose every address is
public: loopback, link-local (cloud metadata at 169.254.169.254 included), private, shared
(100.64/10), multicast, reserved and unspecified addresses are refused, in IPv4 and IPv6
(IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry), unless
``TIGRIS_WEBHOOK_ALLOW_PRIVATE`` allows them (the tests' loopback receiver). The check runs
when a subscription is made and again at each delivery, which then connects to the address
it checked (``pinned``), so a name that resolves elsewhere in between (DNS rebinding) cannot
redirect it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

SCHEMES = {"http": 80, "https": 443}


class UrlRefused(ValueError):
    """The URL may not be called (why, in the message)."""


@dataclass(frozen=True, slots=True)
class CheckedUrl:
    url: str
    scheme: str
    host: str
    port: int
    target: str  # path and query
    address: str  # the checked IP address to connect to


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_url(url: str, *, allow_private: bool = False) -> CheckedUrl:
    """``url`` parsed and resolved, or ``UrlRefused``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused(f"not a valid URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise UrlRefused("only http and https URLs are allowed")
    host = parts.hostname
    if not host:
        raise UrlRefused("the URL has no host")
    if parts.username or parts.password:
        raise UrlRefused("credentials in the URL are not allowed")
    port = port or SCHEMES[scheme]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UrlRefused(f"the host {host!r} does not resolve: {exc}") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise UrlRefused(f"the host {host!r} has no address")
    if not allow_private:
        refused = [a for a in addresses if not is_public(a)]
        if refused:
            raise UrlRefused(
                f"the host {host!r} resolves to a non-public address ({refused[0]}): "
                "loopback, link-local and private networks are refused"
            )
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return CheckedUrl(url, scheme, host, port, target, addresses[0])
