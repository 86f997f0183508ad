"""Group commit: the write jobs of concurrent tasks of one process joined into one
transaction, each inside a savepoint of its own.

Why: a month end starts a settlement per target and period at once, and each ends with one
write transaction. On SQLite a commit is a sync of the log, and the pages every settlement
touches (the same index pages of `parametric_event`, `payout`, `webhook_message`) were
written to the log once per transaction: 20 transactions took 2.4 s where one took 1.85 s
(bench/settlement.py, docs/settlement.md). Jobs that arrive while a batch is being written
are written together in the next one.

What a job may rely on:
- it runs in a transaction (inside a savepoint); its writes are committed, or none of them
  is, before its caller gets its result;
- a job that raises is rolled back to its savepoint alone, its caller gets the exception,
  and the other jobs of the batch commit;
- if the commit itself fails, every caller of the batch gets the exception (nothing of the
  batch was written);
- it runs in the writer's task, not its caller's: it must not use the caller's context
  (an activity's heartbeat, say). Its caller's cancellation does not stop a job that has
  started; a job not started yet is dropped.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
Job = Callable[[], Awaitable[Any]]


class GroupCommit:
    def __init__(self, transaction: Callable[[], Any], raw: Callable[[str], Awaitable[Any]]) -> None:
        """`transaction()`: an async context manager of a write transaction; `raw(sql)` runs
        a statement in it (the savepoints)."""
        self._transaction = transaction
        self._raw = raw
        self._queues: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop → _Queue
        self.batches = 0  # transactions committed (for tests and benchmarks)

    async def run(self, job: Callable[[], Awaitable[T]]) -> T:
        loop = asyncio.get_running_loop()
        queue = self._queues.get(loop)
        if queue is None:
            queue = self._queues[loop] = _Queue()
        future: asyncio.Future = loop.create_future()
        queue.jobs.append((job, future))
        if queue.writer is None or queue.writer.done():
            queue.writer = loop.create_task(self._write(queue))
        return await future

    async def _write(self, queue: "_Queue") -> None:
        while queue.jobs:
            batch, queue.jobs = queue.jobs, []
            batch = [(job, future) for job, future in batch if not future.cancelled()]
            if not batch:
                continue
            outcomes: list[tuple[bool, Any]] = []
            try:
                async with self._transaction():
                    for i, (job, _) in enumerate(batch):
                        name = f"group_job_{i}"
                        await self._raw(f"SAVEPOINT {name}")
                        try:
                            value = await job()
                        except Exception as exc:  # noqa: BLE001 - handed to the job's caller
                            await self._raw(f"ROLLBACK TO SAVEPOINT {name}")
                            await self._raw(f"RELEASE SAVEPOINT {name}")
                            outcomes.append((False, exc))
                        else:
                            await self._raw(f"RELEASE SAVEPOINT {name}")
                            outcomes.append((True, value))
            except BaseException as exc:  # the transaction failed: nothing of the batch is written
                failure = exc if isinstance(exc, Exception) else RuntimeError(f"the group write was interrupted: {exc!r}")
                for _, future in batch:
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
            for (_, future), (ok, value) in zip(batch, outcomes):
                if future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)


class _Queue:
    __slots__ = ("jobs", "writer")

    def __init__(self) -> None:
        self.jobs: list[tuple[Job, asyncio.Future]] = []
        self.writer: asyncio.Task | None = None
