"""Admission of the requests that start pricing: a catalogue read or a quote that needs a
target-month never priced, a travel stay whose covers do not exist yet (warm reads and
quotes never come here).

Per tenant, at most `PRICING_IN_FLIGHT_PER_TENANT` (10) of them at once and
`PRICING_STARTS_PER_MINUTE` (60) in any 60 s; beyond either the request is answered 429
with `Retry-After` before anything is priced. The pricing itself is shared fairly on the
pricing queue: the workflows that price carry the tenant as their Temporal fairness key
(api/catalogue/service.py, api/travel/service.py), so one tenant's backlog is dispatched
in turn with everyone else's instead of ahead of it; and a tenant's only pricing request
(none other of its own in flight) gets a higher Temporal priority than the requests of a
tenant's burst, so it waits for no backlog at all, only for the pricing under way.

The counts are shared by the API processes (`SharedAdmissions`, issue 25): each admission
is a row in the database (models/db/rate_limits.py), written when the request is admitted
and marked ended when it is done, so the quotas hold across processes exactly (a tenant's
admissions are serialised). These requests wait seconds for pricing: the two small writes
cost nothing beside that, unlike the rate limits on every request (api/ratelimit.py). An
admission whose process died counts as in flight for LEASE_SECONDS at most.
`LocalAdmissions` is the in-process store (a single process; unit tests).
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator, Protocol

from temporalio.common import Priority

from api.ratelimit import Quota, RateLimited, scope_tag
from models.settings import Settings

WINDOW_SECONDS = 60.0
# An admitted request waits at most 90 s for its pricing (models/domain/lifecycle.py); an
# admission not ended by then (its API process died) stops counting as in flight after this.
LEASE_SECONDS = 120.0
# A tenant at its in-flight quota may try again once one of its pricings has finished:
# about one stay's or one target's pricing on the pricing pool.
IN_FLIGHT_RETRY_SECONDS = 5
# Temporal priority keys (1 highest .. 5; 3 is the default of everything else): a tenant's
# only pricing request goes ahead of backlogs; a burst's requests queue at the default.
ALONE_PRIORITY = 2
BURST_PRIORITY = 3


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a start was refused, and in how many seconds it could be admitted."""

    reason: str  # "in-flight" | "per-minute"
    wait: float


log = logging.getLogger("parametric.api")


class AdmissionStore(Protocol):
    async def begin(self, key: str, max_in_flight: int, max_per_window: int, window: float) -> Refusal | tuple[str, int]:
        """Admit one more start for `key` (answers a ticket for `end` and how many of its
        starts were in flight before it), or say why not (0 turns a limit off)."""
        ...

    async def end(self, ticket: str) -> None:
        """The admitted start of `ticket` has finished."""
        ...


class LocalAdmissions:
    """The in-process store: in-flight counts and the admission times of the last window."""

    def __init__(self) -> None:
        self._in_flight: dict[str, int] = {}
        self._starts: dict[str, deque[float]] = {}

    async def begin(self, key: str, max_in_flight: int, max_per_window: int, window: float) -> Refusal | tuple[str, int]:
        now = time.monotonic()
        starts = self._starts.setdefault(key, deque())
        while starts and starts[0] <= now - window:
            starts.popleft()
        if max_in_flight and self._in_flight.get(key, 0) >= max_in_flight:
            return Refusal("in-flight", IN_FLIGHT_RETRY_SECONDS)
        if max_per_window and len(starts) >= max_per_window:
            return Refusal("per-minute", starts[len(starts) - max_per_window] + window - now)
        starts.append(now)
        before = self._in_flight.get(key, 0)
        self._in_flight[key] = before + 1
        return key, before

    async def end(self, key: str) -> None:
        left = self._in_flight.get(key, 0) - 1
        if left > 0:
            self._in_flight[key] = left
        else:
            self._in_flight.pop(key, None)
            if not self._starts.get(key):
                self._starts.pop(key, None)


class SharedAdmissions:
    """The store every API process of a scope (RATE_LIMIT_SCOPE) shares: the database."""

    def __init__(self, scope: str = "") -> None:
        self.scope = scope

    async def begin(self, key: str, max_in_flight: int, max_per_window: int, window: float) -> Refusal | tuple[str, int]:
        from models.db.rate_limits import NotAdmitted, begin_admission

        outcome = await begin_admission(
            f"{scope_tag(self.scope)}|{key}", max_in_flight, max_per_window, window, LEASE_SECONDS, time.time()
        )
        if isinstance(outcome, NotAdmitted):
            return Refusal(outcome.reason, IN_FLIGHT_RETRY_SECONDS if outcome.reason == "in-flight" else outcome.wait)
        return outcome.ticket, outcome.in_flight_before

    async def end(self, ticket: str) -> None:
        from models.db.rate_limits import end_admission

        try:
            await end_admission(ticket, time.time(), WINDOW_SECONDS)
        except Exception:  # the database down: the admission's lease frees it
            log.warning("pricing admission %s not ended; it stops counting after %.0f s", ticket, LEASE_SECONDS,
                        exc_info=True)


class PricingAdmission:
    """app.state.admission: `async with admission.pricing(tenant_id): ...` around the
    round trip that starts pricing."""

    def __init__(self, settings: Settings, store: AdmissionStore | None = None) -> None:
        self.in_flight = max(0, settings.pricing_in_flight_per_tenant)
        self.per_minute = max(0, settings.pricing_starts_per_minute)
        self.store = store or LocalAdmissions()

    @asynccontextmanager
    async def pricing(self, tenant_id: str) -> AsyncIterator[Priority]:
        """Admit the request (or raise 429); yields the Temporal priority its pricing runs at."""
        admitted = await self.store.begin(tenant_id, self.in_flight, self.per_minute, WINDOW_SECONDS)
        if isinstance(admitted, Refusal):
            raise self._refusal(admitted)
        ticket, before = admitted
        try:
            yield Priority(priority_key=ALONE_PRIORITY if before == 0 else BURST_PRIORITY, fairness_key=tenant_id)
        finally:
            await self.store.end(ticket)

    def _refusal(self, refused: Refusal) -> RateLimited:
        wait = max(1, math.ceil(refused.wait))
        headers = {"Retry-After": str(wait)}
        if refused.reason == "in-flight":
            detail = (
                f"this tenant already has {self.in_flight} requests waiting for pricing (at most "
                f"{self.in_flight} at once); retry in {wait} s"
            )
        else:
            detail = f"this tenant started pricing {self.per_minute} times in the last minute (at most {self.per_minute}); retry in {wait} s"
            window = int(WINDOW_SECONDS)
            headers |= Quota(limit=self.per_minute, remaining=0, reset=wait, window=window).headers()
        return RateLimited(detail, headers=headers)
