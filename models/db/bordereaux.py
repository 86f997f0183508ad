"""The rows of a month's bordereaux, read from the policies and payouts, and the files as
produced (table `bordereau`; docs/bordereaux.md).

Reads are whole-table selects by the month's instants and look-ups by id in chunks, joined
here: the same on SQLite and PostgreSQL, and the same rows give the same file
(models/domain/bordereaux.py sorts and formats them).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from models.clock import utcnow
from models.db.core import write_transaction
from models.db.tables import (
    Bordereau,
    BusinessPartner,
    Coverage,
    MonitoringTarget,
    ParametricEvent,
    Payout,
    Policy,
    PolicyItem,
    Quote,
    Tenant,
)
from models.domain import bordereaux as b
from models.domain.index_catalog import BY_ID

CHUNK = 500  # ids per IN (...) look-up
ALL = "all"  # the id part of the every-tenant files


def _chunks(values: Iterable) -> Iterable[list]:
    values = list(values)
    for i in range(0, len(values), CHUNK):
        yield values[i : i + CHUNK]


async def _by_id(table, column, ids: Iterable, *columns) -> dict:
    out = {}
    for part in _chunks(sorted(set(ids), key=str)):
        for row in await table.select(*columns).where(column.is_in(part)):
            out[row[column._meta.name]] = row
    return out


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)


@dataclass
class _Covers:
    """What a policy's covers say of where and what it insures."""

    coverages: dict  # coverage id → Coverage row
    targets: dict  # target id → MonitoringTarget row


async def _covers(coverage_ids: Iterable[uuid.UUID]) -> _Covers:
    coverages = await _by_id(
        Coverage, Coverage.id, coverage_ids, Coverage.id, Coverage.monitoring_target_id, Coverage.index_definition_id,
        Coverage.risk_carrier, Coverage.risk_period_start, Coverage.risk_period_end,
    )
    targets = await _by_id(
        MonitoringTarget, MonitoringTarget.id, {c["monitoring_target_id"] for c in coverages.values()},
        MonitoringTarget.id, MonitoringTarget.name, MonitoringTarget.state,
    )
    return _Covers(coverages, targets)


async def _tenant_names(tenant_ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, str]:
    return {k: r["name"] for k, r in (await _by_id(Tenant, Tenant.id, tenant_ids, Tenant.id, Tenant.name)).items()}


async def _insured_names(policies: Iterable[dict]) -> dict[uuid.UUID, str]:
    """A policy's insured: its quote's customer (a business partner) if named, else the
    policy's own name."""
    policies = list(policies)
    quotes = await _by_id(Quote, Quote.id, (p["quote_id"] for p in policies), Quote.id, Quote.customer_id)
    partners = await _by_id(
        BusinessPartner, BusinessPartner.id, (q["customer_id"] for q in quotes.values() if q["customer_id"]),
        BusinessPartner.id, BusinessPartner.name,
    )
    out = {}
    for p in policies:
        customer = (quotes.get(p["quote_id"]) or {}).get("customer_id")
        out[p["id"]] = partners[customer]["name"] if customer in partners else p["name"]
    return out


def _joined(values: Iterable[str]) -> str:
    return "; ".join(sorted({v for v in values if v}))


_POLICY = (
    Policy.id, Policy.tenant_id, Policy.quote_id, Policy.kind, Policy.name, Policy.external_ref, Policy.inception_date,
    Policy.expiry_date, Policy.currency, Policy.total_sum_insured_minor, Policy.gross_premium_minor,
    Policy.risk_premium_minor, Policy.activated_at,
)


