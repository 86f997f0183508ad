"""Four eyes over settlement disputes (issue 34; docs/settlement.md, "Sources that disagree").

Settlement opens a `settlement_dispute` (OPEN) when a coverage's sources disagree and pays
nothing on it (models/db/settlement_disputes.py `open_dispute`). Two data staff members decide which
source settles it:

1. a first one **proposes** a source with a reason: OPEN → PROPOSED;
2. a **different** one (another person by stable staff id, name or e-mail:
   models/db/staff.py) **confirms** the same source: PROPOSED → DECIDED. In the same
   transaction a `settlement_notice` naming the target and every day of the period is
   written, so the settlement is told (the caller's signal right after the commit, or the
   `settlement-notices` sweep within minutes: docs/observations.md, "Settlements are told")
   and settles on the source chosen (`settlement_disputes.decided_source`).

Refusals: the actor is no active data staff member (`FourEyes`, 403); the proposer posting
the same source with another reason, i.e. confirming their own proposal (`FourEyes`); a
second member choosing another source than the one proposed (`OtherSource`, 409: confirm
it, or the proposer replaces their proposal); a dispute decided already (`NotOpen`, 409); a
source that is not one of the dispute's two (`BadSource`, 400). The same request again (a
retry: same actor, source and reason) answers the dispute as it is. The proposer may replace
their own proposal with the other source until it is confirmed.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field

from models.clock import utcnow
from models.db.core import write_transaction
from models.db.observations import write_notices
from models.db.settlement_disputes import CLOSED, INITIAL_DECISIONS, OPEN_STATES, TRUE_UP_DECISIONS
from models.db.staff import StaffRefused, check_actor
from models.db.tables import Coverage, SettlementDispute

OPEN, PROPOSED, DECIDED = "OPEN", "PROPOSED", "DECIDED"
# The two sources a dispute chooses between, by the disputed reading (`other_source`):
# at the INITIAL settlement the primary against the calibrated fallback; at the true-up
# the final index against the INITIAL (provisional) one.
CHOICES = {"FALLBACK": INITIAL_DECISIONS, "PROVISIONAL": TRUE_UP_DECISIONS}
ROLE = "data"


class BadSource(ValueError):
    def __init__(self, choices: tuple[str, ...]) -> None:
        super().__init__(f"one of {', '.join(choices)} (the dispute's two sources)")
        self.choices = choices


class ReasonRequired(ValueError):
    """A proposal without a reason."""


class FourEyes(Exception):
    """403: not an active data staff member, or the proposer confirming their own proposal."""


class NotOpen(Exception):
    """409: the coverage's dispute is decided already (or changed meanwhile)."""


class OtherSource(Exception):
    """409: a second data staff member chose another source than the one proposed."""


def choices(row: dict) -> tuple[str, ...]:
    """The sources the dispute chooses between (`CHOICES`; an unknown reading: the primary
    or it)."""
    return CHOICES.get(row["other_source"], ("PRIMARY", row["other_source"] or "FALLBACK"))


def readings(row: dict) -> dict[str, object]:
    """The two readings by source: the primary's index (at the true-up: the final one) and
    the other source's."""
    first, second = choices(row)
    return {first: row["primary_index"], second: row["other_index"]}


async def latest_dispute(coverage_id: uuid.UUID) -> dict | None:
    """The coverage's latest dispute (an open one if any: a coverage has at most one open),
    or None when its sources never disagreed."""
    rows = await SettlementDispute.select().where(SettlementDispute.coverage_id == coverage_id).order_by(
        SettlementDispute.created_at, ascending=False
    )
    open_ = [r for r in rows if r["state"] in OPEN_STATES]
    return (open_ or rows or [None])[0]


async def latest_disputes(coverage_ids: list[uuid.UUID]) -> dict[uuid.UUID, dict]:
    """`latest_dispute` of each coverage that has one (for a page of settlements)."""
    if not coverage_ids:
        return {}
    rows = await SettlementDispute.select().where(SettlementDispute.coverage_id.is_in(coverage_ids)).order_by(
        SettlementDispute.created_at, ascending=False
    )
    out: dict[uuid.UUID, dict] = {}
    for r in rows:
        have = out.get(r["coverage_id"])
        if have is None or (have["state"] not in OPEN_STATES and r["state"] in OPEN_STATES):
            out[r["coverage_id"]] = r
    return out


@dataclass(frozen=True, slots=True)
class Decision:
    dispute: dict  # the dispute's row after the call
    decided_now: bool = False  # this call decided it
    notices: list[uuid.UUID] = field(default_factory=list)  # settlement notices written with the decision


