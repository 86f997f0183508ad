"""The caller's real address, for the limits keyed on it.

The API serves with uvicorn's own proxy-header handling off (it believes X-Forwarded-For
from 127.0.0.1 by default, so any local process could claim any address): the address is
the socket's peer, and `X-Forwarded-For` (or `Forwarded: for=`) counts only when that peer
is one of `TRUSTED_PROXIES`. Then the client is the right-most hop that is not itself a
trusted proxy: hops to its left were written by the client and prove nothing.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable

from litestar.types import Scope

UNKNOWN = "unknown"
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
    """The proxies whose forwarding headers are believed (addresses or CIDRs)."""

    def __init__(self, entries: Iterable[str]) -> None:
        try:
            self.networks = [ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip()]
        except ValueError as err:
            raise ValueError(f"TRUSTED_PROXIES: {err}") from None

    def __contains__(self, address: object) -> bool:
        return isinstance(address, (ipaddress.IPv4Address, ipaddress.IPv6Address)) and any(
            address in network for network in self.networks
        )

    def client(self, peer: str, headers: list[tuple[bytes, bytes]]) -> str:
        """The client's address: `peer`, or from a trusted peer the right-most untrusted hop."""
        current = _address(peer)
        if current is None or current not in self:
            return peer
        hops = _forwarded_hops(headers)
        for hop in reversed(hops):
            address = _address(hop)
            if address is None:  # garbage from a hop we cannot vouch for: stop at the last proxy
                return str(current)
            current = address
            if current not in self:
                return str(current)
        return str(current)  # every hop a proxy: the left-most one


def _forwarded_hops(headers: list[tuple[bytes, bytes]]) -> list[str]:
    """The hops of X-Forwarded-For, or else of Forwarded's `for=`, left to right (every
    header line in order)."""
    xff = [v.decode("latin-1") for k, v in headers if k.lower() == b"x-forwarded-for"]
    if xff:
        return [hop.strip() for line in xff for hop in line.split(",") if hop.strip()]
    forwarded = [v.decode("latin-1") for k, v in headers if k.lower() == b"forwarded"]
    return [m.group(1) for line in forwarded for m in _FORWARDED_FOR.finditer(line)]


def peer_address(scope: Scope) -> str:
    """The caller's address for this request (worked out once, kept in the scope's state)."""
    state = scope.setdefault("state", {})
    found = state.get("peer_address")
    if found is None:
        client = scope.get("client")
        peer = client[0] if client else UNKNOWN
        found = state["peer_address"] = scope["app"].state.limits.trusted.client(peer, scope.get("headers", []))
    return found
