"""Signed webhooks received by a real local HTTP server: an endpoint registered over HTTP
(secret shown once), a policy settled that pays, the outbox dispatched to delivery
workflows on the dev server; every message verifies with the `standardwebhooks` package.
A receiver that keeps failing gets its deliveries retried with backoff over the window,
then FAILED, and its endpoint disabled with the reason (time-skipping server)."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import subprocess
import sys
import uuid
from decimal import Decimal

import httpx
import pytest
from litestar import Litestar, Request, Response, post
from standardwebhooks import Webhook
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from activities.webhooks import dispatch_webhooks
from models.db import observations as observations_db
from models.domain.observations import ObservationIn
from models.temporal.queues import task_queue
from models.temporal.settlement import SettlePeriodInput
from models.temporal.webhooks import DispatchInput
from models.webhook_resolution import NOT_PUBLIC
from tests.conftest import Server, assert_problem, free_port

TARGET = "IN-18.625N-073.875E"  # Pune, pin code 411001


class Receiver:
    """Collects what it is sent; answers `status` with the text `answer`."""

    def __init__(self, status: int = 204, answer: str = "receiver down") -> None:
        self.status = status
        self.answer = answer
        self.received: list[tuple[dict, bytes]] = []

        @post("/hook")
        async def hook(request: Request) -> Response:
            self.received.append((dict(request.headers), await request.body()))
            if self.status >= 300:
                return Response(self.answer, status_code=self.status, media_type="text/plain")
            return Response(None, status_code=200)

        self.app = Litestar([hook])


async def _settle_a_paying_policy(tenant, year: int) -> dict:
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": f"{year}-07-01", "riskPeriodTo": f"{year}-07-31",
            "sumInsuredForLineItem": {"amount": 100000, "currency": "INR"}}
    quote = (await tenant.post("/quotes", json=body, timeout=600)).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    assert (await tenant.patch(f"/policies/{policy['id']}")).status_code == 200
    start, end = dt.date(year, 7, 1), dt.date(year, 7, 31)
    days = [start + dt.timedelta(days=i) for i in range(31)]
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal(90), "IMD") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "IMD-TMAX-1DEG", "temperature_c", d, None, Decimal(28), "IMD") for d in days])
    await observations_db.store_batch([ObservationIn(TARGET, "IBTRACS-WIND", "wind_kmh", d, None, Decimal(20), "IBTrACS") for d in days])
    at = dt.datetime.combine(end + dt.timedelta(days=4), dt.time(0), tzinfo=dt.timezone.utc)
    outcome = await ActivityEnvironment().run(settle_period, SettlePeriodInput(target_id=TARGET, start=start, end=end, at=at))
    assert outcome.state == "SETTLED", outcome
    return policy


async def test_settled_events_arrive_signed_at_the_registered_endpoint(make_tenant, service, temporal_env):
    tenant = await make_tenant(internal=True)  # its own: no other test's messages reach this endpoint
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        r = await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook", "description": "claims"})
        assert r.status_code == 201, r.text
        endpoint = r.json()
        secret = endpoint["secret"]
        assert secret.startswith("whsec_") and r.headers["location"] == f"/internal/webhook-endpoints/{endpoint['id']}"
        shown = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}")).json()
        assert "secret" not in shown and shown["status"] == "ENABLED" and shown["eventTypes"] == ["*"]

        policy = await _settle_a_paying_policy(tenant, dt.date.today().year + 1)
        dispatched = await ActivityEnvironment(client=temporal_env.client).run(
            dispatch_webhooks, DispatchInput(task_queue=task_queue(service.task_queue, "webhooks"))
        )
        assert dispatched >= 2
        for _ in range(300):
            mine = [(h, b) for h, b in receiver.received if policy["id"].encode() in b]
            if len(mine) >= 2:
                break
            await asyncio.sleep(0.1)
        verifier = Webhook(secret)
        payloads = [verifier.verify(body, headers) for headers, body in mine]  # raises if a signature is wrong
        assert sorted(p["type"] for p in payloads) == ["parametric_event.validated", "payout.recorded"]
        assert all(p["data"]["policyId"] == policy["id"] and p["data"]["payout"] == {"amount": "100000.00", "currency": "INR"} for p in payloads)
        assert len({h["webhook-id"] for h, _ in mine}) == 2
        # A tampered body or another secret does not verify.
        headers, body = mine[0]
        with pytest.raises(Exception):
            verifier.verify(body.replace(b"100000.00", b"900000.00"), headers)
        with pytest.raises(Exception):
            Webhook("whsec_" + "A" * 43 + "=").verify(body, headers)
        deliveries = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
        assert {d["status"] for d in deliveries} == {"DELIVERED"} and all(d["lastStatusCode"] == 200 for d in deliveries)


PUBLIC = "https://93.184.216.34/x"  # a public address: needs no DNS, and nothing is sent to it here


async def test_endpoint_registration_is_checked_and_tenant_scoped(tenant, other_tenant):
    assert_problem(await tenant.post("/internal/webhook-endpoints", json={"url": "ftp://example.com/x"}), 400)
    bad = assert_problem(await tenant.post("/internal/webhook-endpoints", json={"url": PUBLIC, "eventTypes": ["nope"]}), 400)
    assert bad["errors"][0]["field"] == "eventTypes"
    created = (await tenant.post("/internal/webhook-endpoints", json={"url": PUBLIC, "eventTypes": ["policy.expired"]})).json()
    assert_problem(await other_tenant.get(f"/internal/webhook-endpoints/{created['id']}"), 404)
    assert all(e["id"] != created["id"] for e in (await other_tenant.get("/internal/webhook-endpoints")).json())
    assert (await tenant.post(f"/internal/webhook-endpoints/{created['id']}/disable")).json()["status"] == "DISABLED"
    assert (await tenant.post(f"/internal/webhook-endpoints/{created['id']}/enable")).json()["status"] == "ENABLED"
    await tenant.post(f"/internal/webhook-endpoints/{created['id']}/disable")  # nothing is sent to it
    assert_problem(await tenant.get(f"/internal/webhook-endpoints/{uuid.uuid4()}"), 404)


# --- Where webhooks may go, what is kept of an answer, rotation, deletion, secrets at rest ---

# Refused whatever the loopback setting: inside networks, cloud metadata, credentials, ports.
ALWAYS_REFUSED = [
    ("http://10.0.0.5/hook", "private"),
    ("http://172.16.3.4/hook", "private"),
    ("http://192.168.1.10:8080/hook", "private"),
    ("http://[fd12:3456::1]/hook", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[fe80::1]/hook", "link-local"),
    ("http://[::ffff:169.254.169.254]/", "link-local"),
    ("http://[::ffff:10.0.0.1]/", "private"),
    ("http://100.64.0.1/hook", "carrier-grade NAT"),
    ("http://224.0.0.1/hook", "multicast"),
    ("http://0.0.0.0:8000/hook", "unspecified"),
    ("http://192.0.2.10/hook", "reserved"),
    ("http://2130706433:8233/", "unusual form"),
    ("http://user:pw@127.0.0.1/hook", "credentials"),
    ("http://user:pw@93.184.216.34/hook", "credentials"),
    ("https://93.184.216.34:99999/hook", "outside 1-65535"),
    ("https://93.184.216.34:0/hook", "outside 1-65535"),
    ("https://93.184.216.34:80a/hook", "malformed"),
    ("gopher://93.184.216.34/", "http or https"),
    ("https://receiver.example.invalid/hook", "does not resolve"),
]


def _refused(response, words: str) -> None:
    problem = assert_problem(response, 400)
    assert [e["field"] for e in problem["errors"]] == ["url"], problem
    message = problem["errors"][0]["message"]
    assert words in message and problem["detail"] == f"url: {message}", problem


async def test_receivers_inside_the_network_are_refused_even_with_loopback_allowed(tenant, service, settings):
    """The suite allows loopback receivers; nothing else inside is allowed by it, nor the
    service's own API and Temporal ports on loopback."""
    assert settings.webhook_allow_loopback
    for url, words in ALWAYS_REFUSED:
        _refused(await tenant.post("/internal/webhook-endpoints", json={"url": url}), words)
    temporal_port = service.temporal_address.rpartition(":")[2]
    for url in (f"{service.base_url}/health", f"http://127.0.0.1:{temporal_port}/", f"http://127.0.0.1:{settings.temporal_ui_port}/"):
        _refused(await tenant.post("/internal/webhook-endpoints", json={"url": url}), "this service's own")
    # By name: refused too, without telling where the name leads (review of issues 24/25, finding 4).
    _refused(await tenant.post("/internal/webhook-endpoints", json={"url": f"http://localhost:{temporal_port}/"}),
             NOT_PUBLIC.format(host="localhost"))
    assert all(e["url"] not in {u for u, _ in ALWAYS_REFUSED} for e in (await tenant.get("/internal/webhook-endpoints")).json())


