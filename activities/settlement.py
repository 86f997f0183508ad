"""Settlement activities: compute each cover's index over its period once, then write the
events and payouts of every policy holding it, page by page (docs/settlement.md).

Idempotent: every event and payout has a settlement key (policy, coverage, revision) with a
unique constraint, so a retried page, a re-run after a killed worker or a replayed workflow
writes nothing twice; a page's events and payouts commit together.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import uuid
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal

import msgspec
from temporalio import activity
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDConflictPolicy

from activities import settlement_ladder
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.db import settlement_disputes, settlement_sql
from models.db.core import is_sqlite, write_transaction
from models.db.records import LineItemRow, records
from models.db.settlement import HeldLineItem, IndexRecord, PeriodCoverage
from models.db.webhooks import outbox_values
from models.domain.index_catalog import BY_CODE
from models.domain.ladder import canonical_bytes, snapshot_hash
from models.domain.lifecycle import day_start
from models.domain.money import from_minor
from models.domain.statuses import PolicyStatus
from models.domain.webhooks import ADJUSTMENT_RECORDED, EVENT_VALIDATED, PAYOUT_RECORDED, envelope
from models.domain.settlement import (
    EVENT_TYPES,
    REVISION_WINDOW,
    IndexOutcome,
    event_id,
    period_index,
    plain,
    settle_line_item,
    settlement_key,
)
from models.temporal.ids import settlement_workflow_id
from models.temporal.search_attributes import MONITORING_TARGET_ID, SETTLEMENT_STATE
from models.temporal.settlement import (
    SETTLEMENT_WORKFLOW,
    CoverageSettled,
    PolicySettledInput,
    SettlementInput,
    SettlePeriodInput,
    SettlePeriodOutcome,
    StartSettlementsInput,
)

PAGE = 1000  # policies per page: one transaction of events and payouts each
# Ids derived from the event's (itself derived from its settlement key): stable across retries.
PAYOUT_ID_MASK = 0x5A5A_0000_0000_0000_0000_0000_0000_0001
MESSAGE_ID_MASKS = {EVENT_VALIDATED: 1 << 100, PAYOUT_RECORDED: 2 << 100, ADJUSTMENT_RECORDED: 3 << 100}
UNIFORM_POLICY = uuid.UUID(int=0)  # stands for every policy of a uniform shape


def _describe_missing(outcome: IndexOutcome) -> str:
    def days(ds):
        shown = ", ".join(d.isoformat() for d in ds[:5])
        return shown + (f" and {len(ds) - 5} more" if len(ds) > 5 else "")

    parts = []
    if outcome.missing_days:
        parts.append(f"no value for {len(outcome.missing_days)} day(s): {days(outcome.missing_days)}")
    if outcome.provisional_days:
        parts.append(f"provisional or suspect values on {len(outcome.provisional_days)} day(s): {days(outcome.provisional_days)}")
    return "; ".join(parts)


@activity.defn
async def settle_period(request: SettlePeriodInput) -> SettlePeriodOutcome:
    """Settle every cover of the target over [start, end] whose data is complete and final,
    for all policies in force; record the others as WAITING (or FLAGGED past the window).

    A month end wakes every target's settlement at once, and on SQLite their writes take
    turns on one writer, which is the critical path. So, on SQLite only (docs/settlement.md,
    "A month end"; PostgreSQL has no single writer: each settlement reads when it will and
    commits its final write at once):
    - from its start, the activity tells the shared final transaction (`final_writes`) that
      its job is coming, and the settlements finishing now share one commit
      (models/db/group_commit.py);
    - the reads take turns (`_read_turn`): one read at a time stays ahead of the writer
      (a target's reads take about a quarter of its writes) instead of competing with it
      for the cores.

    A first settlement marks its coverages before it reads (`mark_settling`: observations
    stored meanwhile are told to it), outside the shared final transaction."""
    await settlement_db.mark_settling(request.target_id, request.start, request.end)
    with settlement_db.final_writes.expecting():
        return await _settle_period(request)


async def _settle_period(request: SettlePeriodInput) -> SettlePeriodOutcome:
    results: dict[uuid.UUID, CoverageSettled] = {}
    ready: dict[uuid.UUID, tuple[PeriodCoverage, IndexOutcome, bool]] = {}
    incomplete: list[tuple[PeriodCoverage, IndexOutcome]] = []
    late: dict[uuid.UUID, str] = {}  # coverage → why a revision of its data is not settled
    on_ladder: dict[uuid.UUID, settlement_ladder.Assessed] = {}  # covers with a basis not paying now (issue 34)
    async with _read_turn():
        coverages = await settlement_db.coverages_with_exposure(request.target_id, request.start, request.end)
        windows = await settlement_db.revision_windows(request.target_id, request.start, request.end)
        for c in coverages:
            if c.basis is not None:
                _assess_ladder(c, await _ladder(request, c, windows.get(c.coverage_id)), ready, on_ladder)
                continue
            values, simulated = await observations_db.daily_values(
                request.target_id, c.index_code, request.start, request.end, data_set=c.data_set
            )
            outcome = period_index(c.index_code, request.start, request.end, values, c.trigger)
            row = windows.get(c.coverage_id)
            if settlement_db.window_closed(row, request.at):
                # Its revision window closed: what was paid stands, whatever came since (a
                # settlement started again after Temporal's retention deleted its closed run).
                results[c.coverage_id] = _closed(c, row, outcome, late)
            elif outcome.complete:
                ready[c.coverage_id] = (c, outcome, simulated)
            else:
                incomplete.append((c, outcome))
        if ready:
            memo: dict = {}  # line items alike (covers, quantity, sum insured, ...) settle alike
            ids = list(ready)
            first, last = _moments(request)
            shapes, others = await settlement_sql.classify(ids, request.start, request.end, first, last)
            # The payout rule and the rows' templates are worked out before the shared
            # transaction, which then spends its time on the statements alone. Per-policy
            # pages (below) change what is uniform: then it is classified again in there.
            prepared = None if others else await _prepare_uniform(request, ready, memo, shapes)
    # Writes of its own after the read turn: each waits for the write lock.
    await settlement_db.refuse_late_revisions(late)
    await _save_ladder_states(request, coverages, on_ladder, windows, results)
    for c, outcome in incomplete:
        state = "FLAGGED" if request.flag_missing else "WAITING"
        detail = _describe_missing(outcome)
        await settlement_db.save_state(c.coverage_id, request.target_id, request.start, request.end, state, detail)
        results[c.coverage_id] = CoverageSettled(c.coverage_id, c.index_code, state, detail=detail)
    # The period's window: as kept, or opened by this run if it settles the last coverage.
    kept = [r["revisions_until"] for r in windows.values()]
    window_end = kept[0] if kept and None not in kept else request.at + REVISION_WINDOW
    # Covers on a ladder not yet FINAL keep the period's revision window shut (INITIAL is not SETTLED).
    pending = bool(incomplete) or any(a.state != "SETTLED" for a in on_ladder.values()) or any(
        getattr(o, "stage", "FINAL") != "FINAL" for _, o, _ in ready.values()
    )
    revisions_until = window_end if not pending and coverages else None
    if ready:
        written: dict[uuid.UUID, tuple[int, int]] = {}
        cursor = None
        indices = _index_records(ready)
        if others:
            # The line items that need a policy-by-policy look (activated or cancelled
            # within the period, settled before) a page at a time, after the indices they
            # explain themselves by. The pages come first: the uniform pass's events would
            # otherwise send its line items the per-policy way too.
            async with write_transaction():
                await settlement_db.record_indices(indices)
            written, cursor = await _write_events(request, ready, memo)
        settled = {cid: (outcome.revision, outcome.value) for cid, (_, outcome, _) in ready.items()}
        stages = {cid: outcome.stage for cid, (_, outcome, _) in ready.items() if hasattr(outcome, "stage")}
        snapshots = _snapshot_rows(request, ready)
        # The uniform line items, their payouts and messages, (the indices) and the states in
        # one transaction, shared with the other settlements finishing now: on SQLite each
        # commit is a sync of the log (models/db/group_commit.py).

        async def final_write() -> dict[uuid.UUID, tuple[int, int]]:
            uniform = prepared
            if uniform is None:
                current, _ = await settlement_sql.classify(ids, request.start, request.end, first, last)
                uniform = await _prepare_uniform(request, ready, memo, current)
            else:
                await settlement_db.record_indices(indices)
            written_now = await _write_uniform(request, uniform)
            await settlement_db.record_snapshots(snapshots)
            await settlement_db.save_settled(request.target_id, request.start, request.end, settled, stages)
            if not pending:  # every coverage of the period settled (FINAL): its revision window opens
                await settlement_db.open_revision_window(request.target_id, request.start, request.end, window_end)
            return written_now

        for cid, (n, paid) in (await settlement_db.final_writes.run(final_write)).items():
            before = written.get(cid, (0, 0))
            written[cid] = (before[0] + n, before[1] + paid)
        activity.heartbeat(*([str(cursor)] if cursor is not None else []))
        for cid, (c, outcome, _) in ready.items():
            events, paid = written.get(cid, (0, 0))
            state = "INITIAL" if getattr(outcome, "stage", "FINAL") == "INITIAL" else "SETTLED"
            results[cid] = CoverageSettled(cid, c.index_code, state, outcome.revision, outcome.value, "", events, paid)
    checks = [a.next_check for a in on_ladder.values() if a.next_check is not None]
    checks += [settlement_ladder.next_check(c.basis, request.end, request.at, paid=True)
               for c, o, _ in ready.values() if getattr(o, "stage", "FINAL") == "INITIAL"]
    return SettlePeriodOutcome(
        coverages=[results[c.coverage_id] for c in coverages], revisions_until=revisions_until,
        next_check=min(checks, default=None),
    )


async def _ladder(request: SettlePeriodInput, c: PeriodCoverage, row: dict | None) -> settlement_ladder.Assessed:
    """A cover on a source ladder at this run; one whose revision window closed stands as
    it was settled."""
    if settlement_db.window_closed(row, request.at):
        index_value = None if row["index_value"] is None else Decimal(row["index_value"])
        return settlement_ladder.Assessed("SETTLED", revision=row["revision"], index_value=index_value, changed=False)
    return await settlement_ladder.assess(c, request.start, request.end, request.target_id, request.at)


def _assess_ladder(c: PeriodCoverage, assessed: settlement_ladder.Assessed, ready: dict, on_ladder: dict) -> None:
    """A ladder cover paying now joins the run's ready covers; any other is kept with its state."""
    if assessed.outcome is not None:
        ready[c.coverage_id] = (c, assessed.outcome, assessed.simulated)
    else:
        on_ladder[c.coverage_id] = assessed


async def _save_ladder_states(request: SettlePeriodInput, coverages: list[PeriodCoverage], on_ladder: dict,
                              rows: dict, results: dict) -> None:
    """The states of the ladder covers not paying now: a DISPUTED one opens its dispute
    (one open per coverage), and each state that changed (or differs from its row's) is saved."""
    for c in coverages:
        a = on_ladder.get(c.coverage_id)
        if a is None:
            continue
        if a.dispute is not None:
            await settlement_disputes.open_dispute(c.coverage_id, request.target_id, request.start, request.end,
                                                   **a.dispute)
        if a.changed or (rows.get(c.coverage_id) or {}).get("state") != a.state:
            await settlement_db.save_state(c.coverage_id, request.target_id, request.start, request.end, a.state,
                                           a.detail, a.revision, a.index_value)
        results[c.coverage_id] = CoverageSettled(c.coverage_id, c.index_code, a.state, a.revision, a.index_value,
                                                 a.detail)


def _snapshot_rows(request: SettlePeriodInput, ready) -> list[dict]:
    """The settlement snapshot of each cover paid this run (`settlement_snapshot` rows): a
    ladder cover's as it decided; a final-only cover's of its final values, at the revision
    of the data its events use (docs/settlement.md, "Two payments")."""
    rows = []
    for cid, (c, outcome, _) in ready.items():
        body = getattr(outcome, "body", None)
        if body is None:
            body = settlement_ladder.final_only_snapshot(c, request.start, request.end, outcome)
        rows.append(dict(
            id=f"{cid}:s{outcome.revision}", coverage_id=cid, revision=outcome.revision, stage=body["stage"],
            sha256=snapshot_hash(body), body=canonical_bytes(body).decode(),
            index_value=Decimal(body["result"]["indexValue"]), created_at=request.at,
        ))
    return rows


def _closed(c: PeriodCoverage, row: dict, outcome: IndexOutcome, late: dict[uuid.UUID, str]) -> CoverageSettled:
    """A coverage whose revision window has closed, as it was settled; a revision of its
    data stored since is recorded in `late` (why it is not settled), not paid."""
    detail = ""
    if outcome.complete and outcome.revision > row["revision"]:
        detail = (
            f"revision r{outcome.revision} of the data came after the revision window closed "
            f"({row['revisions_until']:%Y-%m-%d %H:%M} UTC): not settled; what was paid at r{row['revision']} stands"
        )
        late[c.coverage_id] = detail
    index_value = None if row["index_value"] is None else Decimal(row["index_value"])
    return CoverageSettled(c.coverage_id, c.index_code, "SETTLED", row["revision"], index_value, detail)


_READ_TURNS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]" = weakref.WeakKeyDictionary()
READ_TURN_HEARTBEAT = 10.0  # seconds between heartbeats while waiting for a read turn


