"""Random and quasi-random number plumbing: batches, fast inverse normal, lookup tables.

Every pricing run draws ``batches`` independent streams from ``numpy.random.SeedSequence(seed)``
(one child per batch), so a run is reproducible from (seed, N, method) alone and does not
depend on thread count or on how pieces are grouped for computation.

* ``sobol``: each batch is an independently scrambled Sobol' sequence (``scipy.stats.qmc.Sobol``,
  linear matrix scrambling plus digital shift) whose points are used with their reflections
  ``u -> 1 - u``. Batch means are i.i.d. and unbiased, so the standard error of the run is
  ``sd(batch means) / sqrt(batches)`` (randomised QMC, Owen 1997; L'Ecuyer & Lemieux 2002).
* ``antithetic``: pseudo-random normals ``G`` and their mirror ``-G``; the standard error
  comes from the i.i.d. pair means.
* ``mc``: plain pseudo-random normals; standard error from the path sample.
"""

from __future__ import annotations

import functools

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri
from scipy.stats import qmc

METHODS = ("sobol", "antithetic", "mc")
# Rows per draw of a batch ("piece"). Part of the reproducibility contract: the mirrored
# pairs and the hourly streams follow the pieces, so changing it changes the numbers
# (bump MODEL_VERSION). How pieces are grouped for computation (montecarlo.CHUNK_ROWS) and
# BLOCK_ROWS do not change any number.
PIECE_ROWS = 1 << 16
BLOCK_ROWS = 1 << 13  # rows per block of element-wise work: keeps the temporaries in cache