@pytest.fixture
async def strict_api(settings, service, temporal_env):
    """The API as a deployment runs it: WEBHOOK_ALLOW_LOOPBACK off (the default)."""
    from dataclasses import replace

    from api.app import create_app

    strict = replace(settings, webhook_allow_loopback=False, temporal_address=service.temporal_address,
                     task_queue=service.task_queue)
    async with Server(create_app(strict, temporal_env.client), free_port()) as server:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            yield http


async def test_loopback_receivers_are_refused_by_default(strict_api, tenant, service):
    """The Temporal Web UI and frontend, the API itself, localhost by name, loopback in IPv6
    and IPv4-mapped form: each a 400 naming `url`."""
    headers = await tenant.headers()
    for url in ["http://127.0.0.1:8233/", f"{service.base_url}/internal/webhook-endpoints",
                "http://127.0.0.1:9000/hook", "http://[::1]:9000/hook", "http://[::ffff:127.0.0.1]:9000/hook"]:
        _refused(await strict_api.post("/internal/webhook-endpoints", json={"url": url}, headers=headers), "loopback")
    # localhost by name: refused without telling where it leads (review of issues 24/25, finding 4)
    _refused(await strict_api.post("/internal/webhook-endpoints", json={"url": "http://localhost:7233/"}, headers=headers),
             NOT_PUBLIC.format(host="localhost"))
    for url, words in ALWAYS_REFUSED:
        _refused(await strict_api.post("/internal/webhook-endpoints", json={"url": url}, headers=headers), words)
    assert (await strict_api.post("/internal/webhook-endpoints", json={"url": PUBLIC}, headers=headers)).status_code == 201