@contextlib.asynccontextmanager
async def _read_turn() -> AsyncIterator[None]:
    """One settlement of this worker reads at a time. A target's reads (its coverages,
    daily values, line item shapes and payout templates: about 5 ms at 500 policies)
    take about a quarter of its share of the single writer, so one at a time keeps the
    writer fed; 20 at once slowed it by contending for the cores: a month end of 20 targets
    took 0.63-0.64 s with every read at once, 0.54-0.56 s taking turns
    (bench/settlement.py --small 200, two runs each, the semaphore's size changed by
    hand). Waiting heartbeats with the details this attempt started from, so a long queue
    neither times the activity out nor loses its resume point.

    SQLite only: PostgreSQL's reads do not compete with one writer, so there they do not
    take turns."""
    if not is_sqlite():
        yield
        return
    loop = asyncio.get_running_loop()
    turn = _READ_TURNS.get(loop)
    if turn is None:
        turn = _READ_TURNS[loop] = asyncio.Semaphore(1)

    async def keep_alive() -> None:
        while True:
            await asyncio.sleep(READ_TURN_HEARTBEAT)
            activity.heartbeat(*activity.info().heartbeat_details)

    alive = asyncio.create_task(keep_alive())
    try:
        await turn.acquire()
    finally:
        alive.cancel()
    try:
        yield
    finally:
        turn.release()


