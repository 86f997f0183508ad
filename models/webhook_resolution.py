"""Where a webhook URL leads now: its host resolved, every address checked
(`models/domain/webhook_urls.py`). The API checks at registration; the delivery activity
checks again before every attempt and connects to a checked address only, so a name that
later resolves inside (DNS rebinding) is refused at connect time too.

What a name resolves to is not the tenant's to learn: a name that does not resolve and a
name that resolves inside (a private, loopback, metadata address) get the same sentence
(`NOT_PUBLIC`), at registration and in a delivery's lastError, or a webhook URL would be an
oracle of the service's internal DNS. The reason is logged for operators. An address
written in the URL is the tenant's own words: its refusal says why."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from models.domain.webhook_urls import Address, Refused, Target, UrlPolicy, check_addresses, parse
from models.settings import Settings

RESOLVE_TIMEOUT_SECONDS = 5.0
# The one answer for a name, whether it does not resolve or resolves inside.
NOT_PUBLIC = (
    "the host name {host} does not lead to a public internet receiver (it does not resolve, or not to public "
    "addresses only): webhooks go to public internet receivers only"
)

log = logging.getLogger("parametric.webhooks")


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
    or `Unresolved` (the name has no address now); for a name, both with `NOT_PUBLIC`."""
    target = parse(url)
    if target.literal is not None:  # the tenant's own words: the refusal says why
        check_addresses(target, [target.literal], policy)
        return Resolved(target=target, addresses=[target.literal])
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(
            loop.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT_SECONDS
        )
    except (OSError, UnicodeError, asyncio.TimeoutError) as exc:
        log.info("webhook host %s does not resolve (%s)", target.host, type(exc).__name__)
        raise Unresolved(NOT_PUBLIC.format(host=target.host)) from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].partition("%")[0]) for info in infos))
    try:
        check_addresses(target, addresses, policy)
    except Refused as exc:  # what the name resolves to is for operators' logs only
        log.info("webhook host %s refused: %s", target.host, exc)
        raise Refused(NOT_PUBLIC.format(host=target.host)) from None
    return Resolved(target=target, addresses=addresses)


__all__ = ["NOT_PUBLIC", "Refused", "Resolved", "Unresolved", "policy_of", "resolve"]
