"""The database down (issue 25, finding 5): a real PostgreSQL of the test's own is stopped
under a real API process (`parametric api`); a read answers 503 with `Retry-After` (the old
code answered 500), and once the server is back the same read answers 200 again without
restarting the API.

The cluster is made like `.ci/postgres-test-cluster` makes one (Debian's `postgresql`
binaries; skipped when they are not installed): initdb in a temporary directory, a free
loopback port, owned by the `postgres` user when the tests run as root."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return found[-1].parent if found else None


class PrivateCluster:
    """A throwaway PostgreSQL server that a test can stop and start again on the same port."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="parametric-pg-down-"))
        self.port = free_port()
        self.password = secrets.token_hex(16)
        self.root = os.getuid() == 0

    def _as_owner(self, *cmd: str) -> subprocess.CompletedProcess:
        if self.root:
            cmd = ("runuser", "-u", "postgres", "--", *cmd)
        return subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True, timeout=120)

    def init(self) -> None:
        os.chmod(self.dir, 0o700)
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        pwfile = self.dir / "pwfile"
        pwfile.write_text(self.password + "\n")
        if self.root:
            shutil.chown(pwfile, "postgres", "postgres")
        done = self._as_owner(
            str(self.bindir / "initdb"), "-D", str(self.dir / "data"), "-U", "postgres", f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        )
        assert done.returncode == 0, done.stderr
        self.start()
        done = subprocess.run(
            [str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "parametric"],
            env={**os.environ, "PGPASSWORD": self.password}, capture_output=True, text=True, timeout=60,
        )
        assert done.returncode == 0, done.stderr

    @property
    def url(self) -> str:
        return f"postgresql://postgres:{self.password}@127.0.0.1:{self.port}/parametric"

    def start(self) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off -c synchronous_commit=off"
        done = self._as_owner(
            str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"),
            "-w", "-t", "60", "-o", options, "start",
        )
        assert done.returncode == 0, done.stderr + (self.dir / "server.log").read_text()

    def stop(self) -> None:
        self._as_owner(str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        if (self.dir / "data" / "postmaster.pid").exists():
            self._as_owner(str(self.bindir / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def cluster():
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL's binaries are not installed (.ci/postgres-test-cluster installs them)")
    made = PrivateCluster(bindir)
    try:
        made.init()
        yield made
    finally:
        made.remove()


async def _cli(env: dict[str, str], *args: str) -> str:
    """`parametric ARGS`, off this event loop (which serves the suite's API and workers)."""
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "api.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_read_with_the_database_down_is_a_503_and_recovers(cluster, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": cluster.url,
        "PARAMETRIC_VAR_DIR": str(tmp_path / "var"),
        "API_PORT": str(port),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "TEMPORAL_ADDRESS": f"127.0.0.1:{free_port()}",  # reads need no Temporal
    }
    await _cli(env, "migrate")
    credentials = json.loads(await _cli(env, "tenants", "create", "down-test", "--internal"))
    with (tmp_path / "api.log").open("wb") as log:
        api = subprocess.Popen([sys.executable, "-m", "api.cli", "api", "--port", str(port)], env=env, stdout=log, stderr=log)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            for _ in range(300):
                try:
                    await http.get("/.well-known/jwks.json")
                    break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            token = await http.post(
                f"/auth/{credentials['tenant_id']}/oauth2/v2.0/token",
                data={"grant_type": "client_credentials", "client_id": credentials["client_id"],
                      "client_secret": credentials["client_secret"], "scope": credentials["scope"]},
            )
            assert token.status_code == 200, token.text
            headers = {"Authorization": f"Bearer {token.json()['access_token']}", "x-tenant-id": credentials["tenant_id"]}
            assert (await http.get("/policies", headers=headers)).status_code == 200

            await asyncio.to_thread(cluster.stop)
            for _ in range(2):  # the pooled connections break, then new ones are refused
                down = await http.get("/policies", headers=headers)
                assert down.status_code == 503, down.text
                assert down.headers["content-type"].startswith("application/problem+json")
                assert int(down.headers["retry-after"]) > 0
                assert down.json()["status"] == 503
            assert (await http.get("/health")).status_code == 503

            await asyncio.to_thread(cluster.start)
            statuses = []
            for _ in range(100):
                statuses.append((await http.get("/policies", headers=headers)).status_code)
                if statuses[-1] == 200:
                    break
                await asyncio.sleep(0.1)
            assert statuses[-1] == 200, statuses
            assert set(statuses) <= {200, 503}, statuses
    finally:
        api.terminate()
        api.wait(30)
