"""Measured index inputs: the data sets (models/domain/data_sets.py), and the validation of
a batch as a whole (docs/observations.md). Pure: the database checks that the
targets exist and decides what is new, revised or unchanged (models/db/observations.py).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from models.domain.data_sets import (  # noqa: F401 - the data sets, re-exported for the stores and providers
    DATA_SETS,
    IBTRACS_WIND,
    IMD_TMAX,
    INDEX_DATA,
    LEGACY_DATA_SETS,
    REANALYSIS,
    DataSet,
    data_of,
    settles_on,
)
from models.domain.dates import FIRST_DAY
from models.domain.index_catalog import BY_CODE
from models.domain.quotes import CoverSnapshot
from models.domain.settlement import IndexOutcome, cover_payout_per_unit, plain

QUALITIES = ("GOOD", "ESTIMATED", "SUSPECT")  # SUSPECT values are never settled on
MAX_BATCH = 20_000
MAX_SOURCE = 50  # observation.source is Varchar(50): PostgreSQL refuses longer (SQLite would keep it)
# Who submitted the values stored before provenance was recorded (the migration says so).
UNKNOWN_SUBMITTER = "unknown (before provenance)"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who or what submitted stored values and why (docs/observations.md, "Provenance").

    `submitted_by`: "staff:<name>" (a data staff member over the API), "provider:<name>"
    (the daily run), "cli:<os user>" (`parametric observations import`). `approved_by`: the
    second data principal who approved a held revision ("" when none was needed)."""

    submitted_by: str
    reason: str = ""
    approved_by: str = ""


def is_final(quality: str, provisional: bool) -> bool:
    """Whether settlement may pay on the value: neither provisional nor SUSPECT."""
    return not provisional and quality != "SUSPECT"


@dataclass(frozen=True, slots=True)
class ObservationIn:
    """One measured value as received (API body row or CSV line)."""

    monitoring_target_id: str
    data_set: str
    variable: str
    day: dt.date
    hour: int | None
    value: Decimal
    source: str
    quality: str = "GOOD"
    provisional: bool = False
    simulated: bool = False
    # The quality check a SUSPECT value failed, or "accepted:<check>" once a data staff member
    # accepted it (models/domain/quality_checks.py); set by the store, never by the sender.
    quality_check: str = ""

    @property
    def key(self) -> str:
        return observation_key(self.monitoring_target_id, self.data_set, self.variable, self.day, self.hour)


def observation_key(target: str, data_set: str, variable: str, day: dt.date, hour: int | None) -> str:
    """A stored value's key (`observation.obs_key`): target|data set|variable|day|hour."""
    return f"{target}|{data_set}|{variable}|{day.isoformat()}|{'' if hour is None else f'{hour:02d}'}"


@dataclass(frozen=True, slots=True)
class RowProblem:
    row: int  # position in the batch, from 0
    field: str
    message: str


def check_batch(rows: list[ObservationIn], today: dt.date, max_rows: int | None = MAX_BATCH) -> list[RowProblem]:
    """Every problem of the batch (empty: valid). A batch is taken or refused as a whole."""
    problems: list[RowProblem] = []
    if not rows:
        return [RowProblem(-1, "observations", "the batch is empty")]
    if max_rows is not None and len(rows) > max_rows:
        return [RowProblem(-1, "observations", f"at most {max_rows} rows per batch, got {len(rows)}")]
    first_row: dict[str, int] = {}
    for i, r in enumerate(rows):
        data_set = DATA_SETS.get(r.data_set)
        if data_set is None:
            problems.append(RowProblem(i, "dataSet", f"unknown data set {r.data_set!r} (known: {', '.join(DATA_SETS)})"))
            continue
        spec = data_set.variables.get(r.variable)
        if spec is None:
            problems.append(RowProblem(i, "variable", f"{r.data_set} has no variable {r.variable!r} (it has: {', '.join(data_set.variables)})"))
            continue
        unit, low, high = spec
        if not r.value.is_finite() or not low <= r.value <= high:
            problems.append(RowProblem(i, "value", f"{r.value} {unit} is outside the plausible range {low}..{high} {unit}"))
        if data_set.hourly and r.hour is None:
            problems.append(RowProblem(i, "hour", f"{r.data_set} is hourly: hour (0-23) is required"))
        elif not data_set.hourly and r.hour is not None:
            problems.append(RowProblem(i, "hour", f"{r.data_set} is daily: hour must be absent"))
        elif r.hour is not None and not 0 <= r.hour <= 23:
            problems.append(RowProblem(i, "hour", f"hour must be 0-23, got {r.hour}"))
        if r.day > today:
            problems.append(RowProblem(i, "day", f"{r.day} is in the future"))
        if r.day < FIRST_DAY:  # the service's calendar (models/domain/dates.py); the future is refused above
            problems.append(RowProblem(i, "day", f"{r.day} is before {FIRST_DAY}"))
        if r.quality not in QUALITIES:
            problems.append(RowProblem(i, "quality", f"quality must be one of {', '.join(QUALITIES)}"))
        if not r.source.strip():
            problems.append(RowProblem(i, "source", "source is required"))
        elif len(r.source) > MAX_SOURCE:
            problems.append(RowProblem(i, "source", f"at most {MAX_SOURCE} characters, got {len(r.source)}"))
        seen = first_row.setdefault(r.key, i)
        if seen != i:
            problems.append(RowProblem(i, "", f"duplicates row {seen} (same target, data set, variable, day and hour)"))
    return problems