async def risk_lines(first: dt.date, tenant_id: uuid.UUID | None = None) -> list[b.RiskLine]:
    """The policies bound (activated) in the month, every tenant's or one's."""
    start, end = b.month_bounds(first)
    query = Policy.select(*_POLICY).where((Policy.activated_at >= start) & (Policy.activated_at < end))
    if tenant_id is not None:
        query = query.where(Policy.tenant_id == tenant_id)
    policies = await query
    items: dict[uuid.UUID, set[uuid.UUID]] = {}
    for part in _chunks([p["id"] for p in policies]):
        for row in await PolicyItem.select(PolicyItem.policy_id, PolicyItem.coverage_id).where(PolicyItem.policy_id.is_in(part)):
            items.setdefault(row["policy_id"], set()).add(row["coverage_id"])
    covers = await _covers(c for ids in items.values() for c in ids)
    names = await _tenant_names(p["tenant_id"] for p in policies)
    insured = await _insured_names(policies)
    lines = []
    for p in policies:
        held = [covers.coverages[c] for c in items.get(p["id"], ()) if c in covers.coverages]
        target_ids = {c["monitoring_target_id"] for c in held}
        lines.append(b.RiskLine(
            tenant_id=str(p["tenant_id"]),
            tenant_name=names.get(p["tenant_id"], str(p["tenant_id"])),
            insurer=_joined(c["risk_carrier"] for c in held),
            policy_id=str(p["id"]),
            bound_at=_aware(p["activated_at"]),
            insured_name=insured[p["id"]],
            states=_joined(covers.targets[t]["state"] for t in target_ids if t in covers.targets),
            countries=_joined(b.country_of(t) for t in target_ids),
            inception=p["inception_date"],
            expiry=p["expiry_date"],
            currency=p["currency"],
            sum_insured_minor=p["total_sum_insured_minor"],
            gross_premium_minor=p["gross_premium_minor"],
            risk_premium_minor=p["risk_premium_minor"] or 0,
            kind=p["kind"],
            external_ref=p["external_ref"] or "",
            targets=_joined(target_ids),
            indices=_joined(BY_ID[c["index_definition_id"]].code for c in held if c["index_definition_id"] in BY_ID),
        ))
    return lines


async def claim_lines(first: dt.date, tenant_id: uuid.UUID | None = None) -> list[b.ClaimLine]:
    """The payouts recorded in the month (settlements and adjustments), every tenant's or one's,
    each with what its policy's cover was paid before it."""
    start, end = b.month_bounds(first)
    query = Payout.select().where((Payout.created_at >= start) & (Payout.created_at < end))
    if tenant_id is not None:
        query = query.where(Payout.tenant_id == tenant_id)
    payouts = await query
    events = await _by_id(
        ParametricEvent, ParametricEvent.id, (p["event_id"] for p in payouts), ParametricEvent.id, ParametricEvent.kind,
        ParametricEvent.event_type, ParametricEvent.validated_day, ParametricEvent.index_value, ParametricEvent.data_set,
        ParametricEvent.revision, ParametricEvent.simulated,
    )
    policies = await _by_id(Policy, Policy.id, (p["policy_id"] for p in payouts), *_POLICY)
    covers = await _covers(p["coverage_id"] for p in payouts)
    names = await _tenant_names(p["tenant_id"] for p in payouts)
    insured = await _insured_names(policies.values())
    # What each (policy, cover) was paid before each payout: every payout of those policies
    # up to the month's end, in the order they were recorded.
    history: dict[tuple, list[dict]] = {}
    for part in _chunks(list(policies)):
        for row in await Payout.select(
            Payout.policy_id, Payout.coverage_id, Payout.settlement_key, Payout.amount_minor, Payout.created_at
        ).where(Payout.policy_id.is_in(part) & (Payout.created_at < end)):
            history.setdefault((row["policy_id"], row["coverage_id"]), []).append(row)
    lines = []
    for p in payouts:
        event = events.get(p["event_id"], {})
        policy = policies[p["policy_id"]]
        coverage = covers.coverages.get(p["coverage_id"], {})
        target_id = coverage.get("monitoring_target_id", "")
        target = covers.targets.get(target_id, {})
        mine = (_aware(p["created_at"]), p["settlement_key"])
        before = sum(
            r["amount_minor"] for r in history.get((p["policy_id"], p["coverage_id"]), ())
            if (_aware(r["created_at"]), r["settlement_key"]) < mine
        )
        index_value = event.get("index_value")
        event_type = event.get("event_type", "")
        lines.append(b.ClaimLine(
            tenant_id=str(p["tenant_id"]),
            tenant_name=names.get(p["tenant_id"], str(p["tenant_id"])),
            insurer=coverage.get("risk_carrier", ""),
            policy_id=str(p["policy_id"]),
            claim_reference=p["settlement_key"],
            insured_name=insured[p["policy_id"]],
            inception=policy["inception_date"],
            expiry=policy["expiry_date"],
            state=target.get("state", ""),
            country=b.country_of(target_id),
            loss_from=coverage.get("risk_period_start") or policy["inception_date"],
            loss_to=coverage.get("risk_period_end") or policy["expiry_date"],
            event_type=event_type,
            loss_description=f"{event_type} index {'' if index_value is None else _plain(index_value)} at "
                             f"{target.get('name', target_id)}",
            claim_made=event.get("validated_day") or _aware(p["created_at"]).date(),
            paid_at=_aware(p["created_at"]),
            currency=p["currency"],
            paid_minor=p["amount_minor"],
            previously_paid_minor=before,
            payment_kind=event.get("kind", ""),
            target=target_id,
            index_value="" if index_value is None else _plain(index_value),
            data_set=event.get("data_set", ""),
            revision=event.get("revision", 0),
            simulated=bool(event.get("simulated", False)),
        ))
    return lines


