"""The book's risk: every in-force line item simulated together (docs/portfolio.md).

A line item j of the book holds covers i (one unit each, payout ``X_i`` per path, money),
``q_j`` units of each, and pays at most its cap ``S_j``::

    L_j = min(q_j * sum_i X_i, S_j)        (models.domain.payout.line_item_payout)

**Within a target** the covers of every line item at that target are simulated together on
one set of paths (:func:`.montecarlo.simulate_payouts`): excess and deficit rainfall of one
month exclude each other, months share the copula's correlation, wind and heat are
independent of rain, exactly as a package is priced (:mod:`.quote_pricing`).

**Across targets** the pricing model has no dependence: each target's model is calibrated and
simulated on its own. The book's targets are therefore simulated *independently* (each with a
seed of its own, derived from the run's seed and the target id), which is what the model
says, and understates the tail when one monsoon hits several targets at once. The as-if
years below are the check on that: they apply one real year to every target together, so the
record's spatial correlation is in them.

**Year and occurrence.** A path is one realisation of the book's whole remaining term (the
months of its in-force line items; one year for a book of 12-month policies). Its aggregate
loss ``A = sum_j L_j``; its occurrence loss ``O`` is the largest loss of one *target-month*
on the path (the line items of one monitoring target whose period starts in one calendar
month): a monthly parametric cover has no event clock, and a target-month is the unit a
single weather spell damages and the unit settlement pays.

**Exceedance curves.** For return period T: loss = VaR at 1 - 1/T (the largest value not among
the k = floor(N / T) worst paths, as :func:`.quote_pricing.tail_weights`), TVaR = the mean of
those k worst. Standard errors by batch means: the engine's paths come in independent batches
(scrambled Sobol' sets) and batch b of every target is the same rows, so batch b of the book is
an independent replicate; each figure is estimated in each batch and its standard error is the
sd of the batch estimates / sqrt(batches) (conservative for quantiles: a batch has N / batches
paths). Floats (money, major units) here; the caller converts at the edge.

**As-if years.** Each year y of the record (:func:`.site.historical_index`, projected to the
model's level, the burn check's basis) applied to today's book: a cover whose period starts k
years after the book's first year reads year y + k. A cover pays by the exact rule
(``linear_payout_exact`` on the record's value as a Decimal), q units of it rounded half-even to
the minor unit as settlement rounds, and the line item pays at most its cap
(``line_item_payout``): exact money. A year is listed when every cover of the book that has a
record has a value in it; covers without a record here (heat, the hotel's hourly rain) pay
nothing in every year, their line items' other covers pay as the rule says (capped as ever), and
such line items are counted in ``unrecorded_line_items`` (paid in part, or not at all).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np

from models.domain.index_catalog import BY_CODE
from models.domain.money import minor_units
from models.domain.payout import count_payout_exact, line_item_payout, linear_payout_exact

from .montecarlo import DEFAULT_BATCHES, DEFAULT_METHOD, PayoutSample, simulate_payouts
from .site import SiteModel, historical_index
from .terms import CoverTerms

RETURN_PERIODS = (10, 25, 50, 100, 200, 250)
PORTFOLIO_PATHS = 1 << 16  # 65,536 paths: 262 paths beyond the 1-in-250 point
WORST_YEARS = 10


@dataclass(frozen=True, slots=True)
class BookLineItem:
    """One in-force line item: money exact (minor units of `currency`)."""

    policy_id: str
    covers: tuple[CoverTerms, ...]  # one unit each (limit etc. in major units)
    quantity: Decimal
    cap_minor: int  # S: the most it pays in all (total_sum_insured_minor)
    premium_minor: int
    period_start: date
    cover_premium_minor: tuple[int, ...] = ()  # its premium split over its covers (adds up to premium_minor)
    month: str = ""  # YYYY-MM of period_start (set from it)

    def __post_init__(self) -> None:
        if not self.month:
            object.__setattr__(self, "month", f"{self.period_start.year:04d}-{self.period_start.month:02d}")


@dataclass(frozen=True, eq=False)
class BookTarget:
    target_id: str
    model: SiteModel
    line_items: tuple[BookLineItem, ...]


@dataclass(frozen=True, slots=True)
class Total:
    """In-force totals of one slice of the book (target, month or peril)."""

    key: str
    insured_minor: int
    premium_minor: int
    expected_loss: float  # money, major units (Monte Carlo)
    expected_loss_se: float
    line_items: int


@dataclass(frozen=True, slots=True)
class CurvePoint:
    return_period: int
    loss: float  # VaR at 1 - 1/T, money
    tvar: float
    standard_error: float  # of loss
    tvar_standard_error: float


@dataclass(frozen=True, slots=True)
class AsIfYear:
    year: int
    loss_minor: int
    by_target_minor: tuple[tuple[str, int], ...]  # (target, minor), largest first, paying targets only


@dataclass(frozen=True, slots=True)
class BookRisk:
    currency: str
    insured_minor: int
    premium_minor: int
    expected_loss: float
    expected_loss_se: float
    by_target: tuple[Total, ...]
    by_month: tuple[Total, ...]
    by_peril: tuple[Total, ...]
    aep: tuple[CurvePoint, ...]
    oep: tuple[CurvePoint, ...]
    as_if_years: tuple[AsIfYear, ...]  # the worst WORST_YEARS
    as_if_year_count: int
    as_if_first_year: int | None
    as_if_last_year: int | None
    unrecorded_line_items: int
    n_paths: int
    batches: int
    seed: int
    method: str
    model_version: str
    data_hash: tuple[str, ...]
    aggregate: np.ndarray | None = field(default=None, repr=False)  # A per path (kept for callers)
    # each target's A_t per path (kept for a quote's capital against the book: docs/portfolio.md)
    target_paths: dict[str, np.ndarray] | None = field(default=None, repr=False)


def target_seed(seed: int, target_id: str) -> int:
    """A target's own seed: independent streams per target, the same for every run."""
    digest = hashlib.sha256(f"{seed}:{target_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def peril_of(cover: CoverTerms) -> str:
    return BY_CODE[cover.index_code].risk_type_id


def projected_record(model: SiteModel, cover: CoverTerms) -> dict[int, float]:
    """The cover's index in each year of the record, at the model's level (the burn check's)."""
    return historical_index(model, cover.index_code, cover.risk_start, cover.risk_end, projected=True)


# --- simulation -----------------------------------------------------------------------------------


@dataclass(eq=False)
class _TargetPaths:
    aggregate: np.ndarray  # A_t per path
    months: dict[str, np.ndarray]  # target-month loss per path
    perils: dict[str, np.ndarray]  # its line items' losses allocated to perils, per path


def simulate_target(
    target: BookTarget, n: int, seed: int, method: str = DEFAULT_METHOD, batches: int = DEFAULT_BATCHES,
    currency: str = "INR",
) -> tuple[_TargetPaths, int]:
    """Every line item of the target on one set of paths. Identical covers are simulated once
    and line items of the same covers, month and cap per unit evaluated once. (paths, N)."""
    (paths,), n_eff = simulate_target_parts(target.model, target.target_id, [target.line_items], n, seed, method,
                                            batches, currency)
    return paths, n_eff


def simulate_target_parts(
    model: SiteModel, target_id: str, parts: Sequence[Sequence[BookLineItem]], n: int, seed: int,
    method: str = DEFAULT_METHOD, batches: int = DEFAULT_BATCHES, currency: str = "INR",
) -> tuple[list[_TargetPaths], int]:
    """Several sets of line items at one target (the book's there and a new quote's) on the
    same paths, each set's losses apart. ([paths per set], N)."""
    unique: dict[CoverTerms, int] = {}
    seen: dict[int, tuple] = {}  # id(covers) -> (covers, their positions in `unique`): one hash per tuple object
    for items in parts:
        for item in items:
            kept = seen.get(id(item.covers))
            if kept is None or kept[0] is not item.covers:
                seen[id(item.covers)] = (item.covers, tuple(unique.setdefault(c, len(unique)) for c in item.covers))
    covers = list(unique)
    if not covers:
        raise ValueError(f"no covers at target {target_id}")
    sample = simulate_payouts(model, covers, n, target_seed(seed, target_id), method, batches)
    sample = decoupled(sample, target_seed(seed, f"{target_id}:rows"))
    sums: dict[tuple[int, ...], np.ndarray] = {}
    out = [_losses(items, seen, covers, sample, currency, sums) for items in parts]
    return out, sample.n


def decoupled(sample: PayoutSample, seed: int) -> PayoutSample:
    """The sample with its paths shuffled within each batch by a permutation of its own.

    Scrambled Sobol' sets of different seeds scramble one base sequence: row i of one target
    is not independent of row i of another (two targets' worst 1 % of paths met 0 times in 655
    where independence expects 6.5; issue 27's review), so summing targets row by row would
    give the book a dependence the model does not have. A random permutation of the rows of
    each batch (numpy's generator, seeded per target) makes the targets' paths independent,
    and each target keeps its points (its own estimates do not change) and its batches (the
    batch-means errors stay valid)."""
    rng = np.random.default_rng(seed)
    per = sample.per_batch
    moved = np.concatenate([b * per + rng.permutation(per) for b in range(sample.batches)])  # row r -> moved[r]
    idx, vals = [], []
    for rows, values in zip(sample.idx, sample.vals):
        new_rows = moved[rows]
        order = np.argsort(new_rows, kind="stable")
        idx.append(new_rows[order])
        vals.append(values[order])
    totals = None
    if sample.totals is not None:
        totals = np.empty_like(sample.totals)
        totals[moved] = sample.totals
    return dataclasses.replace(sample, idx=tuple(idx), vals=tuple(vals), totals=totals)


def _losses(line_items, seen, covers, sample, currency, sums) -> _TargetPaths:
    """The line items' losses on the sample's paths (by month and peril too)."""
    n_eff = sample.n
    # min(q s, S) = q min(s, S / q): line items of the same covers, month and cap per unit
    # (a tenant's line items: S / q is the covers' unit limit, whatever the sum insured) make
    # one group, its quantity the sum of theirs
    groups: dict[tuple, Decimal] = {}
    for item in line_items:
        key = (seen[id(item.covers)][1], Decimal(item.cap_minor) / item.quantity, item.month)
        groups[key] = groups.get(key, Decimal(0)) + item.quantity
    aggregate = np.zeros(n_eff)
    months: dict[str, np.ndarray] = {}
    perils: dict[str, np.ndarray] = {}
    scale = 10 ** minor_units(currency)
    for (ids, cap_per_unit, month), quantity in groups.items():
        raw = sums.get(ids)
        if raw is None:
            raw = np.zeros(n_eff)
            for i in ids:
                raw[sample.idx[i]] += sample.vals[i]
            sums[ids] = raw
        loss = np.minimum(raw, float(cap_per_unit) / scale)  # major units, as the engine's payouts
        loss *= float(quantity)
        aggregate += loss
        if month in months:
            months[month] += loss
        else:
            months[month] = loss.copy()
        kinds = {peril_of(covers[i]) for i in ids}
        if len(kinds) == 1:
            (p,) = kinds
            perils.setdefault(p, np.zeros(n_eff))
            perils[p] += loss
        else:  # pro rata to the covers' own payouts, as quote_pricing.cap_sample shares a cap
            factor = np.divide(loss, raw, out=np.zeros(n_eff), where=raw > 0)
            for i in ids:
                p = peril_of(covers[i])
                perils.setdefault(p, np.zeros(n_eff))
                perils[p][sample.idx[i]] += sample.vals[i] * factor[sample.idx[i]]
    return _TargetPaths(aggregate, months, perils)


def _batch_se(values: np.ndarray, batches: int, statistic) -> float:
    per = values.reshape(batches, -1)
    estimates = np.array([statistic(row) for row in per])
    return float(estimates.std(ddof=1) / math.sqrt(batches)) if batches > 1 else 0.0


def tail_at(values: np.ndarray, return_period: int) -> tuple[float, float]:
    """(VaR at 1 - 1/T, TVaR: the mean of the k = floor(N / T) largest values)."""
    n = values.size
    k = int(math.floor(n / return_period + 1e-9))
    if k < 1:
        raise ValueError(f"{n} paths are too few for a 1-in-{return_period} point")
    part = np.partition(values, n - k - 1) if k < n else np.sort(values)
    var = float(part[n - k - 1]) if k < n else float(values.min())
    tvar = float(part[n - k :].mean())
    return var, tvar


def curve(values: np.ndarray, batches: int, return_periods: Sequence[int] = RETURN_PERIODS) -> tuple[CurvePoint, ...]:
    """The exceedance curve of per-path losses at the return periods, with batch-means SEs."""
    out = []
    for t in return_periods:
        var, tvar = tail_at(values, t)
        out.append(CurvePoint(
            return_period=t,
            loss=var,
            tvar=tvar,
            standard_error=_batch_se(values, batches, lambda row, t=t: tail_at(row, t)[0]),
            tvar_standard_error=_batch_se(values, batches, lambda row, t=t: tail_at(row, t)[1]),
        ))
    return tuple(out)


def _mean_se(values: np.ndarray, batches: int) -> tuple[float, float]:
    return float(values.mean()), _batch_se(values, batches, np.mean)


# --- the book ---------------------------------------------------------------------------------------


def simulate_book(
    targets: Sequence[BookTarget],
    currency: str = "INR",
    n: int = PORTFOLIO_PATHS,
    seed: int = 0,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
    return_periods: Sequence[int] = RETURN_PERIODS,
    keep_paths: bool = False,
    as_if: bool = True,
    record=projected_record,
    keep_target_paths: bool = False,
) -> BookRisk:
    """The book's risk (module docstring). Targets without line items are ignored; money
    of line items in minor units of `currency`; the result's floats in its major units."""
    targets = [t for t in targets if t.line_items]
    aggregate = occurrence = None
    n_eff = 0
    by_target: list[Total] = []
    kept_targets: dict[str, np.ndarray] = {}
    month_paths: dict[str, np.ndarray] = {}
    peril_paths: dict[str, np.ndarray] = {}
    for target in sorted(targets, key=lambda t: t.target_id):
        paths, n_eff = simulate_target(target, n, seed, method, batches, currency)
        if aggregate is None:
            aggregate, occurrence = np.zeros(n_eff), np.zeros(n_eff)
        aggregate += paths.aggregate
        if keep_target_paths:
            kept_targets[target.target_id] = paths.aggregate
        for month, loss in paths.months.items():
            np.maximum(occurrence, loss, out=occurrence)
            if month in month_paths:
                month_paths[month] += loss
            else:
                month_paths[month] = loss.copy()
        for peril, loss in paths.perils.items():
            if peril in peril_paths:
                peril_paths[peril] += loss
            else:
                peril_paths[peril] = loss
        el, se = _mean_se(paths.aggregate, batches)
        items = target.line_items
        by_target.append(Total(target.target_id, sum(i.cap_minor for i in items), sum(i.premium_minor for i in items),
                               el, se, len(items)))
    if aggregate is None:
        raise ValueError("the book has no line items")
    every = [i for t in targets for i in t.line_items]
    month_sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # insured, premium, line items
    peril_sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    quantum = Decimal(1).scaleb(-minor_units(currency))
    perils_by_covers: dict[int, tuple] = {}  # id(covers) -> (covers, [(peril, positions, unit limits)])
    for item in every:
        m = month_sums[item.month]
        m[0] += item.cap_minor
        m[1] += item.premium_minor
        m[2] += 1
        kept = perils_by_covers.get(id(item.covers))
        if kept is None or kept[0] is not item.covers:
            by: dict[str, list[int]] = defaultdict(list)
            for k, c in enumerate(item.covers):
                by[peril_of(c)].append(k)
            kept = perils_by_covers[id(item.covers)] = (
                item.covers, [(p, ks, sum(item.covers[k].limit for k in ks)) for p, ks in by.items()])
        for peril, ks, unit_limits in kept[1]:
            most = int((unit_limits * item.quantity).quantize(quantum, rounding=ROUND_HALF_EVEN).scaleb(-quantum.as_tuple().exponent))
            t = peril_sums[peril]
            t[0] += min(most, item.cap_minor)
            if item.cover_premium_minor:
                t[1] += sum(item.cover_premium_minor[k] for k in ks)
            elif len(ks) == len(item.covers):
                t[1] += item.premium_minor
            t[2] += 1
    by_month = []
    for month in sorted(month_paths):
        el, se = _mean_se(month_paths[month], batches)
        insured, premium, count = month_sums[month]
        by_month.append(Total(month, insured, premium, el, se, count))
    by_peril = []
    for peril in sorted(peril_paths):
        el, se = _mean_se(peril_paths[peril], batches)
        insured, premium, count = peril_sums[peril]
        by_peril.append(Total(peril, insured, premium, el, se, count))
    el, se = _mean_se(aggregate, batches)
    years = as_if_years(targets, currency, record=record) if as_if else AsIfResult((), 0, None, None, 0)
    return BookRisk(
        currency=currency,
        insured_minor=sum(i.cap_minor for i in every),
        premium_minor=sum(i.premium_minor for i in every),
        expected_loss=el,
        expected_loss_se=se,
        by_target=tuple(by_target),
        by_month=tuple(by_month),
        by_peril=tuple(by_peril),
        aep=curve(aggregate, batches, return_periods),
        oep=curve(occurrence, batches, return_periods),
        as_if_years=years.worst,
        as_if_year_count=years.count,
        as_if_first_year=years.first,
        as_if_last_year=years.last,
        unrecorded_line_items=years.unrecorded,
        n_paths=n_eff,
        batches=batches,
        seed=int(seed),
        method=method,
        model_version=targets[0].model.model_version,
        data_hash=tuple(sorted({t.model.data_hash for t in targets})),
        aggregate=aggregate if keep_paths else None,
        target_paths=kept_targets if keep_target_paths else None,
    )


# --- as-if years ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AsIfResult:
    worst: tuple[AsIfYear, ...]
    count: int
    first: int | None
    last: int | None
    unrecorded: int


def _exact(value: float) -> Decimal:
    return Decimal(repr(float(value)))


def cover_pays_exact(cover: CoverTerms, value: float) -> Decimal:
    """What one unit of the cover pays for an index value, by the exact rule (major units)."""
    if cover.is_daily_count:
        return count_payout_exact(int(value), payout_per_unit=cover.payout_per_unit, limit=cover.limit)
    return linear_payout_exact(
        _exact(value),
        direction=cover.resolved_direction,
        trigger=_exact(cover.trigger),
        payout_per_unit=cover.payout_per_unit,
        limit=cover.limit,
        min_payout=cover.min_payout,
        exit=None if cover.exit is None else _exact(cover.exit),
    )


def line_item_pays_exact(item: BookLineItem, per_unit: Sequence[Decimal], currency: str) -> int:
    """A line item's payout (minor units) for its covers' per-unit payouts: each cover's q
    units rounded half-even to the minor unit, as settlement pays them (``round_payout``),
    their sum capped at S (``line_item_payout``)."""
    decimals = minor_units(currency)
    quantum = _QUANTA.get(decimals) or _QUANTA.setdefault(decimals, Decimal(1).scaleb(-decimals))
    amounts = [(p * item.quantity).quantize(quantum, rounding=ROUND_HALF_EVEN) for p in per_unit]
    paid = line_item_payout(amounts, Decimal(item.cap_minor).scaleb(-decimals))
    return int(paid.scaleb(decimals))  # exact: a sum of amounts of the minor unit, or the cap


_QUANTA: dict[int, Decimal] = {}


def as_if_years(
    targets: Sequence[BookTarget], currency: str = "INR", worst: int = WORST_YEARS, record=projected_record
) -> AsIfResult:
    """Every year of the record applied to today's book (module docstring). ``record(model,
    cover)``: the cover's index value per year its period starts in ({} when none)."""
    base = min(i.period_start.year for t in targets for i in t.line_items)
    records: dict[tuple[str, CoverTerms], dict[int, float]] = {}
    unrecorded = 0
    usable: list[tuple[BookTarget, BookLineItem]] = []
    for t in targets:
        for item in t.line_items:
            recorded = 0
            for c in item.covers:
                key = (t.target_id, c)
                if key not in records:
                    hist = record(t.model, c)
                    shift = c.risk_start.year - base
                    records[key] = {y - shift: v for y, v in hist.items()}  # keyed by the book's year
                recorded += bool(records[key])
            if recorded:  # its recorded covers pay in the years (the others pay nothing there)
                usable.append((t, item))
            if recorded < len(item.covers):
                unrecorded += 1
    if not usable:
        return AsIfResult((), 0, None, None, unrecorded)
    years = None
    for (tid, c), hist in records.items():
        if hist:
            years = set(hist) if years is None else years & set(hist)
    years = sorted(years or ())
    pays: dict[tuple[str, CoverTerms], dict[int, Decimal]] = {
        key: {y: cover_pays_exact(key[1], hist[y]) for y in years} for key, hist in records.items() if hist
    }
    groups: dict[tuple, dict[tuple, list]] = {}  # (target, covers) -> (q, S) -> [a line item, how many]
    for t, item in usable:
        same = groups.setdefault((t.target_id, item.covers), {})
        g = same.setdefault((item.quantity, item.cap_minor), [item, 0])
        g[1] += 1
    paid: dict[int, dict[str, int]] = {y: defaultdict(int) for y in years}
    nothing: dict[int, Decimal] = defaultdict(Decimal)  # a cover the record lacks
    for (tid, covers), members in groups.items():
        rows = [pays.get((tid, c), nothing) for c in covers]
        for y in years:
            per_unit = [r[y] for r in rows]
            if any(per_unit):
                paid[y][tid] += sum(count * line_item_pays_exact(item, per_unit, currency)
                                    for item, count in members.values())
    results = []
    for y in years:
        ranked = tuple(sorted(((k, v) for k, v in paid[y].items() if v), key=lambda kv: (-kv[1], kv[0])))
        results.append(AsIfYear(y, sum(v for _, v in ranked), ranked))
    results.sort(key=lambda r: (-r.loss_minor, r.year))
    return AsIfResult(tuple(results[:worst]), len(years), years[0] if years else None,
                      years[-1] if years else None, unrecorded)


# --- capital from the book --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuoteCapital:
    """A new quote's capital against the book (money, major units; docs/portfolio.md).

    With B the book's loss and Q the quote's on shared paths and a the capital level:
    ``capital`` = E[Q | B + Q in its 1 - a tail] - E[Q], the quote's Euler (co-TVaR) share of
    the capital TVaR_a(B + Q) - E[B + Q], what it is charged for; ``marginal_capital`` = that
    capital less the book's own, TVaR_a(B) - E[B] (the two agree for a quote small beside the
    book); ``stand_alone_capital`` = TVaR_a(Q) - E[Q], its capital priced alone (the package's
    today). TVaR is subadditive, so ``capital`` <= ``stand_alone_capital`` (up to ties at the
    VaR); it is near it when Q pays in the book's bad years (concentration) and near zero or
    below when it does not (diversification)."""

    level: float
    expected_loss: float
    capital: float
    capital_se: float  # batch means
    marginal_capital: float
    stand_alone_capital: float
    book_capital: float
    capital_load: float  # capital_cost_rate x capital
    n_paths: int
    share_se: float = 0.0  # of capital / stand_alone_capital, batch means

    @property
    def diversification(self) -> float:
        """The share of its stand-alone capital the book saves the quote (0: none)."""
        return 1.0 - self.capital / self.stand_alone_capital if self.stand_alone_capital > 0 else 0.0


def _co_tvar(total: np.ndarray, part: np.ndarray, level: float) -> float:
    from .quote_pricing import tail_weights

    _, _, w = tail_weights(total, level)
    return float((w * part).sum())


def _tvar(values: np.ndarray, level: float) -> float:
    from .quote_pricing import tail_weights

    return tail_weights(values, level)[1]


def quote_capital(book: Sequence[BookTarget], quote: BookTarget, **options) -> QuoteCapital:
    """The capital of `quote` (its line items at its target) as its contribution to the
    book's tail (:class:`QuoteCapital`). The quote's covers are simulated with the book's
    line items at its target on the same paths (the model's dependence there); the other
    targets as the book's run simulates them (independent of the quote's). ``options``:
    :func:`capital_against`'s (level, capital_cost_rate, currency, n, seed, method, batches)."""
    if not quote.line_items:
        raise ValueError("the quote has no line items")
    simulation = {"n": PORTFOLIO_PATHS, "seed": 0, "method": DEFAULT_METHOD, "batches": DEFAULT_BATCHES,
                  "currency": "INR"}
    simulation.update((k, v) for k, v in options.items() if k in simulation)
    others = None
    for target in sorted(book, key=lambda t: t.target_id):
        if target.target_id == quote.target_id or not target.line_items:
            continue
        paths, _ = simulate_target(target, **simulation)
        others = paths.aggregate if others is None else others + paths.aggregate
    here = next((t for t in book if t.target_id == quote.target_id), None)
    return capital_against(others, here.line_items if here is not None else (), quote, **options)


def capital_against(
    others: np.ndarray | None,
    here: Sequence[BookLineItem],
    quote: BookTarget,
    level: float = 0.99,
    capital_cost_rate: float = 0.06,
    currency: str = "INR",
    n: int = PORTFOLIO_PATHS,
    seed: int = 0,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
) -> QuoteCapital:
    """:func:`quote_capital` with the book's other targets already simulated: ``others`` is
    their aggregate loss per path (None: the book has nothing elsewhere), as the portfolio run
    stored it (its paths, seed, method and batches, which these must be); ``here`` the book's
    line items at the quote's target, simulated with the quote's on the same paths."""
    if not quote.line_items:
        raise ValueError("the quote has no line items")
    (at_book, at_quote), n_eff = simulate_target_parts(quote.model, quote.target_id, [here, quote.line_items], n,
                                                       seed, method, batches, currency)
    if others is not None and others.shape != at_book.aggregate.shape:
        raise ValueError(f"the book's stored paths ({others.size}) are not the quote's ({n_eff})")
    b = others
    b = at_book.aggregate if b is None else b + at_book.aggregate
    q = at_quote.aggregate
    total = b + q
    el = float(q.mean())
    capital = _co_tvar(total, q, level) - el
    per_b = total.reshape(batches, -1)
    per_q = q.reshape(batches, -1)
    estimates = np.array([_co_tvar(t, x, level) - float(x.mean()) for t, x in zip(per_b, per_q)])
    alone = np.array([_tvar(x, level) - float(x.mean()) for x in per_q])
    shares = np.divide(estimates, alone, out=np.ones_like(estimates), where=alone > 0)
    se = float(estimates.std(ddof=1) / math.sqrt(batches)) if batches > 1 else 0.0
    share_se = float(shares.std(ddof=1) / math.sqrt(batches)) if batches > 1 else 0.0
    book_capital = _tvar(b, level) - float(b.mean())
    return QuoteCapital(
        level=level,
        expected_loss=el,
        capital=capital,
        capital_se=se,
        marginal_capital=(_tvar(total, level) - float(total.mean())) - book_capital,
        stand_alone_capital=_tvar(q, level) - el,
        book_capital=book_capital,
        capital_load=capital_cost_rate * capital,
        n_paths=n_eff,
        share_se=share_se,
    )
