"""Monthly bordereaux (issue 27; docs/bordereaux.md), over real HTTP against the test
service: the risk file of a month lists the policies bound in it, the claims file the
payouts recorded in it (adjustments as rows of their own); their totals reconcile to the
database to the minor unit; a re-run gives byte-identical files; who gets which file; bad
and unfinished months; the Schedule produces the month just ended.

The book is written straight to the database as conversion, activation and settlement write
it, in February 2024 (a leap month: its last instant is 2024-02-29T23:59:59.999999Z), with
policies and payouts just outside it on both sides."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import uuid
from dataclasses import replace
from decimal import Decimal

import pytest

from models.clock import utcnow
from models.db.core import insert_rows, write_transaction
from models.db.tables import (
    Bordereau,
    Coverage,
    MonitoringTarget,
    ParametricEvent,
    Payout,
    Policy,
    PolicyItem,
)
from models.domain import bordereaux as b
from models.domain.index_catalog import BY_CODE
from tests.conftest import assert_problem

MONTH = "2024-02"
UTC = dt.timezone.utc


def at(*parts) -> dt.datetime:
    return dt.datetime(*parts, tzinfo=UTC)


async def _target() -> str:
    row = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id).first()
    assert row is not None, "reference data holds monitoring targets"
    return row["id"]


async def _coverage(target: str, code: str = "RAINFALL_MONTHLY_TOTAL", carrier: str = "Parametric Re Ltd") -> uuid.UUID:
    coverage_id = uuid.uuid4()
    now = utcnow()
    await insert_rows([Coverage(
        id=coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[code].id,
        risk_period_start=dt.date(2024, 3, 1), risk_period_end=dt.date(2024, 3, 31), label="bordereau test",
        risk_carrier=carrier, currency="INR", status="ACTIVE", ui_state="active", direction="ABOVE",
        trigger=Decimal(f"180.{coverage_id.int % 10**6:06d}"), limit_minor=10_000_000, min_payout_minor=0, payout_per_unit_minor=50_000,
        expected_loss_ratio=Decimal("0.65"), created_by="test", created_at=now, updated_at=now,
    )])
    return coverage_id


async def _policy(tenant_id: str, coverage_id: uuid.UUID, activated_at: dt.datetime | None, premium: int,
                  sum_insured: int = 25_000_000) -> uuid.UUID:
    """A policy as activation leaves it (activated_at None: a draft, never bound)."""
    policy_id = uuid.uuid4()
    now = utcnow()
    await insert_rows([Policy(
        id=policy_id, tenant_id=uuid.UUID(tenant_id), quote_id=uuid.uuid4(), kind="TENANT", name=f"farm {policy_id.hex[:6]}",
        status="ACTIVE" if activated_at else "CREATED", external_ref=f"ext-{policy_id.hex[:6]}",
        inception_date=dt.date(2024, 3, 1), expiry_date=dt.date(2024, 3, 31), currency="INR",
        total_sum_insured_minor=sum_insured, gross_premium_minor=premium, risk_premium_minor=premium // 2,
        activated_at=activated_at, signature_confirmed=activated_at is not None, created_at=now, updated_at=now,
    )])
    await insert_rows([PolicyItem(
        id=uuid.uuid4(), tenant_id=uuid.UUID(tenant_id), policy_id=policy_id, coverage_id=coverage_id, name="rain",
        quantity=Decimal(1), currency="INR", sum_insured_minor=sum_insured, total_sum_insured_minor=sum_insured,
        total_min_payout_minor=0,
    )])
    return policy_id


async def _payout(tenant_id: str, policy_id: uuid.UUID, coverage_id: uuid.UUID, revision: int, amount: int,
                  created_at: dt.datetime) -> str:
    """A settlement's (revision 1) or an adjustment's event and payout, as settlement writes them."""
    key = f"{policy_id}:{coverage_id}:r{revision}"
    event_id = uuid.uuid5(uuid.NAMESPACE_URL, key)
    async with write_transaction():
        await insert_rows([ParametricEvent(
            id=event_id, tenant_id=uuid.UUID(tenant_id), policy_id=policy_id, coverage_id=coverage_id, settlement_key=key,
            event_type="EXCESS_RAINFALL", validated_day=created_at.date(), index_value=Decimal("212.40000000"),
            currency="INR", payout_minor=amount, created_at=created_at, kind="SETTLEMENT" if revision == 1 else "ADJUSTMENT",
            data_set="IMD-GRID-025", revision=revision, explanation="{}",
        )])
        await insert_rows([Payout(
            id=uuid.uuid4(), tenant_id=uuid.UUID(tenant_id), policy_id=policy_id, coverage_id=coverage_id,
            event_id=event_id, settlement_key=key, currency="INR", amount_minor=amount, created_at=created_at,
        )])
    return key


@pytest.fixture(scope="module")
async def book(make_tenant, service) -> dict:
    """Two tenants' February 2024, and what lies just outside it."""
    acme, globex = await make_tenant(internal=True), await make_tenant(internal=True)
    target = await _target()
    c1, c2 = await _coverage(target), await _coverage(target, "RAINFALL_DEFICIT")
    first = await _policy(acme.id, c1, at(2024, 2, 1), 1_234_567)  # the month's first instant
    last = await _policy(acme.id, c2, at(2024, 2, 29, 23, 59, 59, 999999), 5)  # its last
    await _policy(acme.id, c1, at(2024, 1, 31, 23, 59, 59, 999999), 777_777)  # January
    await _policy(acme.id, c1, at(2024, 3, 1), 888_888)  # March
    await _policy(acme.id, c1, None, 999_999)  # a draft, never bound
    theirs = await _policy(globex.id, c1, at(2024, 2, 14, 9, 30), 3_000_001)
    monsoon = await _policy(globex.id, await _coverage(target, carrier="Monsoon Re"), at(2024, 2, 15), 4_000_000)
    settled = await _payout(acme.id, first, c1, 1, 2_500_000, at(2024, 2, 10, 0, 5))
    adjusted = await _payout(acme.id, first, c1, 2, -1_050, at(2024, 2, 20, 3, 0))  # a revision pays back 10.50
    await _payout(acme.id, first, c1, 3, 7_000, at(2024, 3, 1))  # March's
    await _payout(globex.id, theirs, c1, 1, 4_200_000, at(2024, 2, 29, 23, 59))
    return {"acme": acme, "globex": globex, "bound": {str(first), str(last)}, "theirs": str(theirs), "monsoon": str(monsoon),
            "settled": settled, "adjusted": adjusted}


