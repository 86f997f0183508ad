"""Policies in force over a past period, written straight to the database (no HTTP, no
policy workflows): what settlement reads, for the settlement benchmark and the
kill-the-worker test. Each policy holds `months` monthly line items of two covers (excess
rainfall and deficit) at one of the targets, sum insured 250,000 INR (2.5 units); the
catalogue coverages are written too, and the daily rainfall of the months (final IMD
values) so that settlement can run at once. Every row is what the service itself writes
(models.db.policies.convert_to_policy, models.db.catalogue)."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.clock import utcnow
from models.db.core import insert_rows, write_transaction
from models.db.observations import store_batch
from models.db.tables import Coverage, LineItem, MonitoringTarget, Policy, PolicyItem
from models.domain.index_catalog import BY_CODE
from models.domain.observations import ObservationIn
from models.domain.quotes import CoverSnapshot
from models.domain.settlement_basis import basis_for, encode_basis

EXCESS, DEFICIT = "RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT"
TERMS = {EXCESS: ("ABOVE", Decimal("180.5")), DEFICIT: ("BELOW", Decimal("12.5"))}


def months_back(today: dt.date, months: int) -> list[tuple[dt.date, dt.date]]:
    """The `months` whole calendar months before the current one, oldest first."""
    out = []
    y, m = today.year, today.month
    for _ in range(months):
        y, m = (y - 1, 12) if m == 1 else (y, m - 1)
        start = dt.date(y, m, 1)
        end = dt.date(y + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)
        out.append((start, end))
    return out[::-1]


async def free_targets(n: int) -> list[str]:
    used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id).distinct()}
    rows = await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id)
    free = [r["id"] for r in rows if r["id"] not in used]
    if len(free) < n:
        raise RuntimeError(f"only {len(free)} targets without coverages")
    return free[:n]


async def seed(policies: int, targets: list[str], months: list[tuple[dt.date, dt.date]],
               monthly_rain: dict[str, list[Decimal]] | None, chunk: int = 250, quantities: int = 1, late_percent: int = 0,
               ladder: bool = False) -> dict:
    """Write the catalogue, `policies` ACTIVE policies spread evenly over `targets`, and
    the months' daily rainfall (`monthly_rain[target][i]`: month i's total, spread evenly;
    None: no observations, the caller feeds them). `ladder`: the covers are sold on their
    source ladder (issue 34: `coverage.settlement_basis` and the snapshots' frozen basis);
    else final-only, as covers sold before it.
    Policy i holds 2.5 + 0.5 × (i mod `quantities`) units (the sum insured stays 250,000 INR:
    more units reach the same cap); `late_percent` of them (policy i with i mod 100 below
    it) are activated in the middle of the first month instead of 20 days before it
    (settled policy by policy)."""
    now = utcnow()
    activated = dt.datetime.combine(months[0][0], dt.time(0), tzinfo=dt.timezone.utc) - dt.timedelta(days=20)
    activated_late = dt.datetime.combine(months[0][0], dt.time(0), tzinfo=dt.timezone.utc) + dt.timedelta(days=10)
    tenant = uuid.uuid4()
    covers: dict[str, list[list[CoverSnapshot]]] = {}
    coverage_rows = []
    for t in targets:
        covers[t] = []
        for s, e in months:
            pair = []
            for code in (EXCESS, DEFICIT):
                direction, trigger = TERMS[code]
                basis = basis_for(code, "IMD-RF-DAILY") if ladder else None
                c = CoverSnapshot(
                    coverage_id=uuid.uuid4(), index_code=code, index_definition_id=BY_CODE[code].id, start=s, end=e,
                    direction=direction, trigger=trigger, exit=None, currency="INR", limit_minor=10_000_000,
                    min_payout_minor=1_000_000, payout_per_unit_minor=50_000, gross_premium_pct=Decimal("0.015"),
                    risk_premium_pct=Decimal("0.01"), pricing_version=1, settlement_basis=basis,
                )
                pair.append(c)
                coverage_rows.append(Coverage(
                    id=c.coverage_id, monitoring_target_id=t, index_definition_id=c.index_definition_id,
                    risk_period_start=s, risk_period_end=e, risk_carrier="bench", currency="INR", direction=direction,
                    trigger=trigger, limit_minor=10_000_000, min_payout_minor=1_000_000, payout_per_unit_minor=50_000,
                    expected_loss_ratio=Decimal("0.65"), created_by="bench", created_at=now, updated_at=now,
                    settlement_basis=encode_basis(basis),
                ))
            covers[t].append(pair)
    async with write_transaction():
        await insert_rows(coverage_rows)
    ids = []
    for first in range(0, policies, chunk):
        pol, items, pitems = [], [], []
        for i in range(first, min(policies, first + chunk)):
            t = targets[i % len(targets)]
            policy_id = uuid.uuid4()
            ids.append(policy_id)
            quantity = Decimal("2.5") + Decimal("0.5") * (i % quantities)
            late = i % 100 < late_percent
            pol.append(Policy(
                id=policy_id, tenant_id=tenant, quote_id=uuid.uuid4(), kind="TENANT", name=f"seeded {i}", status="ACTIVE",
                inception_date=months[0][0], expiry_date=months[-1][1], currency="INR",
                total_sum_insured_minor=25_000_000 * len(months), gross_premium_minor=1,
                activated_at=activated_late if late else activated,
                signature_confirmed=True, created_at=now, updated_at=now,
            ))
            for k, ((s, e), pair) in enumerate(zip(months, covers[t])):
                item_id = uuid.uuid4()
                items.append(LineItem(
                    id=item_id, tenant_id=tenant, policy_id=policy_id, position=k, name=f"{s:%b %Y}", period_start=s,
                    period_end=e, currency="INR", quantity=quantity, sum_insured_minor=25_000_000,
                    total_sum_insured_minor=25_000_000, min_payout_minor=2_500_000, payout_per_unit_minor=125_000,
                    premium_minor=1, covers=[_builtins(c) for c in pair],
                ))
                for c in pair:
                    pitems.append(PolicyItem(
                        id=uuid.uuid5(item_id, str(c.coverage_id)), tenant_id=tenant, policy_id=policy_id,
                        coverage_id=c.coverage_id, name=c.index_code, quantity=quantity, currency="INR",
                        sum_insured_minor=10_000_000, total_sum_insured_minor=25_000_000, total_min_payout_minor=2_500_000,
                    ))
        async with write_transaction():
            for table_rows in (pol, items, pitems):
                for j in range(0, len(table_rows), 200):
                    await insert_rows(table_rows[j : j + 200])
    rows = []
    for t in targets if monthly_rain is not None else ():
        for (s, e), total in zip(months, monthly_rain[t]):
            days = [s + dt.timedelta(days=d) for d in range((e - s).days + 1)]
            each = (total / len(days)).quantize(Decimal("0.0001"))
            for d, day in enumerate(days):
                value = each if d < len(days) - 1 else total - each * (len(days) - 1)
                rows.append(ObservationIn(t, "IMD-RF-DAILY", "rainfall_mm", day, None, value, "IMD"))
    if rows:
        await store_batch(rows)
    return {"tenant": tenant, "policies": ids, "covers": covers}


def _builtins(c: CoverSnapshot) -> dict:
    import msgspec

    return msgspec.to_builtins(c)
