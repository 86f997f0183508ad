"""The internal view of a tenant policy tells the same story as its other views (issue 29,
"One story per policy"): its items in the order of their risk periods (sorted by name,
December 2026 followed February 2027), its `customer` the policy holder the schedule names
(the tenant; it was ""), and a policy made without a quote (the demo's) answers 200 (500)."""

from __future__ import annotations

import datetime as dt

from models.clock import business_today

TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001


def _next_december() -> dt.date:
    """A December inside the sellable window, so the quote's months cross a year end."""
    today = business_today()
    return dt.date(today.year + (today.month >= 12), 12, 1)


async def test_items_follow_their_risk_periods_and_the_customer_is_the_policy_holder(make_tenant):
    import uuid

    name = f"Deccan Growers {uuid.uuid4().hex[:6]}"
    tenant = await make_tenant(internal=True, name=name)
    start = _next_december()
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": start.isoformat(),
            "riskPeriodTo": dt.date(start.year + 1, 2, 28).isoformat(),
            "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}
    quote = await tenant.post("/quotes", json=body, timeout=600)
    assert quote.status_code == 200, quote.text
    policy = (await tenant.patch(f"/quotes/{quote.json()['id']}")).json()
    r = await tenant.get(f"/internal/policies/{policy['id']}")
    assert r.status_code == 200, r.text
    view = r.json()
    starts = [i["coverage"]["start"] for i in view["policyItems"]]
    assert starts == sorted(starts) and starts[0].startswith(start.isoformat()), starts
    assert view["customer"] == name


async def test_a_policy_made_without_a_quote_is_shown(make_tenant):
    """The demo's policies are written without a quote behind them."""
    import uuid

    name = f"Demo-like {uuid.uuid4().hex[:6]}"
    tenant = await make_tenant(internal=True, name=name)
    from models.db.core import insert_rows
    from models.db.tables import Policy
    from models.clock import utcnow

    now = utcnow()
    policy_id = uuid.uuid4()
    await insert_rows([Policy(
        id=policy_id, tenant_id=uuid.UUID(tenant.id), quote_id=uuid.uuid4(), kind="TENANT", name="no quote",
        status="ACTIVE", external_ref=None, inception_date=now.date(), expiry_date=now.date(), currency="INR",
        total_sum_insured_minor=0, gross_premium_minor=0, activated_at=now, signature_confirmed=True,
        created_at=now, updated_at=now,
    )])
    r = await tenant.get(f"/internal/policies/{policy_id}")
    assert r.status_code == 200, r.text
    assert r.json()["policyItems"] == [] and r.json()["customer"] == name


async def test_a_tenant_surface_quote_is_shown_on_the_internal_surface(tenant, other_tenant):
    """docs/internal-quotes.md says a tenant quote's aggregated pricing is on the internal
    quote: GET /internal/quotes/{id} answered 404 for it."""
    from decimal import Decimal

    start = _next_december()
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": start.isoformat(),
            "riskPeriodTo": dt.date(start.year + 1, 1, 31).isoformat(),
            "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}
    quote = (await tenant.post("/quotes", json=body, timeout=600)).json()
    r = await tenant.get(f"/internal/quotes/{quote['id']}")
    assert r.status_code == 200, r.text
    shown = r.json()
    assert shown["state"] == "completed" and shown["customerId"] is None
    assert Decimal(str(shown["grossPremium"]["amount"])) == Decimal(str(quote["grossPremiumAmount"]["amount"]))
    assert Decimal(str(shown["totalSumInsured"]["amount"])) == Decimal(str(quote["totalSumInsured"]["amount"]))
    assert (await other_tenant.get(f"/internal/quotes/{quote['id']}")).status_code == 404
