"""Summaries of a pricing run that the technical report draws: the simulated loss
distribution, the convergence of the estimate with N, and the fit of the index model to
the data. Pure numpy; money in the cover's currency, per unit of cover."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from models.domain.index_catalog import BY_CODE

from .montecarlo import PayoutSample, simulate_index
from .site import SiteModel, historical_index

HISTOGRAM_BINS = 24
EXCEEDANCE_POINTS = 40
QUANTILES = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
FIT_PATHS = 1 << 14


@dataclass(frozen=True, slots=True)
class LossSummary:
    bin_edges: tuple[float, ...]  # money, HISTOGRAM_BINS + 1 edges over the positive payouts
    counts: tuple[int, ...]
    zero_count: int
    exceedance: tuple[tuple[float, float], ...]  # (loss, P(payout > loss))


@dataclass(frozen=True, slots=True)
class ConvergenceSummary:
    points: tuple[tuple[int, float, float], ...]  # (N, running EL, its standard error)


@dataclass(frozen=True, slots=True)
class FitSummary:
    index_code: str
    observed_years: int
    quantiles: tuple[tuple[float, float | None, float], ...]  # (p, observed or None, simulated)
    observed_mean: float | None
    simulated_mean: float
    monthly: tuple[tuple[int, float, float], ...]  # (month, observed mean mm, model mean mm), rainfall


def loss_summary(payouts: np.ndarray, limit: float) -> LossSummary:
    """Histogram of the positive payouts and the exceedance curve P(payout > x)."""
    positive = payouts[payouts > 0]
    top = float(max(limit, positive.max() if positive.size else limit))
    edges = np.linspace(0.0, top, HISTOGRAM_BINS + 1)
    counts, _ = np.histogram(positive, bins=edges)
    ordered = np.sort(payouts)
    n = payouts.size
    levels = np.linspace(0.0, top, EXCEEDANCE_POINTS)
    exceed = 1.0 - np.searchsorted(ordered, levels, side="right") / n
    return LossSummary(
        bin_edges=tuple(float(e) for e in edges),
        counts=tuple(int(c) for c in counts),
        zero_count=int(n - positive.size),
        exceedance=tuple((float(x), float(p)) for x, p in zip(levels, exceed)),
    )


def convergence_summary(sample: PayoutSample, cover: int = 0) -> ConvergenceSummary:
    """Running estimate after 2, 3, ... of the independent batches (each an unbiased
    estimate), with the standard error from the spread of the batch means."""
    dense = sample.dense(cover)
    means = dense[: sample.per_batch * sample.batches].reshape(sample.batches, sample.per_batch).mean(axis=1)
    points = []
    for k in range(2, sample.batches + 1):
        head = means[:k]
        points.append((int(k * sample.per_batch), float(head.mean()), float(head.std(ddof=1) / np.sqrt(k))))
    return ConvergenceSummary(points=tuple(points))


def fit_summary(
    model: SiteModel, index_code: str, start: date, end: date, seed: int, draws: dict | None = None
) -> FitSummary:
    """Model against data for the cover's index and period: quantiles of the simulated index
    next to the observed ones (where a history exists) and, for rainfall, monthly means.
    ``draws``: normal draws shared by the fits of one seed (the same numbers)."""
    simulated = simulate_index(model, index_code, start, end, FIT_PATHS, seed, draws=draws)
    if simulated.ndim > 1:  # the daily index: compare the period's wettest day
        simulated = simulated.max(axis=1)
    history = historical_index(model, index_code, start, end)
    observed = np.array(list(history.values())) if history else None
    quantiles = tuple(
        (
            p,
            None if observed is None else float(np.quantile(observed, p)),
            float(np.quantile(simulated, p)),
        )
        for p in QUANTILES
    )
    monthly: tuple[tuple[int, float, float], ...] = ()
    if BY_CODE[index_code].risk_type_id == "RAINFALL" and index_code != "RAINFALL_DAYTIME_HOURS":
        observed_monthly = np.nanmean(model.rain.district_history_mm(), axis=0)
        monthly = tuple(
            (m + 1, float(observed_monthly[m]), float(model.rain.normals_mm[m])) for m in range(12)
        )
    return FitSummary(
        index_code=index_code,
        observed_years=0 if observed is None else int(observed.size),
        quantiles=quantiles,
        observed_mean=None if observed is None else float(observed.mean()),
        simulated_mean=float(simulated.mean()),
        monthly=monthly,
    )
