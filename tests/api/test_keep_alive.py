"""Keep-alive set on purpose, and a client that meets a connection closed under it (issue 33,
section 8: `test_keys_expire_after_a_day_and_their_rows_are_purged` raised httpx.ReadError on
its first POST, the suite's client having reused a pooled connection uvicorn, 5 s keep-alive
by default like the client's pool, had just closed).

- `parametric api` keeps an idle connection API_KEEP_ALIVE_SECONDS (75 s by default), longer
  than the load balancer or client pool in front, so they close idle connections first;
- the suite's client (tests/http_client.py) drops idle connections before the server does,
  and sends a repeatable request (idempotent method, or an Idempotency-Key) once more when
  its connection broke before the answer."""

from __future__ import annotations

import asyncio
import socket
import struct
import time

import httpx
import pytest

from models.settings import load_settings
from tests.api.test_limits import _served_api
from tests.conftest import Server, free_port
from tests.http_client import CLIENT_KEEPALIVE_SECONDS, api_client

REQUEST = b"GET /.well-known/jwks.json HTTP/1.1\r\nHost: api\r\n\r\n"


async def _answer(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 answer with a Content-Length (its head); b"" when the server closed."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = await asyncio.wait_for(reader.read(4096), 10)
        if not chunk:
            return b""
        head += chunk
    head, _, body = head.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += await asyncio.wait_for(reader.read(length - len(body)), 10)
    return head


def test_the_server_keeps_idle_connections_longer_than_the_suites_pool(settings):
    assert load_settings().api_keep_alive_seconds == 75  # unset: longer than a load balancer's 60 s
    assert Server(None, free_port()).keep_alive == settings.api_keep_alive_seconds
    assert CLIENT_KEEPALIVE_SECONDS < settings.api_keep_alive_seconds


async def test_parametric_api_keeps_an_idle_connection_as_configured(database, tmp_path):
    """7 s configured: a connection idle 6 s (uvicorn's default would have closed it at 5)
    still answers; idle 8.5 s more it is closed."""
    port = free_port()
    proc = await _served_api(port, tmp_path / "api.log", API_KEEP_ALIVE_SECONDS="7")
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(REQUEST)
        assert (await _answer(reader)).startswith(b"HTTP/1.1 200")
        await asyncio.sleep(6)
        writer.write(REQUEST)
        assert (await _answer(reader)).startswith(b"HTTP/1.1 200"), "the API closed a connection idle 6 s"
        idle = time.monotonic()
        assert await asyncio.wait_for(reader.read(1), 12) == b""  # closed by the server
        assert 6.5 < time.monotonic() - idle < 9, time.monotonic() - idle
        writer.close()
    finally:
        proc.terminate()
        await proc.wait()


class ClosingServer:
    """An HTTP/1.1 server that answers the first request of each connection (kept alive) and
    resets the connection when a second one arrives on it: the race of a keep-alive timeout
    expiring as the client reuses the connection, every time."""

    def __init__(self) -> None:
        self.requests = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served = 0
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length")), 0)
            if length:
                await reader.readexactly(length)
            self.requests += 1
            if served:
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
                writer.transport.abort()
                return
            served += 1
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
            await writer.drain()

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc) -> None:
        self._server.close()


async def test_a_plain_client_fails_when_its_kept_alive_connection_is_reset():
    """What the suite met: the second request on a kept-alive connection the server dropped."""
    async with ClosingServer() as url, httpx.AsyncClient(base_url=url) as client:
        assert (await client.get("/a")).status_code == 200
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
            await client.get("/b")


async def test_the_suites_client_sends_a_repeatable_request_again_once():
    async with ClosingServer() as url, api_client(url) as client:
        transport = client._transport
        assert (await client.get("/a")).status_code == 200
        assert (await client.get("/b")).status_code == 200  # reset, then sent on a new connection
        assert transport.retried == 1
        keyed = await client.post("/c", json={"n": 1}, headers={"Idempotency-Key": "k-1"})
        assert keyed.status_code == 200 and transport.retried == 2  # the body went again, whole
        assert (await client.put("/d", content=b"x")).status_code == 200 and transport.retried == 3
        with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):  # not safe to repeat: raised
            await client.post("/e", json={"n": 2})
        assert transport.retried == 3


async def _tiny_app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def _busy_pause(client: httpx.AsyncClient, seconds: float) -> None:
    """A request, then the event loop held `seconds` (synchronous work, as a test's own), so
    the server sharing the loop (tests/conftest.py Server) runs its keep-alive timer only
    once the client has sent its next request on the kept connection: the suite's ReadError."""
    assert (await client.get("/")).status_code == 200
    time.sleep(seconds)  # noqa: ASYNC251 - holding the loop is the point


async def test_against_a_1_s_keep_alive_a_pool_that_outlives_it_fails_unless_it_retries():
    """The real server, keep-alive 1 s, and a client whose pool keeps connections 30 s: the
    plain client's next request dies with httpx.ReadError (the failure the suite met); the
    suite's client sends it again and is answered, a GET and a keyed POST alike."""
    async with Server(_tiny_app, free_port(), keep_alive=1) as server:
        async with httpx.AsyncClient(base_url=server.base_url, limits=httpx.Limits(keepalive_expiry=30)) as plain:
            await _busy_pause(plain, 1.3)
            with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
                await plain.get("/")
        async with api_client(server.base_url, keepalive_expiry=30) as client:
            for i in range(3):
                await _busy_pause(client, 1.3)
                assert (await client.get("/")).status_code == 200
                await _busy_pause(client, 1.3)
                r = await client.post("/", json={"i": i}, headers={"Idempotency-Key": f"k-{i}"})
                assert r.status_code == 200
            assert client._transport.retried == 6


async def test_a_pool_that_expires_first_never_reuses_a_connection_the_server_closes():
    """The other half of the rule: the client's pool lets idle connections go before the server
    does (1 s against 2 s here; 20 s against 75 s in the suite), so even a plain client, and
    a POST without a key, never sends on a connection the server is closing."""
    async with (
        Server(_tiny_app, free_port(), keep_alive=2) as server,
        httpx.AsyncClient(base_url=server.base_url, limits=httpx.Limits(keepalive_expiry=1)) as plain,
    ):
        for _ in range(3):
            await _busy_pause(plain, 2.3)
            assert (await plain.post("/", json={})).status_code == 200