def _rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode("utf-8"), newline="")))


def _minor(rows: list[dict], column: str) -> dict[str, int]:
    """Per currency, a money column summed exactly (formatted decimals back to minor units)."""
    out: dict[str, int] = {}
    for row in rows:
        currency = row["Original Currency"]
        out[currency] = out.get(currency, 0) + int(Decimal(row[column]).scaleb(2))
    return out


async def _database_premiums(tenant_id: str | None) -> dict[str, tuple[int, int, int]]:
    """Per currency: (policies bound, gross premium, sum insured) in the month, from the policies."""
    start, end = b.month_bounds(b.parse_month(MONTH))
    query = Policy.select().where((Policy.activated_at >= start) & (Policy.activated_at < end))
    if tenant_id:
        query = query.where(Policy.tenant_id == uuid.UUID(tenant_id))
    out: dict[str, tuple[int, int, int]] = {}
    for p in await query:
        n, premium, insured = out.get(p["currency"], (0, 0, 0))
        out[p["currency"]] = (n + 1, premium + p["gross_premium_minor"], insured + p["total_sum_insured_minor"])
    return out


async def _database_payouts(tenant_id: str | None) -> dict[str, tuple[int, int]]:
    start, end = b.month_bounds(b.parse_month(MONTH))
    query = Payout.select().where((Payout.created_at >= start) & (Payout.created_at < end))
    if tenant_id:
        query = query.where(Payout.tenant_id == uuid.UUID(tenant_id))
    out: dict[str, tuple[int, int]] = {}
    for p in await query:
        n, paid = out.get(p["currency"], (0, 0))
        out[p["currency"]] = (n + 1, paid + p["amount_minor"])
    return out