async def _pending_delivery(tenant_id: str, endpoint_id: str) -> str:
    """A message for the tenant and its delivery to the endpoint, as dispatch makes them
    (marked started without starting the delivery workflow: the test runs the activity or
    the workflow itself, and no dispatch pass starts it)."""
    from models.clock import utcnow
    from models.db import webhooks as webhooks_db
    from models.db.core import insert_rows, write_transaction
    from models.db.tables import WebhookDelivery
    from models.domain.webhooks import POLICY_EXPIRED

    now = utcnow()
    message = webhooks_db.outbox_row(uuid.UUID(tenant_id), POLICY_EXPIRED, f"test-{uuid.uuid4()}", now,
                                     {"policyId": str(uuid.uuid4())})
    message.dispatched_at = now  # its delivery is made here: no later dispatch picks it up
    delivery_id = f"{message.id}:{endpoint_id}"
    async with write_transaction():
        await webhooks_db.write_outbox([message])
        await insert_rows([WebhookDelivery(id=delivery_id, tenant_id=uuid.UUID(tenant_id), message_id=message.id,
                                           endpoint_id=uuid.UUID(endpoint_id), created_at=now, updated_at=now,
                                           started_at=now)])
    return delivery_id


async def _deliver(delivery_id: str):
    from activities.webhooks import deliver_webhook

    return await ActivityEnvironment().run(deliver_webhook, delivery_id)


