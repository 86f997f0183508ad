"""Request limits (docs/api-decisions.md, "Limits"): token buckets keyed on the caller's
peer address, its authenticated client, its token requests and its failed
authentications, and the RateLimit fields that tell it what is left.

The buckets are per API process (N processes allow N times the rate) and live behind
`BucketStore`, so a shared store can take their place without touching the callers.
Fields: draft-ietf-httpapi-ratelimit-headers-06 (`RateLimit-Limit`, `-Remaining`,
`-Reset`, `-Policy`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Protocol

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from api.peer import TrustedProxies, peer_address
from api.problems import DomainError
from models.settings import Settings

MAX_KEYS = 100_000  # forget every bucket beyond this many keys (a flood of fresh addresses)


class RateLimited(DomainError):
    status, slug, title = 429, "rate-limited", "Too many requests"


@dataclass(frozen=True, slots=True)
class Quota:
    """What one limit leaves a caller: `limit` requests a `window` of seconds, `remaining`
    of them now, the whole quota back in `reset` seconds."""

    limit: int
    remaining: int
    reset: int
    window: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
            "RateLimit-Policy": f"{self.limit};w={self.window}",
        }


class BucketStore(Protocol):
    """Token buckets by key. `take` refills the bucket (`rate` a second, up to `burst`), then
    takes `cost` if it holds that much (or, with `force`, whatever is left); answers whether
    it took and the tokens left."""

    def take(self, key: str, rate: float, burst: int, cost: float, force: bool = False) -> tuple[bool, float]: ...


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class LocalBuckets:
    """The in-process store."""

    def __init__(self) -> None:
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, rate: float, burst: int, cost: float, force: bool = False) -> tuple[bool, float]:
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_KEYS:
                self._buckets.clear()
            bucket = self._buckets[key] = _Bucket(tokens=burst, stamp=now)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.stamp) * rate)
        bucket.stamp = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return True, bucket.tokens
        if force:
            bucket.tokens = 0.0
        return False, bucket.tokens


class RateLimiter:
    """One limit: `per_second` refill, bursts of `burst`; `per_second` 0 turns it off."""

    def __init__(self, per_second: float, burst: int, store: BucketStore | None = None, name: str = "requests") -> None:
        self.per_second = per_second
        self.burst = max(1, burst)
        self.name = name
        self.store = store or LocalBuckets()

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    def _quota(self, tokens: float) -> Quota:
        return Quota(
            limit=self.burst,
            remaining=max(0, math.floor(tokens)),
            reset=math.ceil((self.burst - tokens) / self.per_second),
            window=max(1, math.ceil(self.burst / self.per_second)),
        )

    def _wait(self, tokens: float) -> int:
        return max(1, math.ceil((1 - tokens) / self.per_second))

    def take(self, key: str, what: str = "requests") -> Quota | None:
        """Take one token for `key`, or raise 429 with the seconds until one is free."""
        if not self.enabled:
            return None
        took, tokens = self.store.take(f"{self.name}:{key}", self.per_second, self.burst, 1)
        if not took:
            raise self.refusal(tokens, what)
        return self._quota(tokens)

    check = take

    def peek(self, key: str) -> Quota | None:
        """What `key` has left, taking nothing."""
        if not self.enabled:
            return None
        return self._quota(self.store.take(f"{self.name}:{key}", self.per_second, self.burst, 0)[1])

    def refuse_if_spent(self, key: str, what: str) -> None:
        """429 when `key` has not one token left (taking nothing)."""
        if self.enabled:
            tokens = self.store.take(f"{self.name}:{key}", self.per_second, self.burst, 0)[1]
            if tokens < 1:
                raise self.refusal(tokens, what)

    def charge(self, key: str) -> None:
        """Take one token for `key` if it has one (a failure to count, never refused)."""
        if self.enabled:
            self.store.take(f"{self.name}:{key}", self.per_second, self.burst, 1, force=True)

    def refusal(self, tokens: float, what: str) -> RateLimited:
        wait = self._wait(tokens)
        rate = f"{self.per_second * 60:g} a minute" if self.per_second < 1 else f"{self.per_second:g} a second"
        return RateLimited(
            f"too many {what}: at most {rate} (bursts of {self.burst}); retry in {wait} s",
            headers={"Retry-After": str(wait), **self._quota(tokens).headers()},
        )


class Limits:
    """Every request limit of one API process (app.state.limits)."""

    def __init__(self, settings: Settings, store: BucketStore | None = None) -> None:
        store = store or LocalBuckets()
        self.trusted = TrustedProxies(settings.trusted_proxies)
        self.peer = RateLimiter(settings.peer_rate_per_second, settings.peer_rate_burst, store, "peer")
        self.client = RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst, store, "client")
        token_rate = settings.token_rate_per_second
        self.token = RateLimiter(token_rate, max(1, int(token_rate * 3)), store, "token")
        self.failures = RateLimiter(settings.auth_failures_per_minute / 60, settings.auth_failure_burst, store, "auth-failures")

    def refuse_failing(self, scope: Scope, *claimed: str) -> None:
        """429 for a peer address, or a claimed client, that spent its budget of failed
        authentications: refused before its credential is even looked at."""
        self.failures.refuse_if_spent(f"peer:{peer_address(scope)}", "failed authentications from this address")
        for client in claimed:
            self.failures.refuse_if_spent(f"client:{client}", "failed authentications for this client")

    def failed(self, scope: Scope, *claimed: str) -> None:
        """Count one failed authentication against the peer address and the claimed clients."""
        self.failures.charge(f"peer:{peer_address(scope)}")
        for client in claimed:
            self.failures.charge(f"client:{client}")


def note(scope: Scope, quota: Quota | None) -> None:
    """Remember the tightest quota of this request for its RateLimit fields."""
    if quota is None:
        return
    state = scope.setdefault("state", {})
    known: Quota | None = state.get("rate_quota")
    if known is None or quota.remaining < known.remaining:
        state["rate_quota"] = quota


class PeerLimit(ASGIMiddleware):
    """Every request counts against its peer address (the real one: api/peer.py)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        limits: Limits = scope["app"].state.limits
        note(scope, limits.peer.take(peer_address(scope), "requests from this address"))
        await next_app(scope, receive, send)
