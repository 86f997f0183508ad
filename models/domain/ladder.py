"""Settlement on a source ladder, pure (issue 34; docs/settlement.md, "Two payments"):
which rung each day of a cover's period comes from, the index over them with its error,
the index an INITIAL payment is computed on, whether two sources disagree, and the
canonical snapshot of exactly what a settlement used, which anyone can recompute
(`recompute`) and hash (`snapshot_hash`).

Units: values, indices and errors in the variable's unit as `Decimal`; daily counts in days.
Errors are one standard deviation against the final value; they add in quadrature over the
days of a sum (independent days: an assumption stated in docs/settlement.md).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal

from models.domain.index_catalog import BY_CODE
from models.domain.payout import count_payout_exact, linear_payout_exact
from models.domain.settlement_basis import FALLBACK, FINAL, PROVISIONAL, Calibration

SNAPSHOT_SCHEMA = "parametric.settlement-snapshot/1"


@dataclass(frozen=True, slots=True)
class Reading:
    """One stored day's value as the ladder sees it (an hourly index: the day's sum over its
    hours, provisional if any hour is, SUSPECT if any hour is)."""

    day: dt.date
    value: Decimal
    provisional: bool
    quality: str  # GOOD | ESTIMATED | SUSPECT
    revision: int
    source: str
    data_set: str


@dataclass(frozen=True, slots=True)
class RungValue:
    """The value a day settles on and where it came from."""

    day: dt.date
    value: Decimal  # as used: a fallback's value after calibration
    rung: str  # FINAL | PROVISIONAL | FALLBACK
    data_set: str
    source: str
    revision: int
    error: Decimal  # 1 σ against the final value; 0 on the FINAL rung
    raw: Decimal | None = None  # FALLBACK: the fallback's own value before calibration

    def as_dict(self) -> dict:
        out = {
            "day": self.day.isoformat(),
            "value": plain(self.value),
            "rung": self.rung,
            "dataSet": self.data_set,
            "source": self.source,
            "revision": self.revision,
            "error": plain(self.error),
        }
        if self.raw is not None:
            out["raw"] = plain(self.raw)
        return out


@dataclass(frozen=True, slots=True)
class Rungs:
    """Each day's chosen value, and the days that have none yet."""

    chosen: dict[dt.date, RungValue]
    missing: tuple[dt.date, ...]  # no usable value on any rung allowed now
    suspect: tuple[dt.date, ...]  # the primary's value is SUSPECT (never paid; a fallback may fill it at the deadline)


def choose_rungs(
    days: list[dt.date],
    primary: dict[dt.date, Reading],
    fallback: dict[dt.date, Reading],
    *,
    provisional_error: Decimal,
    calibration: Calibration | None,
    use_fallback: bool,
    variable: str,
    data_set: str,
) -> Rungs:
    """The highest rung for every day: the primary's final value, else its provisional one,
    else (only when `use_fallback`: at or after the calculation deadline, with a calibration)
    the calibrated fallback value. SUSPECT values are on no rung."""
    chosen: dict[dt.date, RungValue] = {}
    missing: list[dt.date] = []
    suspect: list[dt.date] = []
    for day in days:
        p = primary.get(day)
        if p is not None and p.quality != "SUSPECT":
            rung = PROVISIONAL if p.provisional else FINAL
            error = provisional_error if p.provisional else Decimal(0)
            chosen[day] = RungValue(day, p.value, rung, p.data_set, p.source, p.revision, error)
            continue
        if p is not None:
            suspect.append(day)
        f = fallback.get(day)
        if use_fallback and calibration is not None and f is not None and f.quality != "SUSPECT":
            value = calibration.apply(f.value, variable, data_set)
            chosen[day] = RungValue(day, value, FALLBACK, f.data_set, f.source, f.revision, calibration.sigma, f.value)
        elif p is None:
            missing.append(day)
    return Rungs(chosen, tuple(missing), tuple(d for d in suspect if d not in chosen))


@dataclass(frozen=True, slots=True)
class LadderIndex:
    """A cover's index over its period on the chosen rungs."""

    complete: bool  # every day has a value on some rung
    final: bool  # every day's value is FINAL
    value: Decimal | None  # SUM / MAX: the index; DAILY_COUNT: the days counted
    error: Decimal  # 1 σ of the index against its final value (0 when final)
    initial_value: Decimal | None  # what an INITIAL payment is computed on (= value when final)
    path: tuple[RungValue, ...]
    missing: tuple[dt.date, ...]
    suspect: tuple[dt.date, ...]
    counted_days: tuple[dt.date, ...] = ()
    initial_counted_days: tuple[dt.date, ...] = ()

    @property
    def revision_key(self) -> str:
        """What identifies the values used: a new settlement revision when it changes."""
        return "|".join(f"{v.day}:{v.rung}:{v.data_set}:{v.revision}:{plain(v.value)}" for v in self.path)


