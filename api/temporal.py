"""The Temporal client, connected with the msgspec data converter."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from models.converter import data_converter
from models.settings import Settings


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


class TemporalHolder:
    """Lazily connected client, so the API starts (and /health reports) without Temporal."""

    def __init__(self, settings: Settings, client: Client | None = None) -> None:
        self.settings = settings
        self._client = client
        self._lock = asyncio.Lock()

    async def get(self) -> Client:
        if self._client is None:
            async with self._lock:
                if self._client is None:
                    self._client = await connect(self.settings, retries=1)
        return self._client