def _reconcile_risk(rows: list[dict], database: dict[str, tuple[int, int, int]]) -> None:
    premiums, insured = _minor(rows, "Gross Premium Paid this Time"), _minor(rows, "Sum Insured Amount")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["Original Currency"]] = counts.get(row["Original Currency"], 0) + 1
    assert {c: (counts[c], premiums[c], insured[c]) for c in counts} == database


def _reconcile_claims(rows: list[dict], database: dict[str, tuple[int, int]]) -> None:
    paid = _minor(rows, "Paid this Month - Indemnity")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["Original Currency"]] = counts.get(row["Original Currency"], 0) + 1
    assert {c: (counts[c], paid[c]) for c in counts} == database


async def test_a_tenants_bordereaux_list_the_policies_bound_and_payouts_made_in_the_month(book):
    acme = book["acme"]
    risk = _rows(await acme.get(f"/internal/bordereaux/{MONTH}/risk.csv"))
    assert list(risk[0]) == list(b.RISK_COLUMNS)
    assert {r["Certificate Reference"] for r in risk} == book["bound"]  # not January's, March's or the draft
    _reconcile_risk(risk, await _database_premiums(acme.id))
    first = next(r for r in risk if r["Gross Premium Paid this Time"] == "12345.67")
    assert (first["Policy Issuance Date"], first["Reporting Period (End Date)"]) == ("2024-02-01", "2024-02-29")
    assert (first["Transaction Type"], first["Sum Insured Amount"], first["Parametric: Risk Premium"]) == (
        "Original Premium", "250000.00", "6172.83")
    assert first["Location of Risk Country"] == "IN" and first["Insurer"] == "Parametric Re Ltd"
    assert [r["Gross Premium Paid this Time"] for r in risk] == ["12345.67", "0.05"]  # bound first, first

    claims = _rows(await acme.get(f"/internal/bordereaux/{MONTH}/claims.csv"))
    assert list(claims[0]) == list(b.CLAIMS_COLUMNS)
    assert [r["Claim Reference"] for r in claims] == [book["settled"], book["adjusted"]]  # not March's
    _reconcile_claims(claims, await _database_payouts(acme.id))
    settled, adjusted = claims
    assert (settled["Parametric: Payment Kind"], settled["Paid this Month - Indemnity"], settled["Previously Paid - Indemnity"],
            settled["Total Incurred - Indemnity"]) == ("SETTLEMENT", "25000.00", "0.00", "25000.00")
    # The adjustment is a row of its own: what the revision paid back, after what was paid.
    assert (adjusted["Parametric: Payment Kind"], adjusted["Paid this Month - Indemnity"],
            adjusted["Previously Paid - Indemnity"], adjusted["Total Incurred - Indemnity"],
            adjusted["Reserve - Indemnity"]) == ("ADJUSTMENT", "-10.50", "25000.00", "24989.50", "0.00")
    assert (adjusted["Cause of Loss Code"], adjusted["Parametric: Index Value"], adjusted["Parametric: Revision"],
            adjusted["Date Claim Paid"], adjusted["Claim Status"]) == ("EXCESS_RAINFALL", "212.4", "2", "2024-02-20", "Closed")
    assert (adjusted["Date of Loss (From)"], adjusted["Date of Loss (To)"]) == ("2024-03-01", "2024-03-31")