@dataclass(frozen=True, eq=False)
class UniformTable:
    """Piecewise-linear function tabulated on a uniform grid ``x0 + i / inv_dx``.

    Evaluation clamps to the grid's ends. ``values`` has G+1 points, ``slopes`` G.
    """

    x0: float
    inv_dx: float
    values: np.ndarray
    slopes: np.ndarray

    @classmethod
    def from_grid(cls, x0: float, x1: float, values: np.ndarray) -> "UniformTable":
        values = np.ascontiguousarray(values, dtype=np.float64)
        g = values.size - 1
        return cls(float(x0), g / (x1 - x0), values, np.diff(values))

    @property
    def size(self) -> int:
        return self.slopes.size

    def grid(self) -> np.ndarray:
        return self.x0 + np.arange(self.values.size) / self.inv_dx

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Interpolated values at ``x`` (float64 result for any float input)."""
        t = np.subtract(x, self.x0, dtype=np.float64)
        t *= self.inv_dx
        np.clip(t, 0.0, self.size * (1.0 - 1e-12), out=t)
        i = t.astype(np.intp)
        t -= i
        t *= self.slopes[i]
        t += self.values[i]
        return t

    def lower_bound(self, y: float) -> float:
        """Largest grid x with table(x') < y for every x' < x (table non-decreasing)."""
        i = int(np.searchsorted(self.values, y, side="left")) - 1
        return self.x0 + max(i, 0) / self.inv_dx if i >= 0 else -np.inf

    def upper_bound(self, y: float) -> float:
        """Smallest grid x with table(x') > y for every x' > x (table non-decreasing)."""
        i = int(np.searchsorted(self.values, y, side="right"))
        return self.x0 + min(i, self.size) / self.inv_dx if i <= self.size else np.inf


def _logit_normal_table() -> tuple[float, float, np.ndarray, np.ndarray]:
    # z as a function of t = logit(u) is smooth with bounded curvature, so a uniform grid
    # of 2^13 cells on [-40, 40] is accurate to < 1e-6 (float64) and, held in float32
    # (32 KiB per array), stays in cache. Returns (t0, cells per unit, values, slopes).
    t0, t1, g = -40.0, 40.0, 1 << 13
    t = np.linspace(t0, t1, g + 1)
    lo = ndtri(np.exp(t - np.logaddexp(0.0, t)))  # u = 1/(1+e^-t), accurate for t < 0
    hi = -ndtri(np.exp(-t - np.logaddexp(0.0, -t)))  # 1-u accurate for t > 0
    v = np.where(t < 0, lo, hi)
    return t0, g / (t1 - t0), v.astype(np.float32), np.diff(v).astype(np.float32)


_T0, _TSCALE, _TVAL, _TSLOPE = _logit_normal_table()
_TMAX = np.float32(_TVAL.size - 1 - 1e-3)


def norm_ppf(u: np.ndarray) -> np.ndarray:
    """Standard normal quantile of ``u`` as float32 (|error| < 1e-5; new array).

    z = table(logit u), evaluated in blocks of ``BLOCK_ROWS`` rows that stay in cache.
    Normal scores are carried in float32: their rounding (< 1e-5) is far below any
    Monte Carlo error; index values and payouts are computed in float64.
    """
    out = np.empty(u.shape, dtype=np.float32)
    t0, scale = np.float32(_T0), np.float32(_TSCALE)
    for s in range(0, u.shape[0], BLOCK_ROWS):
        blk = u[s : s + BLOCK_ROWS]
        t = out[s : s + BLOCK_ROWS]
        with np.errstate(divide="ignore"):
            np.subtract(1.0, blk, out=t, casting="same_kind")
            np.divide(blk, t, out=t, casting="same_kind")
            np.log(t, out=t)
        t -= t0
        t *= scale
        np.clip(t, 0, _TMAX, out=t)
        i = t.astype(np.int32)
        t -= i
        t *= _TSLOPE[i]
        t += _TVAL[i]
    return out


def chunk_sizes(n: int, chunk: int = PIECE_ROWS) -> list[int]:
    """Split a batch of ``n`` rows into pieces; the first is a power of two (Sobol' balance)."""
    if n <= 0:
        return []
    first = min(chunk, 1 << (n.bit_length() - 1))
    sizes = [first]
    rest = n - first
    while rest > 0:
        sizes.append(min(chunk, rest))
        rest -= sizes[-1]
    return sizes


@dataclass(frozen=True, slots=True)
class BatchStreams:
    """Seeds of one batch: the Sobol' scrambling / normal stream, and the hourly stream."""

    main: np.random.SeedSequence
    hourly: np.random.SeedSequence


@functools.lru_cache(maxsize=256)
def batch_streams(seed: int, batches: int) -> tuple[BatchStreams, ...]:
    """Independent child seeds per batch from ``SeedSequence(seed)``. Kept per process (a
    pricing runs dozens of simulations with one seed, and each SeedSequence hashes its
    entropy): read them with ``generate_state`` and :func:`children`, never ``spawn``, which
    would change what the next reader gets."""
    out = []
    for child in np.random.SeedSequence(int(seed)).spawn(batches):
        a, b = child.spawn(2)
        out.append(BatchStreams(a, b))
    return tuple(out)


def children(parent: np.random.SeedSequence, count: int) -> list[np.random.SeedSequence]:
    """``parent.spawn(count)`` of a sequence that has spawned nothing, without recording the
    spawn in ``parent`` (numpy's SeedSequence.spawn makes exactly these)."""
    if parent.n_children_spawned:
        raise ValueError("children() reads the first children of a sequence that has spawned none")
    return [
        np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, i), pool_size=parent.pool_size)
        for i in range(count)
    ]


MIRRORED = ("sobol", "antithetic")  # methods whose chunks are [G; -G]


class UniformSource:
    """Chunks of ``dim`` standard-normal columns (float32) for one batch.

    ``sobol``: normal scores of scrambled Sobol' points; ``antithetic`` and ``mc``: PCG64
    pseudo-random normals. For the mirrored methods (``sobol``, ``antithetic``) a chunk of
    ``rows`` rows is ``[G; -G]``, and :meth:`half` returns only ``G`` (rows / 2 rows): the
    reflection ``u -> 1 - u`` of a scrambled Sobol' point set is again a scrambled Sobol'
    point set, so each batch mean stays an unbiased estimate and batches stay independent.
    """

    def __init__(self, method: str, dim: int, streams: BatchStreams):
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
        self.method = method
        self.dim = dim
        self.mirrored = method in MIRRORED
        if method == "sobol":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=UserWarning)
                # an int seed (128 bits from the batch's SeedSequence) is cheaper for scipy
                # to keep than a Generator, which it deep-copies
                w = streams.main.generate_state(4, np.uint32)
                seed = int(w[0]) | int(w[1]) << 32 | int(w[2]) << 64 | int(w[3]) << 96
                self._sobol = qmc.Sobol(dim, scramble=True, rng=seed)
        else:
            self._rng = np.random.Generator(np.random.PCG64(streams.main))

    def half(self, rows: int) -> np.ndarray:
        """``G`` (rows, dim) of a mirrored chunk, or the whole chunk for ``mc``."""
        if self.method == "sobol":
            return norm_ppf(self._sobol.random(rows))
        return self._rng.standard_normal((rows, self.dim), dtype=np.float32)

    def normals(self, rows: int) -> np.ndarray:
        """The full chunk (rows, dim) of N(0,1) variates, float32."""
        if not self.mirrored:
            return self.half(rows)
        g = self.half(rows // 2)
        return np.concatenate([g, -g])
