"""Connecting to Temporal with the project's data converter (API, workers and CLI alike)."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from models.settings import Settings
from models.temporal.converter import data_converter


async def connect(settings: Settings, retries: int = 30) -> Client:
    """Connect, retrying for a while: the dev server may still be starting."""
    last: Exception | None = None
    for _ in range(retries):
        try:
            return await Client.connect(
                settings.temporal_address, namespace=settings.temporal_namespace, data_converter=data_converter
            )
        except RuntimeError as exc:  # connection refused while the server starts
            last = exc
            await asyncio.sleep(1)
    raise RuntimeError(f"cannot reach Temporal at {settings.temporal_address}: {last}")
