"""Connecting to Temporal with the project's data converter (API, workers and CLI alike).

A hosted Temporal (docs/deployment.md) takes TLS and an API key from the settings:
TEMPORAL_TLS=1 (on by itself with a client certificate or an API key), TEMPORAL_TLS_CERT and
TEMPORAL_TLS_KEY (mutual TLS), TEMPORAL_TLS_CA (a private server's CA), TEMPORAL_TLS_SERVER_NAME,
TEMPORAL_API_KEY (Temporal Cloud). With tracing on (models/observability/tracing.py) the
client carries temporalio's TracingInterceptor, which its workers inherit."""

from __future__ import annotations

import asyncio
from typing import Sequence

from temporalio.client import Client, Interceptor
from temporalio.runtime import Runtime
from temporalio.service import TLSConfig

from models.observability.tracing import temporal_interceptors
from models.settings import Settings
from models.temporal.converter import data_converter


def tls_config(settings: Settings) -> TLSConfig | bool:
    """The TLS of the connection: False for a plain one (the dev server)."""
    cert, key = settings.temporal_tls_cert, settings.temporal_tls_key
    if (cert is None) != (key is None):
        raise ValueError("TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together (mutual TLS)")
    wanted = settings.temporal_tls or cert is not None or settings.temporal_api_key is not None
    if not wanted and settings.temporal_tls_ca is None:
        return False
    return TLSConfig(
        server_root_ca_cert=settings.temporal_tls_ca.read_bytes() if settings.temporal_tls_ca else None,
        client_cert=cert.read_bytes() if cert else None,
        client_private_key=key.read_bytes() if key else None,
        domain=settings.temporal_tls_server_name,
    )


async def connect(
    settings: Settings, retries: int = 30, runtime: Runtime | None = None, interceptors: Sequence[Interceptor] = ()
) -> Client:
    """Connect, retrying for a while: the dev server may still be starting. `runtime`: a
    worker process's Temporal runtime with its Prometheus endpoint, `interceptors`: its
    workers' (workflows/observability.py); workers built on the client inherit both."""
    last: Exception | None = None
    tls = tls_config(settings)
    for _ in range(retries):
        try:
            return await Client.connect(
                settings.temporal_address,
                namespace=settings.temporal_namespace,
                data_converter=data_converter,
                tls=tls,
                api_key=settings.temporal_api_key,
                interceptors=[*temporal_interceptors(), *interceptors],
                runtime=runtime,
            )
        except RuntimeError as exc:  # connection refused while the server starts
            last = exc
            await asyncio.sleep(1)
    raise RuntimeError(f"cannot reach Temporal at {settings.temporal_address}: {last}")
