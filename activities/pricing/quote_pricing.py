"""The price of a package of covers on one target, the same whichever surface sells it.

A package is a list of line items; line item j holds covers i (one unit each, payout
``X_i`` per path, money), ``q_j`` units of each, and pays at most its cap ``S_j``::

    L_j = min(q_j * sum_i X_i, S_j)        (models.domain.payout.line_item_payout)
    T   = sum_j L_j                        the package's total payout

Each cover's part of a line item's payout on a path is pro rata, ``Y_i = q_j X_i L_j /
(q_j sum_i X_i)``, so the covers' parts add up to ``T`` path by path and every figure below
is allocated to covers additively.

* **Expected loss** E[T] (with the cap), its Monte Carlo standard error (batch means), and
  each cover's E[Y_i]. The adjusted EL starts from the covers' signed-off risk premiums when
  given (their catalogue pricing, credibility-blended where burn and model disagreed), which
  know nothing of the cap: each is multiplied by the share of its cover's simulated EL the cap
  leaves, ``E[Y_i] / E[q X_i]``.
* **Parameter band**: the bootstrap replicates of :mod:`.uncertainty` (the same resample for
  every cover of the target), each priced with the cap on ``BOOTSTRAP_PATHS`` paths; sigma_param
  is the sd of the replicates' E[T], allocated to covers by Euler (``cov(E_i, E_T) / sd(E_T)``).
* **Capital**: TVaR_a(T) - E[T] of the package (a = ``capital_quantile``: the mean of the
  1-in-100 worst years less the mean; the World Bank form's PML - EL with the tail mean as the
  PML). TVaR is coherent: the package's capital is never more than the sum of its covers' own,
  and its Euler allocation ``E[Y_i | T in the tail] - E[Y_i]`` (co-TVaR, with the atom at the
  VaR shared pro rata) adds up to it exactly and never exceeds the cover's stand-alone
  TVaR_a(q X_i) - E[q X_i] on the same paths: a cover that diversifies the package is charged
  less capital than alone.
* **Premium** (:func:`.loading.package_premium`): per cover adjusted EL + uncertainty load +
  cost of capital x its capital, grossed up for expenses; the package's gross is the sum, at
  least the minimum rate on the total sum insured ``sum_j S_j`` (the most the package can pay).

Everything is positively homogeneous in the sums: scaling every ``q_j`` and ``S_j`` by s
scales every money figure by s. A caller may therefore price the package per unit of sum
insured (``S_j = 1``, ``q_j = 1 / unit limit``) and scale (activities/packages.py does).
Money figures are floats (not rounded): a per-unit price keeps its precision.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from models.domain.index_catalog import BY_CODE

from .loading import LoadParameters, PremiumBreakdown, package_premium
from .montecarlo import PayoutSample, estimate, simulate_payouts
from .site import SiteModel
from .summaries import LossSummary, loss_summary
from .terms import CoverTerms
from .threads import in_threads
from .rainfall import rescaled as rescaled_rain
from .uncertainty import (
    BAND,
    BOOTSTRAP_PATHS,
    BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
    REPLICATE_Z_POINTS,
    Z_BAND,
    _scale_variant,
    _shifted,
    _trend_variant,
    mapping_sd,
    replicate_model,
)

TAIL_LEVELS = (0.99, 0.995)


@dataclass(frozen=True, slots=True)
class PackageLineItem:
    covers: tuple[CoverTerms, ...]  # one unit of each
    quantity: float  # units of each cover
    cap: float  # money: the line item pays at most this in all (its sum insured)

    def __post_init__(self) -> None:
        if not self.covers:
            raise ValueError("a line item needs at least one cover")
        if not (self.quantity > 0 and self.cap > 0):
            raise ValueError("quantity and cap must be > 0")


@dataclass(frozen=True, slots=True)
class Tail:
    """Distribution summary of a payout (money, floats)."""

    expected_loss: float
    expected_loss_se: float
    std_dev: float
    prob_attach: float  # P(payout > 0)
    prob_exhaust: float  # P(payout >= its most)
    var_99: float
    tvar_99: float
    var_995: float
    tvar_995: float


@dataclass(frozen=True, slots=True)
class PackageCoverFigures:
    """One cover in the package (money for its q units, floats)."""

    cover_id: str
    index_code: str
    line_item: int  # position of its line item
    expected_loss: float  # E[Y_i]: its part of the capped payout
    uncapped_expected_loss: float  # E[q X_i]: the cover alone
    probability_of_attachment: float  # P(X_i > 0)
    var_99: float  # VaR99 of q X_i alone
    co_tvar: float  # E[Y_i | T in the package's tail]
    stand_alone_capital: float  # TVaR_a(q X_i) - E[q X_i]: its capital alone
    premium: PremiumBreakdown  # its part of the package's premium (capital: co_tvar - expected_loss)


@dataclass(frozen=True, slots=True)
class PackageLineFigures:
    cap: float
    expected_loss: float  # E[L_j]
    gross_premium: float  # the sum of its covers'


@dataclass(frozen=True, slots=True)
class PackagePricing:
    total: Tail  # of T (prob_exhaust: P(T = total_sum_insured))
    uncapped_expected_loss: float  # E[sum_j q_j sum_i X_i]: what the cap saves is the difference
    total_sum_insured: float  # sum_j S_j: the most the package can pay
    band_low: float  # 5 % / 95 % of the replicates' E[T]
    band_high: float
    parameter_sd: float
    band_method: str
    capital_level: float  # a of TVaR_a
    premium: PremiumBreakdown  # the package's (capital: TVaR_a(T) - E[T])
    covers: tuple[PackageCoverFigures, ...]
    line_items: tuple[PackageLineFigures, ...]
    loss: LossSummary  # histogram and exceedance curve of T
    n_paths: int
    seed: int
    method: str
    model_version: str
    data_hash: str

    @property
    def loss_ratio(self) -> float:
        """Adjusted expected loss over gross premium."""
        g = self.premium.gross_premium
        return self.premium.adjusted_expected_loss / g if g > 0 else 0.0


@dataclass(frozen=True, eq=False)
class CappedSample:
    """A package's payouts on shared paths with the line-item caps applied."""

    total: np.ndarray  # T per path (N,)
    idx: tuple[np.ndarray, ...]  # per cover: the paths where it pays (ascending)
    shares: tuple[np.ndarray, ...]  # its part Y_i of its line item's capped payout there
    uncapped: tuple[np.ndarray, ...]  # q X_i there
    line_totals: tuple[np.ndarray, ...]  # L_j per path


