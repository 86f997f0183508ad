"""Request limits (docs/api-decisions.md, "Limits"): token buckets keyed on the caller's
peer address, its authenticated client, its token requests and its failed
authentications, and the RateLimit fields that tell it what is left.

The buckets are shared by the API processes (`SyncedBuckets`, issue 25) without a database
write on a request's path: each process decides from its own view of a bucket, counts what
it took, and every SYNC_SECONDS (0.2 s) one transaction adds every process's spending to
the bucket in the database (models/db/rate_limits.py) and reads back what is left. A
bucket more than one process spends from is split: each process's view is its share of
what is left, refilled at its share of the rate. The accuracy bound is in
docs/api-decisions.md ("Limits across processes"). `LocalBuckets` is the in-process store
(a single process, and the unit tests of the limiter).
Fields: draft-ietf-httpapi-ratelimit-headers-06 (`RateLimit-Limit`, `-Remaining`,
`-Reset`, `-Policy`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from api.peer import TrustedProxies, peer_key
from api.problems import DomainError
from models.settings import Settings

MAX_KEYS = 100_000  # beyond this many keys the least recently used are forgotten (a flood of fresh addresses)
SYNC_SECONDS = 0.2  # how often a process adds its spending to the shared buckets
SHARED_FOR = 1.0  # a bucket another process wrote within this long is shared (split)
ALIVE_FOR = 2.0  # a process that synced within this long is counted among those sharing
BEAT_SECONDS = 1.0  # an idle process still says it is alive this often
SYNC_BATCH = 5_000  # buckets per sync transaction at most (the rest go in the next one)
FORGET_EVERY = 60.0  # seconds between deletions of buckets that filled up again
STOP_WAIT = 5.0  # seconds a stopping app waits for the sync under way, and for its last one

log = logging.getLogger("parametric.api")


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
    """The in-process store. Past MAX_KEYS the least recently used buckets are forgotten, one
    per new key: a flood of fresh keys never forgets the buckets in use (clearing them all
    gave every limited caller a full bucket again)."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def take(self, key: str, rate: float, burst: int, cost: float, force: bool = False) -> tuple[bool, float]:
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            while len(self._buckets) >= MAX_KEYS:
                self._buckets.popitem(last=False)
            bucket = self._buckets[key] = _Bucket(tokens=burst, stamp=now)
        else:
            self._buckets.move_to_end(key)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.stamp) * rate)
        bucket.stamp = now
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return True, bucket.tokens
        if force:
            bucket.tokens = 0.0
        return False, bucket.tokens


class _Share:
    """A process's view of a shared bucket: its `tokens` (its share of what is left),
    refilled at rate / `share`, up to burst / `share`; `pending`: spent and not yet synced;
    `sent`: spent and in the sync under way; `synced_at`: when the database last told it
    what is left (monotonic)."""

    __slots__ = ("tokens", "stamp", "rate", "burst", "share", "pending", "sent", "synced_at")

    def __init__(self, stamp: float, rate: float, burst: float, share: int) -> None:
        self.tokens, self.stamp, self.rate, self.burst = burst / share, stamp, rate, burst
        self.share = share
        self.pending = 0.0
        self.sent = 0.0
        self.synced_at = float("-inf")


def scope_tag(scope: str) -> str:
    """A short fixed-length name of a RATE_LIMIT_SCOPE (for the columns that hold it)."""
    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def bucket_name(scope: str, key: str, rate: float, burst: float) -> str:
    """The shared bucket of a key under a limit, in a scope (RATE_LIMIT_SCOPE): the limit's
    parameters are part of it, so processes configured differently (during a rolling
    change) keep separate budgets instead of mixing them. Long names are hashed to fit."""
    name = f"{scope}|{key}@{rate:g}/{burst:g}"
    return name if len(name) <= 380 else "sha256:" + hashlib.sha256(name.encode()).hexdigest()