def _index_records(ready) -> list[IndexRecord]:
    """Each ready cover's index and its daily path, as the claim explanation shows them; a
    ladder cover's days also name their rung, data set, source and error (issue 34)."""
    return [
        IndexRecord(
            c.coverage_id, outcome.revision, c.index_code, c.data_set, outcome.value,
            [
                {"day": v.day.isoformat(), "value": plain(v.value), "revision": v.revision,
                 "counted": v.day in outcome.counted_days, **_rung_of(v)}
                for v in outcome.path
            ],
            simulated,
        )
        for c, outcome, simulated in ready.values()
    ]


def _rung_of(v) -> dict:
    """Where a ladder day's value came from (a final-only cover's `DailyValue` has none)."""
    if not hasattr(v, "rung"):
        return {}
    return {"rung": v.rung, "dataSet": v.data_set, "source": v.source, "error": plain(v.error)}


def _moments(request: SettlePeriodInput) -> tuple[dt.datetime, dt.datetime]:
    """The end of the period's first day and of its last: a policy in force at both was in
    force all through it."""
    return day_start(request.start + dt.timedelta(days=1)), day_start(request.end + dt.timedelta(days=1))


@dataclass(frozen=True, slots=True)
class UniformWrite:
    """What the set-based statements of a run write (`_prepare_uniform`)."""

    shapes: list[tuple[settlement_sql.UniformShape, list[settlement_sql.EventTemplate]]]
    paying: list[settlement_sql.EventTemplate]  # once per cover and amount paid: its messages
    written: dict[uuid.UUID, tuple[int, int]]  # (events, paid minor) by coverage
    coverage_ids: list[uuid.UUID]  # the run's ready coverages


