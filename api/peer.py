"""The caller's real address, for the limits keyed on it.

The API serves with uvicorn's own proxy-header handling off (it believes X-Forwarded-For
from 127.0.0.1 by default, so any local process could claim any address): the address is
the socket's peer, and the forwarding header counts only when that peer is one of
`TRUSTED_PROXIES`. Then the client is the right-most hop that is not itself a trusted
proxy: hops to its left were written by the client and prove nothing.

Which header is believed is `TRUSTED_PROXY_HEADER`: `x-forwarded-for` (the default) or
`forwarded` (`for=`), one only. A proxy that appends to one of them passes the other
through as the client sent it, so reading the other (or preferring one when both are
there) would let the client choose its own address.

The limits key an IPv6 client on its /64 (`limit_key`): one subscriber or host holds a
whole /64, and keying on the /128 gave it 2^64 fresh buckets. An IPv4-mapped IPv6 peer is
its IPv4 address.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable

from litestar.types import Scope

UNKNOWN = "unknown"
HEADERS = ("x-forwarded-for", "forwarded")  # TRUSTED_PROXY_HEADER's values
IPV6_LIMIT_PREFIX = 64  # an IPv6 client's limits are its /64's
_FORWARDED_FOR = re.compile(r'(?:^|[;,\s])for="?\[?([^\]";,\s]+)', re.IGNORECASE)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip().strip('"')
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class TrustedProxies:
    """The proxies whose forwarding header (`header`: x-forwarded-for or forwarded) is
    believed (addresses or CIDRs)."""

    def __init__(self, entries: Iterable[str], header: str = "x-forwarded-for") -> None:
        try:
            self.networks = [ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip()]
        except ValueError as err:
            raise ValueError(f"TRUSTED_PROXIES: {err}") from None
        self.header = header.strip().lower()
        if self.header not in HEADERS:
            raise ValueError(f"TRUSTED_PROXY_HEADER must be one of {', '.join(HEADERS)}, not {header!r}")

    def __contains__(self, address: object) -> bool:
        return isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address)) and any(
            address in network for network in self.networks
        )

    def client(self, peer: str, headers: list[tuple[bytes, bytes]]) -> str:
        """The client's address: `peer`, or from a trusted peer the right-most untrusted hop."""
        current = _address(peer)
        if current is None or current not in self:
            return peer
        hops = _forwarded_hops(headers, self.header)
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:  # garbage from a hop we cannot vouch for: stop at the last proxy
                return str(current)
            current = address
            if current not in self:
                return str(current)
        return str(current)  # every hop a proxy: the left-most one


def _forwarded_hops(headers: list[tuple[bytes, bytes]], header: str) -> list[str]:
    """The hops of the one trusted header (X-Forwarded-For, or Forwarded's `for=`), left to
    right (every line of it in order); the other header is ignored."""
    lines = [v.decode("latin-1") for k, v in headers if k.lower() == header.encode()]
    if header == "x-forwarded-for":
        return [hop.strip() for line in lines for hop in line.split(",") if hop.strip()]
    return [m.group(1) for line in lines for m in _FORWARDED_FOR.finditer(line)]


def limit_key(address: str) -> str:
    """What the limits key a client address on: an IPv6 address's /64, an IPv4-mapped one's
    IPv4 address, any other address (or `unknown`) as it is."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_LIMIT_PREFIX), strict=False))
    return str(parsed)


def peer_address(scope: Scope) -> str:
    """The caller's address for this request (worked out once, kept in the scope's state)."""
    state = scope.setdefault("state", {})
    found = state.get("peer_address")
    if found is None:
        client = scope.get("client")
        peer = client[0] if client else UNKNOWN
        found = state["peer_address"] = scope["app"].state.limits.trusted.client(peer, scope.get("headers", []))
    return found


def peer_key(scope: Scope) -> str:
    """The key of this request's address in the limits (`limit_key` of `peer_address`)."""
    state = scope.setdefault("state", {})
    found = state.get("peer_key")
    if found is None:
        found = state["peer_key"] = limit_key(peer_address(scope))
    return found
