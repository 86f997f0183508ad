"""Re-running every snapshot of a settled test book reproduces every payout to the paisa
(issue 34, "Done when"; docs/settlement.md, "Settlements anyone can re-run").

A book of 20 policies (2.5, 3 and 3.5 units on a 250,000 INR line item; five activated in
the middle of the month, settled policy by policy, the others set-based) on covers with a
source ladder is settled by the real settlement activity: INITIAL at the calculation deadline
on IMD's real-time product with two missing days filled by the calibrated fallback (ERA5),
then FINAL when the archive is loaded. Then, for every snapshot settlement wrote:

- the service's check (`models.domain.snapshot_check`), the CLI (`parametric settlement
  verify`) and the stand-alone docs/examples/verify_settlement.py (standard library only, on
  the API's answer) all recompute its hash and result;
- every event's amount is quantity × the snapshot's payout per unit, rounded half-even to the
  paisa once, capped by the line item's sum insured (the true-up: the FINAL amount less what
  INITIAL paid, never negative);
- the events (by policy and by day) carry their stage, and the claim explanation and claim
  report name each day's rung and source and the snapshot's hash."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import pytest
from temporalio.testing import ActivityEnvironment

from activities.settlement import settle_period
from bench._settlement_seed import free_targets, months_back, seed
from models.clock import utcnow
from models.db import observations as observations_db
from models.db.core import json_value
from models.db.settlement_snapshots import snapshot_of
from models.db.tables import Coverage, LineItem, ParametricEvent, Policy, PolicyItem, Settlement, SettlementSnapshot
from models.domain.ladder import snapshot_hash
from models.domain.money import to_minor
from models.domain.observations import ObservationIn
from models.domain.settlement_basis import CALCULATION_DEADLINE_DAYS, basis_for, encode_basis
from models.domain.snapshot_check import check_snapshot, cover_amount
from models.temporal.settlement import SettlePeriodInput
from tests.test_cli import run_cli
from tests.test_settlement_ladder_time_skipping import _spread
from tests.test_snapshot_verify import run_script

POLICIES, LATE_PERCENT = 20, 25  # policies 0-4 activated mid-month (i mod 100 < 25 of 20: 5)
RAIN, ERA5 = "IMD-RF-DAILY", "REAN-SFC-HOURLY"
SUM_INSURED_MINOR = 25_000_000


def _at(day: dt.date, hours: int = 1) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(hours=hours)


def _rows(target: str, values: dict[dt.date, Decimal], provisional: bool, data_set: str = RAIN,
          source: str = "IMD") -> list[ObservationIn]:
    return [ObservationIn(target, data_set, "rainfall_mm", d, None, v, source, provisional=provisional)
            for d, v in values.items()]


@pytest.fixture(scope="module")
async def book(tenant, service) -> dict:
    """The book, settled INITIAL (at the calculation deadline) then FINAL; its policies are
    `tenant`'s (read over HTTP)."""
    [target] = await free_targets(1)
    [(start, end)] = months_back(utcnow().date(), 3)[:1]
    seeded = await seed(POLICIES, [target], [(start, end)], {target: []}, quantities=3, late_percent=LATE_PERCENT)
    coverage_ids = [c.coverage_id for c in seeded["covers"][target][0]]
    for c in seeded["covers"][target][0]:  # covers sold now: on IMD-RF-DAILY's source ladder
        await Coverage.update({Coverage.settlement_basis: encode_basis(basis_for(c.index_code, RAIN))}).where(
            Coverage.id == c.coverage_id)
    for table in (Policy, LineItem, PolicyItem):
        await table.update({table.tenant_id: uuid.UUID(tenant.id)}).where(table.tenant_id == seeded["tenant"])

    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    # Sixty days before the period with the archive and ERA5 side by side (ERA5 ≈ 0.8 × IMD + 1,
    # ± 0.3 mm): the overlap the fallback's calibration is fitted on.
    overlap = {start - dt.timedelta(days=60 - i): Decimal(i % 13) * 2 for i in range(60)}
    era5 = {d: v * Decimal("0.8") + 1 + (Decimal("0.3") if i % 2 else Decimal("-0.3")) for i, (d, v) in enumerate(overlap.items())}
    # The period: IMD's real-time grid (330 mm in all) lacks days 10 and 11; ERA5 has every day.
    real_time = _spread(days, Decimal(330))
    missing = days[9:11]
    await observations_db.store_batch(
        _rows(target, overlap, False) + _rows(target, era5, False, ERA5, "open-meteo")
        + _rows(target, {d: v for d, v in real_time.items() if d not in missing}, True)
        + _rows(target, {d: v * Decimal("0.8") + 1 for d, v in real_time.items()}, True, ERA5, "open-meteo")
    )
    env = ActivityEnvironment()
    request = dict(target_id=target, start=start, end=end, flag_missing=False)
    initial = await env.run(settle_period, SettlePeriodInput(at=_at(end + dt.timedelta(days=CALCULATION_DEADLINE_DAYS)), **request))
    assert {c.state for c in initial.coverages} == {"INITIAL"}, initial
    # The archive, two months on: 340 mm.
    await observations_db.store_batch(_rows(target, _spread(days, Decimal(340)), False))
    final = await env.run(settle_period, SettlePeriodInput(at=_at(end + dt.timedelta(days=60)), **request))
    assert {c.state for c in final.coverages} == {"SETTLED"}, final
    again = await env.run(settle_period, SettlePeriodInput(at=_at(end + dt.timedelta(days=60)), **request))
    # Run again (a retry, or the next weekly check): nothing more is written (the events are counted below).
    assert [(c.state, c.revision) for c in again.coverages] == [(c.state, c.revision) for c in final.coverages]
    return {"target": target, "start": start, "end": end, "missing": missing, "policies": seeded["policies"],
            "coverages": coverage_ids, "excess": coverage_ids[0]}