async def _prepare_uniform(
    request: SettlePeriodInput, ready, memo: dict, shapes: list[settlement_sql.UniformShape]
) -> UniformWrite:
    """The line items in force all through the period with no event yet: the payout rule
    once per distinct terms (`shapes`) and the event templates the database copies to every
    line item of a shape."""
    first, _ = _moments(request)
    samples = await settlement_sql.sample_line_items([s.sample_id for s in shapes])
    written: dict[uuid.UUID, tuple[int, int]] = {}
    paying: dict[tuple, settlement_sql.EventTemplate] = {}
    planned = []
    for shape in shapes:
        [item] = records(LineItemRow, [samples[shape.sample_id]])
        # Any policy of the shape: in force all through, nothing paid before.
        held = HeldLineItem(item.tenant_id, UNIFORM_POLICY, PolicyStatus.ACTIVE, first, None, item, {}, {})
        events = _settle_held(request, held, ready, memo)
        templates = [_template(e) for e in events]
        planned.append((shape, templates))
        for e, t in zip(events, templates):
            n, paid = written.get(e["coverage_id"], (0, 0))
            written[e["coverage_id"]] = (n + shape.count, paid + e["payout_minor"] * shape.count)
            if t.payout_minor != 0:
                paying.setdefault((t.coverage_id, t.revision, t.payout_minor, t.currency), t)
    return UniformWrite(planned, list(paying.values()), written, list(ready))


