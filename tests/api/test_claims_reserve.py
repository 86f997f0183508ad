"""Owed but not yet paid (issue 34; docs/portfolio.md, "Owed but not yet paid"), over real HTTP
against the test service: `GET /internal/portfolio` and the portfolio risk report show, per data
set and month, the expected payout still owed on ended covers not settled FINAL (INITIAL: the
payout at the un-reduced index of the latest snapshot less what was paid; no index yet: the
priced expected loss for the units) beside what was paid, exact to the paisa; a tenant sees
only its own.

The settlement rows, snapshots and events are written here as package `core` writes them
(PLAN-34.md: the table shapes), the book as tests/api/test_portfolio.py writes it."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.clock import utcnow
from models.db.core import insert_rows, json_value
from models.db.tables import LineItem, ParametricEvent, Policy, Settlement, SettlementSnapshot
from models.domain.ladder import (
    Reading,
    canonical_bytes,
    choose_rungs,
    ladder_index,
    snapshot_body,
    snapshot_hash,
    terms_of,
)
from tests.api.test_portfolio import (
    YEAR,
    _computed,
    _policy,
    _targets,
    money,
    whole_book_paths_removed_after,  # noqa: F401 - autouse
)
from tests.api.test_portfolio_report import _report, _text

PAST = YEAR - 2  # ended risk months


async def _covers(policy_id: uuid.UUID) -> dict[tuple[int, str], dict]:
    """(month, index code) → the cover as sold, with the line item's id."""
    out = {}
    for row in await LineItem.select().where(LineItem.policy_id == policy_id):
        for c in json_value(row["covers"]):
            out[(row["period_start"].month, c["index_code"])] = {**c, "line_item_id": row["id"]}
    return out


async def _settlement(cover: dict, target: str, state: str) -> None:
    now = utcnow()
    await insert_rows([Settlement(
        coverage_id=uuid.UUID(cover["coverage_id"]), monitoring_target_id=target,
        period_start=dt.date.fromisoformat(cover["start"]), period_end=dt.date.fromisoformat(cover["end"]),
        state=state, revision=1, updated_at=now, stage="INITIAL" if state == "INITIAL" else "",
    )])


async def _initial(cover: dict, target: str, daily: str) -> Decimal:
    """An INITIAL snapshot over provisional values of `daily` mm a day (its un-reduced index returned)."""
    start, end = dt.date.fromisoformat(cover["start"]), dt.date.fromisoformat(cover["end"])
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    primary = {d: Reading(d, Decimal(daily), True, "GOOD", 1, "imd-realtime", "IMD-RF-DAILY") for d in days}
    rungs = choose_rungs(days, primary, {}, provisional_error=Decimal(2), calibration=None, use_fallback=False,
                         variable="rainfall_mm", data_set="IMD-RF-DAILY")
    index = ladder_index(cover["index_code"], start, end, rungs, trigger=Decimal(cover["trigger"]),
                         direction=cover["direction"], error_share=Decimal(1))
    terms = terms_of(cover["direction"], Decimal(cover["trigger"]), None, Decimal(10), Decimal(1000), Decimal(0), "INR")
    body = snapshot_body(coverage_id=cover["coverage_id"], revision=1, stage="INITIAL", index_code=cover["index_code"],
                         start=start, end=end, terms=terms, error_share=Decimal(1), calibration=None, index=index)
    await insert_rows([SettlementSnapshot(
        id=f"{cover['coverage_id']}:s1", coverage_id=uuid.UUID(cover["coverage_id"]), revision=1, stage="INITIAL",
        sha256=snapshot_hash(body), body=canonical_bytes(body).decode(), index_value=index.value, created_at=utcnow(),
    )])
    await _settlement(cover, target, "INITIAL")
    return index.value