async def _snapshots(coverage_ids) -> list[dict]:
    return await SettlementSnapshot.select().where(SettlementSnapshot.coverage_id.is_in(coverage_ids)).order_by(
        SettlementSnapshot.id)


async def test_every_snapshot_of_the_book_recomputes_every_payout_to_the_paisa(book):
    snapshots = await _snapshots(book["coverages"])
    assert sorted((str(s["coverage_id"]), s["revision"], s["stage"]) for s in snapshots) == sorted(
        (str(c), n, stage) for c in book["coverages"] for n, stage in ((1, "INITIAL"), (2, "FINAL")))
    bodies = {}
    for s in snapshots:
        row = await snapshot_of(s["coverage_id"], s["revision"])
        check = check_snapshot(row["snapshot"], row["sha256"])
        assert check.ok, (s["id"], check.problems)
        bodies[(s["coverage_id"], s["revision"])] = row["snapshot"]
    initial_excess = bodies[(book["excess"], 1)]
    assert [v["day"] for v in initial_excess["values"] if v["rung"] == "FALLBACK"] == [d.isoformat() for d in book["missing"]]
    assert {v["rung"] for v in bodies[(book["excess"], 2)]["values"]} == {"FINAL"}

    events = await ParametricEvent.select().where(ParametricEvent.policy_id.is_in(book["policies"]))
    items = {r["policy_id"]: r for r in await LineItem.select().where(LineItem.policy_id.is_in(book["policies"]))}
    assert len(events) == POLICIES * 2 * 2  # two covers, each INITIAL then FINAL, for every policy
    paid: dict[tuple, int] = {}
    for e in sorted(events, key=lambda e: e["revision"]):
        body = bodies[(e["coverage_id"], e["revision"])]
        item = items[e["policy_id"]]
        assert e["stage"] == body["stage"] and Decimal(e["index_value"]) == Decimal(body["result"]["paidIndex"])
        assert json_value(e["explanation"])["payoutPerUnit"] == body["result"]["payoutPerUnit"]
        # The line item pays at most its sum insured; its other cover (the deficit) pays nothing here.
        owed = min(to_minor(cover_amount(body, Decimal(item["quantity"])), "INR"), item["sum_insured_minor"])
        before = paid.get((e["policy_id"], e["coverage_id"]), 0)
        if body["stage"] == "INITIAL":
            assert (e["kind"], e["payout_minor"]) == ("SETTLEMENT", owed), e
        else:  # the true-up: FINAL's amount less what INITIAL paid (a negative one waived)
            assert (e["kind"], e["payout_minor"]) == ("ADJUSTMENT", max(owed - before, 0)), e
        paid[(e["policy_id"], e["coverage_id"])] = before + e["payout_minor"]
    # By hand, FINAL: 340 mm pays 10,000 + 500 × (340 − 180.5) = 89,750 INR a unit: 2.5 units
    # 224,375; 3 and 3.5 units reach the 250,000 line item cap.
    totals = sorted({(items[p]["quantity"], v) for (p, c), v in paid.items() if c == book["excess"]})
    assert [(Decimal(q), v) for q, v in totals] == [(Decimal("2.5"), 22_437_500), (Decimal(3), SUM_INSURED_MINOR),
                                                     (Decimal("3.5"), SUM_INSURED_MINOR)]
    row = await Settlement.select().where(Settlement.coverage_id == book["excess"]).first()
    assert row["paid_minor"] == sum(v for (p, c), v in paid.items() if c == book["excess"])


