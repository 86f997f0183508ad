"""Database side of settlement: the coverages of a (target, period) with exposure, the
policies holding them page by page, and the set-based, idempotent writes of events and
payouts (docs/settlement.md)."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from decimal import Decimal

import msgspec

from models.clock import utcnow
from models.db.group_commit import GroupCommit
from models.db.core import bulk_insert, insert_rows, json_value, scoped_select, write_transaction
from models.db.records import LineItemRow, records
from models.db.tables import (
    Coverage,
    MonitoringTarget,
    LineItem,
    ParametricEvent,
    Payout,
    Policy,
    PolicyItem,
    Settlement,
    SettlementIndex,
    SettlementSnapshot,
)
from models.db.webhooks import outbox_row, write_outbox
from models.domain.index_catalog import BY_ID
from models.domain.lifecycle import day_start
from models.domain.ladder import terms_of
from models.domain.money import from_minor
from models.domain.observations import settles_on
from models.domain.quotes import CoverSnapshot
from models.domain.settlement_basis import SettlementBasis, decode_basis
from models.domain.webhooks import COVERAGE_FLAGGED
from models.domain.statuses import PolicyStatus

IN_FORCE = (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE, PolicyStatus.EXPIRED, PolicyStatus.CANCELED)


@dataclass(frozen=True, slots=True)
class PeriodCoverage:
    coverage_id: uuid.UUID
    index_code: str
    trigger: Decimal
    data_set: str  # what it settles on: its own, or its index's of before pricing-2026.4.0 (settles_on)
    # Its settlement basis frozen at sale (issue 34): None for a cover sold before the ladder
    # (settles on final values only, docs/settlement.md "Covers already sold").
    basis: SettlementBasis | None = None
    terms: dict | None = None  # per-unit terms as a snapshot holds them (`ladder.terms_of`)


def _terms(row: dict) -> dict:
    currency = row["currency"]
    return terms_of(
        row["direction"], Decimal(row["trigger"]), None if row["exit"] is None else Decimal(row["exit"]),
        from_minor(row["payout_per_unit_minor"], currency), from_minor(row["limit_minor"], currency),
        from_minor(row["min_payout_minor"], currency), currency,
    )


async def coverages_with_exposure(target_id: str, start: dt.date, end: dt.date) -> list[PeriodCoverage]:
    """The catalogue coverages of the target over exactly [start, end] held by a policy,
    each with the data set it settles on, its settlement basis and its per-unit terms."""
    rows = await Coverage.select(
        Coverage.id, Coverage.index_definition_id, Coverage.trigger, Coverage.data_set, Coverage.settlement_basis,
        Coverage.direction, Coverage.exit, Coverage.currency, Coverage.payout_per_unit_minor, Coverage.limit_minor,
        Coverage.min_payout_minor,
    ).where(
        (Coverage.monitoring_target_id == target_id)
        & (Coverage.risk_period_start == start)
        & (Coverage.risk_period_end == end)
    )
    if not rows:
        return []
    held = await PolicyItem.select(PolicyItem.coverage_id).where(
        PolicyItem.coverage_id.is_in([r["id"] for r in rows])
    ).distinct()
    held_ids = {r["coverage_id"] for r in held}
    return sorted(
        (
            PeriodCoverage(r["id"], code, Decimal(r["trigger"]), settles_on(code, r["data_set"]),
                           decode_basis(r["settlement_basis"]), _terms(r))
            for r in rows
            if r["id"] in held_ids and (code := BY_ID[r["index_definition_id"]].code)
        ),
        key=lambda c: (c.index_code, str(c.coverage_id)),
    )


@dataclass(frozen=True, slots=True)
class HeldLineItem:
    """A policy's line item over the period, with what the policy's status says about when
    it was in force, and what each of its covers was paid so far (net, by coverage)."""

    tenant_id: uuid.UUID
    policy_id: uuid.UUID
    status: str
    activated_at: dt.datetime | None
    canceled_at: dt.datetime | None
    item: LineItemRow
    paid_minor: dict[uuid.UUID, int]  # coverage → net paid so far
    settled_revision: dict[uuid.UUID, int]  # coverage → last revision settled (0: never)

    def in_force_at(self, moment: dt.datetime) -> bool:
        """Activated before `moment` and not cancelled before it."""
        if self.status not in IN_FORCE or self.activated_at is None or self.activated_at > moment:
            return False
        if self.status == PolicyStatus.CANCELED:
            # Cancelled before the moment was recorded: a row without the time is not in force.
            return self.canceled_at is not None and self.canceled_at >= moment
        return True


async def exposure_page(
    coverage_ids: list[uuid.UUID], start: dt.date, end: dt.date, after: uuid.UUID | None, size: int,
    uniform: tuple[str, list] | None = None,
) -> tuple[list[HeldLineItem], bool]:
    """The line items over the period of the next `size` policies (by id, after `after`)
    holding any of the coverages, and whether more policies follow; without the line items
    `uniform` (SQL over `li` and `p`, and its arguments) says the set-based path settled. Three queries a page,
    whatever its size (raw SQL: at 10,000 policies Piccolo's per-value cleaning of the id
    lists cost more than the queries); line items alike share one decoding of their covers."""
    marks = ", ".join("{}" for _ in coverage_ids)
    # Line items the set-based path settles (settlement_sql.uniform_condition) are left out.
    not_uniform, not_uniform_args = ("NOT " + uniform[0], uniform[1]) if uniform is not None else ("1 = 1", [])
    ids = [
        r["policy_id"]
        for r in await PolicyItem.raw(
            f"SELECT DISTINCT pi.policy_id AS policy_id FROM policy_item pi WHERE pi.coverage_id IN ({marks})"
            + (" AND pi.policy_id > {}" if after is not None else "")
            + " AND EXISTS (SELECT 1 FROM line_item li JOIN policy p ON p.id = li.policy_id WHERE li.policy_id = pi.policy_id"
            f" AND li.period_start = {{}} AND li.period_end = {{}} AND {not_uniform})"
            + " ORDER BY pi.policy_id LIMIT {}",
            *coverage_ids, *([after] if after is not None else []), start, end, *not_uniform_args, size,
        )
    ]
    if not ids:
        return [], False
    id_marks = ", ".join("{}" for _ in ids)
    rows = await LineItem.raw(
        "SELECT li.*, p.status AS policy_status, p.activated_at AS policy_activated_at, "
        "p.canceled_at AS policy_canceled_at FROM line_item li JOIN policy p ON p.id = li.policy_id "
        f"WHERE li.policy_id IN ({id_marks}) AND li.period_start = {{}} AND li.period_end = {{}} AND {not_uniform}",
        *ids, start, end, *not_uniform_args,
    )
    paid: dict[tuple[uuid.UUID, uuid.UUID], int] = {}
    settled: dict[tuple[uuid.UUID, uuid.UUID], int] = {}
    for e in await ParametricEvent.raw(
        "SELECT policy_id, coverage_id, SUM(payout_minor) AS paid, MAX(revision) AS revision "
        f"FROM parametric_event WHERE policy_id IN ({id_marks}) GROUP BY policy_id, coverage_id",
        *ids,
    ):
        paid[(e["policy_id"], e["coverage_id"])] = int(e["paid"])
        settled[(e["policy_id"], e["coverage_id"])] = int(e["revision"])
    covers_of: dict[str, list] = {}  # covers JSON text → decoded once
    out = []
    for row in sorted(rows, key=lambda r: (str(r["policy_id"]), r["position"])):
        status, activated_at, canceled_at = row.pop("policy_status"), row.pop("policy_activated_at"), row.pop("policy_canceled_at")
        raw = row["covers"]
        text = raw if isinstance(raw, str) else msgspec.json.encode(raw).decode()
        if text not in covers_of:
            covers_of[text] = msgspec.convert(json_value(raw), list[CoverSnapshot], strict=False)
        item = msgspec.convert({**row, "covers": covers_of[text]}, LineItemRow, strict=False)
        covers = [c.coverage_id for c in item.covers]
        out.append(
            HeldLineItem(
                tenant_id=item.tenant_id,
                policy_id=item.policy_id,
                status=status,
                activated_at=activated_at,
                canceled_at=canceled_at,
                item=item,
                paid_minor={c: paid.get((item.policy_id, c), 0) for c in covers},
                settled_revision={c: settled.get((item.policy_id, c), 0) for c in covers},
            )
        )
    return out, len(ids) == size


async def write_settled(events: list[dict], payouts: list[dict], messages: list[dict] | None = None) -> None:
    """A page's events, payouts and their webhook messages (the outbox; rows as column
    dicts), in one transaction of three prepared multi-row inserts; a retry writes nothing
    twice (unique keys, ON CONFLICT DO NOTHING)."""
    async with write_transaction():
        await bulk_insert(ParametricEvent, events, on_conflict_nothing=True)
        await bulk_insert(Payout, payouts, on_conflict_nothing=True)
        await write_outbox(messages or [])


@dataclass(frozen=True, slots=True)
class IndexRecord:
    """A coverage's index at one revision of the data, with its daily path."""

    coverage_id: uuid.UUID
    revision: int
    index_code: str
    data_set: str
    value: Decimal
    path: list
    simulated: bool


