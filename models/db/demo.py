"""A demonstration of settlement for `make dev` (`parametric demo settle`): a policy of the
demo tenant over **last month**, written straight to the database as conversion and
activation write it, with the catalogue terms of the same calendar month, so that its
settlement runs at once instead of after its risk period. Cover is never sold once its risk
period has started; this exists only to show a newcomer what settlement does, and every
value behind it is marked simulated."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import msgspec

from models.clock import utcnow
from models.db.core import insert_rows, write_transaction
from models.db.records import CoverageRow, records
from models.db.tables import Coverage, LineItem, Policy, PolicyItem, Tenant
from models.domain.index_catalog import BY_ID
from models.domain.data_sets import settles_on
from models.domain.quotes import COVER_PREFERENCE, CoverSnapshot
from models.domain.settlement_basis import basis_for, encode_basis


def last_month(today: dt.date) -> tuple[dt.date, dt.date]:
    end = today.replace(day=1) - dt.timedelta(days=1)
    return end.replace(day=1), end


async def demo_policy(tenant_name: str, target_id: str, sum_insured_minor: int = 25_000_000) -> dict:
    """The demo policy over last month at the target, from the terms of the catalogue's
    coverages of the same month next year (run `parametric catalogue build PIN` first).
    Returns {policy_id, tenant_id, start, end, covers: [{coverage_id, index_code, trigger, direction}]}."""
    tenant = await Tenant.select(Tenant.id).where(Tenant.name == tenant_name).first()
    if tenant is None:
        raise LookupError(f"no tenant {tenant_name!r} (make dev creates it)")
    start, end = last_month(utcnow().date())
    rows = records(CoverageRow, await Coverage.select().where(Coverage.monitoring_target_id == target_id))
    same_month = [r for r in rows if r.risk_period_start.month == start.month and r.risk_period_start.day == 1
                  and r.risk_period_end.month == start.month and r.risk_period_start > end and r.status == "ACTIVE"]
    if not same_month:
        raise LookupError(f"the catalogue of {target_id} has no priced {start:%B} coverages: run parametric catalogue build first")
    year = min(r.risk_period_start.year for r in same_month)
    order = {code: i for i, code in enumerate(COVER_PREFERENCE)}  # a line item's covers, as quotes pick them
    # (a cover's label names its own month: the template's says next year's)
    templates = sorted((r for r in same_month if r.risk_period_start.year == year),
                       key=lambda r: order.get(BY_ID[r.index_definition_id].code, 99))[:2]
    now = utcnow()
    tenant_id = tenant["id"]
    policy_id = uuid.uuid4()
    item_id = uuid.uuid4()
    unit_limit = templates[0].limit_minor
    quantity = Decimal(sum_insured_minor) / Decimal(unit_limit)
    covers, coverage_rows = [], []
    for t in templates:
        code = BY_ID[t.index_definition_id].code
        coverage_id = uuid.uuid5(uuid.NAMESPACE_URL, f"demo:{target_id}:{code}:{start}")
        basis = basis_for(code, settles_on(code, t.data_set))  # created now: on the ladder (issue 34)
        covers.append(CoverSnapshot(
            coverage_id=coverage_id, index_code=code, index_definition_id=t.index_definition_id, start=start, end=end,
            direction=t.direction, trigger=t.trigger, exit=t.exit, currency=t.currency, limit_minor=t.limit_minor,
            min_payout_minor=t.min_payout_minor, payout_per_unit_minor=t.payout_per_unit_minor,
            gross_premium_pct=t.gross_premium_indication_pct, risk_premium_pct=t.risk_premium_pct, pricing_version=1,
            data_set=t.data_set, settlement_basis=basis,
        ))
        coverage_rows.append(Coverage(
            id=coverage_id, monitoring_target_id=target_id, index_definition_id=t.index_definition_id,
            risk_period_start=start, risk_period_end=end, label=f"DEMO · {t.label.rsplit(' · ', 1)[0]} · {start:%b %Y}", risk_carrier=t.risk_carrier,
            currency=t.currency, status="ACTIVE", ui_state="active", direction=t.direction, trigger=t.trigger, exit=t.exit,
            limit_minor=t.limit_minor, min_payout_minor=t.min_payout_minor, payout_per_unit_minor=t.payout_per_unit_minor,
            expected_loss_ratio=t.expected_loss_ratio, created_by="demo", created_at=now, updated_at=now,
            data_set=t.data_set, settlement_basis=encode_basis(basis),
        ))
    async with write_transaction():
        existing = {r["id"] for r in await Coverage.select(Coverage.id).where(Coverage.id.is_in([c.id for c in coverage_rows]))}
        await insert_rows([c for c in coverage_rows if c.id not in existing])
        await insert_rows([Policy(
            id=policy_id, tenant_id=tenant_id, quote_id=uuid.uuid4(), kind="TENANT", name=f"DEMO settlement {start:%b %Y}",
            status="ACTIVE", external_ref="demo-settlement", inception_date=start, expiry_date=end,
            currency=templates[0].currency, total_sum_insured_minor=sum_insured_minor, gross_premium_minor=0,
            activated_at=dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc) - dt.timedelta(days=1),
            signature_confirmed=True, created_at=now, updated_at=now,
        )])
        await insert_rows([LineItem(
            id=item_id, tenant_id=tenant_id, policy_id=policy_id, position=0, name=f"{start:%b %Y}", period_start=start,
            period_end=end, currency=templates[0].currency, quantity=quantity, sum_insured_minor=sum_insured_minor,
            total_sum_insured_minor=sum_insured_minor, min_payout_minor=0, payout_per_unit_minor=0, premium_minor=0,
            covers=[msgspec.to_builtins(c) for c in covers],
        )])
        await insert_rows([PolicyItem(
            id=uuid.uuid5(item_id, str(c.coverage_id)), tenant_id=tenant_id, policy_id=policy_id, coverage_id=c.coverage_id,
            name=f"DEMO {c.index_code}", quantity=quantity, currency=c.currency, sum_insured_minor=c.limit_minor,
            total_sum_insured_minor=sum_insured_minor, total_min_payout_minor=0,
        ) for c in covers])
    return {
        "policy_id": str(policy_id), "tenant_id": str(tenant_id), "start": start, "end": end,
        "covers": [{"coverage_id": str(c.coverage_id), "index_code": c.index_code, "trigger": str(c.trigger),
                    "direction": c.direction} for c in covers],
    }


def demo_rainfall(target_id: str, start: dt.date, end: dt.date, total_mm: Decimal, *, final: bool) -> list:
    """`demo settle --rain-mm`: the month's daily IMD rainfall summing exactly to `total_mm`
    (to 0.1 mm), spread over the days by fixed gamma weights (repeatable; never the same value
    day after day, which the flat-line check would hold SUSPECT), as the real-time product
    (`final=False`: provisional) or the archive (`final=True`); with the reanalysis (the
    fallback) on the same days and values while provisional, so the sources agree.
    Returns `ObservationIn` rows."""
    import random

    from models.domain.observations import REANALYSIS, ObservationIn

    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    draw = random.Random(f"demo:{target_id}:{start}")
    weights = [draw.gammavariate(0.8, 1.0) for _ in days]
    tenth = Decimal("0.1")
    values = [(total_mm * Decimal(repr(w / sum(weights)))).quantize(tenth) for w in weights]
    wettest = max(range(len(days)), key=lambda i: weights[i])
    values[wettest] += total_mm - sum(values)  # the rounding's remainder: the total is exact
    source = "simulated: demo --rain-mm" + (" (archive)" if final else " (real-time product)")
    rows = [ObservationIn(target_id, "IMD-RF-DAILY", "rainfall_mm", d, None, v, source, provisional=not final, simulated=True)
            for d, v in zip(days, values)]
    if not final:
        rows += [ObservationIn(target_id, REANALYSIS, "rainfall_mm", d, None, v, "simulated: demo --rain-mm (reanalysis)",
                               simulated=True) for d, v in zip(days, values)]
    return rows