async def _write_uniform(request: SettlePeriodInput, uniform: UniformWrite) -> dict[uuid.UUID, tuple[int, int]]:
    """The set-based writes (models/db/settlement_sql.py): each shape's events, then the run's
    payouts and, once per cover and amount paid, its webhook messages. Inside the caller's
    write transaction (a group commit's job: no activity context here). Returns (events,
    paid minor) by coverage."""
    first, last = _moments(request)
    ids = uniform.coverage_ids
    for shape, templates in uniform.shapes:
        await settlement_sql.write_uniform(
            shape, templates, request.start, request.end, ids, first, last, request.at, request.at.date()
        )
    if uniform.paying:
        await settlement_sql.write_run_payouts(ids, request.at)
        for template in uniform.paying:
            await settlement_sql.write_run_messages(template, request.at)
    return uniform.written


def _template(event: dict) -> settlement_sql.EventTemplate:
    """A uniform shape's event of one cover, with its webhooks' payloads (the event's and
    policy's ids left as placeholders the database fills)."""
    messages = tuple(
        (kind, msgspec.json.encode(envelope(kind, event["created_at"], data)).decode(), MESSAGE_ID_MASKS[kind])
        for kind, data in _message_data(event, settlement_sql.EVENT_ID, settlement_sql.POLICY_ID)
    ) if event["payout_minor"] != 0 else ()
    return settlement_sql.EventTemplate(
        coverage_id=event["coverage_id"],
        event_type=event["event_type"],
        index_value=event["index_value"],
        currency=event["currency"],
        payout_minor=event["payout_minor"],
        data_set=event["data_set"],
        revision=event["revision"],
        simulated=event["simulated"],
        explanation_json=msgspec.json.encode(event["explanation"]).decode(),
        messages=messages,
        stage=event.get("stage", "FINAL"),
    )


async def _write_events(
    request: SettlePeriodInput, ready, memo: dict
) -> tuple[dict[uuid.UUID, tuple[int, int]], uuid.UUID | None]:
    """Events and payouts of the policies holding the ready covers whose line items are not
    uniform (activated or cancelled within the period, or with events already: adjustments,
    or a retry after the uniform pass), page by page, resuming after the last page a
    previous attempt heartbeated. Returns (events, paid minor) by coverage, and the last
    policy id written (the resume point)."""
    details = activity.info().heartbeat_details
    after = uuid.UUID(details[0]) if details else None
    written: dict[uuid.UUID, tuple[int, int]] = {}
    ids = list(ready)
    uniform = settlement_sql.uniform_condition(*_moments(request))
    while True:
        page, more = await settlement_db.exposure_page(ids, request.start, request.end, after, PAGE, uniform)
        if not page:
            return written, after
        events, payouts, messages = [], [], []
        for held in page:
            for event in _settle_held(request, held, ready, memo):
                events.append(event)
                if event["payout_minor"] != 0:
                    payouts.append(_payout_of(event))
                    messages.extend(_messages_of(event))
                n, paid = written.get(event["coverage_id"], (0, 0))
                written[event["coverage_id"]] = (n + 1, paid + event["payout_minor"])
        await settlement_db.write_settled(events, payouts, messages)
        after = max(h.policy_id for h in page)
        activity.heartbeat(str(after))
        if not more:
            return written, after