def same_reading(value: Decimal, quality: str, provisional: bool, stored: tuple[Decimal, str, bool]) -> bool:
    """Whether a received value repeats the latest stored revision (then nothing changes)."""
    return value == stored[0] and quality == stored[1] and provisional == stored[2]


CSV_COLUMNS = ("monitoring_target_id", "data_set", "variable", "day", "hour", "value", "source", "quality", "provisional", "simulated")
CSV_REQUIRED = ("monitoring_target_id", "data_set", "variable", "day", "value", "source")
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no", ""}


def parse_csv_rows(records: list[dict[str, str]]) -> tuple[list[ObservationIn], list[RowProblem]]:
    """CSV records (csv.DictReader) as observations; a record that cannot be read is a
    problem at its position (row 0 is the first line after the header)."""
    rows: list[ObservationIn] = []
    problems: list[RowProblem] = []
    for i, rec in enumerate(records):
        try:
            missing = [c for c in CSV_REQUIRED if not (rec.get(c) or "").strip()]
            if missing:
                raise ValueError(f"{missing[0]}: required")
            flags = {}
            for name in ("provisional", "simulated"):
                text = (rec.get(name) or "").strip().lower()
                if text not in _TRUE | _FALSE:
                    raise ValueError(f"{name}: true or false, got {text!r}")
                flags[name] = text in _TRUE
            hour_text = (rec.get("hour") or "").strip()
            rows.append(
                ObservationIn(
                    monitoring_target_id=rec["monitoring_target_id"].strip(),
                    data_set=rec["data_set"].strip(),
                    variable=rec["variable"].strip(),
                    day=_parse(dt.date.fromisoformat, rec["day"].strip(), "day"),
                    hour=None if not hour_text else _parse(int, hour_text, "hour"),
                    value=_parse(Decimal, rec["value"].strip(), "value"),
                    source=rec["source"].strip(),
                    quality=(rec.get("quality") or "GOOD").strip() or "GOOD",
                    **flags,
                )
            )
        except ValueError as exc:
            field, _, message = str(exc).partition(": ")
            problems.append(RowProblem(i, field, message or str(exc)))
    return rows, problems


def _parse(kind, text: str, field: str):
    try:
        value = kind(text)
    except (ValueError, ArithmeticError):
        raise ValueError(f"{field}: cannot read {text!r}") from None
    if isinstance(value, Decimal) and not value.is_finite():
        raise ValueError(f"{field}: must be a finite number")
    return value


# --- four eyes: does a revision change a settled amount? ---------------------------------------


@dataclass(frozen=True, slots=True)
class SettledIndex:
    """What a cover's policies were last paid on: the index value and, for a daily-count
    index, the days that counted."""

    value: Decimal
    counted_days: frozenset[dt.date] = frozenset()


def settled_amount_change(
    index_code: str, covers: list[CoverSnapshot], settled: SettledIndex | None, revised: IndexOutcome
) -> str | None:
    """Why the revised index (`revised`: `period_index` over the stored values with the
    revision applied) would change what a settled cover pays, or None when it would not.

    The rule (docs/observations.md, "Four eyes") compares per unit of cover, for every set of
    terms the cover was sold with (`covers`: its snapshots on the policies' line items):
    - SUM and MAX: the payout per unit (`cover_payout_per_unit`, exact) at the settled index
      against the one at the revised index. A change inside a flat part of the payout
      curve (below the trigger, beyond the limit) changes nothing paid;
    - DAILY_COUNT: the set of counted days (a policy is paid for the counted days it was in
      force on, so any change of the set may change someone's count);
    - an index the revision leaves incomplete (a final value made provisional or SUSPECT)
      would take the cover out of its settled state: counted as a change;
    - no settled index on record: counted as a change.
    Conservative: a change per unit may still leave a line item's paid amount the same
    (its sum insured already paid out by a sibling cover); such a revision is held too."""
    if settled is None:
        return "no settled index on record for this cover"
    if not revised.complete:
        days = revised.provisional_days or revised.missing_days
        return f"the revision leaves the index without final values on {len(days)} day(s) (from {days[0]})"
    if BY_CODE[index_code].aggregation == "DAILY_COUNT":
        after = frozenset(revised.counted_days)
        if after == settled.counted_days:
            return None
        gained = sorted(after - settled.counted_days)
        lost = sorted(settled.counted_days - after)
        parts = [f"counted days {len(settled.counted_days)} → {len(after)}"]
        if gained:
            parts.append("now counted: " + ", ".join(d.isoformat() for d in gained))
        if lost:
            parts.append("no longer counted: " + ", ".join(d.isoformat() for d in lost))
        return "; ".join(parts)
    assert revised.value is not None
    for cover in covers:
        before = cover_payout_per_unit(cover, settled.value)
        after_value = cover_payout_per_unit(cover, revised.value)
        if before != after_value:
            return (
                f"index {plain(settled.value)} → {plain(revised.value)}: payout per unit of cover "
                f"{plain(before)} → {plain(after_value)} {cover.currency}"
            )
    return None