async def _paid(tenant_id: str, policy_id: uuid.UUID, cover: dict, minor: int, index: Decimal) -> None:
    key = f"{policy_id}:{cover['coverage_id']}:r1"
    await insert_rows([ParametricEvent(
        id=uuid.uuid4(), tenant_id=uuid.UUID(tenant_id), policy_id=policy_id, coverage_id=uuid.UUID(cover["coverage_id"]),
        settlement_key=key, event_type="RAINFALL_MONTHLY_TOTAL", validated_day=dt.date.fromisoformat(cover["end"]),
        index_value=index, currency="INR", payout_minor=minor, created_at=utcnow(), kind="SETTLEMENT",
        line_item_id=cover["line_item_id"], data_set="IMD-RF-DAILY", revision=1, stage="INITIAL",
    )])


async def test_the_reserve_per_data_set_and_month_over_http(make_tenant, operations_staff):
    acme, globex = await make_tenant(internal=True), await make_tenant(internal=True)
    a, _ = await _targets()
    policy = await _policy(acme.id, a, [7, 8], 10, 60_000, year=PAST)  # ended: 10 units, cap 10,000 INR a month
    covers = await _covers(policy)
    # July excess: INITIAL on 31 x 5.595 = 173.445 mm (reduced by its error for the payment), 2,000 INR paid;
    # owed at the un-reduced index: (173.445 - 150) x 10 INR x 10 units = 2,344.50 INR, less 2,000.00
    july_excess = covers[(7, "RAINFALL_MONTHLY_TOTAL")]
    index = await _initial(july_excess, a, "5.595")
    assert index == Decimal("173.445")
    await _paid(acme.id, policy, july_excess, 200_000, index)
    await _settlement(covers[(7, "RAINFALL_DEFICIT")], a, "SETTLED")  # FINAL, nothing paid: owes nothing
    # August: the excess cover has no settlement yet, the deficit cover is DISPUTED: each owes its priced
    # expected loss, 0.04 x 1,000 INR x 10 units = 400.00 INR
    await _settlement(covers[(8, "RAINFALL_DEFICIT")], a, "DISPUTED")

    # September, two more policies: one EXPIRED (its covers still owe: 2 x 0.04 x 1,000 INR x 5 units = 400.00),
    # one CANCELED before September began (its covers never pay: not in the reserve)
    expired = await _policy(acme.id, a, [9], 5, 30_000, year=PAST)
    cancelled = await _policy(acme.id, a, [9], 7, 30_000, year=PAST)
    await Policy.update({Policy.status: "EXPIRED"}).where(Policy.id == expired)
    await Policy.update({Policy.status: "CANCELED", Policy.canceled_at: dt.datetime(PAST, 8, 20, tzinfo=dt.UTC)}).where(
        Policy.id == cancelled)

    mine = await _computed(acme)
    reserve = mine["reserve"]
    assert [(r["dataSet"], r["month"], r["owed"], r["paid"], r["openCovers"], r["byState"]) for r in reserve["rows"]] == [
        ("IMD-RF-DAILY", f"{PAST}-07", money("344.50"), money("2000.00"), 1, {"INITIAL": 1}),
        ("IMD-RF-DAILY", f"{PAST}-08", money("800.00"), money("0.00"), 2, {"DISPUTED": 1, "WAITING": 1}),
        ("IMD-RF-DAILY", f"{PAST}-09", money("400.00"), money("0.00"), 2, {"WAITING": 2}),
    ]
    assert reserve["owed"] == money("1544.50") and reserve["paid"] == money("2000.00")
    assert "un-reduced index" in reserve["method"]

    # another tenant's book owes none of it; the whole book holds it
    assert (await _computed(globex))["reserve"]["rows"] == []
    whole = await _computed(operations_staff)
    assert whole["reserve"]["owed"]["amount"] >= Decimal("1544.50")
    assert {f"{PAST}-07", f"{PAST}-08"} <= {r["month"] for r in whole["reserve"]["rows"]}

    # the risk carrier's report shows the same figures
    r = await _report(acme)
    assert r.status_code == 200, r.text
    text = _text(r.content).replace("\n", " ")
    assert "Owed but not yet paid" in text
    for amount in ("₹344.50", "₹800.00", "₹400.00", "₹1,544.50", "₹2,000.00"):
        assert amount in text, amount
