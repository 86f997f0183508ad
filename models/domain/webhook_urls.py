"""Where a webhook may be sent (docs/webhooks.md, "Receiver URLs"). Pure: the rules on the
URL as written and on each address its host resolves to; resolving is
`models/webhook_resolution.py`'s job, done at registration and again before every attempt,
whose connection then goes to the checked address only.

A receiver is on the public internet: an `http`/`https` URL without credentials, with a
port in 1-65535, whose every address is a public unicast one. Loopback is allowed only when
the service is told so (`WEBHOOK_ALLOW_LOOPBACK=1`, for a developer's machine and the test
suite), and even then not the service's own ports (the API, Temporal and its Web UI). Private,
link-local (cloud metadata), multicast, unspecified, shared (CGNAT) and reserved or
documentation addresses are never allowed, nor their IPv4-mapped, 6to4 or NAT64 IPv6 forms.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

SCHEMES = {"http": 80, "https": 443}
# The characters RFC 3986 allows in a URI: anything else (spaces, backslashes, non-ASCII)
# is where URL parsers disagree on the host, so it is refused rather than guessed at.
_URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+\Z")
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)\Z")

_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")  # "this host": 0.0.0.0 connects to the machine itself
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_PRIVATE_V4 = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # an IPv4 address in the last 32 bits (RFC 6052)
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use NAT64 (RFC 8215)
# Special-purpose ranges Python's `is_global` lets through in part (IETF protocol
# assignments, the deprecated 6to4 relay anycast, the IPv6 discard prefix).
_SPECIAL = [ipaddress.ip_network(n) for n in ("192.0.0.0/24", "192.88.99.0/24", "100::/64", "2001::/23")]


class Refused(ValueError):
    """The URL or an address it leads to is not a receiver the service sends to; the
    message says why, in words (a 400's message, or a delivery's reason)."""


@dataclass(frozen=True)
class UrlPolicy:
    """What the deployment allows: loopback receivers (development and tests only), except
    on `service_ports` (the API's, Temporal's, its Web UI's)."""

    allow_loopback: bool = False
    service_ports: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Target:
    """A URL's scheme, host (lower case, an IPv6 literal without brackets) and port (the
    scheme's default when none is written)."""

    scheme: str
    host: str
    port: int

    @property
    def literal(self) -> Address | None:
        """The address, when the host is written as one."""
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None


def parse(url: str) -> Target:
    """The target of a webhook URL, or `Refused` saying what is wrong with it."""
    if not _URI_CHARS.match(url):
        raise Refused(
            "the URL may hold only the characters RFC 3986 allows (no spaces or backslashes; "
            "write an international host name in punycode and percent-encode the path)"
        )
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        raise Refused("an absolute http or https URL is needed (https://host/path)")
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" in authority:
        raise Refused("the URL must not hold credentials (user:password@): the signature authenticates the service")
    host, port = _host_and_port(authority)
    return Target(scheme=scheme, host=host, port=port if port is not None else SCHEMES[scheme])


def _host_and_port(authority: str) -> tuple[str, int | None]:
    if authority.startswith("["):
        host, bracket, after = authority[1:].partition("]")
        if not bracket:
            raise Refused("the IPv6 address in the URL has no closing bracket")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise Refused(f"[{host}] is not an IPv6 address") from None
        if after and not after.startswith(":"):
            raise Refused("the URL's host is malformed after the IPv6 address")
        port_text = after[1:] if after else None
    else:
        host, colon, port_text = authority.partition(":")
        if not colon:
            port_text = None
        elif ":" in port_text:
            raise Refused("an IPv6 address in a URL is written in brackets: http://[2001:db8::1]/")
    host = host.lower()
    if not host:
        raise Refused("the URL names no host")
    if not authority.startswith("["):
        _check_name(host)
    return host, _port(port_text)


def _port(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isascii() or not text.isdigit():
        raise Refused(f"the port {text!r} is malformed: a number from 1 to 65535 is needed")
    port = int(text)
    if not 1 <= port <= 65535:
        raise Refused(f"the port {port} is outside 1-65535")
    return port


def _check_name(host: str) -> None:
    """A dotted-quad IPv4 address, or a DNS name. Other ways of writing an address (one
    number, hexadecimal or octal parts, fewer than four parts) are refused: resolvers read
    them as addresses, people do not."""
    try:
        ipaddress.IPv4Address(host)
        return
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.match(label) for label in labels):
        raise Refused(f"the host {host!r} is not a valid host name")
    if re.fullmatch(r"(0x[0-9a-f]*|[0-9]+)", labels[-1]):
        raise Refused(f"the host {host!r} looks like an IP address in an unusual form: write it as a dotted quad")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for: IPv4-mapped (::ffff:a.b.c.d), 6to4
    (2002:a.b.c.d::/48), NAT64 (64:ff9b::a.b.c.d)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or address in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: Address, port: int, policy: UrlPolicy) -> str | None:
    """Why a connection to `address` is refused, in words; None if it is allowed."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            why = address_refusal(inner, port, policy)
            if why is not None or address.ipv4_mapped is not None:
                return f"{address} is the IPv4 address {inner}: {why}" if why else None
    if address.is_unspecified or address in _THIS_NETWORK:
        return f"{address} is an unspecified address (it reaches this machine)"
    if address.is_loopback:
        if not policy.allow_loopback:
            return f"{address} is a loopback address (this machine)"
        if port in policy.service_ports:
            return f"port {port} on {address} is this service's own (its API or Temporal)"
        return None
    if address.is_link_local:
        return f"{address} is a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer)"
    if any(address in net for net in _PRIVATE_V4) or address in _UNIQUE_LOCAL:
        return f"{address} is a private network address (10/8, 172.16/12, 192.168/16, fc00::/7)"
    if address in _SHARED:
        return f"{address} is a shared address of carrier-grade NAT (100.64.0.0/10)"
    if address.is_multicast:
        return f"{address} is a multicast address"
    site_local = isinstance(address, ipaddress.IPv6Address) and address.is_site_local
    special = any(address in net for net in _SPECIAL if net.version == address.version)
    if address.is_reserved or site_local or special or not address.is_global:
        return f"{address} is a reserved, documentation or other non-public address"
    return None


def check_addresses(target: Target, addresses: list[Address], policy: UrlPolicy) -> None:
    """Every address the host resolved to must be allowed (a name that also resolves inside
    is refused, whichever address a connection would pick)."""
    if not addresses:
        raise Refused(f"the host {target.host} has no address")
    for address in addresses:
        why = address_refusal(address, target.port, policy)
        if why is not None:
            named = "" if target.literal is not None else f"{target.host} resolves to "
            raise Refused(f"{named}{why}: webhooks go to public internet receivers only")
