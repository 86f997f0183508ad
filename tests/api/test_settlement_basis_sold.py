"""A quote freezes each cover's settlement basis and the policy keeps it (issue 34): a tenant
quote over a partial month and a whole one (the partial period's cover is made to order for
it) stores the coverages' source ladders in its line items' cover snapshots, the policy made
of it copies them, and the internal policy view shows them as `settlementBasis`. Before
issue 34 the snapshots had none and the view had no such field."""

from __future__ import annotations

import uuid

from models.db.records import LineItemRow, records
from models.db.tables import Coverage, LineItem
from models.domain.settlement_basis import decode_basis

TARGET = "IN-12.875N-077.625E"  # Bengaluru, pin code 560001


async def _snapshots(column, value: uuid.UUID):
    rows = records(LineItemRow, await LineItem.select().where(column == value).order_by(LineItem.position))
    return [c for row in rows for c in row.covers]


async def test_a_quote_and_its_policy_keep_each_covers_settlement_basis(tenant):
    body = {"monitoringTargetId": TARGET, "riskPeriodFrom": "2027-06-10", "riskPeriodTo": "2027-07-31",
            "sumInsuredForLineItem": {"amount": 250000, "currency": "INR"}}
    quote = await tenant.post("/quotes", json=body, timeout=600)
    assert quote.status_code == 200, quote.text
    covers = await _snapshots(LineItem.quote_id, uuid.UUID(quote.json()["id"]))
    assert covers and {(c.start.day, c.end.day) for c in covers} >= {(10, 30), (1, 31)}  # partial June, whole July
    for cover in covers:
        stored = await Coverage.select(Coverage.settlement_basis, Coverage.data_set).where(
            Coverage.id == cover.coverage_id).first()
        assert cover.settlement_basis is not None, cover.index_code
        assert cover.settlement_basis == decode_basis(stored["settlement_basis"])
        assert cover.settlement_basis.data_set == cover.data_set == stored["data_set"]

    policy = await tenant.patch(f"/quotes/{quote.json()['id']}")
    assert policy.status_code == 200, policy.text
    policy_id = uuid.UUID(policy.json()["id"])
    kept = await _snapshots(LineItem.policy_id, policy_id)
    assert [(c.coverage_id, c.settlement_basis) for c in kept] == [(c.coverage_id, c.settlement_basis) for c in covers]

    view = await tenant.get(f"/internal/policies/{policy_id}")
    assert view.status_code == 200, view.text
    by_id = {c.coverage_id: c.settlement_basis for c in kept}
    for item in view.json()["policyItems"]:
        basis = item["coverage"]["settlementBasis"]
        expected = by_id[uuid.UUID(item["coverage"]["id"])]
        assert basis["dataSet"] == expected.data_set
        assert basis["calculationDeadlineDays"] == expected.calculation_deadline_days == 15
        assert [r["rung"] for r in basis["ladder"]] == ["FINAL", "PROVISIONAL"]