class SyncedBuckets:
    """Token buckets every API process of a scope shares through the database, with no
    write on a request's path (module docstring). A view the database has not spoken to
    for SHARED_FOR (a key this process has not seen, or not lately) assumes every live
    process of the scope spends from it: its share of a full bucket, until the next sync
    says what is left and who spends. One process alone: the whole bucket, as in-process."""

    def __init__(self, scope: str = "") -> None:
        self.scope = scope
        self.process_id = f"{scope_tag(scope)}:{uuid.uuid4().hex[:20]}"  # fits the 40 characters of its column
        self._shares: OrderedDict[str, _Share] = OrderedDict()  # least recently used first
        self._dirty: set[str] = set()
        self.processes = 1  # API processes of the scope that synced lately (this one included)
        self.syncs = 0  # transactions done (tests, benchmarks)
        self._forgot_at = 0.0
        self._beat_at = float("-inf")
        self._failing_since: float | None = None

    def take(self, key: str, rate: float, burst: int, cost: float, force: bool = False) -> tuple[bool, float]:
        now = time.monotonic()
        share = self._shares.get(key)
        if share is None:
            while len(self._shares) >= MAX_KEYS:
                self._forget_oldest()
            share = self._shares[key] = _Share(now, rate, float(burst), self.processes)
        else:
            self._shares.move_to_end(key)
        if share.share != self.processes and now - share.synced_at > SHARED_FOR:
            # Who else spends from it is old news: assume everyone does until the next sync.
            share.tokens = share.tokens * share.share / self.processes
            share.share = self.processes
        n = share.share
        share.tokens = min(burst / n, share.tokens + (now - share.stamp) * rate / n)
        share.stamp = now
        if share.tokens >= cost:
            taken = cost
        elif force:
            taken = max(0.0, share.tokens)
        else:
            return False, share.tokens * n
        if taken:
            share.tokens -= taken
            share.pending += taken
            self._dirty.add(key)
        return taken == cost, share.tokens * n

    def _forget_oldest(self) -> None:
        """Past MAX_KEYS: forget the least recently used view (the shared bucket stays in the
        database: a view made again reads it back at the next sync). Spending of it not
        synced yet is lost with it: the oldest view was synced long ago, unless a flood of
        MAX_KEYS fresh keys came within one sync period."""
        key, _ = self._shares.popitem(last=False)
        self._dirty.discard(key)

    async def sync(self) -> None:
        """Add what this process spent to the shared buckets and take their news (one
        transaction; nothing when nothing was spent)."""
        from models.db import rate_limits as rate_db

        if not self._dirty and time.monotonic() - self._beat_at < BEAT_SECONDS:
            return
        keys = list(self._dirty)[:SYNC_BATCH]
        self._dirty.difference_update(keys)
        batch, names = [], {}
        for key in keys:
            share = self._shares.get(key)
            if share is None:
                continue
            share.sent, share.pending = share.pending, 0.0
            names[key] = bucket_name(self.scope, key, share.rate, share.burst)
            batch.append(rate_db.Spent(names[key], share.sent, share.rate, share.burst))
        now, started = time.time(), time.monotonic()
        try:
            found, alive = await rate_db.sync_buckets(
                self.process_id, f"{scope_tag(self.scope)}:", batch, now, SHARED_FOR, ALIVE_FOR
            )
        except BaseException:
            for key in names:  # counted again at the next sync
                share = self._shares.get(key)
                if share is not None:
                    share.pending += share.sent
                    share.sent = 0.0
                    self._dirty.add(key)
            raise
        self.syncs += 1
        self._beat_at = started
        self.processes = max(1, alive)
        for key, name in names.items():
            share = self._shares.get(key)
            if share is None or name not in found:
                continue
            tokens, shared_until = found[name]
            share.share = self.processes if shared_until > now else 1
            # What is left as of `now`, this process's part of it, less what it took since.
            share.tokens = min(share.burst, tokens) / share.share - share.pending
            share.stamp = share.synced_at = started
            share.sent = 0.0
        if now - self._forgot_at > FORGET_EVERY:
            self._forgot_at = now
            await rate_db.forget_idle(now)

    async def _run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), SYNC_SECONDS)
            if stop.is_set():
                return
            try:
                await self.sync()
                if self._failing_since is not None:
                    log.info("rate limits shared again (they were per process for %.0f s)", time.monotonic() - self._failing_since)
                    self._failing_since = None
            except Exception:  # the database down: decide locally meanwhile, count for later
                if self._failing_since is None:
                    self._failing_since = time.monotonic()
                    log.warning("rate limits cannot be shared now; each process counts alone", exc_info=True)

    @contextlib.asynccontextmanager
    async def syncing(self) -> AsyncIterator[None]:
        """Sync in the background while the block runs (an app's lifespan), once more at its
        end. The loop is asked to stop, not cancelled: a transaction cancelled while it
        begins can leave its pooled connection taken, and closing the pool would wait for
        it for ever."""
        stop = asyncio.Event()
        task = asyncio.create_task(self._run(stop))
        try:
            yield
        finally:
            stop.set()
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_WAIT)
            except Exception:  # noqa: BLE001 - stuck (a database that does not answer): give up on it
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.sync(), STOP_WAIT)


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

    def charge(self, key: str) -> tuple[bool, float]:
        """Take one token for `key` if it has one (a failure to count, never refused here):
        whether it had one, and what is left (True when the limit is off)."""
        if not self.enabled:
            return True, float(self.burst)
        return self.store.take(f"{self.name}:{key}", self.per_second, self.burst, 1, force=True)

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
        self.store = store
        self.trusted = TrustedProxies(settings.trusted_proxies, settings.trusted_proxy_header)
        self.peer = RateLimiter(settings.peer_rate_per_second, settings.peer_rate_burst, store, "peer")
        self.client = RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst, store, "client")
        token_rate = settings.token_rate_per_second
        self.token = RateLimiter(token_rate, max(1, int(token_rate * 3)), store, "token")
        self.failures = RateLimiter(settings.auth_failures_per_minute / 60, settings.auth_failure_burst, store, "auth-failures")

    def syncing(self):
        """What the app's lifespan runs its requests in: the shared buckets' sync."""
        syncing = getattr(self.store, "syncing", None)
        return syncing() if syncing is not None else contextlib.nullcontext()

    def failed(self, scope: Scope, *claimed: str) -> RateLimited | None:
        """Count one failed authentication against the peer address and the claimed clients
        (normalised ids: api/auth/controller.py); the 429 to answer instead of the 401 when
        one of them had spent its budget already. Only failures are counted and only failing
        attempts refused: the caller checks the credential first (a JWT check, a SHA-256
        compare: microseconds), and a good one is never refused for anyone's failures, its
        address's or its client's (issue 33, section 4: one misconfigured client behind a NAT
        locked every good client at that address out)."""
        refusal = None
        counted = [(f"peer:{peer_key(scope)}", "failed authentications from this address")]
        counted += [(f"client:{client}", "failed authentications for this client") for client in claimed]
        for key, what in counted:
            had_one, tokens = self.failures.charge(key)
            if not had_one and refusal is None:
                refusal = self.failures.refusal(tokens, what)
        return refusal


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
        note(scope, limits.peer.take(peer_key(scope), "requests from this address"))
        await next_app(scope, receive, send)