async def record_indices(records_: list[IndexRecord]) -> None:
    """The indices, one multi-row insert; a record that exists is left as it is."""
    now = utcnow()
    await insert_rows(
        [
            SettlementIndex(
                id=f"{r.coverage_id}:r{r.revision}", coverage_id=r.coverage_id, revision=r.revision,
                index_code=r.index_code, data_set=r.data_set, index_value=r.value, path=r.path,
                simulated=r.simulated, computed_at=now,
            )
            for r in records_
        ],
        on_conflict_nothing=True,
    )


FIRST_SETTLING = "settling for the first time"


async def mark_settling(target_id: str, start: dt.date, end: dt.date) -> int:
    """Before a settlement first reads its data: a WAITING row for each coverage it settles
    that has none yet (`FIRST_SETTLING`), committed; returns how many. A writer of
    observations finds the settlements to tell from these rows after its commit
    (models/db/observations.py `_settlements_over`): without them, rows committed while a
    first settlement ran (after its read, before its state was written) were told to no
    settlement and never settled. Now either the writer's read sees the row (the settlement
    is told, and settles again), or the row was committed after that read, so the
    settlement's read, after its row, sees the writer's rows. Once every coverage has a row
    this writes nothing."""
    ids = [c.coverage_id for c in await coverages_with_exposure(target_id, start, end)]
    if not ids:
        return 0
    have = {r["coverage_id"] for r in await Settlement.select(Settlement.coverage_id).where(Settlement.coverage_id.is_in(ids))}
    now = utcnow()
    new = [
        Settlement(coverage_id=c, monitoring_target_id=target_id, period_start=start, period_end=end, state="WAITING",
                   detail=FIRST_SETTLING, updated_at=now)
        for c in ids if c not in have
    ]
    if new:
        async with write_transaction():
            await insert_rows(new, on_conflict_nothing=True)
    return len(new)