async def test_a_delivery_keeps_the_status_code_not_the_receivers_answer(make_tenant):
    from temporalio.exceptions import ApplicationError

    tenant = await make_tenant(internal=True)
    receiver = Receiver(status=500, answer="Traceback: password=hunter2 at db.internal:5432")
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        with pytest.raises(ApplicationError) as failed:
            await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))
    assert len(receiver.received) == 1 and "hunter2" not in str(failed.value)
    # Nobody listening: the error's class and our words.
    closed = (await tenant.post("/internal/webhook-endpoints", json={"url": f"http://127.0.0.1:{free_port()}/hook"})).json()
    with pytest.raises(ApplicationError):
        await _deliver(await _pending_delivery(tenant.id, closed["id"]))
    [delivery] = (await tenant.get(f"/internal/webhook-endpoints/{endpoint['id']}/deliveries")).json()
    assert (delivery["lastStatusCode"], delivery["lastError"], delivery["attempts"]) == (500, "HTTP 500", 1)
    [delivery] = (await tenant.get(f"/internal/webhook-endpoints/{closed['id']}/deliveries")).json()
    assert delivery["lastStatusCode"] is None and delivery["lastError"].startswith("ConnectError (could not connect")


async def test_an_address_refused_at_delivery_is_not_connected_and_not_retried(make_tenant, service, temporal_env, monkeypatch):
    """Checked again at connect time: an endpoint whose URL now leads inside (here: the
    deployment no longer allows loopback; a DNS answer that changed is the same case) gets
    nothing, and its delivery workflow ends at once, FAILED with the reason."""
    from models.db.tables import WebhookEndpoint
    from models.temporal.ids import webhook_delivery_workflow_id
    from models.temporal.queues import task_queue
    from models.temporal.webhooks import WEBHOOK_DELIVERY_WORKFLOW

    tenant = await make_tenant(internal=True)
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        by_name = (await tenant.post("/internal/webhook-endpoints", json={"url": f"http://localhost:{server.port}/hook"})).json()
        # A row registered before the rules, with credentials in its URL.
        with_credentials = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        await WebhookEndpoint.update({WebhookEndpoint.url: f"http://user:pw@127.0.0.1:{server.port}/hook"}).where(
            WebhookEndpoint.id == uuid.UUID(with_credentials["id"]))
        monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "0")
        outcome = await _deliver(await _pending_delivery(tenant.id, by_name["id"]))
        # What localhost resolves to is not told (review of issues 24/25, finding 4).
        assert not outcome.delivered and outcome.detail == f"not sent: {NOT_PUBLIC.format(host='localhost')}"
        delivery_id = await _pending_delivery(tenant.id, by_name["id"])
        result = await temporal_env.client.execute_workflow(
            WEBHOOK_DELIVERY_WORKFLOW, delivery_id, id=webhook_delivery_workflow_id(delivery_id),
            task_queue=task_queue(service.task_queue, "webhooks"), execution_timeout=dt.timedelta(seconds=60),
        )
        assert result == f"FAILED: not sent: {NOT_PUBLIC.format(host='localhost')}"
        monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "1")
        outcome = await _deliver(await _pending_delivery(tenant.id, with_credentials["id"]))
        assert not outcome.delivered and "credentials" in outcome.detail
    assert receiver.received == []
    deliveries = (await tenant.get(f"/internal/webhook-endpoints/{by_name['id']}/deliveries")).json()
    assert {(d["attempts"], d["lastStatusCode"]) for d in deliveries} == {(0, None)}
    assert all(d["lastError"].startswith("not sent: ") for d in deliveries)
    assert {d["status"] for d in deliveries} >= {"FAILED"}


async def test_the_connection_goes_to_the_checked_address_with_the_urls_host(make_tenant):
    tenant = await make_tenant(internal=True)
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"http://localhost:{server.port}/hook"})).json()
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
    [(headers, _)] = receiver.received
    assert headers["host"] == f"localhost:{server.port}"


