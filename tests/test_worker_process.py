"""The worker process (`python -m workflows.worker`) as `make dev` and process managers run
it: SIGTERM stops it cleanly, with its pricing pool, its pool's manager and every process
they started; nothing is left running after it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from pathlib import Path


def _children(pid: int) -> set[int]:
    """Every live descendant of `pid` (from /proc)."""
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        parent = frontier.pop()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent and int(entry.name) not in found:
                found.add(int(entry.name))
                frontier.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_sigterm_stops_the_worker_and_everything_it_started(service):
    env = {
        **os.environ,
        "TEMPORAL_ADDRESS": service.temporal_address,
        "TEMPORAL_TASK_QUEUE": f"process-test-{uuid.uuid4().hex[:8]}",  # steals no task of the suite
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "workflows.worker", "--queue", "pricing", "--queue", "documents",
        "--pricing-processes", "1", env=env, stderr=asyncio.subprocess.PIPE,
    )
    log = b""
    while b"worker polling" not in log:
        line = await asyncio.wait_for(proc.stderr.readline(), 60)
        assert line, log.decode()
        log += line
    started: set[int] = set()
    for _ in range(100):  # the pool's manager starts as the workers do, just after that line
        started = _children(proc.pid)
        if started:
            break
        await asyncio.sleep(0.1)
    assert started, "the pricing pool's manager runs as a child process"
    await asyncio.sleep(1)
    started = _children(proc.pid)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    for _ in range(50):
        if not any(_alive(pid) for pid in started):
            break
        await asyncio.sleep(0.1)
    assert [pid for pid in started if _alive(pid)] == []
