"""Exact expected payouts of the linear form for distributions with closed-form moments.

E[P(X)] = sum over the pieces (a, b] of the piecewise-linear payout alpha + beta x of
alpha * P(a < X <= b) + beta * E[X 1{a < X <= b}].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammainc, ndtr

INF = math.inf


@dataclass(frozen=True)
class ZeroInflatedGamma:
    """X = 0 w.p. p0, else Gamma(shape, scale)."""

    p0: float
    shape: float
    scale: float

    def cdf(self, x):
        if x < 0:
            return 0.0
        if x == INF:
            return 1.0
        return self.p0 + (1 - self.p0) * float(gammainc(self.shape, x / self.scale))

    def m1(self, a, b):
        g = lambda x: (
            0.0 if x <= 0 else 1.0 if x == INF else float(gammainc(self.shape + 1, x / self.scale))
        )  # noqa: E731
        return (1 - self.p0) * self.shape * self.scale * (g(b) - g(a))


@dataclass(frozen=True)
class Normal:
    mu: float
    sigma: float

    def _z(self, x):
        return (x - self.mu) / self.sigma

    def cdf(self, x):
        return 0.0 if x == -INF else 1.0 if x == INF else float(ndtr(self._z(x)))

    def m1(self, a, b):
        phi = lambda x: (
            0.0 if abs(x) == INF else math.exp(-0.5 * self._z(x) ** 2) / math.sqrt(2 * math.pi)
        )  # noqa: E731
        return self.mu * (self.cdf(b) - self.cdf(a)) - self.sigma * (phi(b) - phi(a))


@dataclass(frozen=True)
class Uniform:
    lo: float
    hi: float

    def cdf(self, x):
        return float(np.clip((x - self.lo) / (self.hi - self.lo), 0.0, 1.0))

    def m1(self, a, b):
        a, b = (float(np.clip(v, self.lo, self.hi)) for v in (a, b))
        return (b * b - a * a) / (2 * (self.hi - self.lo))


def expected_linear(dist, direction, trigger, exit, min_payout, ppu, limit) -> float:
    """Exact E[payout] of the linear form (payouts.linear_payout semantics)."""
    cap = trigger + (limit - min_payout) / ppu if ppu > 0 else (trigger if min_payout >= limit else INF)
    if direction == "ABOVE":
        e = exit if exit is not None else INF
        b1 = min(cap, e)
        pieces = [(trigger, b1, min_payout - ppu * trigger, ppu)]
        if b1 < INF:
            pieces.append((b1, INF, limit, 0.0))
    else:
        cap = trigger - (cap - trigger)
        e = exit if exit is not None else -INF
        b1 = max(cap, e)
        pieces = [(b1, trigger, min_payout + ppu * trigger, -ppu)]
        if b1 > -INF:
            pieces.append((-INF, b1, limit, 0.0))
    total = 0.0
    for a, b, alpha, beta in pieces:
        if b <= a:
            continue
        total += alpha * (dist.cdf(b) - dist.cdf(a)) + beta * dist.m1(a, b)
    return total