async def revision_windows(target_id: str, start: dt.date, end: dt.date) -> dict[uuid.UUID, dict]:
    """coverage id → its settlement row's `state`, `revision`, `index_value` and
    `revisions_until` (when the period's revision window closes; None until every coverage
    of the period is SETTLED), for the target's period."""
    rows = await Settlement.select(
        Settlement.coverage_id, Settlement.state, Settlement.revision, Settlement.index_value,
        Settlement.revisions_until,
    ).where(
        (Settlement.monitoring_target_id == target_id) & (Settlement.period_start == start) & (Settlement.period_end == end)
    )
    return {r["coverage_id"]: r for r in rows}


def window_closed(row: dict | None, at: dt.datetime) -> bool:
    """Whether a settlement row's revision window has closed by `at`."""
    return row is not None and row["state"] == "SETTLED" and row["revisions_until"] is not None and at >= row["revisions_until"]


async def open_revision_window(target_id: str, start: dt.date, end: dt.date, until: dt.datetime) -> None:
    """Every coverage of the period is SETTLED: its revision window closes at `until` (kept
    if it was opened before). Inside the caller's transaction."""
    await Settlement.update({Settlement.revisions_until: until}).where(
        (Settlement.monitoring_target_id == target_id) & (Settlement.period_start == start)
        & (Settlement.period_end == end) & Settlement.revisions_until.is_null()
    )


async def refuse_late_revisions(details: dict[uuid.UUID, str]) -> None:
    """Say on each coverage's row (`detail`: coverage → why) that a revision came after its
    window closed and was not settled; the row is SETTLED as it was. Writing it again writes
    the same."""
    if not details:
        return
    async with write_transaction():
        for coverage_id, detail in details.items():
            await Settlement.update({Settlement.detail: detail}).where(Settlement.coverage_id == coverage_id)


async def settlement_state(coverage_id: uuid.UUID) -> dict | None:
    return await Settlement.select().where(Settlement.coverage_id == coverage_id).first()


