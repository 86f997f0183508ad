"""Tenant surface: quotes and policies through HTTP, each lifecycle a Temporal workflow."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import pytest

import msgspec

from models.temporal.ids import policy_workflow_id, quote_workflow_id
from models.temporal.policies import STATUS_QUERY as POLICY_STATUS_QUERY, PolicyWorkflowStatus
from models.temporal.quotes import STATUS_QUERY as QUOTE_STATUS_QUERY, QuoteWorkflowStatus
from models.temporal.search_attributes import POLICY_STATUS, QUOTE_STATE, TENANT_ID
from tests.conftest import assert_problem

TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001
YEAR = dt.date.today().year + 1


def new_quote(**changes) -> dict:
    body = {
        "monitoringTargetId": TARGET,
        "riskPeriodFrom": f"{YEAR}-01-01",
        "riskPeriodTo": f"{YEAR}-12-31",
        "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"},
        "externalRef": "crop-loan-4711",
    }
    body.update(changes)
    return body


@pytest.fixture(scope="module")
async def quote(tenant) -> dict:
    r = await tenant.post("/quotes", json=new_quote(), timeout=600)
    assert r.status_code == 200, r.text
    return r.json()


def money(value: dict) -> Decimal:
    return Decimal(str(value["amount"]))


async def test_quote_has_twelve_monthly_line_items_with_two_covers(quote):
    assert quote["status"] == "CREATED"
    assert quote["inceptionDate"] == f"{YEAR}-01-01" and quote["expiryDate"] == f"{YEAR}-12-31"
    assert quote["name"] == f"01-01-{YEAR} - 31-12-{YEAR}"
    assert quote["externalRef"] == "crop-loan-4711"
    items = quote["lineItems"]
    assert len(items) == 12
    for month, item in enumerate(items, start=1):
        start = dt.date(YEAR, month, 1)
        end = (dt.date(YEAR + (month == 12), month % 12 + 1, 1)) - dt.timedelta(days=1)
        assert item["name"] == f"{start:%d-%m-%Y} - {end:%d-%m-%Y}"
        assert len(item["coverages"]) == 2
        for cover in item["coverages"]:
            assert cover["riskPeriodStart"] == start.isoformat() and cover["riskPeriodEnd"] == end.isoformat()
            assert cover["monitoringTarget"]["id"] == TARGET
            assert cover["monitoringTarget"]["geometry"] == {"type": "Point", "coordinates": [77.625, 12.875]}
            assert 0 < cover["grossWrittenPremiumPct"] < 1
            assert cover["triggerValue"] > 0 and cover["triggerUnit"] in ("mm", "°C", "km/h")
            assert set(cover["indexDefinition"]) == {"id", "description"}
        assert item["sumInsured"] == {"amount": 250000, "currency": "INR"}
        assert item["quantity"] == 2.5  # 250,000 / the 100,000 unit limit of a catalogue cover


async def test_quote_totals_are_exact_sums(quote):
    items = quote["lineItems"]
    assert money(quote["totalSumInsured"]) == sum(money(i["totalSumInsured"]) for i in items)
    assert money(quote["totalSumInsured"]) == sum(money(i["sumInsured"]) for i in items) == Decimal(3_000_000)
    assert quote["grossPremiumAmount"]["currency"] == "INR"
    premium = money(quote["grossPremiumAmount"])
    assert premium == premium.quantize(Decimal("0.01"))
    expected = sum(
        (sum(Decimal(str(c["grossWrittenPremiumPct"])) for c in i["coverages"]) * 25_000_000).quantize(Decimal(1))
        for i in items
    ) / 100
    assert premium == expected


async def test_get_and_list_quotes(tenant, quote):
    r = await tenant.get(f"/quotes/{quote['id']}")
    assert r.status_code == 200
    assert r.json() == {
        "id": quote["id"],
        "status": "CREATED",
        "monitoringTargetId": TARGET,
        "riskPeriodFrom": f"{YEAR}-01-01",
        "riskPeriodTo": f"{YEAR}-12-31",
        "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"},
        # whether it fits the capacity limits (docs/capacity.md): no limit applies here
        "capacity": {"fits": True, "limit": None, "remaining": None, "required": None, "used": None},
        "uncoveredMonths": [],  # every month has a line item (tests/api/test_twelve_month_quotes.py)
    }
    page = (await tenant.get("/quotes")).json()
    assert set(page) == {"content", "totalElements", "totalPages", "size", "number"}
    assert page["size"] == 20 and page["number"] == 0
    assert any(q["id"] == quote["id"] for q in page["content"])
    assert set(page["content"][0]) == {
        "id", "status", "monitoringTargetId", "riskPeriodFrom", "riskPeriodTo", "uncoveredMonths"
    }


async def test_quote_is_a_workflow_with_search_attributes(quote, tenant, temporal_env):
    handle = temporal_env.client.get_workflow_handle(quote_workflow_id(tenant.id, quote["id"]))
    description = await handle.describe()
    assert description.workflow_type == "QuoteWorkflow"
    attrs = description.typed_search_attributes
    assert attrs.get(TENANT_ID) == tenant.id and attrs.get(QUOTE_STATE) == "CREATED"
    untyped = await handle.query("status")
    assert untyped["status"] == "CREATED"
    # Typed (issue 33, 7): the query answers a QuoteWorkflowStatus, the JSON its callers read as before.
    typed = await handle.query(QUOTE_STATUS_QUERY, result_type=QuoteWorkflowStatus)
    assert typed.status == "CREATED" and typed.quote_id == quote["id"] and typed.policy_id is None
    assert msgspec.to_builtins(typed) == untyped
    assert set(untyped) == {"quoteId", "status", "policyId", "deadline", "detail"}


async def test_convert_activate_cancel(tenant, temporal_env):
    created = (await tenant.post("/quotes", json=new_quote(externalRef=None))).json()
    r = await tenant.patch(f"/quotes/{created['id']}")
    assert r.status_code == 200, r.text
    policy = r.json()
    assert policy["status"] == "CREATED" and policy["id"] != created["id"]
    assert [i["id"] for i in policy["lineItems"]] != [i["id"] for i in created["lineItems"]]
    assert not {i["id"] for i in policy["lineItems"]} & {i["id"] for i in created["lineItems"]}
    assert [[c["id"] for c in i["coverages"]] for i in policy["lineItems"]] == [
        [c["id"] for c in i["coverages"]] for i in created["lineItems"]
    ]
    assert policy["totalSumInsured"] == created["totalSumInsured"]
    assert policy["grossPremiumAmount"] == created["grossPremiumAmount"]
    assert (await tenant.get(f"/quotes/{created['id']}")).json()["status"] == "ACCEPTED"
    # A second conversion, a reject after acceptance: refused.
    assert_problem(await tenant.patch(f"/quotes/{created['id']}"), 409)
    assert_problem(await tenant.delete(f"/quotes/{created['id']}/reject"), 409)
    # Drafts cannot be cancelled; activation answers ACCEPTED.
    assert_problem(await tenant.delete(f"/policies/{policy['id']}"), 409)
    r = await tenant.patch(f"/policies/{policy['id']}")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "ACCEPTED" and len(r.json()["lineItems"]) == 12
    assert_problem(await tenant.patch(f"/policies/{policy['id']}"), 409)
    listed = (await tenant.get("/policies?status=ACCEPTED&size=100")).json()
    assert any(p["id"] == policy["id"] for p in listed["content"])
    handle = temporal_env.client.get_workflow_handle(policy_workflow_id(tenant.id, policy["id"]))
    assert (await handle.describe()).typed_search_attributes.get(POLICY_STATUS) == "ACCEPTED"
    r = await tenant.delete(f"/policies/{policy['id']}")
    assert r.status_code == 200 and r.json()["status"] == "CANCELED"
    assert_problem(await tenant.delete(f"/policies/{policy['id']}"), 409)
    canceled = (await tenant.get("/policies?status=CANCELED&size=100")).json()
    assert any(p["id"] == policy["id"] for p in canceled["content"])
    state = await handle.query("status")
    assert state["status"] == "CANCELED"
    typed = await handle.query(POLICY_STATUS_QUERY, result_type=PolicyWorkflowStatus)
    assert typed.status == "CANCELED" and typed.policy_id == policy["id"] and typed.quote_id == created["id"]
    assert msgspec.to_builtins(typed) == state
    assert set(state) == {"policyId", "quoteId", "status", "lapseAt", "periods", "detail"}
    assert set(state["periods"][0]) == {"start", "end", "monitoring"}
    await handle.result()  # the workflow ends: no timer left to trigger a cover


async def test_reject(tenant):
    created = (await tenant.post("/quotes", json=new_quote())).json()
    r = await tenant.delete(f"/quotes/{created['id']}/reject")
    assert r.status_code == 200 and r.json()["status"] == "REJECTED"
    assert_problem(await tenant.patch(f"/quotes/{created['id']}"), 409)
    assert_problem(await tenant.delete(f"/quotes/{created['id']}/reject"), 409)


async def test_concurrent_conversions_make_exactly_one_policy(tenant):
    created = (await tenant.post("/quotes", json=new_quote())).json()
    results = await asyncio.gather(*[tenant.patch(f"/quotes/{created['id']}") for _ in range(10)])
    codes = sorted(r.status_code for r in results)
    assert codes == [200] + [409] * 9, codes
    from models.db.tables import Policy

    assert await Policy.count().where(Policy.quote_id == created["id"]) == 1


async def _counted(tenant_id: str) -> dict[str, int]:
    from piccolo.query.functions.aggregate import Count

    from models.db.tables import Policy, PolicyCount

    rows = await Policy.select(Policy.status, Count()).where(Policy.tenant_id == tenant_id).group_by(Policy.status)
    kept = await PolicyCount.select(PolicyCount.status, PolicyCount.n).where(PolicyCount.tenant_id == tenant_id)
    assert {r["status"]: r["n"] for r in kept if r["n"]} == {r["status"]: r["count"] for r in rows}
    return {r["status"]: r["count"] for r in rows}


async def test_list_totals_come_from_counters_that_follow_every_write(tenant):
    policies = []
    for _ in range(3):
        created = (await tenant.post("/quotes", json=new_quote())).json()
        policies.append((await tenant.patch(f"/quotes/{created['id']}")).json()["id"])
    for policy_id in policies[:2]:
        assert (await tenant.patch(f"/policies/{policy_id}")).status_code == 200
    assert (await tenant.delete(f"/policies/{policies[0]}")).status_code == 200
    counted = await _counted(tenant.id)
    assert counted["CREATED"] >= 1 and counted["ACCEPTED"] >= 1 and counted["CANCELED"] >= 1
    for status, n in counted.items():
        assert (await tenant.get(f"/policies?status={status}&size=1")).json()["totalElements"] == n
    everything = (await tenant.get("/policies?size=1")).json()["totalElements"]
    assert everything == sum(counted.values())
    # A period filter counts rows instead; over all time it agrees.
    assert (await tenant.get("/policies?from=2000-01-01&size=1")).json()["totalElements"] == everything


async def test_policy_counters_follow_inserts_status_changes_and_deletes(tenant):
    import uuid

    from models.clock import utcnow
    from models.db.tables import Policy

    tenant_id = str(uuid.uuid4())
    now = utcnow()
    ids = [uuid.uuid4() for _ in range(3)]
    await Policy.insert(*[
        Policy(id=i, tenant_id=tenant_id, quote_id=uuid.uuid4(), kind="TENANT", name="p", status="CREATED",
               inception_date=dt.date(2027, 1, 1), expiry_date=dt.date(2027, 12, 31), currency="INR",
               total_sum_insured_minor=1, gross_premium_minor=1, created_at=now, updated_at=now)
        for i in ids
    ])
    assert await _counted(tenant_id) == {"CREATED": 3}
    await Policy.update({Policy.status: "ACCEPTED"}).where(Policy.id.is_in(ids[:2]))
    await Policy.update({Policy.status: "ACCEPTED"}).where(Policy.id == ids[0])  # no change: no count
    assert await _counted(tenant_id) == {"CREATED": 1, "ACCEPTED": 2}
    await Policy.delete().where(Policy.id == ids[2])
    assert await _counted(tenant_id) == {"ACCEPTED": 2}
    await Policy.delete().where(Policy.tenant_id == tenant_id)
    assert await _counted(tenant_id) == {}


async def test_insert_rows_writes_what_piccolo_insert_writes(tenant):
    import uuid

    from models.db.core import insert_rows
    from models.db.tables import LineItem

    tenant_id = uuid.uuid4()
    coverage_ids = {1: str(uuid.uuid4()), 2: str(uuid.uuid4())}

    def row(position: int) -> LineItem:
        return LineItem(
            id=uuid.uuid4(), tenant_id=tenant_id, quote_id=uuid.uuid4(), position=position, name="01-01-2027 - 31-01-2027",
            period_start=dt.date(2027, 1, 1), period_end=dt.date(2027, 1, 31), currency="INR", quantity=Decimal("2.5"),
            sum_insured_minor=25_000_000, total_sum_insured_minor=25_000_000, min_payout_minor=1,
            payout_per_unit_minor=2, premium_minor=3, covers=[{"coverage_id": coverage_ids[position], "trigger": 1.5}],
        )

    ours, piccolos = [row(1), row(2)], [row(1), row(2)]
    await insert_rows(ours)
    await LineItem.insert(*piccolos)

    async def read(rows):
        found = await LineItem.select().where(LineItem.id.is_in([r.id for r in rows])).order_by(LineItem.position)
        return [{k: v for k, v in r.items() if k not in ("id", "quote_id")} for r in found]

    assert await read(ours) == await read(piccolos)
    assert len(await read(ours)) == 2


async def test_idempotency_key(tenant):
    headers = {"Idempotency-Key": "order-981"}
    first = await tenant.post("/quotes", json=new_quote(), headers=headers)
    again = await tenant.post("/quotes", json=new_quote(), headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again.headers.get("idempotent-replayed") == "true"
    other = await tenant.post("/quotes", json=new_quote(externalRef="other"), headers=headers)
    assert_problem(other, 422)


async def test_idempotency_key_in_flight_is_409(tenant):
    headers = {"Idempotency-Key": "burst-1"}
    results = await asyncio.gather(*[tenant.post("/quotes", json=new_quote(), headers=headers) for _ in range(5)])
    codes = sorted(r.status_code for r in results)
    assert codes.count(200) >= 1 and set(codes) <= {200, 409}, codes
    ids = {r.json()["id"] for r in results if r.status_code == 200}
    assert len(ids) == 1


async def test_other_tenants_see_404_everywhere(tenant, other_tenant):
    created = (await tenant.post("/quotes", json=new_quote())).json()
    policy = (await tenant.patch(f"/quotes/{created['id']}")).json()
    for call in (
        other_tenant.get(f"/quotes/{created['id']}"),
        other_tenant.patch(f"/quotes/{created['id']}"),
        other_tenant.delete(f"/quotes/{created['id']}/reject"),
        other_tenant.patch(f"/policies/{policy['id']}"),
        other_tenant.delete(f"/policies/{policy['id']}"),
    ):
        assert_problem(await call, 404)
    assert all(q["id"] != created["id"] for q in (await other_tenant.get("/quotes?size=100")).json()["content"])
    assert all(p["id"] != policy["id"] for p in (await other_tenant.get("/policies?size=100")).json()["content"])


@pytest.mark.parametrize(
    "body",
    [
        new_quote(monitoringTargetId="IN-00.000N-000.000E"),
        new_quote(riskPeriodFrom="2020-01-01", riskPeriodTo="2020-12-31"),
        new_quote(riskPeriodTo=f"{YEAR - 1}-12-31"),
        new_quote(riskPeriodTo=f"{YEAR + 1}-06-30"),
        new_quote(riskPeriodFrom="01-01-2027"),
        new_quote(riskPeriodFrom=f"{YEAR}-02-30"),
        new_quote(sumInsuredForLineItem={"amount": "NaN", "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": "Infinity", "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": -1, "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": 0, "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": 1e300, "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": 10.001, "currency": "INR"}),
        new_quote(sumInsuredForLineItem={"amount": 1000, "currency": "USD"}),
        new_quote(sumInsuredForLineItem={"amount": 1000}),
        new_quote(sumInsuredForLineItem=1000),
        {k: v for k, v in new_quote().items() if k != "monitoringTargetId"},
        new_quote(monitoringTargetId=7),
    ],
)
async def test_bad_quotes_are_400(tenant, body):
    assert_problem(await tenant.post("/quotes", json=body), 400)


@pytest.mark.parametrize(
    "query",
    ["size=0", "size=101", "page=-1", "status=SLEEPING", "from=yesterday", "from=2027-05-01&to=2027-01-01"],
)
async def test_bad_policy_queries_are_400(tenant, query):
    assert_problem(await tenant.get(f"/policies?{query}"), 400)


@pytest.mark.parametrize("name", ["from", "to"])
async def test_a_bad_date_names_the_query_parameter_the_client_sent(tenant, name):
    body = assert_problem(await tenant.get(f"/policies?{name}=2027-13-01"), 400)
    assert [e["field"] for e in body["errors"]] == [name]


async def test_unknown_ids_are_404(tenant):
    for call in (
        tenant.get("/quotes/7d0a8f0e-0000-4000-8000-000000000000"),
        tenant.patch("/quotes/7d0a8f0e-0000-4000-8000-000000000000"),
        tenant.patch("/policies/7d0a8f0e-0000-4000-8000-000000000000"),
        tenant.delete("/policies/7d0a8f0e-0000-4000-8000-000000000000"),
    ):
        assert_problem(await call, 404)


async def test_a_key_left_in_flight_by_a_dead_process_is_taken_over_after_its_lease(tenant):
    """Issue 25, finding 4: an IN_FLIGHT Idempotency-Key row had no expiry, so a key whose
    API process was killed mid-request answered 409 for ever. The claim now has a lease:
    within it a retry is 409, after it the retry runs the request (the same quote)."""
    import hashlib
    import uuid

    import msgspec

    from api.idempotency import LEASE
    from models.clock import utcnow
    from models.db.tables import IdempotencyRecord
    from models.wire.tenant import NewQuote

    headers = {"Idempotency-Key": "killed-mid-request"}
    body = new_quote()
    digest = hashlib.sha256(msgspec.json.encode(msgspec.convert(body, NewQuote))).hexdigest()
    started = utcnow()
    # What a process killed right after claiming the key leaves behind.
    await IdempotencyRecord.insert(IdempotencyRecord(
        tenant_id=uuid.UUID(tenant.id), key="killed-mid-request", request_sha256=digest, status="IN_FLIGHT",
        created_at=started, lease_until=started + LEASE,
    ))
    assert_problem(await tenant.post("/quotes", json=body, headers=headers), 409)  # still within its lease
    await IdempotencyRecord.update({IdempotencyRecord.lease_until: utcnow() - dt.timedelta(seconds=1)}).where(
        IdempotencyRecord.key == "killed-mid-request"
    )
    retried = await tenant.post("/quotes", json=body, headers=headers)
    assert retried.status_code == 200, retried.text
    again = await tenant.post("/quotes", json=body, headers=headers)
    assert again.json() == retried.json() and again.headers.get("idempotent-replayed") == "true"


async def test_a_tenant_reads_one_policy(tenant, other_tenant):
    """Issue 29: `GET /policies/{id}` answered 405: a tenant could list its policies but
    not read one. It answers the policy as conversion and activation do."""
    created = (await tenant.post("/quotes", json=new_quote())).json()
    draft = (await tenant.patch(f"/quotes/{created['id']}")).json()
    read = await tenant.get(f"/policies/{draft['id']}")
    assert read.status_code == 200, read.text
    assert read.json() == draft
    accepted = (await tenant.patch(f"/policies/{draft['id']}")).json()
    assert (await tenant.get(f"/policies/{draft['id']}")).json() == accepted
    assert_problem(await other_tenant.get(f"/policies/{draft['id']}"), 404)
