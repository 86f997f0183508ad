"""Where a webhook URL leads now: its host resolved, every address checked
(`models/domain/webhook_urls.py`). The API checks at registration; the delivery activity
checks again before every attempt and connects to a checked address only, so a name that
later resolves inside (DNS rebinding) is refused at connect time too."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from models.domain.webhook_urls import Address, Refused, Target, UrlPolicy, check_addresses, parse
from models.settings import Settings

RESOLVE_TIMEOUT_SECONDS = 5.0


class Unresolved(Exception):
    """The host name does not resolve (now): refused at registration, retried at delivery."""


@dataclass(frozen=True)
class Resolved:
    target: Target
    addresses: list[Address]  # every one allowed; connect to these, in this order


def policy_of(settings: Settings) -> UrlPolicy:
    """The deployment's rules: loopback only with WEBHOOK_ALLOW_LOOPBACK, and never the
    ports of the service itself (API, Temporal frontend, Temporal Web UI)."""
    ports = {settings.api_port, settings.temporal_ui_port}
    for address in (settings.public_base_url, f"//{settings.temporal_address}"):
        try:
            port = urlsplit(address).port
        except ValueError:
            port = None
        if port:
            ports.add(port)
    return UrlPolicy(allow_loopback=settings.webhook_allow_loopback, service_ports=frozenset(ports))


async def resolve(url: str, policy: UrlPolicy) -> Resolved:
    """The URL's checked addresses. Raises `Refused` (the URL or an address is not allowed)
    or `Unresolved` (the name has no address now)."""
    target = parse(url)
    literal = target.literal
    if literal is not None:
        addresses = [literal]
    else:
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT_SECONDS
            )
        except (OSError, UnicodeError, asyncio.TimeoutError) as exc:
            raise Unresolved(f"the host name {target.host} does not resolve ({type(exc).__name__})") from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].partition("%")[0]) for info in infos))
    check_addresses(target, addresses, policy)
    return Resolved(target=target, addresses=addresses)


__all__ = ["Refused", "Resolved", "Unresolved", "policy_of", "resolve"]