def cap_sample(sample: PayoutSample, line_items: Sequence[PackageLineItem]) -> CappedSample:
    """Apply each line item's quantity and cap to the covers' simulated unit payouts (covers
    in line-item order, as :func:`price_package` simulates them)."""
    n = sample.n
    total = np.zeros(n)
    idx, shares, uncapped, lines = [], [], [], []
    i = 0
    for item in line_items:
        q, cap = float(item.quantity), float(item.cap)
        k = len(item.covers)
        raw = np.zeros(n)
        for c in range(i, i + k):
            raw[sample.idx[c]] += q * sample.vals[c]
        capped = np.minimum(raw, cap)
        factor = np.divide(capped, raw, out=np.zeros(n), where=raw > 0)
        for c in range(i, i + k):
            j = sample.idx[c]
            mine = q * sample.vals[c]
            idx.append(j)
            uncapped.append(mine)
            shares.append(mine * factor[j])
        total += capped
        lines.append(capped)
        i += k
    return CappedSample(total, tuple(idx), tuple(shares), tuple(uncapped), tuple(lines))


def _k(n: int, level: float) -> int:
    """How many paths make the tail beyond ``level``: floor(N (1 - level))."""
    return int(math.floor(n * (1.0 - level) + 1e-9))


def tail_weights(total: np.ndarray, level: float) -> tuple[float, float, np.ndarray]:
    """(VaR, TVaR, weights) of the package total at ``level``: TVaR = mean of the k =
    floor(N (1 - level)) largest values, VaR the largest value not among them, and weights w
    per path with sum(w) = 1 and sum(w * total) = TVaR: 1/k on paths above the VaR, the rest
    of the k shared evenly by the paths at the VaR (the atom), 0 below. Co-TVaR of any part
    of the total is then sum(w * part): independent of how ties are ordered."""
    n = total.size
    k = _k(n, level)
    if k < 1:
        raise ValueError(f"{n} paths are too few for a tail at {level}")
    var = float(np.partition(total, n - k - 1)[n - k - 1]) if k < n else float(total.min())
    above = total > var
    at = total == var
    w = np.zeros(n)
    w[above] = 1.0 / k
    rest = k - int(above.sum())
    if rest > 0:
        w[at] = rest / (k * int(at.sum()))
    tvar = float((w * total).sum())
    return var, tvar, w