async def save_state(
    coverage_id: uuid.UUID,
    target_id: str,
    start: dt.date,
    end: dt.date,
    state: str,
    detail: str,
    revision: int = 0,
    index_value: Decimal | None = None,
) -> None:
    """The coverage's settlement row (upsert), and its totals from the events written."""
    totals = await ParametricEvent.raw(
        "SELECT COUNT(DISTINCT policy_id) AS policies, COALESCE(SUM(payout_minor), 0) AS paid "
        "FROM parametric_event WHERE coverage_id = {}",
        coverage_id,
    )
    values = dict(
        monitoring_target_id=target_id,
        period_start=start,
        period_end=end,
        state=state,
        revision=revision,
        index_value=index_value,
        detail=detail,
        policies=int(totals[0]["policies"]),
        paid_minor=int(totals[0]["paid"]),
        updated_at=utcnow(),
    )
    async with write_transaction():
        existing = await Settlement.select(Settlement.coverage_id, Settlement.state).where(
            Settlement.coverage_id == coverage_id
        ).first()
        if state == "FLAGGED" and (existing is None or existing["state"] != "FLAGGED"):
            await write_outbox(await _flagged_messages(coverage_id, target_id, start, end, detail, values["updated_at"]))
        if existing is None:
            await Settlement.insert(Settlement(coverage_id=coverage_id, **values))
        else:
            await Settlement.update({getattr(Settlement, k): v for k, v in values.items()}).where(
                Settlement.coverage_id == coverage_id
            )


async def save_settled(
    target_id: str, start: dt.date, end: dt.date, settled: dict[uuid.UUID, tuple[int, Decimal]],
    stages: dict[uuid.UUID, str] | None = None,
) -> None:
    """Several coverages settled at once (`settled`: coverage → (revision, index value)), with
    their totals from the events written: one totals query, one look-up, one insert of the
    new rows. `stages`: coverage → INITIAL | FINAL (issue 34: an INITIAL one is in state
    INITIAL, awaiting its true-up); a coverage not in it is SETTLED at stage FINAL. Inside the
    caller's transaction."""
    ids = list(settled)
    marks = ", ".join("{}" for _ in ids)
    totals = {
        r["coverage_id"]: r
        for r in await ParametricEvent.raw(
            "SELECT coverage_id, COUNT(DISTINCT policy_id) AS policies, COALESCE(SUM(payout_minor), 0) AS paid "
            f"FROM parametric_event WHERE coverage_id IN ({marks}) GROUP BY coverage_id",
            *ids,
        )
    }
    now = utcnow()
    existing = {r["coverage_id"] for r in await Settlement.select(Settlement.coverage_id).where(Settlement.coverage_id.is_in(ids))}
    new = []
    for coverage_id, (revision, value) in settled.items():
        total = totals.get(coverage_id)
        stage = (stages or {}).get(coverage_id, "FINAL")
        values = dict(
            monitoring_target_id=target_id, period_start=start, period_end=end,
            state="INITIAL" if stage == "INITIAL" else "SETTLED", stage=stage, revision=revision,
            index_value=value, detail="", policies=int(total["policies"]) if total else 0,
            paid_minor=int(total["paid"]) if total else 0, updated_at=now,
        )
        if coverage_id in existing:
            await Settlement.update({getattr(Settlement, k): v for k, v in values.items()}).where(
                Settlement.coverage_id == coverage_id
            )
        else:
            new.append(Settlement(coverage_id=coverage_id, **values))
    if new:
        await Settlement.insert(*new)


async def record_snapshots(rows: list[dict]) -> None:
    """Settlement snapshots (`settlement_snapshot` column dicts: id `<coverage>:s<N>`); one
    that exists is left as it is (a retried run writes the same). Inside the caller's
    transaction."""
    await insert_rows([SettlementSnapshot(**r) for r in rows], on_conflict_nothing=True)


async def _flagged_messages(coverage_id, target_id, start, end, detail, at) -> list:
    """`coverage.flagged` to every tenant with a policy holding the coverage."""
    held = await PolicyItem.select(PolicyItem.tenant_id).where(PolicyItem.coverage_id == coverage_id).distinct()
    data = {"coverageId": str(coverage_id), "monitoringTargetId": target_id, "periodStart": start.isoformat(),
            "periodEnd": end.isoformat(), "detail": detail}
    return [outbox_row(r["tenant_id"], COVERAGE_FLAGGED, f"{coverage_id}:{at.isoformat()}", at, data) for r in held]


async def settlements_covering(target_id: str, day: dt.date) -> list[dict]:
    """Settled coverages of the target whose period holds `day` (a revision re-settles them)."""
    return await Settlement.select(Settlement.coverage_id, Settlement.period_start, Settlement.period_end).where(
        (Settlement.monitoring_target_id == target_id)
        & (Settlement.period_start <= day)
        & (Settlement.period_end >= day)
        & (Settlement.state == "SETTLED")
    )


