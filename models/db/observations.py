"""Storing measured values with revisions, and reading them back for settlement.

A value is never edited: a later, different value for the same target, data set, variable,
day and hour is a new row with the next revision; the same value again changes nothing.
Each row records who submitted it and why (`Provenance`); what the service's ways in submit
goes through the four-eyes check first (`models.db.observation_revisions`).

Stored rows change what the settlements over their days pay: every store writes, in its own
transaction, a `settlement_notice` per target naming the days. After the commit its writer
tells those settlements at once and marks the notice told; should that be lost (a signal
that failed, a process that died), the `settlement-notices` sweep finds the notice and tells
them (docs/observations.md, "Settlements are told").
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from models.clock import utcnow
from models.db.core import insert_rows, json_value, write_transaction
from models.db.quality_context import failed_checks
from models.db.tables import MonitoringTarget, Observation, Settlement, SettlementNotice
from models.domain.settlement import DailyValue, daily_from_hourly
from models.domain.index_catalog import BY_CODE
from models.domain.observations import (
    MAX_BATCH,
    ObservationIn,
    Provenance,
    RowProblem,
    check_batch,
    data_of,
    is_final,
    parse_csv_rows,
    same_reading,
)
from models.domain.quality_checks import checked_verdict, kept_verdict

CHUNK = 500  # keys per IN (...) lookup


@dataclass(frozen=True, slots=True)
class StoreOutcome:
    new: int
    revised: int
    unchanged: int
    # (target, day) of every final value that revised one already stored: settlement of
    # covers over those days may have to run again.
    revised_days: tuple[tuple[str, str, dt.date], ...] = ()  # (target, data set, day)
    notices: tuple[uuid.UUID, ...] = ()  # the settlement notices written with the rows


async def unknown_targets(rows: list[ObservationIn]) -> list[RowProblem]:
    """Rows whose monitoring target the service does not know."""
    wanted = sorted({r.monitoring_target_id for r in rows})
    known: set[str] = set()
    for i in range(0, len(wanted), CHUNK):
        found = await MonitoringTarget.select(MonitoringTarget.id).where(MonitoringTarget.id.is_in(wanted[i : i + CHUNK]))
        known.update(f["id"] for f in found)
    return [
        RowProblem(i, "monitoringTargetId", f"unknown monitoring target {r.monitoring_target_id!r}")
        for i, r in enumerate(rows)
        if r.monitoring_target_id not in known
    ]


Stored = tuple[int, Decimal, str, bool, str]  # (revision, value, quality, provisional, quality check)


async def latest_stored(keys: list[str]) -> dict[str, Stored]:
    """key → (revision, value, quality, provisional, quality check) of its latest stored revision."""
    latest: dict[str, Stored] = {}
    for i in range(0, len(keys), CHUNK):
        rows = await Observation.select(
            Observation.obs_key, Observation.revision, Observation.value, Observation.quality, Observation.provisional,
            Observation.quality_check,
        ).where(Observation.obs_key.is_in(keys[i : i + CHUNK]))
        for r in rows:
            have = latest.get(r["obs_key"])
            if have is None or r["revision"] > have[0]:
                latest[r["obs_key"]] = (
                    r["revision"], Decimal(r["value"]), r["quality"], r["provisional"], r["quality_check"] or ""
                )
    return latest


@dataclass(frozen=True, slots=True)
class Received:
    """A received row against the latest stored revision of its key (None: a new key)."""

    row: ObservationIn
    stored: Stored | None  # (revision, value, quality, provisional, quality check)

    @property
    def unchanged(self) -> bool:
        return self.stored is not None and same_reading(self.row.value, self.row.quality, self.row.provisional, self.stored[1:4])

    @property
    def revision(self) -> int:
        """The revision the row is stored as."""
        return 1 if self.stored is None else self.stored[0] + 1


async def received(rows: list[ObservationIn]) -> list[Received]:
    """Each row with the latest stored revision of its key, as it is to be stored: a row
    that a quality check fails is SUSPECT naming the check (`judged`)."""
    latest = await latest_stored(sorted({r.key for r in rows}))
    return await judged([Received(r, latest.get(r.key)) for r in rows])


async def judged(items: list[Received]) -> list[Received]:
    """The items as they are to be stored, with the quality checks' verdicts
    (docs/observations.md, "Quality checks"): a row repeating its stored value keeps the
    stored verdict, one its sender marked SUSPECT stays so (`kept_verdict`); any other row is
    checked (models/db/quality_context.py) and is SUSPECT naming the first check it fails."""
    verdicts: list[tuple[str, str] | None] = [
        kept_verdict(i.row.value, i.row.quality, i.row.provisional, None if i.stored is None else i.stored[1:], i.row.quality_check)
        for i in items
    ]
    to_check = [n for n, v in enumerate(verdicts) if v is None]
    for n, failed in zip(to_check, await failed_checks([items[n].row for n in to_check])):
        verdicts[n] = checked_verdict(items[n].row.quality, failed)
    out = []
    for item, verdict in zip(items, verdicts):
        assert verdict is not None
        quality, check = verdict
        changed = (quality, check) != (item.row.quality, item.row.quality_check)
        out.append(Received(replace(item.row, quality=quality, quality_check=check), item.stored) if changed else item)
    return out


async def insert_received(items: list[Received], provenance: Provenance) -> list[uuid.UUID]:
    """Store rows as the next revision of their keys, and a settlement notice per target
    naming their days (inside the caller's transaction); returns the notices' ids."""
    now = utcnow()
    inserts = []
    for item in items:
        r = item.row
        inserts.append(
            Observation(
                monitoring_target_id=r.monitoring_target_id,
                variable=r.variable,
                observed_on=r.day,
                hour=r.hour,
                value=r.value,
                source=r.source,
                provisional=r.provisional,
                received_at=now,
                data_set=r.data_set,
                quality=r.quality,
                quality_check=r.quality_check,
                revision=item.revision,
                obs_key=r.key,
                simulated=r.simulated,
                submitted_by=provenance.submitted_by,
                reason=provenance.reason,
                approved_by=provenance.approved_by,
            )
        )
    for i in range(0, len(inserts), CHUNK):
        await insert_rows(inserts[i : i + CHUNK], without=("id",))
    return await _write_notices([i.row for i in items], now)


def outcome_of(items: list[Received]) -> StoreOutcome:
    """What storing `items` does: new, revised, unchanged (and the final values revised)."""
    new = revised = unchanged = 0
    revised_days: set[tuple[str, str, dt.date]] = set()
    for item in items:
        if item.unchanged:
            unchanged += 1
        elif item.stored is None:
            new += 1
        else:
            revised += 1
            if is_final(item.stored[2], item.stored[3]):  # a final value changed: settled covers may change
                revised_days.add((item.row.monitoring_target_id, item.row.data_set, item.row.day))
    return StoreOutcome(new, revised, unchanged, tuple(sorted(revised_days)))


# Values stored without saying who sent them: test fixtures and the `make dev` demo, which
# write to the database directly. The service's ways in (API, CLI, providers) always say.
DIRECT = Provenance(submitted_by="direct database write")


async def store_batch(rows: list[ObservationIn], provenance: Provenance = DIRECT) -> StoreOutcome:
    """Write a validated batch in one transaction, every row stored (no four-eyes hold: the
    service's ways in go through `models.db.observation_revisions.submit_batch`), with its
    settlement notices; replaying it changes nothing."""
    async with write_transaction():
        items = await received(rows)
        notices = await insert_received([i for i in items if not i.unchanged], provenance)
    outcome = outcome_of(items)
    return StoreOutcome(outcome.new, outcome.revised, outcome.unchanged, outcome.revised_days, tuple(notices))


@dataclass(frozen=True, slots=True)
class StoredValue:
    day: dt.date
    hour: int | None
    value: Decimal
    provisional: bool  # provisional, or of SUSPECT quality: not final
    revision: int
    simulated: bool
    source: str
    quality: str = ""  # as stored: GOOD | OK | ESTIMATED | SUSPECT (the ladder never uses a SUSPECT one)


async def latest_values(
    target_id: str, data_set: str, variable: str, start: dt.date, end: dt.date,
    overlay: Sequence[ObservationIn] = (),
) -> list[StoredValue]:
    """The latest revision of each day (and hour) of [start, end] at the target; with
    `overlay`, as they would be once those rows were stored (the four-eyes check asks what
    a revision would change before storing it)."""
    rows = await Observation.select(
        Observation.obs_key,
        Observation.observed_on,
        Observation.hour,
        Observation.value,
        Observation.provisional,
        Observation.quality,
        Observation.revision,
        Observation.simulated,
        Observation.source,
    ).where(
        (Observation.monitoring_target_id == target_id)
        & (Observation.data_set == data_set)
        & (Observation.variable == variable)
        & (Observation.observed_on >= start)
        & (Observation.observed_on <= end)
    )
    best: dict[str, dict] = {}
    for r in rows:
        have = best.get(r["obs_key"])
        if have is None or r["revision"] > have["revision"]:
            best[r["obs_key"]] = r
    for o in overlay:
        if (o.monitoring_target_id, o.data_set, o.variable) == (target_id, data_set, variable) and start <= o.day <= end:
            have = best.get(o.key)
            best[o.key] = {
                "observed_on": o.day, "hour": o.hour, "value": o.value, "provisional": o.provisional,
                "quality": o.quality, "revision": 1 if have is None else have["revision"] + 1,
                "simulated": o.simulated, "source": o.source,
            }
    return sorted(
        (
            StoredValue(
                day=r["observed_on"],
                hour=r["hour"],
                value=Decimal(r["value"]),
                provisional=bool(r["provisional"]) or r["quality"] == "SUSPECT",
                revision=r["revision"],
                simulated=bool(r["simulated"]),
                source=r["source"],
                quality=r["quality"],
            )
            for r in best.values()
        ),
        key=lambda v: (v.day, -1 if v.hour is None else v.hour),
    )



async def validate(rows: list[ObservationIn], max_rows: int | None = MAX_BATCH) -> list[RowProblem]:
    """Every problem of the batch: the checks of `check_batch`, then unknown targets."""
    problems = check_batch(rows, today=utcnow().date(), max_rows=max_rows)
    if problems and problems[0].row < 0:
        return problems  # empty or too large: nothing else to say
    known_rows = {p.row for p in problems if p.field == "monitoringTargetId"}
    problems += [p for p in await unknown_targets(rows) if p.row not in known_rows]
    return sorted(problems, key=lambda p: (p.row, p.field))


async def validate_file(records: list[dict[str, str]]) -> tuple[list[ObservationIn], list[RowProblem]]:
    """A CSV file's records: read, then checked as one batch of any size."""
    rows, problems = parse_csv_rows(records)
    if problems:
        return rows, problems
    return rows, await validate(rows, max_rows=None)


Period = tuple[str, dt.date, dt.date]  # (monitoring target, first day, last day) of a settlement


async def _settlements_over(target: str, days: set[dt.date], now: dt.datetime) -> tuple[list[Period], set[Period]]:
    """The settlements begun (state written) at the target whose period holds one of the
    days: those that have read their data before and must read it again; and those of them
    whose revision window closed by `now` (every coverage SETTLED and past
    `revisions_until`: the database says so, whether or not Temporal still has the closed
    run). Read after the rows' commit, never inside their transaction, so a settlement whose
    state was committed meanwhile is found too. One settling for the first time is found by
    the rows it writes before it reads (models/db/settlement.py `mark_settling`)."""
    found = await Settlement.select(
        Settlement.period_start, Settlement.period_end, Settlement.state, Settlement.revisions_until
    ).where(
        (Settlement.monitoring_target_id == target)
        & (Settlement.period_start <= max(days))
        & (Settlement.period_end >= min(days))
    )
    rows: dict[Period, list[dict]] = {}
    for f in found:
        if any(f["period_start"] <= d <= f["period_end"] for d in days):
            rows.setdefault((target, f["period_start"], f["period_end"]), []).append(f)
    closed = {
        period for period, members in rows.items()
        if all(m["state"] == "SETTLED" and m["revisions_until"] is not None and now >= m["revisions_until"] for m in members)
    }
    return sorted(rows), closed


# --- settlement notices ------------------------------------------------------------------------

NOTICE_KEPT = dt.timedelta(days=30)  # told notices are kept this long for ops, then deleted


async def _write_notices(rows: Sequence[ObservationIn], now: dt.datetime) -> list[uuid.UUID]:
    """A notice per target naming the days of its rows (inside the rows' transaction)."""
    days_by_target: dict[str, set[dt.date]] = {}
    for r in rows:
        days_by_target.setdefault(r.monitoring_target_id, set()).add(r.day)
    notices = [
        SettlementNotice(
            id=uuid.uuid4(), monitoring_target_id=target, days=[d.isoformat() for d in sorted(days)],
            created_at=now, notified_at=None, settlements=0,
        )
        for target, days in sorted(days_by_target.items())
    ]
    await insert_rows(notices)
    return [n.id for n in notices]


@dataclass(frozen=True, slots=True)
class NoticesToTell:
    """Notices not told yet, each with the settlements it tells (those begun over its days)."""

    periods: dict[uuid.UUID, list[Period]]
    # Those of the settlements whose revision window the database says has closed: not told.
    closed: frozenset[Period] = frozenset()

    @property
    def settlements(self) -> list[Period]:
        """Every settlement to tell, once."""
        return sorted({p for ps in self.periods.values() for p in ps})


async def notices_to_tell(ids: Sequence[uuid.UUID] | None = None, limit: int = 500,
                          created_before: dt.datetime | None = None) -> NoticesToTell:
    """The notices `ids` not told yet (a writer's own, told right after its commit), or with
    no ids the oldest `limit` not told that were written before `created_before` (the sweep:
    it leaves a writer the moment to tell its own), with the settlements each tells."""
    query = SettlementNotice.select(
        SettlementNotice.id, SettlementNotice.monitoring_target_id, SettlementNotice.days
    ).where(SettlementNotice.notified_at.is_null())
    if ids is not None:
        if not ids:
            return NoticesToTell({})
        query = query.where(SettlementNotice.id.is_in(list(ids)))
    else:
        if created_before is not None:
            query = query.where(SettlementNotice.created_at < created_before)
        query = query.order_by(SettlementNotice.created_at).limit(limit)
    periods: dict[uuid.UUID, list[Period]] = {}
    closed: set[Period] = set()
    now = utcnow()
    for n in await query:
        days = {dt.date.fromisoformat(d) for d in json_value(n["days"]) or []}
        periods[n["id"]], past = await _settlements_over(n["monitoring_target_id"], days, now) if days else ([], set())
        closed |= past
    return NoticesToTell(periods, frozenset(closed))


@dataclass(frozen=True, slots=True)
class Told:
    settlements: int  # settlements signalled
    closed: tuple[Period, ...]  # settlements past their revision window: not signalled


async def tell_notices(notices: NoticesToTell, signal: Callable[[Period], Awaitable[bool]]) -> Told:
    """Tell the notices' settlements (each once), then mark the notices told: the one way
    every writer (the API's shortcut, the providers' run, an approval) and the sweep tell.
    A settlement whose revision window the database says has closed (`notices.closed`) is
    not signalled: data stored after its window never re-settles it, nor starts its
    workflow again (which Temporal's retention may have deleted: a start would succeed).
    `signal(period)` sends the data-changed signal (signal-with-start) and answers False if
    the settlement's workflow refuses the start (its last run completed). A notice of such
    settlements is closed all the same, its `settlements` counting only those told."""
    told_now, closed = 0, []
    for period in notices.settlements:
        if period in notices.closed:
            closed.append(period)
        elif await signal(period):
            told_now += 1
        else:
            closed.append(period)
    await told(notices, closed=set(closed))
    return Told(told_now, tuple(closed))


async def told(notices: NoticesToTell, closed: set[Period] = frozenset()) -> None:
    """Mark the notices told (their settlements were signalled, but for those `closed`), in
    one transaction; and delete those told more than NOTICE_KEPT ago."""
    if not notices.periods:
        return
    now = utcnow()
    by_count: dict[int, list[uuid.UUID]] = {}
    for notice_id, periods in notices.periods.items():
        by_count.setdefault(len([p for p in periods if p not in closed]), []).append(notice_id)
    async with write_transaction():
        for count, ids in by_count.items():
            for i in range(0, len(ids), CHUNK):
                await SettlementNotice.update(
                    {SettlementNotice.notified_at: now, SettlementNotice.settlements: count}
                ).where(SettlementNotice.id.is_in(ids[i : i + CHUNK]) & SettlementNotice.notified_at.is_null())
        await SettlementNotice.delete().where(SettlementNotice.notified_at < now - NOTICE_KEPT)


async def daily_values(
    target_id: str, index_code: str, start: dt.date, end: dt.date, overlay: Sequence[ObservationIn] = (),
    data_set: str | None = None,
) -> tuple[dict, bool]:
    """The period's values per day for an index, from the data set the cover settles on
    (`data_set`: the coverage's; None: its index's of before pricing-2026.4.0, `data_of`):
    an hourly index's day is its sum over the set hours (a day lacking one of them is
    missing); and whether any is simulated; with `overlay` applied (`latest_values`)."""
    data_set, variable = data_of(index_code, data_set)
    stored = await latest_values(target_id, data_set, variable, start, end, overlay)
    simulated = any(v.simulated for v in stored)
    spec = BY_CODE[index_code]
    if spec.hours is None:
        return {v.day: DailyValue(v.day, v.value, v.provisional, v.revision, v.source) for v in stored if v.hour is None}, simulated
    return {
        day: DailyValue(day, total, any(v.provisional for v in used), max(v.revision for v in used), used[0].source)
        for day, (total, used) in hourly_days(stored, index_code).items()
    }, simulated


def hourly_days(stored: Sequence[StoredValue], index_code: str) -> dict[dt.date, tuple[Decimal, list[StoredValue]]]:
    """An hourly index's days from stored hourly values: each day's sum over the index's
    hours and the values summed; a day lacking one of those hours is left out."""
    spec = BY_CODE[index_code]
    by_day: dict[dt.date, list[StoredValue]] = {}
    for v in stored:
        if v.hour is not None:
            by_day.setdefault(v.day, []).append(v)
    days = {}
    for day, hours in by_day.items():
        total = daily_from_hourly({v.hour: v.value for v in hours}, spec)
        if total is not None:
            days[day] = (total, [v for v in hours if spec.hours[0] <= v.hour < spec.hours[1]])
    return days