async def test_operations_get_every_tenants_bordereau_or_one_tenants(book, operations_staff):
    everyone = _rows(await operations_staff.get(f"/internal/bordereaux/{MONTH}/risk.csv"))
    _reconcile_risk(everyone, await _database_premiums(None))
    assert book["bound"] | {book["theirs"], book["monsoon"]} <= {r["Certificate Reference"] for r in everyone}
    assert [r["Coverholder Name"] for r in everyone] == sorted(r["Coverholder Name"] for r in everyone)
    _reconcile_claims(_rows(await operations_staff.get(f"/internal/bordereaux/{MONTH}/claims.csv")),
                      await _database_payouts(None))
    globex = book["globex"].id
    theirs = _rows(await operations_staff.get(f"/internal/bordereaux/{MONTH}/risk.csv", params={"tenantId": globex}))
    assert [r["Certificate Reference"] for r in theirs] == [book["theirs"], book["monsoon"]]
    _reconcile_risk(theirs, await _database_premiums(globex))
    _reconcile_claims(_rows(await operations_staff.get(f"/internal/bordereaux/{MONTH}/claims.csv",
                                                       params={"tenantId": globex})), await _database_payouts(globex))
    # The other tenant's own client gets the same bytes operations get for it.
    mine = await book["globex"].get(f"/internal/bordereaux/{MONTH}/risk.csv")
    again = await operations_staff.get(f"/internal/bordereaux/{MONTH}/risk.csv", params={"tenantId": globex})
    assert mine.content == again.content


async def test_one_risk_carriers_rows(book, operations_staff):
    """Per tenant and risk carrier: `riskCarrier` keeps the rows whose Insurer it is."""
    path = f"/internal/bordereaux/{MONTH}/risk.csv"
    globex = book["globex"].id
    monsoon = await operations_staff.get(path, params={"tenantId": globex, "riskCarrier": "Monsoon Re"})
    assert [r["Certificate Reference"] for r in _rows(monsoon)] == [book["monsoon"]]
    assert monsoon.headers["x-bordereau-rows"] == "1" and monsoon.headers["x-content-sha256"] == b.sha256(monsoon.content)
    ours = _rows(await book["globex"].get(path, params={"riskCarrier": "Parametric Re Ltd"}))
    assert [r["Certificate Reference"] for r in ours] == [book["theirs"]]
    everyone = _rows(await operations_staff.get(path, params={"riskCarrier": "Monsoon Re"}))
    assert {r["Insurer"] for r in everyone} == {"Monsoon Re"} and book["monsoon"] in {r["Certificate Reference"] for r in everyone}
    nobody = await operations_staff.get(path, params={"riskCarrier": "Nobody Re"})
    assert nobody.content == b.header_only("risk")
    claims = _rows(await book["acme"].get(f"/internal/bordereaux/{MONTH}/claims.csv", params={"riskCarrier": "Parametric Re Ltd"}))
    assert [r["Claim Reference"] for r in claims] == [book["settled"], book["adjusted"]]


async def test_a_rerun_for_a_past_month_gives_byte_identical_files(book, operations_staff):
    paths = [f"/internal/bordereaux/{MONTH}/{kind}.csv" for kind in b.KINDS]
    before = [(await operations_staff.get(p)).content for p in paths]
    mine_before = [(await book["acme"].get(p)).content for p in paths]
    runs_before = (await Bordereau.select(Bordereau.runs).where(Bordereau.id == f"{MONTH}:risk:all").first())["runs"]
    rerun = await operations_staff.post(f"/internal/bordereaux/{MONTH}/runs")
    assert rerun.status_code == 200, rerun.text
    body = rerun.json()
    assert (body["month"], body["workflowId"]) == (MONTH, f"bordereaux:{MONTH}")
    after = [await operations_staff.get(p) for p in paths]
    assert [r.content for r in after] == before
    assert [(await book["acme"].get(p)).content for p in paths] == mine_before
    assert [r.headers["x-content-sha256"] for r in after] == [body["riskSha256"], body["claimsSha256"]]
    assert b.sha256(before[0]) == body["riskSha256"]
    runs_after = (await Bordereau.select(Bordereau.runs).where(Bordereau.id == f"{MONTH}:risk:all").first())["runs"]
    assert runs_after == runs_before + 1  # produced again, not read back
    # Nothing in the file says when it was produced: no date of this year (the book is of
    # 2024), no time of day.
    this_year = re.compile(rf"(?<![0-9a-f]){utcnow().year}-\d\d-\d\d(?![0-9a-f])")
    for content in before:
        assert not this_year.search(content.decode()) and not re.search(r"T\d\d:\d\d", content.decode())