def _alone_tails(vals: np.ndarray, n: int, level: float) -> tuple[float, float]:
    """(VaR, TVaR) at ``level`` of a payout whose positive values are ``vals`` on N paths."""
    k = _k(n, level)
    if vals.size <= k:
        return 0.0, float(vals.sum()) / k
    part = np.partition(vals, vals.size - k - 1)
    return float(part[vals.size - k - 1]), float(part[vals.size - k :].mean())


def _total_tail(sample: PayoutSample, total: np.ndarray, most: float) -> Tail:
    n = sample.n
    dense = PayoutSample(
        n=n, per_batch=sample.per_batch, batches=sample.batches, method=sample.method, layout=sample.layout,
        idx=(np.arange(n),), vals=(total,),
    )
    el, se = estimate(dense, 0)
    (v99, t99, _), (v995, t995, _) = (tail_weights(total, a) for a in TAIL_LEVELS)
    return Tail(
        expected_loss=el,
        expected_loss_se=se,
        std_dev=float(total.std(ddof=1)) if n > 1 else 0.0,
        prob_attach=float(np.count_nonzero(total > 0)) / n,
        prob_exhaust=float(np.count_nonzero(total >= most * (1 - 1e-12))) / n,
        var_99=v99,
        tvar_99=t99,
        var_995=v995,
        tvar_995=t995,
    )


# A process prices many packages of the few targets it has models of: it keeps their
# bootstrap replicates (whose quantile tables are built on first use: about half of a
# package's pricing otherwise) and the replicates' normal draws. Neither changes a number:
# a replicate is a function of (model, b), the draws of (method, dimension, seed, paths).
KEPT_TARGETS = 16
_replicates: dict[int, tuple[SiteModel, tuple[SiteModel, ...]]] = {}
_draws: dict = {}


def replicate_models(model: SiteModel, count: int) -> tuple[SiteModel, ...]:
    """The target's first ``count`` bootstrap replicates, kept for the process (above)."""
    kept = _replicates.get(id(model))
    if kept is not None and kept[0] is model and len(kept[1]) >= count:
        return kept[1][:count]
    reps = tuple(replicate_model(model, b) for b in range(count))
    if len(_replicates) >= KEPT_TARGETS:
        _replicates.pop(next(iter(_replicates)))
    _replicates[id(model)] = (model, reps)
    return reps


def package_band(
    model: SiteModel,
    covers: list[CoverTerms],
    line_items: Sequence[PackageLineItem],
    seed: int,
    replicates: int = BOOTSTRAP_REPLICATES,
    paths: int = BOOTSTRAP_PATHS,
) -> np.ndarray:
    """Each bootstrap replicate's expected capped part of every cover, (replicates, covers):
    the rows add up to the replicate's E[T] (module docstring)."""
    if len(_draws) > 4 * KEPT_TARGETS:
        _draws.clear()

    def parts(replicate: SiteModel):
        def run() -> list[float]:
            # common random numbers: every replicate reads the same draws
            sample = simulate_payouts(replicate, covers, paths, seed, draws=_draws)
            capped = cap_sample(sample, line_items)
            return [float(s.sum()) / sample.n for s in capped.shares]

        return run

    # on the pricing's threads (.threads): the first fills the draws; the same numbers
    rows = in_threads([parts(r) for r in replicate_models(model, replicates)])
    return np.array(rows, dtype=np.float64).reshape(replicates, len(covers))