def _decisive_moment(index_code: str, end: dt.date) -> dt.datetime:
    """SUM and MAX indices are known at the period's end: a policy counts if in force then."""
    return day_start(end + dt.timedelta(days=1))


def _settle_held(request: SettlePeriodInput, held: HeldLineItem, ready, memo: dict | None = None) -> list[dict]:
    """The event rows of one policy's line item (as `parametric_event` columns)."""
    item = held.item
    values: dict[uuid.UUID, Decimal] = {}
    counted_days: dict[uuid.UUID, list[str]] = {}
    for cover in item.covers:
        entry = ready.get(cover.coverage_id)
        if entry is None:
            continue
        c, outcome, _ = entry
        if held.settled_revision.get(cover.coverage_id, 0) >= outcome.revision:
            continue  # settled at this revision already
        if BY_CODE[c.index_code].aggregation == "DAILY_COUNT":
            # A day counts for a policy in force at the end of that day.
            days = [d for d in outcome.counted_days if held.in_force_at(day_start(d + dt.timedelta(days=1)))]
            if not held.in_force_at(day_start(request.start + dt.timedelta(days=1))) and not days:
                continue
            values[cover.coverage_id] = Decimal(len(days))
            counted_days[cover.coverage_id] = [d.isoformat() for d in days]
        elif held.in_force_at(_decisive_moment(c.index_code, request.end)):
            values[cover.coverage_id] = outcome.value
    if not values:
        return []
    others = sum(paid for cid, paid in held.paid_minor.items() if cid not in values)
    key = (tuple(item.covers), item.quantity, item.sum_insured_minor, item.currency, tuple(sorted(values.items())), others)
    settled = memo.get(key) if memo is not None else None
    if settled is None:
        settled = settle_line_item(item.covers, item.quantity, item.sum_insured_minor, item.currency, values, others)
        if memo is not None:
            memo[key] = settled
    events = []
    for result in settled:
        c, outcome, simulated = ready[result.coverage_id]
        previous = held.paid_minor.get(result.coverage_id, 0)
        first = held.settled_revision.get(result.coverage_id, 0) == 0
        amount = result.paid_minor - (0 if first else previous)
        stage = getattr(outcome, "stage", "FINAL")
        true_up = not first and getattr(outcome, "true_up", False)
        if not first and amount == 0 and not true_up:
            continue  # the revision changes nothing this policy is paid (a true-up is written all the same)
        key = settlement_key(held.policy_id, result.coverage_id, outcome.revision)
        # What only this event knows; the terms, quantity and sum insured are on the line
        # item, the index path on the settlement index (the claim explanation joins them).
        explanation = {
            "payoutPerUnit": plain(result.per_unit),
            "coverPayoutMinor": result.gross_minor,
            "paidByOtherCoversMinor": others,
            "previouslyPaidMinor": 0 if first else previous,
        }
        if result.coverage_id in counted_days:
            explanation["countedDays"] = counted_days[result.coverage_id]
        if stage != "FINAL" or true_up:
            amount = _staged(explanation, outcome, amount, true_up)
        events.append(
            {
                "id": event_id(key),
                "tenant_id": held.tenant_id,
                "policy_id": held.policy_id,
                "coverage_id": result.coverage_id,
                "settlement_key": key,
                "event_type": EVENT_TYPES[c.index_code],
                "validated_day": request.at.date(),
                "index_value": result.index_value,
                "currency": item.currency,
                "payout_minor": amount,
                "created_at": request.at,
                "kind": "SETTLEMENT" if first else "ADJUSTMENT",
                "line_item_id": item.id,
                "data_set": c.data_set,
                "revision": outcome.revision,
                "simulated": simulated,
                "explanation": explanation,
                "stage": stage,
            }
        )
    return events