async def test_bad_and_unfinished_months_and_who_may_call(book, operations_staff, make_tenant, data_staff):
    acme = book["acme"]
    for bad in ("2024-13", "2024-2", "feb-2024", "1999-12"):
        body = assert_problem(await acme.get(f"/internal/bordereaux/{bad}/risk.csv"), 400)
        assert body["errors"][0]["field"] == "month", body
    today = utcnow().date()
    for month in (b.month_text(today.replace(day=1)), b.month_text(b.next_month(today.replace(day=1)))):
        body = assert_problem(await acme.get(f"/internal/bordereaux/{month}/claims.csv"), 409)
        assert "has not ended" in body["detail"]
        assert_problem(await operations_staff.post(f"/internal/bordereaux/{month}/runs"), 409)
    body = assert_problem(await acme.get(f"/internal/bordereaux/{MONTH}/risk.csv",
                                         params={"tenantId": book["globex"].id}), 400)
    assert body["errors"][0]["field"] == "tenantId"
    assert_problem(await operations_staff.get(f"/internal/bordereaux/{MONTH}/risk.csv",
                                              params={"tenantId": str(uuid.uuid4())}), 404)
    assert_problem(await (await make_tenant(internal=False)).get(f"/internal/bordereaux/{MONTH}/risk.csv"), 403)
    assert_problem(await data_staff.get(f"/internal/bordereaux/{MONTH}/risk.csv"), 403)
    assert_problem(await acme.post(f"/internal/bordereaux/{MONTH}/runs"), 403)
    # A tenant with nothing in a produced month gets the header alone.
    quiet = await make_tenant(internal=True)
    assert (await quiet.get(f"/internal/bordereaux/{MONTH}/claims.csv")).content == b.header_only("claims")


async def test_the_schedule_produces_the_month_just_ended(book, service, temporal_env, settings):
    """The worker's `bordereaux-monthly` Schedule (1st of the month, 06:00 UTC) runs the
    workflow with no month: it produces the month before its start."""
    from models.temporal.bordereaux import (
        BORDEREAUX_SCHEDULE_ID,
        BORDEREAUX_WORKFLOW,
        BordereauxProduced,
    )
    from tests.schedules import remove_schedules, triggered_run
    from workflows.worker import ensure_schedules

    client = temporal_env.client
    await ensure_schedules(client, replace(settings, task_queue=service.task_queue))
    try:
        schedule = (await client.get_schedule_handle(BORDEREAUX_SCHEDULE_ID).describe()).schedule
        assert schedule.action.workflow == BORDEREAUX_WORKFLOW
        assert schedule.action.task_queue == f"{service.task_queue}-documents"
        (calendar,) = schedule.spec.calendars
        assert ([r.start for r in calendar.day_of_month], [r.start for r in calendar.hour],
                [r.start for r in calendar.minute]) == ([1], [6], [0])
        produced = await triggered_run(client, BORDEREAUX_SCHEDULE_ID, BordereauxProduced, timeout=120)
        just_ended = b.month_text(b.previous_month(utcnow().date()))
        assert produced.month == just_ended
        assert await Bordereau.exists().where(Bordereau.id == f"{just_ended}:risk:all")
    finally:
        await remove_schedules(client)