async def first_dues(target_id: str, periods: list[tuple[dt.date, dt.date]]) -> dict[tuple[dt.date, dt.date], dt.datetime]:
    """When each period's first check is due for its covers on a source ladder (the earliest
    day after its end + a provisional product's latency), for the periods that have such
    covers (the others: final-only, the settlement's own due time). One query."""
    if not periods:
        return {}
    rows = await Coverage.select(Coverage.risk_period_start, Coverage.risk_period_end, Coverage.settlement_basis).where(
        (Coverage.monitoring_target_id == target_id) & Coverage.settlement_basis.is_not_null()
        & Coverage.risk_period_start.is_in(sorted({s for s, _ in periods}))
    )
    wanted = set(periods)
    out: dict[tuple[dt.date, dt.date], dt.datetime] = {}
    for r in rows:
        period = (r["risk_period_start"], r["risk_period_end"])
        basis = decode_basis(r["settlement_basis"])
        if period in wanted and basis is not None:
            due = day_start(basis.first_due(period[1]))
            out[period] = min(out.get(period, due), due)
    return out


async def policy_settled(policy_id: uuid.UUID) -> bool:
    """Whether every cover of the policy has been settled, INITIAL (paid on provisional or
    fallback values, its true-up to come: that still pays an expired policy) or SETTLED:
    then the policy can expire."""
    held = await PolicyItem.select(PolicyItem.coverage_id).where(PolicyItem.policy_id == policy_id)
    ids = list({r["coverage_id"] for r in held})
    if not ids:
        return True
    # A cover paid INITIAL whose true-up is disputed (state DISPUTED, stage INITIAL) counts too.
    done = await Settlement.select(Settlement.coverage_id).where(
        Settlement.coverage_id.is_in(ids)
        & (Settlement.state.is_in(["SETTLED", "INITIAL"]) | (Settlement.stage == "INITIAL"))
    )
    return len(done) == len(ids)


# --- reading events (tenant-scoped) ----------------------------------------------------------


async def events_of_day(tenant_id: str, day: dt.date) -> list[dict]:
    """The tenant's validated events of a day that move money (payouts and adjustments),
    in the order they were written; an adjustment's row carries `adjustment_of`, the id of
    the event of the same policy and cover it corrects (the latest before its revision)."""
    rows = await scoped_select(ParametricEvent, tenant_id).where(
        (ParametricEvent.validated_day == day) & (ParametricEvent.payout_minor != 0)
    ).order_by(ParametricEvent.created_at).order_by(ParametricEvent.settlement_key)
    adjustments = [r for r in rows if r["kind"] == "ADJUSTMENT"]
    if adjustments:
        earlier = await scoped_select(
            ParametricEvent, tenant_id, ParametricEvent.id, ParametricEvent.policy_id, ParametricEvent.coverage_id,
            ParametricEvent.revision,
        ).where(ParametricEvent.policy_id.is_in(list({r["policy_id"] for r in adjustments})))
        for r in adjustments:
            before = [e for e in earlier if e["policy_id"] == r["policy_id"] and e["coverage_id"] == r["coverage_id"]
                      and e["revision"] < r["revision"]]
            r["adjustment_of"] = max(before, key=lambda e: e["revision"])["id"] if before else None
    return rows


async def events_of_policy(tenant_id: str, policy_id: uuid.UUID) -> list[dict]:
    """Every settlement of the policy's covers (paying or not) and every adjustment."""
    return await scoped_select(ParametricEvent, tenant_id).where(ParametricEvent.policy_id == policy_id).order_by(
        ParametricEvent.validated_day
    ).order_by(ParametricEvent.settlement_key)


async def event_of(tenant_id: str, event_id: uuid.UUID) -> dict | None:
    return await scoped_select(ParametricEvent, tenant_id).where(ParametricEvent.id == event_id).first()


async def line_item_of(tenant_id: str, line_item_id: uuid.UUID) -> LineItemRow | None:
    rows = await scoped_select(LineItem, tenant_id).where(LineItem.id == line_item_id)
    return records(LineItemRow, rows)[0] if rows else None


async def index_of(coverage_id: uuid.UUID, revision: int) -> dict | None:
    return await SettlementIndex.select().where(SettlementIndex.id == f"{coverage_id}:r{revision}").first()