async def decide(coverage_id: uuid.UUID, source: str, reason: str, actor: str, actor_id: str) -> Decision:
    """Propose or confirm `source` for the coverage's dispute as `actor` ("staff:<name>",
    stable staff id `actor_id`), in one transaction (module docstring). `LookupError` when
    the coverage has no dispute."""
    reason = reason.strip()
    async with write_transaction():
        row = await latest_dispute(coverage_id)
        if row is None:
            raise LookupError(f"coverage {coverage_id} has no settlement dispute")
        if source not in choices(row):
            raise BadSource(choices(row))
        if row["state"] == CLOSED:
            raise NotOpen(f"the dispute is closed: {row['detail']}")
        if row["state"] == DECIDED:
            if source == row["decision"] and _retry(row, actor, reason):
                return Decision(row)
            raise NotOpen(
                f"the dispute is DECIDED already: {row['decision']} (proposed by {row['proposed_by']}, confirmed by "
                f"{row['decided_by']}, {row['decided_at']:%Y-%m-%d %H:%M} UTC)"
            )
        if row["state"] == PROPOSED and row["proposed_by"] == actor and (source, reason) == (row["proposal"], row["proposal_reason"]):
            return Decision(row)  # the proposal again: a retry
        proposer = row["proposed_by"] if row["state"] == PROPOSED else ""
        proposer_id = row["proposed_by_id"] if row["state"] == PROPOSED else ""
        first_eye = False
        try:
            member_id = (await check_actor(actor, actor_id, ROLE, other_actor=proposer, other_actor_id=proposer_id,
                                           other_did="proposed", action="decide a settlement dispute")).id
        except StaffRefused as refused:
            if not refused.same_person:
                raise FourEyes(str(refused)) from None
            first_eye, member_id = True, proposer_id or actor_id  # the proposer, again
        if row["state"] == OPEN or first_eye:
            if first_eye and source == row["proposal"]:
                raise FourEyes(
                    f"four eyes: {actor} proposed {source}; another data staff member confirms it (or the proposer "
                    "replaces the proposal with the other source)"
                )
            if not reason:
                raise ReasonRequired("say why this source settles the coverage")
            changes = {
                SettlementDispute.state: PROPOSED, SettlementDispute.proposed_by: actor,
                SettlementDispute.proposed_by_id: member_id, SettlementDispute.proposal: source,
                SettlementDispute.proposal_reason: reason,
            }
            return Decision(await _update(row, changes))
        if source != row["proposal"]:
            raise OtherSource(
                f"{row['proposed_by']} proposed {row['proposal']} ({row['proposal_reason']}); a decision needs two "
                f"data staff members choosing the same source: confirm {row['proposal']}, or ask "
                f"{row['proposed_by']} to replace the proposal with {source}"
            )
        now = utcnow()
        changes = {
            SettlementDispute.state: DECIDED, SettlementDispute.decided_by: actor, SettlementDispute.decision: source,
            SettlementDispute.decision_reason: reason, SettlementDispute.decided_at: now,
        }
        decided = await _update(row, changes)
        days = {row["period_start"] + dt.timedelta(days=i) for i in range((row["period_end"] - row["period_start"]).days + 1)}
        notices = await write_notices({row["monitoring_target_id"]: days}, now)
    return Decision(decided, decided_now=True, notices=notices)


def _retry(row: dict, actor: str, reason: str) -> bool:
    """Whether a request for the decided source is one already made (its response lost)."""
    return (actor, reason) in ((row["decided_by"], row["decision_reason"]), (row["proposed_by"], row["proposal_reason"]))


async def _update(row: dict, changes: dict) -> dict:
    """Apply `changes` if the dispute is still as read (state and proposal), else `NotOpen`."""
    done = await SettlementDispute.update(changes).where(
        (SettlementDispute.id == row["id"]) & (SettlementDispute.state == row["state"])
        & (SettlementDispute.proposal == row["proposal"]) & (SettlementDispute.proposed_by == row["proposed_by"])
    ).returning(SettlementDispute.id)
    if not done:
        raise NotOpen("the dispute changed meanwhile: read it again")
    return await SettlementDispute.select().where(SettlementDispute.id == row["id"]).first()


async def coverage_terms(coverage_ids: list[uuid.UUID]) -> dict[uuid.UUID, dict]:
    """What a dispute is read against: each coverage's index, direction, trigger and
    settlement basis (its tolerance)."""
    if not coverage_ids:
        return {}
    rows = await Coverage.select(
        Coverage.id, Coverage.index_definition_id, Coverage.direction, Coverage.trigger, Coverage.settlement_basis
    ).where(Coverage.id.is_in(coverage_ids))
    return {r["id"]: r for r in rows}
