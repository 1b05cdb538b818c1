"""Server-side request forgery guard for webhook URLs.

A webhook URL is refused unless it is ``http``/``https`` with a host whose every address is
public: loopback, link-local (cloud metadata at 169.254.169.254 included), private, shared
(100.64/10), multicast, reserved and unspecified addresses are refused, in IPv4 and IPv6,
unless ``TIGRIS_WEBHOOK_ALLOW_PRIVATE`` allows them (the tests' loopback receiver). The check runs
when a subscription is made and again at each delivery, which then connects to the address
it checked (``pinned``), so a name that resolves elsewhere in between (DNS rebinding) cannot
redirect it.

An IPv6 address that carries an IPv4 address is judged by that IPv4 address too (it is public
only if every IPv4 address it carries is): IPv4-mapped ``::ffff:a.b.c.d`` (judged as the IPv4
address alone: the kernel connects to it over IPv4), IPv4-compatible ``::a.b.c.d``,
IPv4-translated ``::ffff:0:a.b.c.d`` (SIIT), the NAT64 well-known prefix ``64:ff9b::/96``,
6to4 ``2002::/16`` and Teredo ``2001::/32`` (server and client). The local-use NAT64 prefix
``64:ff9b:1::/48`` (RFC 8215) is refused outright: it is not globally reachable, and where
a network puts the IPv4 address in it depends on the prefix length that network chose.
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


# IPv6 ranges whose last 32 bits are an IPv4 address (beyond those ``ipaddress`` decodes).
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291 2.5.5.1 (deprecated)
IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052 well-known prefix
NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215: local use, refused
LOW_32 = 0xFFFFFFFF


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses ``ip`` carries (none for an ordinary IPv6 address)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)  # (server, client)
    if any(ip in net for net in (IPV4_COMPATIBLE, IPV4_TRANSLATED, NAT64)):
        # ``::`` and ``::1`` are in ::/96 too; they stay what they are (and are refused).
        found.append(ipaddress.IPv4Address(int(ip) & LOW_32))
    return found


def _public_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not ip.is_multicast


def is_public(address: str) -> bool:
    """Whether a webhook may be sent to ``address`` (an IPv4 or IPv6 address; an IPv6 one is
    judged by any IPv4 address it carries as well, see the module's docstring)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_ip(ip)
    if ip.ipv4_mapped is not None:  # a connection to it is an IPv4 connection
        return _public_ip(ip.ipv4_mapped)
    if ip in NAT64_LOCAL:
        return False
    return _public_ip(ip) and all(_public_ip(v4) for v4 in embedded_ipv4(ip))


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
