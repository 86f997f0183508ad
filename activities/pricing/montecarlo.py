"""Monte Carlo engine: simulate index paths of one target and price covers jointly.

Paths. One run draws ``N`` paths in ``batches`` independent batches (see
:mod:`.sampling`). Each path holds the normal scores of every calendar month of the union
of the covers' risk periods: rainfall (Gaussian copula, :mod:`.rainfall`), and when wind
or temperature covers are present, one independent score per month for each. Every cover
on the target reads the same paths, so covers are dependent exactly as the model says
(excess and deficit on the same month are mutually exclusive, monthly covers share the
month-to-month correlation, the hotel cover follows its month's total).

Metrics per cover and for the sum of the covers (money): expected loss EL = mean payout
(the risk premium); its standard error (``sobol``: sd of the batch means / sqrt(batches);
``antithetic``: sd of the antithetic pair means / sqrt(pairs); ``mc``: sd / sqrt(N));
standard deviation; P(attach) = P(payout > 0); P(exhaust) = P(payout >= limit); with
``k = floor(N (1 - a))``, TVaR_a = mean of the k largest payouts (expected shortfall,
Acerbi & Tasche 2002) and VaR_a = the largest payout not among them (the ceil(aN)-th order
statistic when aN is an integer), for a = 99 % and 99.5 %. Gross premium = EL / ELR.

Reproducibility: the numbers are a deterministic function of (site model, covers, N, seed,
method, batches) on a given platform and library versions; chunking and thread counts do
not enter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import numpy as np

from models.domain.index_catalog import BY_CODE
from models.domain.payout import days_payout, linear_payout_in_place

from .payouts import linear_payout
from .periods import MonthSlot, month_slots, union_slots
from .results import CoverPricing, PortfolioPricing, TailMetrics, money
from .sampling import (
    BLOCK_ROWS,
    MIRRORED,
    BatchStreams,
    UniformSource,
    batch_streams,
    children,
    chunk_sizes,
)
from .site import SiteModel
from .terms import CoverTerms
from .threads import in_threads

DEFAULT_N = 1 << 17  # 131,072 paths: SE <= 1 % of EL for 1-in-10 covers (see bench)
DEFAULT_BATCHES = 16
DEFAULT_METHOD = "sobol"
DEFAULT_ELR = 0.65
TAIL_LEVELS = (0.99, 0.995)
CHUNK_ROWS = 1 << 16  # rows evaluated together: amortises per-cover call overhead
_MARGIN_CELLS = 2  # widen z-space candidate sets by this many table cells (float safety)


@dataclass(frozen=True, slots=True)
class _Piece:
    slot: int  # index into the run's union slots
    fraction: float
    first_day: int
    last_day: int
    month: int


@dataclass(frozen=True, eq=False)
class _Request:
    """One index to evaluate on every path (a cover, or a bare index for simulate_index)."""

    code: str
    kind: str  # RAIN_SUM | WIND_MAX | TEMP_MAX | DAILY_COUNT
    pieces: tuple[_Piece, ...]
    hours: tuple[int, int] | None


def _kind(code: str) -> str:
    spec = BY_CODE[code]
    if spec.aggregation == "DAILY_COUNT":
        return "DAILY_COUNT"
    if spec.risk_type_id == "RAINFALL":
        return "RAIN_SUM"
    if spec.risk_type_id == "WIND":
        return "WIND_MAX"
    if spec.risk_type_id == "TEMPERATURE":
        return "TEMP_MAX"
    raise ValueError(f"index {code} has no model")


class _Plan:
    """Layout of one run: month slots, normal-score columns, copula factor."""

    def __init__(self, model: SiteModel, periods: list[tuple[str, date, date]]):
        self.model = model
        self.slots: tuple[MonthSlot, ...] = union_slots([(s, e) for _, s, e in periods])
        first = self.slots[0]
        pos = {s.index: i for i, s in enumerate(self.slots)}
        self.requests: list[_Request] = []
        for code, start, end in periods:
            pieces = tuple(
                _Piece(pos[s.index], s.fraction, s.first_day, s.last_day, s.month)
                for s in month_slots(start, end)
            )
            self.requests.append(_Request(code, _kind(code), pieces, BY_CODE[code].hours))
        kinds = {r.kind for r in self.requests}
        k = len(self.slots)
        self.k = k
        self.need_rain = bool(kinds & {"RAIN_SUM", "DAILY_COUNT"})
        self.rain_off = 0
        d = k if self.need_rain else 0
        self.wind_off = d
        d += k if "WIND_MAX" in kinds else 0
        self.temp_off = d
        d += k if "TEMP_MAX" in kinds else 0
        self.dim = d
        self.chol = None
        # each slot's rainfall level in its own year (the trend projection, .rainfall)
        self.rain_level = [model.rain.level(s.month, s.year) for s in self.slots]
        if self.need_rain:
            slot_months = tuple((s.year - first.year, s.month) for s in self.slots)
            self.chol = model.rain.cholesky(slot_months)
        self.hourly_slots = sorted(
            {p.slot for r in self.requests if r.kind == "DAILY_COUNT" for p in r.pieces}
        )


def _mix(g: np.ndarray, lch: np.ndarray) -> np.ndarray:
    """Correlated scores ``Z = L G``: (k, rows) from i.i.d. normals ``g`` (rows, k).

    Explicit lower-triangular sums in a fixed order (no BLAS: its threading makes small
    products slow and its summation order may depend on the thread count), in cache blocks,
    in float32 like the scores.
    """
    rows, k = g.shape
    lch = lch.astype(np.float32)
    z = np.empty((k, rows), dtype=np.float32)
    tmp = np.empty(BLOCK_ROWS, dtype=np.float32)
    for s in range(0, rows, BLOCK_ROWS):
        e = min(s + BLOCK_ROWS, rows)
        gt = np.ascontiguousarray(g[s:e].T)
        t = tmp[: e - s]
        for j in range(k):
            zj = z[j, s:e]
            np.multiply(gt[0], lch[j, 0], out=zj)
            for i in range(1, j + 1):
                np.multiply(gt[i], lch[j, i], out=t)
                zj += t
    return z


class _ChunkState:
    """Per-chunk simulated quantities, computed on demand (deterministically)."""

    def __init__(self, plan: _Plan, pieces, mirrored: bool, hourly_rngs, uniforms: dict | None = None):
        """``pieces``: (batch, first row in chunk, rows, draws) in row order; ``draws`` is
        G (rows/2 x dim) of a mirrored piece [G; -G], else the whole piece. ``uniforms``:
        the run's ``draws`` cache, where the hourly model keeps its uniforms too."""
        self.plan = plan
        self.rows = sum(p[2] for p in pieces)
        self._x: dict[int, np.ndarray] = {}
        self._daily: dict[tuple[int, tuple[int, int]], np.ndarray] = {}
        self._halves = [p[3] for p in pieces]
        self._mirrored = mirrored
        self._g: np.ndarray | None = None
        if plan.need_rain:
            k = plan.k
            halves = self._halves
            gh = halves[0] if len(halves) == 1 else np.concatenate(halves)
            zh = _mix(gh[:, plan.rain_off : plan.rain_off + k], plan.chol)
            if mirrored:
                # Z = L G is linear: mix the halves once and mirror the scores
                parts, s0 = [], 0
                for h in halves:
                    blk = zh[:, s0 : s0 + h.shape[0]]
                    parts += [blk, -blk]
                    s0 += h.shape[0]
                zh = np.concatenate(parts, axis=1)
            self.z = zh
        # hourly paths in slot order, each slot from its own stream: results do not depend
        # on the order (or presence) of other covers
        for s in plan.hourly_slots:
            windows = tuple(
                sorted(
                    {
                        r.hours
                        for r in plan.requests
                        if r.kind == "DAILY_COUNT" and any(p.slot == s for p in r.pieces)
                    }
                )
            )
            totals = self.rain(s)

            def batch(run: list[tuple[int, int, int]], s: int = s, windows=windows, totals=totals):
                # a batch's pieces in order: they draw from the batch's generator one after another
                return lambda: [
                    plan.model.hourly.simulate_daily_windows(
                        totals[r0 : r0 + rows], plan.slots[s].days_in_month, windows, hourly_rngs[b][s],
                        month=plan.slots[s].month, uniforms=uniforms,
                    )
                    for b, r0, rows in run
                ]

            runs: list[list[tuple[int, int, int]]] = []
            for b, r0, rows, _ in pieces:
                if runs and runs[-1][0][0] == b:
                    runs[-1].append((b, r0, rows))
                else:
                    runs.append([(b, r0, rows)])
            # batches draw from generators of their own: on the pricing's threads (.threads)
            parts = [part for done in in_threads([batch(run) for run in runs]) for part in done]
            for i, w in enumerate(windows):
                self._daily[(s, w)] = np.concatenate([p[i] for p in parts]) if len(parts) > 1 else parts[0][i]

    @property
    def g(self) -> np.ndarray:
        """All i.i.d. normal columns of the chunk (rows, dim), built when first needed."""
        if self._g is None:
            h = self._halves
            if self._mirrored:
                self._g = np.concatenate([x for a in h for x in (a, -a)])
            else:
                self._g = h[0] if len(h) == 1 else np.concatenate(h)
        return self._g

    def rain(self, slot: int) -> np.ndarray:
        """Full-month rainfall totals (mm) of ``slot``."""
        x = self._x.get(slot)
        if x is None:
            month = self.plan.slots[slot].month
            x = self._x[slot] = self.plan.model.rain.table(month)(self.z[slot])
            level = self.plan.rain_level[slot]
            if level != 1.0:
                x *= level
        return x

    def partial_rain(self, piece: _Piece) -> np.ndarray:
        """Rainfall (mm) over the covered days of a partial-month piece: the partial margin's
        quantile at the month's score (the time-scale law of :mod:`.rainfall`)."""
        x = self.plan.model.rain.table(piece.month, piece.fraction)(self.z[piece.slot])
        level = self.plan.rain_level[piece.slot]
        if level != 1.0:
            x *= level
        return x

    def wind(self, piece: _Piece) -> np.ndarray:
        z = self.g[:, self.plan.wind_off + piece.slot]
        return self.plan.model.wind.quantile_from_normal(piece.month, z, piece.fraction)

    def temp(self, piece: _Piece) -> np.ndarray:
        z = self.g[:, self.plan.temp_off + piece.slot]
        year = self.plan.slots[piece.slot].year
        return self.plan.model.temperature.quantile_from_normal(piece.month, z, piece.fraction, year)

    def daily(self, piece: _Piece, hours: tuple[int, int]) -> np.ndarray:
        """Daily index (mm) of the covered days of ``piece``: (rows, days)."""
        return self._daily[(piece.slot, hours)][:, piece.first_day - 1 : piece.last_day]

    def index(self, req: _Request) -> np.ndarray:
        """The request's index on every path of the chunk."""
        if req.kind == "RAIN_SUM":
            out = np.zeros(self.rows)
            for p in req.pieces:
                out += self.rain(p.slot) if p.fraction == 1.0 else self.partial_rain(p)
            return out
        if req.kind == "WIND_MAX":
            return np.max([self.wind(p) for p in req.pieces], axis=0)
        if req.kind == "TEMP_MAX":
            return np.max([self.temp(p) for p in req.pieces], axis=0)
        return np.concatenate([self.daily(p, req.hours) for p in req.pieces], axis=1)