async def test_the_cli_and_the_stand_alone_script_rerun_the_books_snapshots(book, tenant, tmp_path):
    for coverage_id in book["coverages"]:
        for revision in (1, 2):
            cli = run_cli("settlement", "verify", str(coverage_id), "--revision", str(revision))
            assert cli.returncode == 0 and cli.stdout.endswith("\nOK\n"), cli.stdout + cli.stderr
            answer = await tenant.get(f"/internal/settlements/{coverage_id}/snapshot", params={"revision": revision})
            assert answer.status_code == 200, answer.text
            path = tmp_path / f"{coverage_id}-{revision}.json"
            path.write_bytes(answer.content)
            ran = run_script(path, "--units", "2.5")
            assert ran.returncode == 0 and ran.stdout.endswith("\nOK\n"), ran.stdout + ran.stderr
    latest = (await tenant.get(f"/internal/settlements/{book['excess']}/snapshot")).json()
    assert (latest["revision"], latest["stage"], latest["revisions"]) == (2, "FINAL", [1, 2])


async def test_events_explanations_and_reports_name_stage_rung_and_source(book, tenant):
    from io import BytesIO

    from pypdf import PdfReader

    policy = book["policies"][7]
    events = (await tenant.get(f"/policies/{policy}/events")).json()
    excess = [e for e in events if e["coverageId"] == str(book["excess"])]
    assert [(e["kind"], e["stage"], e["revision"]) for e in excess] == [("SETTLEMENT", "INITIAL", 1), ("ADJUSTMENT", "FINAL", 2)]
    initial = excess[0]
    by_day = (await tenant.get("/parametric-events", params={"validated_day": initial["validatedDay"]})).json()
    mine = [e for e in by_day["validated_events"] if e["event_id"] == initial["id"]]
    assert [e["stage"] for e in mine] == ["INITIAL"]

    explained = (await tenant.get(f"/parametric-events/{initial['id']}")).json()
    snapshot = await snapshot_of(book["excess"], 1)
    assert explained["snapshotSha256"] == snapshot["sha256"] == snapshot_hash(snapshot["snapshot"])
    rungs = {(p["rung"], p["dataSet"], p["source"]) for p in explained["indexPath"]}
    assert rungs == {("PROVISIONAL", RAIN, "IMD"), ("FALLBACK", ERA5, "open-meteo")}
    fallback = [p for p in explained["indexPath"] if p["rung"] == "FALLBACK"]
    assert [p["day"] for p in fallback] == [d.isoformat() for d in book["missing"]] and all(p["error"] != "0" for p in fallback)
    a = explained["arithmetic"]
    result = snapshot["snapshot"]["result"]
    assert (a["stage"], a["paidIndex"], a["indexError"], a["snapshotRevision"]) == ("INITIAL", result["paidIndex"], result["indexError"], 1)
    assert "First payment (INITIAL)" in explained["text"] and result["paidIndex"] in explained["text"]
    trued_up = (await tenant.get(f"/parametric-events/{excess[1]['id']}")).json()
    assert {p["rung"] for p in trued_up["indexPath"]} == {"FINAL"} and trued_up["arithmetic"]["stage"] == "FINAL"

    r = await tenant.get(f"/parametric-events/{initial['id']}/report", timeout=180)
    assert r.status_code == 200, r.text
    text = " ".join("".join(page.extract_text() for page in PdfReader(BytesIO(r.content)).pages).split())
    for words in ("INITIAL", "Provisional", "Fallback", "IMD-RF-DAILY · IMD", "REAN-SFC-HOURLY · open-meteo",
                  snapshot["sha256"], "Index paid on now"):
        assert words in text, (words, text)