def _staged(explanation: dict, outcome, amount: int, true_up: bool) -> int:
    """A ladder cover's event (docs/settlement.md, "Two payments"): the explanation says the
    stage, the index and its error; an INITIAL one the index it paid on; a true-up that would
    take money back is waived (amount 0; the explanation says how much and why). Returns the
    amount to write."""
    index = outcome.index
    explanation["stage"] = outcome.stage
    explanation["indexValue"] = plain(index.value)
    explanation["indexError"] = plain(index.error)
    explanation["paidIndex"] = plain(outcome.value)
    if true_up and amount < 0:
        explanation["waivedMinor"] = -amount
        explanation["waived"] = (
            "the final values give less than the INITIAL payment paid; the difference is waived: INITIAL "
            "paid only what the stated error of its values made certain, and the insurer carries the rest"
        )
        return 0
    return amount


def _messages_of(event: dict) -> list[dict]:
    """The webhooks of a paying event, written in its transaction (outbox)."""
    return [
        outbox_values(event["tenant_id"], kind, event["settlement_key"], event["created_at"], data,
                      message_id=f"msg_{event['id'].int ^ MESSAGE_ID_MASKS[kind]:032x}", policy_id=event["policy_id"])
        for kind, data in _message_data(event, str(event["id"]), str(event["policy_id"]))
    ]


def _message_data(event: dict, event_id: str, policy_id: str) -> list[tuple[str, dict]]:
    """(kind, the webhook's `data`) of each message of a paying event."""
    data = {
        "eventId": event_id,
        "policyId": policy_id,
        "coverageId": str(event["coverage_id"]),
        "kind": event["kind"],
        "eventType": event["event_type"],
        "validatedDay": event["validated_day"].isoformat(),
        "indexValue": plain(event["index_value"]),
        "payout": {"amount": str(from_minor(event["payout_minor"], event["currency"])), "currency": event["currency"]},
        "dataSet": event["data_set"],
        "revision": event["revision"],
        "simulated": event["simulated"],
        "stage": event.get("stage", "FINAL"),
    }
    kinds = [ADJUSTMENT_RECORDED] if event["kind"] == "ADJUSTMENT" else [EVENT_VALIDATED, PAYOUT_RECORDED]
    return [(kind, data) for kind in kinds]


def _payout_of(event: dict) -> dict:
    return {
        "id": uuid.UUID(int=event["id"].int ^ PAYOUT_ID_MASK),  # derived: the same payout on a retry
        "tenant_id": event["tenant_id"],
        "policy_id": event["policy_id"],
        "coverage_id": event["coverage_id"],
        "event_id": event["id"],
        "settlement_key": event["settlement_key"],
        "currency": event["currency"],
        "amount_minor": event["payout_minor"],
        "created_at": event["created_at"],
    }


@activity.defn
async def policy_settled(request: PolicySettledInput) -> bool:
    """Whether every cover of the policy is settled (it may then expire)."""
    return await settlement_db.policy_settled(request.policy_id)


@activity.defn
async def start_settlements(request: StartSettlementsInput) -> int:
    """Make sure a settlement workflow runs for each of the periods (one per target and
    period, shared by all policies holding covers over it: an existing one is used as it
    is). Not children of the policy: they outlive it, and a policy's history holds one
    marker instead of a start per period. Returns the number of periods."""
    client = activity.client()
    periods = sorted(set(request.periods))
    first_dues = await settlement_db.first_dues(request.target_id, periods)
    for start, end in sorted(set(request.periods)):
        await client.start_workflow(
            SETTLEMENT_WORKFLOW,
            SettlementInput(target_id=request.target_id, start=start, end=end, first_due=first_dues.get((start, end))),
            id=settlement_workflow_id(request.target_id, start, end),
            task_queue=request.task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            search_attributes=TypedSearchAttributes(
                [SearchAttributePair(MONITORING_TARGET_ID, request.target_id), SearchAttributePair(SETTLEMENT_STATE, "WAITING")]
            ),
            static_summary=f"Settlement · {request.target_id} · {start}..{end}",
        )
    return len(periods)