class _CoverEval:
    """Payout evaluation of one cover on a chunk, with a z-space shortcut for one-month
    rainfall covers (only paths that can reach the trigger are transformed)."""

    def __init__(self, plan: _Plan, req: _Request, terms: CoverTerms):
        self.req = req
        self.direction = terms.resolved_direction
        self.trigger = float(terms.trigger)
        self.exit = None if terms.exit is None else float(terms.exit)
        self.ppu = float(terms.payout_per_unit)
        self.limit = float(terms.limit)
        self.min_payout = float(terms.min_payout)
        self.z_cut = None
        if req.kind == "RAIN_SUM" and len(req.pieces) == 1:
            p = req.pieces[0]
            table = plan.model.rain.table(p.month, p.fraction)
            self.level = plan.rain_level[p.slot]
            y = self.trigger / self.level
            margin = _MARGIN_CELLS / table.inv_dx
            if self.direction == "ABOVE":
                self.z_cut = ("ge", table.lower_bound(y) - margin)
            else:
                self.z_cut = ("le", table.upper_bound(y) + margin)

    def _linear(self, x: np.ndarray) -> np.ndarray:
        return linear_payout(
            x,
            direction=self.direction,
            trigger=self.trigger,
            payout_per_unit=self.ppu,
            limit=self.limit,
            min_payout=self.min_payout,
            exit=self.exit,
        )

    def _fast_linear(self, x: np.ndarray) -> np.ndarray:
        # the rule's in-place variant: x is a fresh candidate subset, never NaN here
        return linear_payout_in_place(
            x,
            direction=self.direction,
            trigger=self.trigger,
            payout_per_unit=self.ppu,
            limit=self.limit,
            min_payout=self.min_payout,
            exit=self.exit,
        )

    def payouts(self, st: _ChunkState) -> tuple[np.ndarray, np.ndarray]:
        """(row indices within the chunk, payouts) of the chunk's paths with payout > 0."""
        req = self.req
        if self.z_cut is not None:
            p = req.pieces[0]
            z = st.z[p.slot]
            op, cut = self.z_cut
            idx = np.flatnonzero(z >= cut if op == "ge" else z <= cut)
            if not idx.size:
                return idx, np.empty(0)
            x = st.plan.model.rain.table(p.month, p.fraction)(z[idx])  # float64
            if self.level != 1.0:
                x *= self.level
            pay = self._fast_linear(x)
        elif req.kind == "DAILY_COUNT":
            n = (st.index(req) >= self.trigger).sum(axis=1)
            idx = np.flatnonzero(n)
            pay = days_payout(n[idx], payout_per_unit=self.ppu, limit=self.limit)
        else:
            pay = self._linear(st.index(req))
            idx = np.arange(pay.size)
        keep = pay > 0
        return idx[keep], pay[keep]