def _certificate(tmp_path, name: str) -> tuple[str, str]:
    """A self-signed certificate for the DNS name `name` only (no IP address in it)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


async def test_https_to_a_pinned_address_checks_the_certificate_against_the_urls_name(tmp_path):
    """`receiver.test` resolves nowhere: the request reaches the receiver only at the pinned
    address, and TLS verifies the certificate (DNS name only) against the URL's name."""
    import ssl

    import uvicorn

    from activities.webhooks import post_pinned
    from models.domain.webhook_urls import parse
    from models.webhook_resolution import Resolved

    receiver = Receiver()
    cert, key = _certificate(tmp_path, "receiver.test")
    other_cert, _ = _certificate(tmp_path, "other.test")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(receiver.app, host="127.0.0.1", port=port, log_level="warning",
                                           ssl_certfile=cert, ssl_keyfile=key))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        url = f"https://receiver.test:{port}/hook"
        pinned = Resolved(target=parse(url), addresses=[ipaddress.ip_address("127.0.0.1")])
        trusted = ssl.create_default_context(cafile=cert)
        assert await post_pinned(pinned, url, b"{}", {"content-type": "application/json"}, verify=trusted) == 200
        assert receiver.received[0][0]["host"] == f"receiver.test:{port}"
        with pytest.raises(httpx.ConnectError):  # a certificate for another name does not pass
            await post_pinned(pinned, url, b"{}", {}, verify=ssl.create_default_context(cafile=other_cert))
    finally:
        server.should_exit = True
        await task


def _signatures(headers: dict) -> list[str]:
    return headers["webhook-signature"].split(" ")


async def test_a_rotated_secret_signs_beside_the_new_one_during_the_overlap(make_tenant, other_tenant):
    tenant = await make_tenant(internal=True)
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        path = f"/internal/webhook-endpoints/{endpoint['id']}"
        first = endpoint["secret"]
        assert endpoint["secretRotatedAt"] is None and endpoint["previousSecretExpiresAt"] is None

        r = await tenant.post(f"{path}/rotate-secret", json={"overlapSeconds": 3600})
        assert r.status_code == 200, r.text
        second = r.json()["secret"]
        assert second.startswith("whsec_") and second != first
        shown = (await tenant.get(path)).json()
        assert "secret" not in shown and shown["secretRotatedAt"]
        expires = dt.datetime.fromisoformat(shown["previousSecretExpiresAt"])
        rotated = dt.datetime.fromisoformat(shown["secretRotatedAt"])
        assert expires - rotated == dt.timedelta(hours=1)
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
        headers, body = receiver.received[-1]
        assert len(_signatures(headers)) == 2
        Webhook(first).verify(body, headers)  # a receiver still holding the old secret
        Webhook(second).verify(body, headers)  # and one already holding the new

        third = (await tenant.post(f"{path}/rotate-secret")).json()  # no body: 24 h of overlap
        assert dt.datetime.fromisoformat(third["previousSecretExpiresAt"]) - dt.datetime.fromisoformat(
            third["secretRotatedAt"]) == dt.timedelta(hours=24)
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
        headers, body = receiver.received[-1]
        Webhook(second).verify(body, headers)
        Webhook(third["secret"]).verify(body, headers)
        with pytest.raises(Exception):
            Webhook(first).verify(body, headers)  # two rotations ago: no longer

        # Without overlap only the new secret signs; after an overlap ends, likewise.
        fourth = (await tenant.post(f"{path}/rotate-secret", json={"overlapSeconds": 0})).json()
        assert fourth["previousSecretExpiresAt"] is None
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
        headers, body = receiver.received[-1]
        assert len(_signatures(headers)) == 1
        Webhook(fourth["secret"]).verify(body, headers)
        with pytest.raises(Exception):
            Webhook(third["secret"]).verify(body, headers)
        fifth = (await tenant.post(f"{path}/rotate-secret", json={"overlapSeconds": 1})).json()
        await asyncio.sleep(1.2)
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
        headers, body = receiver.received[-1]
        assert len(_signatures(headers)) == 1
        Webhook(fifth["secret"]).verify(body, headers)

    for bad in (-1, 7 * 24 * 3600 + 1, 1.5, "an hour", None):
        problem = assert_problem(await tenant.post(f"{path}/rotate-secret", json={"overlapSeconds": bad}), 400)
        assert problem["errors"][0]["field"] == "overlapSeconds", problem
    assert_problem(await other_tenant.post(f"{path}/rotate-secret", json={}), 404)
    assert_problem(await tenant.post(f"/internal/webhook-endpoints/{uuid.uuid4()}/rotate-secret"), 404)


