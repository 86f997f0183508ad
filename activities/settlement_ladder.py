"""Where a cover on a source ladder stands at a settlement run (issue 34; docs/settlement.md,
"Two payments"): what it pays now (INITIAL, the FINAL true-up, a later revision), or the
state it waits in and why. Used by `activities.settlement.settle_period`, which writes what
this decides; here only reads.

The cover's settlement revision N is its snapshot's: 1 for its first settlement, one more
for each settlement on a different set of values. Steps, by the stage it was last paid at:

- none yet: FINAL at once if every day is final; INITIAL as soon as every day has a primary
  value (provisional allowed, none SUSPECT), on the index moved by its error
  (`LadderIndex.initial_value`); at the calculation deadline the calibrated fallback fills
  the days still missing or SUSPECT; FLAGGED past the deadline if it cannot. When both the
  primary (complete) and the calibrated fallback (complete) exist and `disagree`, DISPUTED
  until two data staff decide PRIMARY or FALLBACK.
- INITIAL: FINAL (the true-up: an ADJUSTMENT of contract payout minus what INITIAL paid; a
  negative one waived) once every day is final; DISPUTED instead when the final index and
  the INITIAL one disagree, until decided FINAL or PROVISIONAL; at the true-up deadline the
  calculation agent's final determination on the best rungs then available.
- FINAL: a revision of the final values (a different set of final values): FINAL N+1, its
  adjustments either way, as final-only covers' revisions. A FINAL made on other rungs (the
  calculation agent's determination, a dispute decided PROVISIONAL) stands.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from models.db import ladder_reads
from models.db import settlement_disputes, settlement_snapshots
from models.db.settlement import PeriodCoverage
from models.domain.index_catalog import BY_CODE
from models.domain.ladder import (
    LadderIndex,
    Reading,
    RungValue,
    Rungs,
    choose_rungs,
    disagree,
    ladder_index,
    path_of,
    plain,
    snapshot_body,
)
from models.domain.lifecycle import day_start
from models.domain.settlement import IndexOutcome, days_of
from models.domain.settlement_basis import FALLBACK, FINAL, FINAL_STAGE, INITIAL_ERROR_SHARE, INITIAL_STAGE, Calibration

WEEK = dt.timedelta(days=7)


@dataclass(frozen=True, slots=True)
class LadderOutcome:
    """A ladder cover paid this run, with the fields of `IndexOutcome` settlement pays on
    (`value`: the index paid on; `revision`: the snapshot revision N) and what it records."""

    value: Decimal
    revision: int
    path: tuple[RungValue, ...]
    counted_days: tuple[dt.date, ...]
    stage: str  # INITIAL | FINAL
    index: LadderIndex
    body: dict  # the snapshot (`models.domain.ladder.snapshot_body`)
    true_up: bool  # FINAL after INITIAL: a negative adjustment is waived
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Assessed:
    """A ladder cover at this run: `outcome` when it pays now, else the state it is in."""

    state: str  # INITIAL | SETTLED (paid now or before) | WAITING | FLAGGED | DISPUTED
    detail: str = ""
    outcome: LadderOutcome | None = None
    revision: int = 0
    index_value: Decimal | None = None
    simulated: bool = False
    next_check: dt.datetime | None = None
    dispute: dict | None = None  # DISPUTED: `settlement_disputes.open_dispute` keyword arguments
    changed: bool = True  # False: as the last run left it (nothing to write)


async def assess(c: PeriodCoverage, start: dt.date, end: dt.date, target_id: str, at: dt.datetime) -> Assessed:
    """Where cover `c` (with a basis) stands at `at`, from the stored values and its latest
    snapshot (reads only)."""
    basis = c.basis
    assert basis is not None and c.terms is not None
    today = at.date()
    past_deadline = today >= basis.calculation_deadline(end)
    primary, simulated = await ladder_reads.readings(target_id, c.index_code, basis.data_set, basis.variable, start, end)
    latest = await settlement_snapshots.snapshot_of(c.coverage_id)
    body = None if latest is None else latest["snapshot"]
    stage = None if body is None else body["stage"]
    n = 0 if body is None else int(latest["revision"])
    fallback: dict[dt.date, Reading] = {}
    if basis.fallback_data_set is not None and stage != FINAL_STAGE:
        fallback, fallback_simulated = await ladder_reads.readings(
            target_id, c.index_code, basis.fallback_data_set, basis.variable, start, end
        )
        simulated = simulated or fallback_simulated
    days = days_of(start, end)
    error = basis.provisional_error  # measured from the target's stored pairs where an INITIAL may be paid
    if stage is None and any(r.provisional for r in primary.values()):
        error = await ladder_reads.provisional_error(target_id, basis.data_set, basis.variable, end, error)
    calibration: Calibration | None = None

    async def calibrate() -> None:
        """Fit the fallback's calibration, only where the fallback may be used (it reads
        years of values)."""
        nonlocal calibration
        if fallback and calibration is None:
            calibration = await ladder_reads.calibration(
                target_id, basis.data_set, basis.fallback_data_set, basis.variable, end
            )

    aggregation = BY_CODE[c.index_code].aggregation
    direction = c.terms["direction"]

    def index(p: dict, f: dict, use_fallback: bool) -> LadderIndex:
        rungs = choose_rungs(days, p, f, provisional_error=error, calibration=calibration,
                             use_fallback=use_fallback, variable=basis.variable, data_set=basis.data_set)
        return ladder_index(c.index_code, start, end, rungs, trigger=c.trigger, direction=direction,
                            error_share=basis.initial_error_share)

    def apart(a: Decimal, b: Decimal) -> bool:
        return disagree(a, b, trigger=c.trigger, direction=direction, aggregation=aggregation, tolerance=basis.tolerance)

    def pay(li: LadderIndex, paid_stage: str, true_up: bool = False) -> Assessed:
        used = calibration if any(v.rung == FALLBACK for v in li.path) else None
        return _paid(c, start, end, n + 1, paid_stage, li, used, true_up, simulated)

    def dispute(primary_index: Decimal, other_index: Decimal, other: str, detail: str) -> Assessed:
        return Assessed(
            "DISPUTED", detail, revision=n, index_value=primary_index, simulated=simulated,
            next_check=next_check(basis, end, at, paid=stage is not None),
            dispute=dict(primary_index=primary_index, other_index=other_index, other_source=other, detail=detail),
        )

    primary_only = index(primary, {}, False)
    if stage is None:
        if primary_only.final:
            return pay(primary_only, FINAL_STAGE)
        if primary_only.complete:
            if all(d in fallback and fallback[d].quality != "SUSPECT" for d in days):
                await calibrate()  # both sources complete: do they agree?
            on_fallback = index({}, fallback, True)
            if calibration is not None and on_fallback.complete and apart(primary_only.value, on_fallback.value):
                decided = await settlement_disputes.decided_source(c.coverage_id)
                if decided == "FALLBACK":
                    return pay(on_fallback, INITIAL_STAGE)
                if decided != "PRIMARY":
                    return dispute(primary_only.value, on_fallback.value, FALLBACK,
                                   f"the primary's index {plain(primary_only.value)} and the calibrated fallback's "
                                   f"{plain(on_fallback.value)} lie on different sides of the trigger "
                                   f"{plain(c.trigger)} beyond the tolerance {plain(basis.tolerance)}")
            return pay(primary_only, INITIAL_STAGE)
        if past_deadline:
            await calibrate()
        best = index(primary, fallback, past_deadline)
        if best.complete:
            return pay(best, INITIAL_STAGE)
        state = "FLAGGED" if past_deadline else "WAITING"
        detail = _describe(best, calibration is not None, basis.fallback_data_set, past_deadline)
        return Assessed(state, detail, simulated=simulated, next_check=next_check(basis, end, at, paid=False))
    if stage == INITIAL_STAGE:
        earlier = Decimal(body["result"]["indexValue"])
        if primary_only.final:
            if apart(primary_only.value, earlier):
                decided = await settlement_disputes.decided_source(c.coverage_id)
                if decided == "PROVISIONAL":
                    return pay(_index_of(body, c, basis.initial_error_share), FINAL_STAGE, true_up=True)
                if decided != "FINAL":
                    return dispute(primary_only.value, earlier, "PROVISIONAL",
                                   f"the final index {plain(primary_only.value)} and the INITIAL one "
                                   f"{plain(earlier)} lie on different sides of the trigger {plain(c.trigger)} "
                                   f"beyond the tolerance {plain(basis.tolerance)}")
            return pay(primary_only, FINAL_STAGE, true_up=True)
        if today >= basis.true_up_deadline(end):
            await calibrate()
            best = index(primary, fallback, True)
            if best.complete:  # the calculation agent's final determination on the best rungs then available
                return pay(best, FINAL_STAGE, true_up=True)
        return Assessed(INITIAL_STAGE, _latest_detail(body), revision=n, index_value=earlier, simulated=simulated,
                        next_check=next_check(basis, end, at, paid=True), changed=False)
    # FINAL: a revision of the final values settles again (adjustments either way); a FINAL
    # made on other rungs (the calculation agent's determination, a dispute decided
    # PROVISIONAL) stands.
    previous = Decimal(body["result"]["indexValue"])
    on_final = all(v["rung"] == FINAL for v in body["values"])
    if on_final and primary_only.final and primary_only.revision_key != _revision_key(body):
        return pay(primary_only, FINAL_STAGE)
    return Assessed("SETTLED", revision=n, index_value=previous, simulated=simulated, changed=False)


def _latest_detail(body: dict) -> str:
    return f"paid INITIAL at r{body['revision']} on the index {body['result']['paidIndex']}; awaiting final values"


def _paid(c: PeriodCoverage, start: dt.date, end: dt.date, n: int, stage: str, li: LadderIndex,
          calibration: Calibration | None, true_up: bool, simulated: bool) -> Assessed:
    assert c.basis is not None and li.value is not None and li.initial_value is not None
    body = snapshot_body(
        coverage_id=str(c.coverage_id), revision=n, stage=stage, index_code=c.index_code, start=start, end=end,
        terms=c.terms, error_share=c.basis.initial_error_share, calibration=calibration, index=li,
    )
    initial = stage == INITIAL_STAGE
    outcome = LadderOutcome(
        value=li.initial_value if initial else li.value, revision=n, path=li.path,
        counted_days=li.initial_counted_days if initial else li.counted_days, stage=stage, index=li, body=body,
        true_up=true_up,
    )
    return Assessed(INITIAL_STAGE if initial else "SETTLED", outcome=outcome, revision=n, index_value=outcome.value,
                    simulated=simulated)


def final_only_snapshot(c: PeriodCoverage, start: dt.date, end: dt.date, outcome: IndexOutcome) -> dict:
    """The snapshot of a final-only cover's settlement (every day on the FINAL rung of the
    data set it settles on, error 0): the same canonical form, so anyone re-runs it alike."""
    assert c.terms is not None
    path = {v.day: RungValue(v.day, v.value, FINAL, c.data_set, v.source, v.revision, Decimal(0)) for v in outcome.path}
    li = ladder_index(c.index_code, start, end, Rungs(path, (), ()), trigger=c.trigger, direction=c.terms["direction"],
                      error_share=INITIAL_ERROR_SHARE)
    return snapshot_body(coverage_id=str(c.coverage_id), revision=outcome.revision, stage=FINAL_STAGE,
                         index_code=c.index_code, start=start, end=end, terms=c.terms, error_share=INITIAL_ERROR_SHARE,
                         calibration=None, index=li)


def _index_of(body: dict, c: PeriodCoverage, error_share: Decimal) -> LadderIndex:
    """The index on a snapshot's own values (a dispute decided PROVISIONAL settles FINAL on
    the values the INITIAL payment used)."""
    path = path_of(body)
    return ladder_index(c.index_code, dt.date.fromisoformat(body["periodStart"]),
                        dt.date.fromisoformat(body["periodEnd"]), Rungs({v.day: v for v in path}, (), ()),
                        trigger=c.trigger, direction=c.terms["direction"], error_share=error_share)


def _revision_key(body: dict) -> str:
    """`LadderIndex.revision_key` of the values a snapshot used."""
    return "|".join(f"{v['day']}:{v['rung']}:{v['dataSet']}:{v['revision']}:{v['value']}" for v in body["values"])


def next_check(basis, end: dt.date, at: dt.datetime, paid: bool) -> dt.datetime:
    """Daily until the calculation deadline while nothing is paid, then weekly, never past
    the true-up deadline (when the calculation agent determines it)."""
    if not paid and at.date() < basis.calculation_deadline(end):
        return day_start(at.date() + dt.timedelta(days=1))
    true_up = day_start(basis.true_up_deadline(end))
    return min(at + WEEK, true_up) if at < true_up else at + WEEK


def _describe(li: LadderIndex, calibrated: bool, fallback_data_set: str | None, past_deadline: bool) -> str:
    """Why a ladder cover waits: the days without a usable value, and (past the deadline) why
    the fallback did not fill them."""
    def days(ds):
        shown = ", ".join(d.isoformat() for d in ds[:5])
        return shown + (f" and {len(ds) - 5} more" if len(ds) > 5 else "")

    parts = [f"no usable value for {len(li.missing)} day(s): {days(li.missing)}"]
    if li.suspect:
        parts.append(f"SUSPECT values on {len(li.suspect)} day(s): {days(li.suspect)}")
    if past_deadline:
        if fallback_data_set is None:
            parts.append("the data set has no fallback: the calculation agent estimates the days")
        elif not calibrated:
            parts.append(f"the fallback {fallback_data_set} has too few stored days beside the primary to calibrate")
        else:
            parts.append(f"the fallback {fallback_data_set} lacks them too")
    return "; ".join(parts)
