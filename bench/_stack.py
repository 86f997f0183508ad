"""The scaffolding the stack benchmarks share: a temp dir, free loopback ports, the
environment their child processes inherit, and a clean stop whatever happens."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import signal
import sys
import tempfile
import traceback
from pathlib import Path

from bench.api import Ports, Processes, free_port, machine, port_open, run_cli, temporal_command, wait_for


def run_stack_bench(name: str, run, args, env_extra: dict[str, str], logs: tuple[str, ...], keep: bool = False) -> int:
    """Run `run(args, procs, tmp, ports, env)` (a coroutine returning whether the goals were
    met) on a fresh temp dir and free ports; prints the machine and the command first, the
    named processes' log tails if it fails. Returns the exit code."""
    print(machine())
    print(f"command: {shlex.join([sys.executable, *sys.argv])}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"parametric-bench-{name}-"))
    (tmp / "temporal").mkdir()
    (tmp / "logs").mkdir()
    while True:
        picked = [free_port() for _ in range(5)]
        if len(set(picked)) == 5 and not set(picked) & {7233, 8000, 8233}:
            break
    ports = Ports(*picked)
    os.environ.update({
        "PARAMETRIC_VAR_DIR": str(tmp / "var"), "TEMPORAL_ADDRESS": f"127.0.0.1:{ports.temporal}",
        "TEMPORAL_NAMESPACE": "default", "PICCOLO_CONF": "models.db.piccolo_conf", "PYTHONUNBUFFERED": "1",
        **{k.format(api_port=ports.api): v.format(api_port=ports.api) for k, v in env_extra.items()},
    })
    for variable in ("DATABASE_URL", "AUTH_JWKS_URL", "SIGNING_KEY_PATH", "TEMPORAL_TASK_QUEUE", "OBSERVATION_PROVIDERS"):
        os.environ.pop(variable, None)
    env = dict(os.environ)
    procs = Processes(tmp / "logs")
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    code = 1
    try:
        code = 0 if asyncio.run(run(args, procs, tmp, ports, env)) else 1
        print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc()
        print(f"\nbench/{name}.py failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        for process in logs:
            print(f"--- {process} log ---\n{procs.log_tail(process)}", file=sys.stderr)
    finally:
        procs.stop_all()
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}")
    return code


async def start_temporal_and_migrate(procs: Processes, tmp: Path, ports: Ports, env: dict[str, str]) -> None:
    """A file-backed Temporal dev server with `make dev`'s settings, then the migrations."""
    binary = str(Path(sys.executable).parent / "temporal")
    if not Path(binary).exists():
        binary = shutil.which("temporal") or binary
    procs.start("temporal", temporal_command(binary, tmp / "temporal" / "temporal.db", ports), env)
    await wait_for(lambda: port_open(ports.temporal), 60, "Temporal dev server", procs)
    run_cli(["migrate"], env)


async def api_ready(http, api: str, procs: Processes) -> None:
    """Wait (at most 120 s) until the API at `api` answers `GET /health` 200."""
    import httpx

    async def up() -> bool:
        try:
            return (await http.get(f"{api}/health")).status_code == 200
        except httpx.HTTPError:
            return False

    await wait_for(up, 120, "API", procs)


async def tenant_headers(http, api: str, credentials: dict) -> dict[str, str]:
    """The tenant surface's headers for `credentials` (as `parametric tenants create` prints
    them): a client-credentials token from the API's token endpoint and `x-tenant-id`."""
    tenant_id = credentials["tenant_id"]
    r = await http.post(
        f"{api}/auth/{tenant_id}/oauth2/v2.0/token",
        data={"client_id": credentials["client_id"], "client_secret": credentials["client_secret"],
              "scope": credentials["scope"], "grant_type": "client_credentials"},
    )
    r.raise_for_status()
    return {"Authorization": f"Bearer {r.json()['access_token']}", "x-tenant-id": tenant_id}