def package_driver_ends(
    model: SiteModel,
    covers: list[CoverTerms],
    line_items: Sequence[PackageLineItem],
    seed: int,
    paths: int = BOOTSTRAP_PATHS,
) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The band's other drivers for the package, as :func:`.uncertainty.parameter_bands` takes
    them for a cover alone (cell scale and trend at the ends of their 90 % bands, for the
    monthly rainfall covers; the settlement-data mapping, each cover's trigger and exit moved
    by 1.645 mapping_sd): each cover's expected capped part at the central model and at each
    driver's two ends, on the band's paths with the caps applied. (central parts, {driver:
    (parts at one end, parts at the other)})."""

    def parts(variant: SiteModel, priced: list[CoverTerms] = covers):
        def run() -> np.ndarray:
            sample = simulate_payouts(variant, priced, paths, seed, draws=_draws)
            capped = cap_sample(sample, line_items)
            return np.array([float(x.sum()) / sample.n for x in capped.shares])

        return run

    centre = dataclasses.replace(model, rain=rescaled_rain(model.rain, model.rain.scale, REPLICATE_Z_POINTS))
    jobs = [parts(centre)]
    rain = np.array([BY_CODE[c.index_code].risk_type_id == "RAINFALL" and not c.is_daily_count for c in covers])
    variants: dict[str, tuple[int, int]] = {}
    scaled = [_scale_variant(model, end) for end in (0, 1)]
    if rain.any() and scaled[0] is not None:
        variants["scale"] = (len(jobs), len(jobs) + 1)
        jobs += [parts(scaled[0]), parts(scaled[1])]
    if rain.any() and model.rain.trend_rel_per_year is not None:
        variants["trend"] = (len(jobs), len(jobs) + 1)
        jobs += [parts(_trend_variant(centre, -1.0)), parts(_trend_variant(centre, 1.0))]
    deltas = [Z_BAND * mapping_sd(model, c.index_code) for c in covers]
    if any(deltas):
        variants["mapping"] = (len(jobs), len(jobs) + 1)
        jobs += [parts(model, [_shifted(c, -d) for c, d in zip(covers, deltas)]),
                 parts(model, [_shifted(c, d) for c, d in zip(covers, deltas)])]
    done = in_threads(jobs)
    central = done[0]
    ends = {}
    for name, (lo, hi) in variants.items():
        if name == "mapping":
            ends[name] = (done[lo], done[hi])
        else:  # as for a cover alone: the covers these drivers do not move keep their central part
            ends[name] = (np.where(rain, done[lo], central), np.where(rain, done[hi], central))
    return central, ends


def _band_sd(
    replicate_parts: np.ndarray, central: np.ndarray, ends: dict[str, tuple[np.ndarray, np.ndarray]]
) -> tuple[float, np.ndarray, float, float, dict[str, float]]:
    """The package's sigma_param over every driver, its Euler allocation to covers, and the
    band's 5 % / 95 % points (module docstring). (sd, contributions, low, high, {driver: sd}).

    Sampling: the sd of the replicates' E[T], cover i's contribution cov(E_i, E_T) / sd.
    Another driver d: its two ends move cover i's part by D_i = (hi_i - lo_i) / (2 x 1.645)
    per sd, the package's by D = sum_i D_i: its sd |D|, cover i's contribution D_i sign(D).
    The drivers are added in quadrature, sd = sqrt(sum_d sd_d^2), so cover i's Euler
    contribution is sum_d sd_d c_{i,d} / sd: the contributions add up to sd. The band's points
    as for a cover alone: each driver's distance below (above) its centre, added in quadrature."""
    totals = replicate_parts.sum(axis=1)
    n_cov = replicate_parts.shape[1]
    sds: dict[str, float] = {"sampling": float(totals.std(ddof=1)) if totals.size > 1 else 0.0}
    contrib: dict[str, np.ndarray] = {}
    if sds["sampling"] > 0:
        centred = totals - totals.mean()
        deviations = replicate_parts - replicate_parts.mean(axis=0)
        contrib["sampling"] = (deviations * centred[:, None]).sum(axis=0) / (totals.size - 1) / sds["sampling"]
    else:
        contrib["sampling"] = np.zeros(n_cov)
    points = {"sampling": (float(np.quantile(totals, BAND[0])), float(np.quantile(totals, BAND[1])))}
    centres = {"sampling": float(totals.mean())}
    for name, (a, b) in ends.items():
        d = (np.asarray(b) - np.asarray(a)) / (2 * Z_BAND)
        total = float(d.sum())
        sds[name] = abs(total)
        contrib[name] = d if total >= 0 else -d
        lo, hi = sorted((float(np.sum(a)), float(np.sum(b))))
        points[name] = (lo, hi)
        centres[name] = float(np.sum(central))
    sd = math.sqrt(sum(v * v for v in sds.values()))
    if sd > 0:
        contributions = sum(sds[k] * contrib[k] for k in sds) / sd
    else:
        contributions = np.zeros(n_cov)
    down = math.sqrt(sum(max(0.0, centres[k] - lo) ** 2 for k, (lo, _) in points.items()))
    up = math.sqrt(sum(max(0.0, hi - centres[k]) ** 2 for k, (_, hi) in points.items()))
    middle = float(np.sum(central)) if ends else centres["sampling"]
    return sd, np.asarray(contributions, dtype=np.float64), max(0.0, middle - down), middle + up, sds