def _run(model: SiteModel, requests, n: int, seed: int, method: str, batches: int, sink, draws=None):
    """Drive batches and chunks; ``sink(plan, state, row_slice)`` consumes each chunk.

    ``draws`` (a dict, or None) keeps the standard-normal draws of a run by
    (method, dim, seed, batches, per_batch): runs that differ only by their model's
    parameters (the bootstrap replicates of :mod:`.uncertainty`) draw them once. The
    numbers are the same as without it; the cached arrays are read-only.

    Each batch's rows are drawn in pieces (``chunk_sizes``); consecutive pieces, possibly
    of several batches, are grouped into chunks of about ``CHUNK_ROWS`` rows, so small runs
    do not pay per-batch overhead. Rows keep the batch order: batch b owns rows
    ``[b * per_batch, (b + 1) * per_batch)``.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    if batches < 2:
        raise ValueError("batches must be >= 2 (error estimate)")
    plan = _Plan(model, requests)
    mirrored = method in MIRRORED
    per_batch = _per_batch(n, batches, method)
    sizes = chunk_sizes(per_batch)  # all even when per_batch is even (mirrored methods)
    streams: tuple[BatchStreams, ...] = batch_streams(seed, batches)
    layout: list[tuple[int, int, int]] = []
    group: list[tuple[int, int, int, np.ndarray]] = []  # (batch, first row, rows, draws)
    hourly: dict[int, dict[int, np.random.Generator]] = {}

    def flush():
        if not group:
            return
        r0 = group[0][1]
        pieces = [(b, r - r0, rows, g) for b, r, rows, g in group]
        st = _ChunkState(plan, pieces, mirrored, hourly, draws)
        sink(plan, st, slice(r0, r0 + st.rows))
        group.clear()

    key = (method, plan.dim, int(seed), batches, per_batch)
    drawn = None if draws is None else draws.get(key)
    fresh: list[np.ndarray] = []
    row = 0
    for b in range(batches):
        source = UniformSource(method, plan.dim, streams[b]) if drawn is None else None
        if plan.hourly_slots:
            kids = children(streams[b].hourly, plan.k)
            hourly[b] = {s: np.random.Generator(np.random.PCG64(kids[s])) for s in plan.hourly_slots}
        for rows in sizes:
            h = rows // 2 if mirrored else rows
            if drawn is not None:
                g = drawn[len(fresh)]
                fresh.append(g)
            else:
                g = source.half(h) if plan.dim else np.empty((h, 0), dtype=np.float32)
                g.flags.writeable = False
                fresh.append(g)
            if group and sum(x[2] for x in group) + rows > CHUNK_ROWS:
                flush()
            group.append((b, row, rows, g))
            layout.append((b, row, rows))
            row += rows
    flush()
    if draws is not None and drawn is None:
        draws[key] = fresh
    return plan, per_batch * batches, layout


def _per_batch(n: int, batches: int, method: str) -> int:
    per_batch = -(-n // batches)
    if method in MIRRORED and per_batch % 2:
        per_batch += 1
    return per_batch


def simulate_index(
    model: SiteModel,
    index_code: str,
    risk_start: date,
    risk_end: date,
    n: int,
    seed: int,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
    draws: dict | None = None,
) -> np.ndarray:
    """Simulated index over ``[risk_start, risk_end]`` (inclusive) on ``n`` paths.

    ``draws``: a cache of normal draws shared by calls with the same seed (see ``_run``).

    Returns shape (N,) in the index unit (mm, km/h, °C) for SUM/MAX indices, and (N, days)
    daily index values (mm between the definition's hours) for the daily-count index.
    N is ``n`` rounded up to a multiple of ``batches`` (``sobol`` and ``antithetic``: of
    2 * batches, for the mirrored pairs).
    """
    if index_code not in BY_CODE:
        raise ValueError(f"unknown index code {index_code!r}")
    parts: list[tuple[slice, np.ndarray]] = []

    def sink(plan, st, rows):
        parts.append((rows, st.index(plan.requests[0])))

    _run(model, [(index_code, risk_start, risk_end)], n, seed, method, batches, sink, draws)
    return np.concatenate([p for _, p in parts], axis=0)


@dataclass(frozen=True, eq=False)
class PayoutSample:
    """Simulated payouts (money) of covers on shared paths, stored sparsely.

    ``idx[i]``/``vals[i]``: the paths (global row numbers, ascending) where cover i pays,
    and the payouts there. Rows of batch b are ``[b * per_batch, (b + 1) * per_batch)``.
    """

    n: int
    per_batch: int
    batches: int
    method: str
    layout: tuple[tuple[int, int, int], ...]  # (batch, first row, rows) per chunk
    idx: tuple[np.ndarray, ...]
    vals: tuple[np.ndarray, ...]
    totals: np.ndarray | None = None  # sum over covers per path, when kept during the run

    def dense(self, i: int) -> np.ndarray:
        """Payout of cover ``i`` on every path, (N,)."""
        out = np.zeros(self.n)
        out[self.idx[i]] = self.vals[i]
        return out

    def total(self) -> np.ndarray:
        """Sum of the covers' payouts on every path, (N,) (summed in cover order)."""
        if self.totals is not None:
            return self.totals
        out = np.zeros(self.n)
        for j, v in zip(self.idx, self.vals):
            out[j] += v  # indices are unique within a cover
        return out


def simulate_payouts(
    model: SiteModel,
    covers: list[CoverTerms],
    n: int = DEFAULT_N,
    seed: int = 0,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
    progress: Callable[[int, int], None] | None = None,
    draws: dict | None = None,
) -> PayoutSample:
    """Simulate every cover's payout (money) on shared paths (see module docstring).

    ``draws``: a cache of the run's normal draws shared by runs with other parameters but
    the same seed (see ``_run``).

    ``progress(paths_done, paths_total)`` is called after each chunk (for heartbeats)."""
    if not covers:
        raise ValueError("no covers")
    requests = [(c.index_code, c.risk_start, c.risk_end) for c in covers]
    evals: list[_CoverEval] = []
    idx: list[list[np.ndarray]] = [[] for _ in covers]
    vals: list[list[np.ndarray]] = [[] for _ in covers]
    totals: list[np.ndarray] = []

    def sink(plan, st, rows):
        if not evals:
            evals.extend(_CoverEval(plan, r, c) for r, c in zip(plan.requests, covers))
        tot = np.zeros(st.rows)  # per-chunk sum over covers, in cover order (cache-friendly)
        for i, ev in enumerate(evals):
            j, v = ev.payouts(st)
            tot[j] += v
            idx[i].append(j + rows.start)
            vals[i].append(v)
        totals.append(tot)
        if progress is not None:
            progress(min(rows.stop, n), n)

    _, n_eff, layout = _run(model, requests, n, seed, method, batches, sink, draws)
    return PayoutSample(
        n=n_eff,
        per_batch=n_eff // batches,
        batches=batches,
        method=method,
        layout=tuple(layout),
        idx=tuple(np.concatenate(x) for x in idx),
        vals=tuple(np.concatenate(x) for x in vals),
        totals=np.concatenate(totals),
    )


def _tails(pos: np.ndarray, n: int) -> list[tuple[float, float]]:
    """(VaR_a, TVaR_a) for a in TAIL_LEVELS, of N payouts whose positive values are ``pos``.

    With k = floor(N (1 - a)): TVaR = mean of the k largest payouts, VaR = the largest
    payout not among them (module docstring). One partition serves every level.
    """
    ks = [int(math.floor(n * (1.0 - a) + 1e-9)) for a in TAIL_LEVELS]
    need = [k for k in ks if 1 <= k < pos.size]
    part = np.partition(pos, [pos.size - k - 1 for k in sorted(set(need), reverse=True)]) if need else pos
    out = []
    for k in ks:
        if k < 1:
            v = float(pos.max()) if pos.size else 0.0
            out.append((v, v))
        elif pos.size <= k:
            out.append((0.0, float(pos.sum()) / k))
        else:
            out.append((float(part[pos.size - k - 1]), float(part[pos.size - k :].mean())))
    return out


def _moments(sample: PayoutSample, i: int | None) -> tuple[np.ndarray, float, float, float]:
    """(positive payouts, mean, sd, standard error of the mean) of cover i or of the total."""
    n, batches = sample.n, sample.batches
    if i is None:
        dense = sample.total()
        pos = dense[dense > 0]
    else:
        dense = None
        pos = sample.vals[i]
    el = float(pos.sum()) / n
    ss = float(((pos - el) ** 2).sum()) + (n - pos.size) * el * el
    sd = math.sqrt(ss / (n - 1)) if n > 1 else 0.0
    if sample.method == "sobol":
        if dense is not None:
            bm = dense.reshape(batches, -1).mean(axis=1)
        else:
            # idx is ascending: batch b's payouts are a contiguous run of vals
            cuts = np.searchsorted(sample.idx[i], np.arange(batches + 1) * sample.per_batch)
            bm = np.array([pos[a:b].sum() for a, b in zip(cuts[:-1], cuts[1:])]) / sample.per_batch
        se = float(bm.std(ddof=1) / math.sqrt(batches))
    elif sample.method == "antithetic":
        p = dense if dense is not None else sample.dense(i)
        pm = np.concatenate(
            [(p[r0 : r0 + rows // 2] + p[r0 + rows // 2 : r0 + rows]) / 2 for _, r0, rows in sample.layout]
        )
        se = float(pm.std(ddof=1) / math.sqrt(pm.size))
    else:
        se = sd / math.sqrt(n)
    return pos, el, sd, se


def estimate(sample: PayoutSample, i: int | None = None) -> tuple[float, float]:
    """(expected payout, its Monte Carlo standard error) of cover ``i`` or of the total, money."""
    _, el, _, se = _moments(sample, i)
    return el, se


def _metrics(sample: PayoutSample, i: int | None, limit: float) -> TailMetrics:
    """Metrics of cover ``i`` (or of the total when ``i`` is None)."""
    n = sample.n
    pos, el, sd, se = _moments(sample, i)
    iid = sd / math.sqrt(n)
    (v99, t99), (v995, t995) = _tails(pos, n)
    return TailMetrics(
        expected_loss=money(el),
        expected_loss_se=money(se),
        relative_se=se / el if el > 0 else 0.0,
        iid_se=money(iid),
        variance_reduction=(iid / se) ** 2 if se > 0 else 1.0,
        std_dev=money(sd),
        prob_attach=float(pos.size) / n,
        prob_exhaust=float(np.count_nonzero(pos >= limit * (1 - 1e-12))) / n,
        var_99=money(v99),
        tvar_99=money(t99),
        var_995=money(v995),
        tvar_995=money(t995),
    )


def price_covers(
    model: SiteModel,
    covers: list[CoverTerms],
    n: int = DEFAULT_N,
    seed: int = 0,
    expected_loss_ratio: float = DEFAULT_ELR,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
    progress: Callable[[int, int], None] | None = None,
) -> PortfolioPricing:
    """Price covers on one target jointly on shared paths (see module docstring).

    ``n``: paths (rounded up to a multiple of ``batches``); ``seed``: any int;
    ``expected_loss_ratio``: default ELR for covers without their own (dimensionless);
    ``progress(paths_done, paths_total)``: called after each chunk.
    """
    if not (0 < expected_loss_ratio <= 1):
        raise ValueError("expected_loss_ratio must be in (0, 1]")
    sample = simulate_payouts(model, covers, n, seed, method, batches, progress)
    return price_sample(model, covers, sample, seed, expected_loss_ratio)


def price_sample(
    model: SiteModel,
    covers: list[CoverTerms],
    sample: PayoutSample,
    seed: int,
    expected_loss_ratio: float = DEFAULT_ELR,
) -> PortfolioPricing:
    """The pricing of covers from their simulated payouts (:func:`simulate_payouts`)."""
    method, batches = sample.method, sample.batches
    common = dict(
        n_paths=sample.n,
        seed=int(seed),
        method=method,
        batches=batches,
        model_version=model.model_version,
        data_hash=model.data_hash,
    )
    priced = []
    gross = 0.0
    for i, c in enumerate(covers):
        m = _metrics(sample, i, float(c.limit))
        elr = c.expected_loss_ratio or expected_loss_ratio
        el = float(sample.vals[i].sum()) / sample.n
        gp = el / elr
        gross += gp
        priced.append(
            CoverPricing(
                cover_id=c.cover_id,
                index_code=c.index_code,
                direction=c.resolved_direction,
                risk_start=c.risk_start.isoformat(),
                risk_end=c.risk_end.isoformat(),
                trigger=float(c.trigger),
                exit=None if c.exit is None else float(c.exit),
                min_payout=c.min_payout,
                payout_per_unit=c.payout_per_unit,
                limit=c.limit,
                risk_premium=m.expected_loss,
                risk_premium_rate=el / float(c.limit),
                expected_loss_ratio=float(elr),
                gross_premium=money(gp),
                gross_premium_indication_rate=gp / float(c.limit),
                metrics=m,
                **common,
            )
        )
    total_limit = float(sum(c.limit for c in covers))
    agg = _metrics(sample, None, total_limit)
    site = model.site
    return PortfolioPricing(
        covers=tuple(priced),
        aggregate=agg,
        total_limit=money(total_limit),
        total_risk_premium=agg.expected_loss,
        total_gross_premium=money(gross),
        prob_any_attach=agg.prob_attach,
        district=site.normals_district or f"{site.normals_state} (state mean)",
        subdivision=site.subdivision,
        match_kind=site.match_kind,
        **common,
    )


def price_cover(
    model: SiteModel,
    cover: CoverTerms,
    n: int = DEFAULT_N,
    seed: int = 0,
    expected_loss_ratio: float = DEFAULT_ELR,
    method: str = DEFAULT_METHOD,
    batches: int = DEFAULT_BATCHES,
    progress: Callable[[int, int], None] | None = None,
) -> CoverPricing:
    """Price a single cover (same engine as :func:`price_covers`)."""
    return price_covers(model, [cover], n, seed, expected_loss_ratio, method, batches, progress).covers[0]