def _plain(value) -> str:
    """An index value as written (`123.45000000` → `123.45`; never an exponent)."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- the files as produced ------------------------------------------------------------------


def file_id(month: str, kind: str, tenant_id: uuid.UUID | None) -> str:
    return f"{month}:{kind}:{tenant_id or ALL}"


@dataclass(frozen=True)
class ProducedFile:
    kind: str
    tenant_id: uuid.UUID | None
    content: bytes
    row_count: int
    totals: dict[str, int]


async def store_month(month: str, files: list[ProducedFile], produced_by: str) -> None:
    """Write a month's files in one transaction: each replaces what a run before wrote (same
    rows, same bytes), and a tenant's file no longer backed by rows goes."""
    now = utcnow()
    wanted = {file_id(month, f.kind, f.tenant_id): f for f in files}
    async with write_transaction():
        existing = {r["id"]: r for r in await Bordereau.select(Bordereau.id, Bordereau.runs).where(Bordereau.month == month)}
        gone = [i for i in existing if i not in wanted]
        if gone:
            await Bordereau.delete().where(Bordereau.id.is_in(gone))
        for key, f in sorted(wanted.items()):
            values = {
                Bordereau.content: f.content.decode("utf-8"),
                Bordereau.sha256: b.sha256(f.content),
                Bordereau.row_count: f.row_count,
                Bordereau.totals: json.dumps({c: str(v) for c, v in f.totals.items()}, sort_keys=True),
                Bordereau.produced_at: now,
                Bordereau.produced_by: produced_by,
            }
            if key in existing:
                await Bordereau.update({**values, Bordereau.runs: existing[key]["runs"] + 1}).where(Bordereau.id == key)
            else:
                await Bordereau.insert(Bordereau(
                    id=key, month=month, kind=f.kind, tenant_id=f.tenant_id, runs=1,
                    **{column._meta.name: value for column, value in values.items()},
                ))


async def produced(month: str) -> bool:
    """Whether the month's files were produced: a run writes them all in one transaction,
    the every-tenant risk file always among them."""
    return await Bordereau.exists().where(Bordereau.id == file_id(month, "risk", None))


async def stored_file(month: str, kind: str, tenant_id: uuid.UUID | None) -> dict | None:
    """The stored file of a tenant (or every tenant's, `tenant_id` None), None if not
    produced. A tenant with nothing in a produced month has no row: its file is the header."""
    row = await Bordereau.select(
        Bordereau.content, Bordereau.sha256, Bordereau.row_count, Bordereau.totals, Bordereau.produced_at, Bordereau.runs
    ).where(Bordereau.id == file_id(month, kind, tenant_id)).first()
    if row is not None:
        return {**row, "content": row["content"].encode("utf-8"), "totals": json.loads(row["totals"])}
    if tenant_id is not None and await produced(month):
        content = b.header_only(kind)
        return {"content": content, "sha256": b.sha256(content), "row_count": 0, "totals": {}, "produced_at": None, "runs": 0}
    return None

