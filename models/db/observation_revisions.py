"""Four eyes over observations (docs/observations.md, "Four eyes").

A batch submitted through the service's ways in (API, CLI import, providers) is stored as
`models.db.observations.store_batch` stores it, except its revisions that would change an
amount already settled: those rows are held in one `observation_revision` row, written in
the same transaction, until a second data principal approves them (the rows are then
stored, naming both) or refuses them (nothing is stored). Whether a revision changes a
settled amount is the pure rule `models.domain.observations.settled_amount_change`; this
module finds the settled covers a revision touches and what they were paid on.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from dataclasses import dataclass, field
from decimal import Decimal

import msgspec

from models.clock import utcnow
from models.db.core import insert_rows, json_value, write_transaction
from models.db.observations import Received, daily_values, insert_received, outcome_of, received
from models.db.tables import Coverage, LineItem, ObservationRevision, Settlement, SettlementIndex
from models.domain.index_catalog import BY_ID
from models.domain.observations import (
    ObservationIn,
    Provenance,
    SettledIndex,
    data_of,
    settled_amount_change,
)
from models.domain.quotes import CoverSnapshot
from models.domain.settlement import period_index, plain

HELD, APPROVED, REFUSED = "HELD", "APPROVED", "REFUSED"
STATES = (HELD, APPROVED, REFUSED)


class ReasonRequired(Exception):
    """A batch revising stored values came without a reason: nothing was written."""

    def __init__(self, revisions: int) -> None:
        super().__init__(f"the batch revises {revisions} stored value(s): say why in `reason`")
        self.revisions = revisions


class NotHeld(Exception):
    """The revision was decided already."""

    def __init__(self, state: str, decided_by: str) -> None:
        super().__init__(f"the revision is {state} already (by {decided_by})")
        self.state = state


class StaleRevision(Exception):
    """A held row's value was revised again since it was held: approving would overwrite
    the newer value. Refuse it and submit the revision again."""


@dataclass(frozen=True, slots=True)
class SettledChange:
    """A settled cover whose payout a revision would change, and how."""

    coverage_id: uuid.UUID
    target_id: str
    index_code: str
    start: dt.date
    end: dt.date
    settled_index: Decimal | None
    revised_index: Decimal | None  # None: the revision leaves the index incomplete
    policies: int  # policies paid on the cover (events written)
    change: str
    data_set: str | None = None  # the coverage's (None: its index's of before pricing-2026.4.0)

    def concerns(self, row: ObservationIn) -> bool:
        """Whether the row is one the cover settles on (its own data set's)."""
        return (
            row.monitoring_target_id == self.target_id
            and (row.data_set, row.variable) == data_of(self.index_code, self.data_set)
            and self.start <= row.day <= self.end
        )

    def as_json(self) -> dict:
        return {
            "coverageId": str(self.coverage_id), "monitoringTargetId": self.target_id, "indexCode": self.index_code,
            "periodStart": self.start.isoformat(), "periodEnd": self.end.isoformat(),
            "settledIndex": None if self.settled_index is None else plain(self.settled_index),
            "revisedIndex": None if self.revised_index is None else plain(self.revised_index),
            "policies": self.policies, "change": self.change,
        }


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    new: int
    revised: int  # stored now
    unchanged: int
    held: int  # rows held for approval
    revision_id: uuid.UUID | None  # the held revision (None: nothing held)
    stored: list[ObservationIn]  # the rows stored now (their settlements are told)
    settlements: list[dict]  # the held revision's settled covers and what changes
    notices: list[uuid.UUID] = field(default_factory=list)  # settlement notices written with the rows


async def submit_batch(rows: list[ObservationIn], provenance: Provenance) -> SubmitOutcome:
    """Store a validated batch in one transaction, holding its revisions that would change a
    settled amount (one held revision per batch; the same rows held again by the same
    submitter find the revision already held). A batch revising any stored value needs a
    reason (`ReasonRequired`, nothing written)."""
    async with write_transaction():
        items = await received(rows)
        revising = [i for i in items if i.stored is not None and not i.unchanged]
        if revising and not provenance.reason.strip():
            raise ReasonRequired(len(revising))
        held, changes = await _held(revising)
        held_ids = {id(i) for i in held}
        stored = [i for i in items if not i.unchanged and id(i) not in held_ids]
        notices = await insert_received(stored, provenance)
        revision_id, settlements = None, []
        if held:
            settlements = [c.as_json() for c in changes]
            revision_id = await _hold(held, settlements, provenance)
    counts = outcome_of([i for i in items if id(i) not in held_ids])
    return SubmitOutcome(
        counts.new, counts.revised, counts.unchanged, len(held), revision_id, [i.row for i in stored], settlements,
        notices,
    )


async def _held(revising: list[Received]) -> tuple[list[Received], list[SettledChange]]:
    """The revisions to hold: those over a settled cover whose payout the revisions stored
    now would change. Repeated until what is stored changes no settled payout (a row held
    for one cover leaves another cover's index without it, which can change that one).
    Also returns what the whole batch's revisions change: what approving would change."""
    candidates = list(revising)
    held: list[Received] = []
    first: list[SettledChange] | None = None
    while candidates:
        changes = await settled_changes([i.row for i in candidates])
        first = changes if first is None else first
        if not changes:
            break
        moved = [i for i in candidates if any(c.concerns(i.row) for c in changes)]
        held += moved
        candidates = [i for i in candidates if all(i is not m for m in moved)]
    return held, first or []


async def settled_changes(rows: list[ObservationIn]) -> list[SettledChange]:
    """The covers paid on (events written: settled, or waiting again after a revision)
    whose payout the rows, were they stored, would change. A cover last paid INITIAL (on
    provisional or fallback values, issue 34) is not among them: final values under it are
    its true-up, the contract's normal path, not a revision (docs/settlement.md, "States")."""
    out: list[SettledChange] = []
    by_target: dict[str, list[ObservationIn]] = {}
    for r in rows:
        by_target.setdefault(r.monitoring_target_id, []).append(r)
    for target, target_rows in sorted(by_target.items()):
        days = [r.day for r in target_rows]
        settled = await Settlement.select(
            Settlement.coverage_id, Settlement.period_start, Settlement.period_end, Settlement.policies
        ).where(
            (Settlement.monitoring_target_id == target)
            & (Settlement.period_start <= max(days))
            & (Settlement.period_end >= min(days))
            & (Settlement.policies > 0)
            & (Settlement.stage != "INITIAL")
        )
        for s in sorted(settled, key=lambda s: (s["period_start"], str(s["coverage_id"]))):
            coverage = await Coverage.select(Coverage.index_definition_id, Coverage.trigger, Coverage.data_set).where(
                Coverage.id == s["coverage_id"]
            ).first()
            if coverage is None:
                continue
            code = BY_ID[coverage["index_definition_id"]].code
            start, end = s["period_start"], s["period_end"]
            data_set = coverage["data_set"]
            change = SettledChange(s["coverage_id"], target, code, start, end, None, None, s["policies"], "", data_set)
            relevant = [r for r in target_rows if change.concerns(r)]
            if not relevant:
                continue
            values, _ = await daily_values(target, code, start, end, overlay=relevant, data_set=data_set)
            revised = period_index(code, start, end, values, Decimal(coverage["trigger"]))
            basis = await _settled_index(s["coverage_id"])
            why = settled_amount_change(code, await _cover_terms(s["coverage_id"], start, end), basis, revised)
            if why is not None:
                out.append(
                    SettledChange(
                        s["coverage_id"], target, code, start, end, None if basis is None else basis.value,
                        revised.value if revised.complete else None, s["policies"], why, data_set,
                    )
                )
    return out


async def _settled_index(coverage_id: uuid.UUID) -> SettledIndex | None:
    """The index the cover's policies were last paid on (its latest settlement index)."""
    row = await SettlementIndex.select(SettlementIndex.index_value, SettlementIndex.path).where(
        SettlementIndex.coverage_id == coverage_id
    ).order_by(SettlementIndex.revision, ascending=False).first()
    if row is None:
        return None
    path = json_value(row["path"]) or []
    counted = frozenset(dt.date.fromisoformat(p["day"]) for p in path if p.get("counted"))
    return SettledIndex(Decimal(row["index_value"]), counted)


async def _cover_terms(coverage_id: uuid.UUID, start: dt.date, end: dt.date) -> list[CoverSnapshot]:
    """Every distinct set of terms the cover was sold with (its snapshots on the line items
    over the period of the policies holding it)."""
    rows = await LineItem.raw(
        "SELECT DISTINCT CAST(li.covers AS TEXT) AS covers FROM line_item li "
        "WHERE li.period_start = {} AND li.period_end = {} "
        "AND li.policy_id IN (SELECT policy_id FROM policy_item WHERE coverage_id = {})",
        start, end, coverage_id,
    )
    terms: dict[bytes, CoverSnapshot] = {}
    for r in rows:
        for cover in msgspec.convert(json_value(r["covers"]), list[CoverSnapshot], strict=False):
            if cover.coverage_id == coverage_id:
                terms.setdefault(msgspec.json.encode(cover), cover)
    return list(terms.values())


def _held_row(item: Received) -> dict:
    r, stored = item.row, item.stored
    assert stored is not None
    return {
        "monitoringTargetId": r.monitoring_target_id, "dataSet": r.data_set, "variable": r.variable,
        "day": r.day.isoformat(), "hour": r.hour, "value": plain(r.value), "source": r.source, "quality": r.quality,
        "provisional": r.provisional, "simulated": r.simulated, "qualityCheck": r.quality_check,
        # The revision it revises: approving stores it only if that is still the latest.
        "revises": stored[0], "previousValue": plain(stored[1]), "previousQuality": stored[2],
        "previousProvisional": stored[3],
    }


def row_in(held: dict) -> ObservationIn:
    """A held row as the observation it stores once approved."""
    return ObservationIn(
        monitoring_target_id=held["monitoringTargetId"], data_set=held["dataSet"], variable=held["variable"],
        day=dt.date.fromisoformat(held["day"]), hour=held["hour"], value=Decimal(held["value"]), source=held["source"],
        quality=held["quality"], provisional=held["provisional"], simulated=held["simulated"],
        quality_check=held.get("qualityCheck", ""),
    )


async def _hold(held: list[Received], settlements: list[dict], provenance: Provenance) -> uuid.UUID:
    """The held revision's row (inside the caller's transaction); the same rows held again
    by the same submitter (a retried request or import) find the one already held."""
    rows = sorted((_held_row(i) for i in held), key=lambda r: (r["monitoringTargetId"], r["dataSet"], r["variable"], r["day"], r["hour"] or -1))
    fingerprint = hashlib.sha256(msgspec.json.encode([provenance.submitted_by, rows])).hexdigest()
    existing = await ObservationRevision.select(ObservationRevision.id).where(
        (ObservationRevision.fingerprint == fingerprint) & (ObservationRevision.state == HELD)
    ).first()
    if existing is not None:
        return existing["id"]
    revision_id = uuid.uuid4()
    await insert_rows([
        ObservationRevision(
            id=revision_id, state=HELD, submitted_by=provenance.submitted_by, reason=provenance.reason, rows=rows,
            row_count=len(rows), settlements=settlements, fingerprint=fingerprint, created_at=utcnow(),
            decided_by="", decided_at=None, decision_reason="",
        )
    ])
    return revision_id


# --- reading and deciding ---------------------------------------------------------------------


def _decoded(row: dict) -> dict:
    return {**row, "rows": json_value(row["rows"]), "settlements": json_value(row["settlements"])}


async def revision(revision_id: uuid.UUID) -> dict | None:
    row = await ObservationRevision.select().where(ObservationRevision.id == revision_id).first()
    return None if row is None else _decoded(row)


async def list_revisions(state: str | None, limit: int) -> list[dict]:
    """Revisions, newest first (rows left out: `revision` gives them)."""
    columns = [c for c in ObservationRevision._meta.columns if c._meta.name != "rows"]
    query = ObservationRevision.select(*columns)
    if state:
        query = query.where(ObservationRevision.state == state)
    rows = await query.order_by(ObservationRevision.created_at, ascending=False).limit(limit)
    return [{**r, "settlements": json_value(r["settlements"])} for r in rows]


async def held_revisions(created_before: dt.datetime | None = None, limit: int | None = None) -> list[dict]:
    """The revisions still HELD (oldest first; held before `created_before`, at most
    `limit`): their workflows are made sure of by the start sweep (every minute) and the
    daily observations run."""
    query = ObservationRevision.select().where(ObservationRevision.state == HELD)
    if created_before is not None:
        query = query.where(ObservationRevision.created_at < created_before)
    query = query.order_by(ObservationRevision.created_at)
    if limit is not None:
        query = query.limit(limit)
    return [_decoded(r) for r in await query]


@dataclass(frozen=True, slots=True)
class Decided:
    state: str
    decided_by: str
    decided_at: dt.datetime
    rows: list[ObservationIn]  # the rows stored (approved), else none
    notices: list[uuid.UUID] = field(default_factory=list)  # settlement notices written with them (this call)


async def decide(revision_id: uuid.UUID, state: str, decided_by: str, reason: str) -> Decided:
    """Approve (store the rows, naming the submitter and the approver, with their
    settlement notices) or refuse (store nothing) a HELD revision, in one transaction.
    Idempotent for the same decision by the same person (an activity's retry: its notices
    were written the first time, and are the sweep's if not told); any other decision of a
    decided revision is `NotHeld`. A held row whose value was revised again since is
    `StaleRevision`."""
    if state not in (APPROVED, REFUSED):
        raise ValueError(state)
    async with write_transaction():
        row = await revision(revision_id)
        if row is None:
            raise LookupError(f"observation revision {revision_id} does not exist")
        if row["state"] != HELD:
            if row["state"] == state and row["decided_by"] == decided_by:
                rows = [row_in(h) for h in row["rows"]] if state == APPROVED else []
                return Decided(state, decided_by, row["decided_at"], rows)
            raise NotHeld(row["state"], row["decided_by"])
        rows: list[ObservationIn] = []
        notices: list[uuid.UUID] = []
        if state == APPROVED:
            rows = [row_in(h) for h in row["rows"]]
            items = await received(rows)
            stale = [
                i.row.key for i, h in zip(items, row["rows"]) if (i.stored[0] if i.stored else 0) != h["revises"]
            ]
            if stale:
                raise StaleRevision(
                    f"{len(stale)} held value(s) were revised again since they were held (e.g. {stale[0]}): "
                    "refuse this revision and submit it again"
                )
            notices = await insert_received(items, Provenance(row["submitted_by"], row["reason"], approved_by=decided_by))
        now = utcnow()
        await ObservationRevision.update(
            {
                ObservationRevision.state: state,
                ObservationRevision.decided_by: decided_by,
                ObservationRevision.decided_at: now,
                ObservationRevision.decision_reason: reason,
            }
        ).where((ObservationRevision.id == revision_id) & (ObservationRevision.state == HELD))
    return Decided(state, decided_by, now, rows, notices)
