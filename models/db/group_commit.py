"""Group commit: the write jobs of concurrent tasks of one process joined into one
transaction, each inside a savepoint of its own.

Why: a month end starts a settlement per target and period at once, and each ends with one
write transaction. On SQLite a commit is a sync of the log, and the pages every settlement
touches (the same index pages of `parametric_event`, `payout`, `webhook_message`) were
written to the log once per transaction: 20 transactions took 2.4 s where one took 1.85 s
(bench/settlement.py, docs/settlement.md). Jobs that arrive while a transaction is open
join it, until `linger` seconds after it began; later ones go in the next transaction.

Expected arrivals (`expecting()`): a task that will submit a job soon (a settlement still
reading its data) says so. While jobs are expected, the writer keeps its transaction open,
runs each job as it arrives and commits once none is expected any more, or `linger`
seconds after the transaction began, whichever comes first. PostgreSQL's `commit_delay`
with `commit_siblings` is the same idea. A month end's 20 settlements then share one commit
instead of three: a commit is 60 ms and more on SQLite (the sync of the log, often a
checkpoint), on the critical path (docs/settlement.md, "A month end").
A task stops expecting when it submits its job, or when it takes a write transaction of its
own (`models.db.core.write_transaction` calls `stop_expecting()`): the lingering writer
holds the write lock, so waiting for that task would only stall both until `linger`.

What a job may rely on:
- it runs in a transaction (inside a savepoint); its writes are committed, or none of them
  is, before its caller gets its result;
- a job that raises is rolled back to its savepoint alone, its caller gets the exception,
  and the other jobs of the batch commit;
- if the commit itself fails, every caller of the batch gets the exception (nothing of the
  batch was written);
- it runs in the writer's task, not its caller's: it must not use the caller's context
  (an activity's heartbeat, say). Its caller's cancellation does not stop a job that has
  started; a job not started yet is dropped;
- its caller may wait for the commit until `linger` seconds after the transaction began,
  plus the jobs running then (other jobs joining the transaction).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

from piccolo.engine.finder import engine_finder

T = TypeVar("T")
Job = Callable[[], Awaitable[Any]]

LINGER = 1.0  # seconds a transaction stays open for expected jobs at most


def sqlite_in_use() -> bool:
    """Whether the engine in use (PICCOLO_CONF) is SQLite: the single writer jobs share."""
    return engine_finder().engine_type == "sqlite"


class GroupCommit:
    def __init__(
        self,
        transaction: Callable[[], Any],
        raw: Callable[[str], Awaitable[Any]],
        linger: float = LINGER,
        grouped: Callable[[], bool] = sqlite_in_use,
    ) -> None:
        """`transaction()`: an async context manager of a write transaction; `raw(sql)` runs
        a statement in it (the savepoints); `linger`: seconds a transaction waits for
        expected jobs at most; `grouped()`: whether jobs share transactions at all (asked
        once, at first use; otherwise each job commits alone, at once)."""
        self._transaction = transaction
        self._raw = raw
        self._linger = linger
        self._grouped_when = grouped
        self._grouped: bool | None = None
        self._queues: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop → _Queue
        self.batches = 0  # transactions committed (for tests and benchmarks)

    @property
    def grouped(self) -> bool:
        if self._grouped is None:
            self._grouped = bool(self._grouped_when())
        return self._grouped

    def _queue(self) -> "_Queue":
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _Queue()
        return queue

    @contextlib.contextmanager
    def expecting(self) -> Iterator["Expectation"]:
        """The current task will submit a job soon: a transaction being written waits for it
        (up to `linger`). Ends at the block's end, at `done()`, or when the task runs a job.
        Not grouped: nothing waits for it."""
        if not self.grouped:
            yield _NO_EXPECTATION
            return
        queue = self._queue()
        expectation = Expectation(queue)
        queue.expected += 1
        token = _current.set(expectation)
        try:
            yield expectation
        finally:
            _current.reset(token)
            expectation.done()

    async def run(self, job: Callable[[], Awaitable[T]]) -> T:
        if not self.grouped:  # a transaction of its own, committed at once
            async with self._transaction():
                value = await job()
            self.batches += 1
            return value
        loop = asyncio.get_running_loop()
        queue = self._queue()
        future: asyncio.Future = loop.create_future()
        queue.jobs.append((job, future))
        expectation = _current.get()
        if expectation is not None and expectation.queue is queue:
            expectation.done()  # after the append: a lingering writer sees the job, not a gap
        queue.changed.set()
        if queue.writer is None or queue.writer.done():
            # A context of its own: the writer serves every caller, it carries none of theirs
            # (an expectation, an activity, a transaction).
            queue.writer = loop.create_task(self._write(queue), context=contextvars.Context())
        return await future

    async def _write(self, queue: "_Queue") -> None:
        loop = asyncio.get_running_loop()
        while queue.jobs:
            # Taken off the queue before BEGIN: if BEGIN fails, these callers hear of it.
            pending, queue.jobs = [(j, f) for j, f in queue.jobs if not f.cancelled()], []
            if not pending:
                continue
            ran: list[tuple[asyncio.Future, bool, Any]] = []
            try:
                async with self._transaction():
                    closes_at = loop.time() + self._linger
                    while True:
                        while pending:
                            job, future = pending[0]
                            if not future.cancelled():
                                ok, value = await self._savepoint(len(ran), job)
                                ran.append((future, ok, value))
                            pending.pop(0)
                        if not await self._more_expected(queue, closes_at - loop.time()):
                            break
                        pending, queue.jobs = queue.jobs, []
            except BaseException as exc:  # the transaction failed: nothing of it is written
                failure = exc if isinstance(exc, Exception) else RuntimeError(f"the group write was interrupted: {exc!r}")
                # Every caller of the transaction: the jobs that ran, the one running, those not run yet.
                for future in [f for f, _, _ in ran] + [f for _, f in pending]:
                    if not future.done():
                        future.set_exception(failure)
                if not isinstance(exc, Exception):
                    for _, future in queue.jobs:  # the writer is going away: no one would run these
                        if not future.done():
                            future.set_exception(failure)
                    queue.jobs = []
                    raise
                continue
            self.batches += 1
            for future, ok, value in ran:
                if future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

    async def _savepoint(self, i: int, job: Job) -> tuple[bool, Any]:
        """Run one job in a savepoint of its own: (True, its value) or (False, its exception),
        rolled back alone."""
        name = f"group_job_{i}"
        await self._raw(f"SAVEPOINT {name}")
        try:
            value = await job()
        except Exception as exc:  # noqa: BLE001 - handed to the job's caller
            await self._raw(f"ROLLBACK TO SAVEPOINT {name}")
            await self._raw(f"RELEASE SAVEPOINT {name}")
            return False, exc
        await self._raw(f"RELEASE SAVEPOINT {name}")
        return True, value

    @staticmethod
    async def _more_expected(queue: "_Queue", remaining: float) -> bool:
        """Whether the open transaction takes more jobs: it is within its linger
        (`remaining` seconds left) and some are queued, or some are expected and one
        arrives in time. Jobs queued past the linger go in the next transaction."""
        loop = asyncio.get_running_loop()
        while remaining > 0 and not queue.jobs:
            if queue.expected <= 0:
                return False
            queue.changed.clear()
            started = loop.time()
            try:
                await asyncio.wait_for(queue.changed.wait(), remaining)
            except asyncio.TimeoutError:
                return False
            remaining -= loop.time() - started
        return remaining > 0


class Expectation:
    """A task's word that a job of it is coming (see `GroupCommit.expecting`)."""

    __slots__ = ("queue", "_done")

    def __init__(self, queue: "_Queue") -> None:
        self.queue = queue
        self._done = False

    def done(self) -> None:
        """No job is coming from this task after all, or it is about to take a write
        transaction of its own (which a lingering writer would block)."""
        if not self._done:
            self._done = True
            self.queue.expected -= 1
            self.queue.changed.set()


class _NoExpectation:
    """What `expecting()` yields when jobs are not grouped: nothing to end."""

    __slots__ = ()

    def done(self) -> None:
        pass


_NO_EXPECTATION = _NoExpectation()


def stop_expecting() -> None:
    """End the current task's expectation, if it has one (it is about to write on its own)."""
    expectation = _current.get()
    if expectation is not None:
        expectation.done()


_current: contextvars.ContextVar[Expectation | None] = contextvars.ContextVar("group_commit_expectation", default=None)


class _Queue:
    __slots__ = ("jobs", "writer", "expected", "changed")

    def __init__(self) -> None:
        self.jobs: list[tuple[Job, asyncio.Future]] = []
        self.writer: asyncio.Task | None = None
        self.expected = 0  # tasks that said a job of theirs is coming
        self.changed = asyncio.Event()  # a job arrived or an expectation ended
