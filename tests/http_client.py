"""The suite's HTTP client, set up as a client of the API should be (docs/deployment.md,
"Keep-alive and clients"; issue 33, section 8).

A pooled keep-alive connection closed by the server just as the client sends the next
request on it fails that request with `httpx.ReadError` (a reset) or `RemoteProtocolError`
("Server disconnected without sending a response"): the suite failed by chance that way when
the client's pool and uvicorn both kept idle connections 5 s. So:

- the pool lets an idle connection go after CLIENT_KEEPALIVE_SECONDS, well before the API
  closes it (API_KEEP_ALIVE_SECONDS, 75 s): the client, not the server, ends idle connections;
- `RetryOnReset` sends a request again, once, when its connection broke before any answer,
  if repeating it is safe: an idempotent method (RFC 9110 §9.2.2) or a request carrying an
  `Idempotency-Key` (the API answers a repeat with the first answer). httpx's own
  `retries=` covers only failures to connect, not a kept-alive connection that breaks.
"""

from __future__ import annotations

import logging

import httpx

CLIENT_KEEPALIVE_SECONDS = 20.0  # below the API's keep-alive (75 s by default; tests/conftest.py Server)
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
# The connection broke before an answer arrived (a body being read is past the transport).
CONNECTION_BROKE = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)

log = logging.getLogger("tests.http")


def repeatable(request: httpx.Request) -> bool:
    """Whether sending `request` twice is safe and possible: idempotent, or keyed, with a body
    held in memory (a streamed body cannot be sent again)."""
    safe = request.method in IDEMPOTENT_METHODS or "idempotency-key" in request.headers
    return safe and isinstance(request.stream, httpx.ByteStream)


class RetryOnReset(httpx.AsyncBaseTransport):
    """A transport that sends a repeatable request (`repeatable`) once more on a fresh
    connection when its connection broke before the answer (CONNECTION_BROKE); any other
    request, or a second break, raises as usual."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner
        self.retried = 0  # requests sent again (tests)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except CONNECTION_BROKE as exc:
            if not repeatable(request):
                raise
            self.retried += 1
            log.warning("%s %s: the connection broke (%r); sending it again", request.method, request.url, exc)
            return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def api_client(base_url: str, keepalive_expiry: float = CLIENT_KEEPALIVE_SECONDS, **kwargs) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for the API: idle connections dropped after `keepalive_expiry`
    seconds, repeatable requests sent again once on a broken connection."""
    pool = httpx.AsyncHTTPTransport(limits=httpx.Limits(keepalive_expiry=keepalive_expiry))
    return httpx.AsyncClient(base_url=base_url, transport=RetryOnReset(pool), **kwargs)
