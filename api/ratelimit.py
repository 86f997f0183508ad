"""Token-bucket rate limits, per API process (a deployment with N API processes allows N
times the rate; put a shared limiter in front for a hard global cap)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from api.problems import DomainError

MAX_KEYS = 100_000  # forget idle buckets beyond this many keys


class RateLimited(DomainError):
    status, slug, title = 429, "rate-limited", "Too many requests"


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = max(1, burst)
        self._buckets: dict[str, _Bucket] = {}

    @property
    def enabled(self) -> bool:
        return self.per_second > 0

    def check(self, key: str, what: str = "requests") -> None:
        """Take one token for `key`, or raise 429 with the seconds until one is free."""
        if not self.enabled:
            return
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_KEYS:
                self._buckets.clear()
            bucket = self._buckets[key] = _Bucket(tokens=self.burst, stamp=now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.per_second)
        bucket.stamp = now
        if bucket.tokens < 1:
            wait = math.ceil((1 - bucket.tokens) / self.per_second)
            raise RateLimited(
                f"too many {what}: at most {self.per_second:g} per second (burst {self.burst}); retry in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        bucket.tokens -= 1
