"""Independent simulations of one pricing on the process's threads (issue 26, cold quotes).

A band's variants (bootstrap replicates, scale, trend and mapping ends) and a stay's main
simulation and replicates are independent given their inputs, and their numpy and scipy
work (quantile tables, random draws, whole-array operations) releases the GIL: on two
threads a lone cold quote uses the machine's second core, which a pricing process (one per
spare core, nice +10) otherwise leaves to the lifecycle and the API. Each job computes what
it computed alone, so the numbers do not depend on the threads (tests/pricing/
test_cold_quote_speed.py); shared caches are only added to, never iterated, while jobs run.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

# Threads of one pricing: two (the second core of a small machine), one on a single core.
THREADS = max(1, min(2, os.cpu_count() or 1))


_worker = threading.local()  # set in the pool's threads: jobs they run do not fan out again


def _mark_worker() -> None:
    _worker.busy = True


def in_threads(jobs: Sequence[Callable[[], T]], threads: int | None = None) -> list[T]:
    """Each job's result, in order. The first runs here, alone: it fills the caches of draws
    the others read (common random numbers); the rest run on ``threads`` threads. Called
    from one of those threads (a job that fans out again), every job runs here, in order."""
    threads = THREADS if threads is None else threads
    if not jobs:
        return []
    first = jobs[0]()
    if threads <= 1 or len(jobs) == 1 or getattr(_worker, "busy", False):
        return [first, *(job() for job in jobs[1:])]
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="pricing", initializer=_mark_worker) as pool:
        return [first, *pool.map(lambda job: job(), jobs[1:])]