async def test_a_deleted_endpoint_is_gone_and_gets_nothing_more(make_tenant, other_tenant):
    from models.db.tables import WebhookEndpoint

    tenant = await make_tenant(internal=True)
    receiver = Receiver()
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        kept = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        path = f"/internal/webhook-endpoints/{endpoint['id']}"
        pending = await _pending_delivery(tenant.id, endpoint["id"])
        assert_problem(await other_tenant.delete(path), 404)  # another tenant's: as if unknown
        assert (await tenant.get(path)).status_code == 200

        r = await tenant.delete(path)
        assert r.status_code == 204 and r.content == b""
        for call in (tenant.get(path), tenant.get(f"{path}/deliveries"), tenant.post(f"{path}/rotate-secret"),
                     tenant.post(f"{path}/enable"), tenant.post(f"{path}/disable"), tenant.delete(path)):
            assert_problem(await call, 404)
        assert [e["id"] for e in (await tenant.get("/internal/webhook-endpoints")).json()] == [kept["id"]]
        assert_problem(await tenant.delete(f"/internal/webhook-endpoints/{uuid.uuid4()}"), 404)

        outcome = await _deliver(pending)  # a delivery under way ends unsent
        assert not outcome.delivered and outcome.detail == "not sent: the endpoint was deleted"
        assert receiver.received == []
    row = await WebhookEndpoint.select().where(WebhookEndpoint.id == uuid.UUID(endpoint["id"])).first()
    assert row["status"] == "DELETED" and row["secret"] == "" and row["previous_secret"] == ""


async def test_secrets_are_sealed_in_the_database(make_tenant, settings):
    from models.db.tables import WebhookEndpoint

    tenant = await make_tenant(internal=True)
    endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": PUBLIC})).json()
    rotated = (await tenant.post(f"/internal/webhook-endpoints/{endpoint['id']}/rotate-secret")).json()
    row = await WebhookEndpoint.select().where(WebhookEndpoint.id == uuid.UUID(endpoint["id"])).first()
    assert row["secret"].startswith("enc1:") and row["previous_secret"].startswith("enc1:")
    for secret in (endpoint["secret"], rotated["secret"]):
        assert secret.removeprefix("whsec_") not in row["secret"] + row["previous_secret"]
    if not settings.is_postgres:  # nor anywhere in the database's files
        files = [str(p) for p in settings.sqlite_path.parent.iterdir() if p.name.startswith(settings.sqlite_path.name)]
        # Read by another process: closing a file this process opened on the database would
        # drop every POSIX lock its SQLite connections hold on it, and another process could
        # then take the database for unused and remove its WAL under them ("database disk
        # image is malformed" in a later test; SQLite's "How To Corrupt", section 2.2).
        read = "import sys; sys.stdout.buffer.write(b''.join(open(f, 'rb').read() for f in sys.argv[1:]))"
        content = subprocess.run([sys.executable, "-c", read, *files], capture_output=True, check=True).stdout
        assert endpoint["secret"].encode() not in content and rotated["secret"].encode() not in content


async def test_an_endpoint_stored_before_sealing_still_signs(make_tenant):
    from models.db import webhooks as webhooks_db
    from models.db.tables import WebhookEndpoint

    tenant = await make_tenant(internal=True)
    receiver = Receiver()
    plain = webhooks_db.new_secret()
    async with Server(receiver.app, free_port()) as server:
        endpoint = (await tenant.post("/internal/webhook-endpoints", json={"url": f"{server.base_url}/hook"})).json()
        await WebhookEndpoint.update({WebhookEndpoint.secret: plain}).where(WebhookEndpoint.id == uuid.UUID(endpoint["id"]))
        assert (await _deliver(await _pending_delivery(tenant.id, endpoint["id"]))).delivered
    headers, body = receiver.received[-1]
    Webhook(plain).verify(body, headers)
