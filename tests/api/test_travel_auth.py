"""Travel surface: API-key bearer auth, tenant in the path, validated events."""

from __future__ import annotations

import datetime as dt
import uuid

from models.clock import utcnow
from models.db.tables import ParametricEvent
from tests.conftest import assert_problem


def path(tenant_id: str, day: str = "2026-07-14") -> str:
    return f"/travel/{tenant_id}/parametric-event?validated_day={day}"


async def test_api_key_authenticates_the_travel_surface(http, tenant):
    r = await http.get(path(tenant.id), headers={"Authorization": f"Bearer {tenant.credentials['api_key']}"})
    assert r.status_code == 200, r.text
    assert r.json() == {"validated_events": []}


async def test_access_token_also_works_on_the_travel_surface(http, tenant):
    r = await http.get(path(tenant.id), headers={"Authorization": f"Bearer {await tenant.token()}"})
    assert r.status_code == 200


async def test_travel_auth_failures(http, tenant, other_tenant):
    key = tenant.credentials["api_key"]
    assert_problem(await http.get(path(tenant.id)), 401)
    assert_problem(await http.get(path(tenant.id), headers={"Authorization": "Bearer pk_wrong"}), 401)
    # Key of tenant A on tenant B's path, or with B's header: it does not authenticate B (401).
    assert_problem(await http.get(path(other_tenant.id), headers={"Authorization": f"Bearer {key}"}), 401)
    r = await http.get(path(tenant.id), headers={"Authorization": f"Bearer {key}", "x-tenant-id": other_tenant.id})
    assert_problem(r, 401)


async def test_validated_day_is_required_and_checked(http, tenant):
    headers = {"Authorization": f"Bearer {tenant.credentials['api_key']}"}
    assert_problem(await http.get(f"/travel/{tenant.id}/parametric-event", headers=headers), 400)
    assert_problem(await http.get(path(tenant.id, "14-07-2026"), headers=headers), 400)
    assert_problem(await http.get(path(tenant.id, "2026-02-30"), headers=headers), 400)


async def test_events_are_listed_per_tenant_with_exact_amounts(http, tenant, other_tenant):
    day = dt.date(2026, 8, 2)
    policy_id = uuid.uuid4()
    await ParametricEvent.insert(
        ParametricEvent(
            id=uuid.uuid4(),
            tenant_id=uuid.UUID(tenant.id),
            policy_id=policy_id,
            coverage_id=uuid.uuid4(),
            settlement_key=f"{policy_id}:test",
            event_type="HOTEL_RAIN",
            validated_day=day,
            index_value=12,
            currency="INR",
            payout_minor=450050,
            created_at=utcnow(),
        )
    )
    mine = await http.get(path(tenant.id, "2026-08-02"), headers={"Authorization": f"Bearer {tenant.credentials['api_key']}"})
    [event] = mine.json()["validated_events"]
    assert {k: event[k] for k in ("policy_id", "event_type", "validated_day", "validated_amount")} == {
        "policy_id": str(policy_id), "event_type": "HOTEL_RAIN", "validated_day": "2026-08-02", "validated_amount": 4500.5
    }
    assert event["kind"] == "SETTLEMENT" and event["adjustment_of"] is None and event["event_id"]
    theirs = await http.get(
        path(other_tenant.id, "2026-08-02"), headers={"Authorization": f"Bearer {other_tenant.credentials['api_key']}"}
    )
    assert theirs.json() == {"validated_events": []}