def ladder_index(
    index_code: str,
    start: dt.date,
    end: dt.date,
    rungs: Rungs,
    *,
    trigger: Decimal,
    direction: str,
    error_share: Decimal,
) -> LadderIndex:
    """The index on the chosen rungs and the index an INITIAL payment is computed on: the
    index moved by `error_share` × its error towards paying less (ABOVE: down; BELOW: up).
    SUM: errors add in quadrature. MAX: the largest of (value − share × error) over the days
    for ABOVE (each day's own error), value + share × the maximum day's error for BELOW.
    DAILY_COUNT: a day counts for INITIAL when value − share × error ≥ trigger."""
    spec = BY_CODE[index_code]
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    path = tuple(rungs.chosen[d] for d in days if d in rungs.chosen)
    missing = tuple(d for d in days if d not in rungs.chosen)
    complete = not missing
    final = complete and all(v.rung == FINAL for v in path)
    if not complete:
        return LadderIndex(False, False, None, Decimal(0), None, path, missing, rungs.suspect)
    k = error_share
    counted: tuple[dt.date, ...] = ()
    initial_counted: tuple[dt.date, ...] = ()
    if spec.aggregation == "SUM":
        value = sum((v.value for v in path), Decimal(0))
        error = _quadrature(v.error for v in path)
        initial = value - k * error if direction == "ABOVE" else value + k * error
    elif spec.aggregation == "MAX":
        value = max(v.value for v in path)
        error = max(v.error for v in path if v.value == value)
        if direction == "ABOVE":
            initial = max(v.value - k * v.error for v in path)
        else:
            initial = value + k * error
    else:
        counted = tuple(v.day for v in path if v.value >= trigger)
        initial_counted = tuple(v.day for v in path if v.value - k * v.error >= trigger)
        value = Decimal(len(counted))
        error = Decimal(len(counted) - len(initial_counted))
        initial = Decimal(len(initial_counted))
    if final:
        initial, error, initial_counted = value, Decimal(0), counted
    return LadderIndex(True, final, value, error, initial, path, (), rungs.suspect, counted, initial_counted)


def _quadrature(errors) -> Decimal:
    """√Σe², to 0.01 (the unit's hundredths: what a snapshot states)."""
    return sum((e * e for e in errors), Decimal(0)).sqrt().quantize(Decimal("0.01"))


def triggered(index: Decimal, trigger: Decimal, direction: str, aggregation: str) -> bool:
    """Whether the index is at or beyond the trigger (a daily count: at least one day)."""
    if aggregation == "DAILY_COUNT":
        return index >= 1
    return index >= trigger if direction == "ABOVE" else index <= trigger


def disagree(a: Decimal, b: Decimal, *, trigger: Decimal, direction: str, aggregation: str, tolerance: Decimal) -> bool:
    """Two readings of one index disagree when they lie on different sides of the trigger
    and further apart than the ladder's `tolerance` (docs/settlement.md, "Sources that
    disagree"). Readings within the tolerance are the same reading for this purpose."""
    if triggered(a, trigger, direction, aggregation) == triggered(b, trigger, direction, aggregation):
        return False
    return abs(a - b) > tolerance


# --- snapshots ----------------------------------------------------------------------------------


def per_unit_payout(terms: dict, aggregation: str, index: Decimal) -> Decimal:
    """The payout of one unit of cover at `index` by the snapshot's terms (exact, major
    units): `terms` as `snapshot_body` writes them."""
    if aggregation == "DAILY_COUNT":
        return count_payout_exact(int(index), payout_per_unit=Decimal(terms["payoutPerUnit"]), limit=Decimal(terms["limit"]))
    return linear_payout_exact(
        index,
        direction=terms["direction"],
        trigger=Decimal(terms["trigger"]),
        payout_per_unit=Decimal(terms["payoutPerUnit"]),
        limit=Decimal(terms["limit"]),
        min_payout=Decimal(terms["minPayout"]),
        exit=None if terms["exit"] is None else Decimal(terms["exit"]),
    )