def price_package(
    model: SiteModel,
    line_items: Sequence[PackageLineItem],
    n: int,
    seed: int,
    params: LoadParameters,
    adjusted_expected_loss: Sequence[float] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PackagePricing:
    """The package's price (module docstring). ``adjusted_expected_loss``: per cover (in
    line-item order), its signed-off expected loss for its q units without the cap, or None
    for the simulated one. ``progress(paths_done, paths_total)``: called as the simulation
    goes and after each later stage (an activity's heartbeats)."""
    if not line_items:
        raise ValueError("a package needs at least one line item")
    covers = [c for item in line_items for c in item.covers]
    owner = [j for j, item in enumerate(line_items) for _ in item.covers]
    if adjusted_expected_loss is not None and len(adjusted_expected_loss) != len(covers):
        raise ValueError("one adjusted expected loss per cover")
    if len(_draws) > 4 * KEPT_TARGETS:
        _draws.clear()
    # the package seed is one for every package: a 12-month package's normal draws are the
    # same whatever the target, drawn once per process (the same numbers)
    sample = simulate_payouts(model, covers, n, seed, progress=progress, draws=_draws)
    capped = cap_sample(sample, line_items)
    n_eff = sample.n
    most = float(sum(item.cap for item in line_items))
    total = _total_tail(sample, capped.total, most)
    level = params.capital_quantile
    _, tvar, w = tail_weights(capped.total, level)
    el = [float(s.sum()) / n_eff for s in capped.shares]
    el_alone = [float(u.sum()) / n_eff for u in capped.uncapped]
    # products without BLAS (its thread pool costs more than these sums: montecarlo._mix)
    co_tvar = [float((w[j] * s).sum()) for j, s in zip(capped.idx, capped.shares)]
    if progress is not None:
        progress(n_eff, n_eff)

    replicate_parts = package_band(model, covers, line_items, seed)
    central, ends = package_driver_ends(model, covers, line_items, seed)
    sd, contributions, band_low, band_high, _ = _band_sd(replicate_parts, central, ends)
    replicate_totals = replicate_parts.sum(axis=1)
    if progress is not None:
        progress(n_eff, n_eff)

    if adjusted_expected_loss is None:
        adjusted = el
    else:
        adjusted = [
            float(a) * (e / u) if u > 0 else e for a, e, u in zip(adjusted_expected_loss, el, el_alone)
        ]
    capital = [c - e for c, e in zip(co_tvar, el)]
    measure = f"TVaR{level * 100:g}"
    premium, parts = package_premium(
        adjusted, [params.uncertainty_multiplier * float(c) for c in contributions], capital, most, params, measure
    )
    figures = []
    for i, c in enumerate(covers):
        var_alone, tvar_alone = _alone_tails(capped.uncapped[i], n_eff, level)
        var99 = var_alone if level == 0.99 else _alone_tails(capped.uncapped[i], n_eff, 0.99)[0]
        figures.append(
            PackageCoverFigures(
                cover_id=c.cover_id,
                index_code=c.index_code,
                line_item=owner[i],
                expected_loss=el[i],
                uncapped_expected_loss=el_alone[i],
                probability_of_attachment=float(capped.idx[i].size) / n_eff,
                var_99=var99,
                co_tvar=co_tvar[i],
                stand_alone_capital=tvar_alone - el_alone[i],
                premium=parts[i],
            )
        )
    lines = tuple(
        PackageLineFigures(
            cap=float(item.cap),
            expected_loss=float(capped.line_totals[j].mean()),
            gross_premium=sum(p.gross_premium for p, o in zip(parts, owner) if o == j),
        )
        for j, item in enumerate(line_items)
    )
    return PackagePricing(
        total=total,
        uncapped_expected_loss=sum(el_alone),
        total_sum_insured=most,
        band_low=band_low,
        band_high=band_high,
        parameter_sd=sd,
        band_method=(
            f"sampling: bootstrap over the calibration years, {len(replicate_totals)} replicates x {BOOTSTRAP_PATHS} "
            f"paths (seed {BOOTSTRAP_SEED}), {BAND[0]:.0%}-{BAND[1]:.0%} percentiles"
            + "".join(f"; {k} at its 5 % and 95 % points" for k in ends)
            + "; line-item caps applied in each; drivers added in quadrature, each allocated to the covers by Euler"
        ),
        capital_level=level,
        premium=premium,
        covers=tuple(figures),
        line_items=lines,
        loss=loss_summary(capped.total, most),
        n_paths=n_eff,
        seed=int(seed),
        method=sample.method,
        model_version=model.model_version,
        data_hash=model.data_hash,
    )
