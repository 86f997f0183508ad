"""Throwaway workflows for tests/test_workflow_sandbox.py: each does one thing a workflow must
never do (read the clock, draw randomness, make a uuid4, open a file, open a socket) and
returns what it got as text. Kept apart from the test module so the sandbox re-imports only
this small module, as it re-imports a real workflow module."""

from __future__ import annotations

import datetime
import random
import socket
import uuid

from temporalio import workflow


def _read_file() -> str:
    with open(__file__) as handle:
        return handle.readline()


def _open_socket() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return str(sock.family)


PROBES = {
    "clock": lambda: datetime.datetime.now().isoformat(),
    "random": lambda: str(random.random()),
    "uuid4": lambda: str(uuid.uuid4()),
    "open": _read_file,
    "socket": _open_socket,
}


@workflow.defn(name="SandboxProbe")
class SandboxProbeWorkflow:
    @workflow.run
    async def run(self, probe: str) -> str:
        return PROBES[probe]()