def snapshot_body(
    *,
    coverage_id: str,
    revision: int,
    stage: str,
    index_code: str,
    start: dt.date,
    end: dt.date,
    terms: dict,
    error_share: Decimal,
    calibration: Calibration | None,
    index: LadderIndex,
) -> dict:
    """Everything a settlement used, as plain JSON-ready values (decimals as text):
    `terms` = {direction, trigger, exit, payoutPerUnit, limit, minPayout, currency} as text
    (`terms_of`). `result` is what `recompute` gives from the rest; stage INITIAL pays on
    `result.paidIndex` = the INITIAL index, FINAL on the index itself."""
    assert index.complete and index.value is not None and index.initial_value is not None
    aggregation = BY_CODE[index_code].aggregation
    result = _result(stage, aggregation, terms, index)
    return {
        "schema": SNAPSHOT_SCHEMA,
        "coverageId": coverage_id,
        "revision": revision,
        "stage": stage,
        "indexCode": index_code,
        "aggregation": aggregation,
        "periodStart": start.isoformat(),
        "periodEnd": end.isoformat(),
        "terms": terms,
        "initialErrorShare": plain(error_share),
        "calibration": None if calibration is None else calibration.as_dict(),
        "values": [v.as_dict() for v in index.path],
        "result": result,
    }


def terms_of(direction: str, trigger: Decimal, exit: Decimal | None, payout_per_unit: Decimal, limit: Decimal,
             min_payout: Decimal, currency: str) -> dict:
    """A cover's per-unit terms as a snapshot holds them (money in major units, exact)."""
    return {
        "direction": direction,
        "trigger": plain(trigger),
        "exit": None if exit is None else plain(exit),
        "payoutPerUnit": plain(payout_per_unit),
        "limit": plain(limit),
        "minPayout": plain(min_payout),
        "currency": currency,
    }


def recompute(body: dict) -> dict:
    """The `result` of a snapshot from its values, terms and error share alone (the same
    `ladder_index` and payout rule settlement ran): equal to `body["result"]` for every
    snapshot the service wrote (docs/settlement.md, "Settlements anyone can re-run"; a
    stand-alone re-implementation with the standard library only: docs/examples/)."""
    terms = body["terms"]
    index = ladder_index(
        body["indexCode"], dt.date.fromisoformat(body["periodStart"]), dt.date.fromisoformat(body["periodEnd"]),
        Rungs({v.day: v for v in path_of(body)}, (), ()),
        trigger=Decimal(terms["trigger"]), direction=terms["direction"], error_share=Decimal(body["initialErrorShare"]),
    )
    if not index.complete:
        raise ValueError("the snapshot lacks days of its period")
    return _result(body["stage"], body["aggregation"], terms, index)


def path_of(body: dict) -> list[RungValue]:
    """The values a snapshot body holds, as the `RungValue`s settlement chose."""
    return [
        RungValue(dt.date.fromisoformat(v["day"]), Decimal(v["value"]), v["rung"], v["dataSet"], v["source"],
                  v["revision"], Decimal(v["error"]), None if v.get("raw") is None else Decimal(v["raw"]))
        for v in body["values"]
    ]


def _result(stage: str, aggregation: str, terms: dict, index: LadderIndex) -> dict:
    assert index.value is not None and index.initial_value is not None
    paid_index = index.initial_value if stage == "INITIAL" else index.value
    result = {
        "indexValue": plain(index.value),
        "indexError": plain(index.error),
        "paidIndex": plain(paid_index),
        "payoutPerUnit": plain(per_unit_payout(terms, aggregation, paid_index)),
    }
    if aggregation == "DAILY_COUNT":
        days = index.initial_counted_days if stage == "INITIAL" else index.counted_days
        result["countedDays"] = [d.isoformat() for d in days]
    return result


def canonical_bytes(body: dict) -> bytes:
    """The snapshot's canonical bytes: JSON, keys sorted, no spaces, UTF-8 (not ASCII-escaped),
    every decimal as plain text (no exponent, no trailing zeros), so anyone re-encoding the
    same values gets the same bytes (RFC 8785 in spirit; no floats appear)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def snapshot_hash(body: dict) -> str:
    """SHA-256 (hex) of the canonical bytes."""
    return hashlib.sha256(canonical_bytes(body)).hexdigest()


def plain(x: Decimal) -> str:
    """A decimal as people write it: no exponent, no trailing zeros."""
    text = format(x.normalize(), "f")
    return "0" if text in ("-0", "") else text
