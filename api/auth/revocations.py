"""What refuses a validly signed token of our own issuer before it expires: its signing key
revoked (`parametric keys revoke`) or its client disabled (`parametric staff disable`,
`parametric tenants disable-client`). A token is verified once and then served from a
cache for up to its hour, so the check is on every request, against sets every process
re-reads from the database at most `REREAD_SECONDS` apart (two small queries a second at
most, none on a request's path but the one that finds them stale). While the database
cannot be read the last sets serve (logged), as the signing keys do.

Tokens of an external issuer (AUTH_JWKS_URL) are not ours to revoke: their issuer does."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from models.db import signing_keys as keys_db
from models.db.tables import ApiClient

log = logging.getLogger("parametric.api")

REREAD_SECONDS = 1.0  # how stale a process's view of revoked keys and disabled clients may get


@dataclass(frozen=True, slots=True)
class Revoked:
    kids: frozenset[str]
    clients: frozenset[str]  # disabled client ids (canonical UUID text)
    read_at: float  # monotonic


class Revocations:
    def __init__(self) -> None:
        self._view: Revoked | None = None
        self._lock: asyncio.Lock | None = None

    async def view(self) -> Revoked:
        view = self._view
        if view is not None and time.monotonic() - view.read_at < REREAD_SECONDS:
            return view
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._view is not view and self._view is not None:
                return self._view  # read by another request meanwhile
            try:
                kids = await keys_db.revoked_kids()
                clients = await ApiClient.select(ApiClient.id).where(ApiClient.disabled == True)  # noqa: E712
                self._view = Revoked(frozenset(kids), frozenset(str(c["id"]) for c in clients), time.monotonic())
            except Exception:
                if view is None:
                    raise
                log.warning("revoked keys and disabled clients could not be read; the last ones serve", exc_info=True)
                self._view = Revoked(view.kids, view.clients, time.monotonic())
            return self._view

    async def refusal(self, kid: str | None, client_id: str) -> str | None:
        """Why a token signed by `kid` for `client_id` is refused now, or None."""
        view = await self.view()
        if kid in view.kids:
            return "the token's signing key was revoked"
        if client_id in view.clients:
            return "the token's client is disabled"
        return None
