"""The API's Temporal client, connected lazily with the msgspec data converter."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from models.settings import Settings
from models.temporal.client import connect


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
