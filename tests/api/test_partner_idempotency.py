"""A business partner is onboarded once per Idempotency-Key (docs/api-decisions.md, "Business
partners"): a retry after a request that gave up joins its workflow, a request that outlived
its lease no longer holds the key (fencing), and keys expire after a day, their rows purged.
Real HTTP, the real onboarding workflow and activity on a real Temporal server, a real database."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from dataclasses import replace

import httpx
import pytest
from temporalio.worker import Worker

from api.idempotency import Idempotency
from api.problems import Conflict
from models.clock import utcnow
from models.db.tables import BusinessPartner, IdempotencyRecord
from tests.api.test_business_partners import PARTNER
from tests.conftest import Server, Tenant, free_port

EXPIRED = dt.timedelta(hours=24, minutes=1)  # a key is kept 24 h (api/idempotency.py RETENTION)


async def _partners_named(tenant: Tenant, name: str) -> int:
    return await BusinessPartner.count().where(
        (BusinessPartner.tenant_id == uuid.UUID(tenant.id)) & (BusinessPartner.name == name)
    )


async def _age(tenant: Tenant, key: str, by: dt.timedelta) -> None:
    """The key's row as if its first request came `by` ago (and its lease with it)."""
    then = utcnow() - by
    await IdempotencyRecord.update(
        {IdempotencyRecord.created_at: then, IdempotencyRecord.lease_until: then + dt.timedelta(seconds=120)}
    ).where((IdempotencyRecord.tenant_id == uuid.UUID(tenant.id)) & (IdempotencyRecord.key == key))


async def test_a_retry_after_a_request_that_gave_up_onboards_the_partner_once(
    tenant, settings, temporal_env, monkeypatch
):
    """The first request's workflow is slow to run (no worker on its queue yet): the request
    gives up (503) and frees its key; the workflow goes on. The retry with the same key and
    body joins that workflow. Old code drew a new id per request, so the retry onboarded a
    second partner beside the first."""
    from api.app import create_app
    from activities.partners import save_business_partner
    from workflows.partners import BusinessPartnerWorkflow

    monkeypatch.setattr("api.partners.controller.WORKFLOW_DEADLINE", 1.0)
    queue = f"partners-{uuid.uuid4()}"
    name = f"Slow Onboarding {uuid.uuid4().hex[:6]}"
    body = {**PARTNER, "name": name}
    key = {"Idempotency-Key": f"onboard-{uuid.uuid4()}"}
    app = create_app(replace(settings, task_queue=queue), temporal_env.client)
    async with Server(app, free_port()) as server, httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
        client = Tenant(tenant.credentials, http)
        first = await client.post("/internal/business-partners", json=body, headers=key)
        assert first.status_code == 503, first.text
        async with Worker(temporal_env.client, task_queue=queue, workflows=[BusinessPartnerWorkflow],
                          activities=[save_business_partner]):
            retry = await client.post("/internal/business-partners", json=body, headers=key)
            assert retry.status_code == 201, retry.text
            for _ in range(15):  # the first request's workflow has run by now, whichever it was
                if await _partners_named(tenant, name) > 1:
                    break
                await asyncio.sleep(0.2)
    assert await _partners_named(tenant, name) == 1
    assert retry.json()["name"] == name


async def test_a_request_that_outlived_its_lease_no_longer_holds_the_key(tenant):
    """A's process stalled past its lease; B took the key over. A's failure must not free the
    key B holds (old code deleted it: a third request ran beside B), nor A's completion
    store its answer over B's."""
    key = f"fenced-{uuid.uuid4()}"
    a = Idempotency(tenant.id, key, b"{}")
    assert await a.begin() is None
    await IdempotencyRecord.update({IdempotencyRecord.lease_until: utcnow() - dt.timedelta(seconds=1)}).where(
        (IdempotencyRecord.tenant_id == uuid.UUID(tenant.id)) & (IdempotencyRecord.key == key)
    )
    b = Idempotency(tenant.id, key, b"{}")
    assert await b.begin() is None  # took it over
    await a.release()
    with pytest.raises(Conflict):  # B still holds it
        await Idempotency(tenant.id, key, b"{}").begin()
    await a.complete(201, b'{"by":"a"}')
    with pytest.raises(Conflict):  # A's answer is not the key's
        await Idempotency(tenant.id, key, b"{}").begin()
    await b.complete(201, b'{"by":"b"}')
    replay = await Idempotency(tenant.id, key, b"{}").begin()
    assert replay is not None and replay.content == b'{"by":"b"}'


async def test_keys_expire_after_a_day_and_their_rows_are_purged(tenant):
    """Within a day the key replays (and refuses another body); after it the key is
    forgotten: the same body finds the same partner again (its id follows from key and
    body), another body is a new partner (old code: 422 for ever, the row never removed)."""
    name = f"Kept Key {uuid.uuid4().hex[:6]}"
    body = {**PARTNER, "name": name}
    key = f"kept-{uuid.uuid4()}"
    first = await tenant.post("/internal/business-partners", json=body, headers={"Idempotency-Key": key})
    assert first.status_code == 201, first.text
    other = {**body, "name": name + " II"}
    assert (await tenant.post("/internal/business-partners", json=other, headers={"Idempotency-Key": key})).status_code == 422

    await _age(tenant, key, EXPIRED)
    again = await tenant.post("/internal/business-partners", json=body, headers={"Idempotency-Key": key})
    assert again.status_code == 201, again.text
    assert "idempotent-replayed" not in again.headers  # a new request: its workflow had completed
    assert again.json() == first.json() and await _partners_named(tenant, name) == 1

    await _age(tenant, key, EXPIRED)
    second = await tenant.post("/internal/business-partners", json=other, headers={"Idempotency-Key": key})
    assert second.status_code == 201, second.text
    assert second.json()["id"] != first.json()["id"]

    # The purge: every expired creation key goes; a fresh one stays.
    expired_key, fresh_key = f"old-{uuid.uuid4()}", f"new-{uuid.uuid4()}"
    for k in (expired_key, fresh_key):
        r = await tenant.post("/internal/business-partners", json={**body, "name": k}, headers={"Idempotency-Key": k})
        assert r.status_code == 201, r.text
    await _age(tenant, expired_key, EXPIRED)
    from api.idempotency import RETENTION, purge_expired

    assert RETENTION < EXPIRED
    assert await purge_expired() >= 1
    keys = {r["key"] for r in await IdempotencyRecord.select(IdempotencyRecord.key).where(
        (IdempotencyRecord.tenant_id == uuid.UUID(tenant.id)) & IdempotencyRecord.key.is_in([expired_key, fresh_key])
    )}
    assert keys == {fresh_key}