async def list_settlements(
    state: str | None, target_id: str | None, limit: int, tenant_id: str | uuid.UUID | None = None
) -> list[dict]:
    """Settlement rows, latest period first. With `tenant_id`, only the coverages the tenant's
    policies hold, and `policies` / `paid_minor` counted over the tenant's own events: one
    tenant never sees another's policy counts or payouts. Without it (operations staff), the
    whole book's totals as settlement recorded them."""
    where, args = [], []
    if state:
        where.append("s.state = {}")
        args.append(state)
    if target_id:
        where.append("s.monitoring_target_id = {}")
        args.append(target_id)
    if tenant_id is None:
        columns = "s.policies, s.paid_minor"
    else:
        tenant = uuid.UUID(str(tenant_id))
        where.append("s.coverage_id IN (SELECT coverage_id FROM policy_item WHERE tenant_id = {})")
        columns = (
            "(SELECT COUNT(DISTINCT e.policy_id) FROM parametric_event e WHERE e.coverage_id = s.coverage_id "
            "AND e.tenant_id = {}) AS policies, "
            "(SELECT COALESCE(SUM(e.payout_minor), 0) FROM parametric_event e WHERE e.coverage_id = s.coverage_id "
            "AND e.tenant_id = {}) AS paid_minor"
        )
        args = [tenant, tenant, *args, tenant]
    sql = (
        "SELECT s.coverage_id, s.monitoring_target_id, s.period_start, s.period_end, s.state, s.revision, "
        f"s.index_value, s.detail, s.updated_at, {columns} FROM settlement s"
        + (f" WHERE {' AND '.join(where)}" if where else "")
        + " ORDER BY s.period_end DESC, s.coverage_id LIMIT {}"
    )
    rows = await Settlement.raw(sql, *args, limit)
    for r in rows:  # raw rows: the same Python types as a Piccolo select on both engines
        r["coverage_id"] = r["coverage_id"] if isinstance(r["coverage_id"], uuid.UUID) else uuid.UUID(str(r["coverage_id"]))
        for day in ("period_start", "period_end"):
            if isinstance(r[day], str):
                r[day] = dt.date.fromisoformat(r[day])
        if isinstance(r["updated_at"], str):
            r["updated_at"] = dt.datetime.fromisoformat(r["updated_at"])
    return rows


async def exposed_targets() -> list[dict]:
    """Targets (id, latitude, longitude) with covers held by policies in force (accepted or
    active), and the earliest start of those covers' periods not settled yet: where
    observations are needed, and from when."""
    live = await Policy.select(Policy.id).where(Policy.status.is_in([PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE]))
    if not live:
        return []
    ids = [r["id"] for r in live]
    held: set = set()
    for i in range(0, len(ids), 500):
        rows = await PolicyItem.select(PolicyItem.coverage_id).where(PolicyItem.policy_id.is_in(ids[i : i + 500])).distinct()
        held.update(r["coverage_id"] for r in rows)
    if not held:
        return []
    settled = {r["coverage_id"] for r in await Settlement.select(Settlement.coverage_id).where(Settlement.state == "SETTLED")}
    first: dict[str, dt.date] = {}
    coverage_ids = list(held - settled)
    for i in range(0, len(coverage_ids), 500):
        for r in await Coverage.select(Coverage.monitoring_target_id, Coverage.risk_period_start).where(
            Coverage.id.is_in(coverage_ids[i : i + 500])
        ):
            t = r["monitoring_target_id"]
            first[t] = min(first.get(t, r["risk_period_start"]), r["risk_period_start"])
    targets = await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.latitude, MonitoringTarget.longitude).where(
        MonitoringTarget.id.is_in(sorted(first))
    ) if first else []
    return [{**t, "first_open_day": first[t["id"]]} for t in targets]


async def target_of(coverage_id: uuid.UUID) -> str | None:
    row = await Coverage.select(Coverage.monitoring_target_id).where(Coverage.id == coverage_id).first()
    return None if row is None else row["monitoring_target_id"]


async def states_of(coverage_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    rows = await Settlement.select(Settlement.coverage_id, Settlement.state).where(Settlement.coverage_id.is_in(coverage_ids))
    return {r["coverage_id"]: r["state"] for r in rows}


# The final write of each settlement run (uniform rows, index records, states): runs of a
# month end that finish together commit together (models/db/group_commit.py).
final_writes = GroupCommit(write_transaction, lambda sql: ParametricEvent.raw(sql))
