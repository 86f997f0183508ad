"""Checking a settlement snapshot (docs/settlement.md, "Settlements anyone can re-run"): its
SHA-256 against the hash the service recorded, every day of its period present once, the
calibrated fallback values against the calibration they carry, and the index and payout per
unit recomputed from the snapshot alone (`models.domain.ladder.recompute`, the same rule
settlement ran) against the `result` it states. Pure; `parametric settlement verify` and the
tests use it. A stand-alone twin with the standard library only is
docs/examples/verify_settlement.py.

Shapes: `body` is a snapshot as `models.domain.ladder.snapshot_body` writes it (decimals as
text); money in major units of the cover's currency, exact.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from models.domain.data_sets import DATA_SETS, INDEX_DATA
from models.domain.ladder import SNAPSHOT_SCHEMA, recompute, snapshot_hash
from models.domain.payout import round_payout
from models.domain.settlement_basis import FALLBACK, Calibration


@dataclass(frozen=True, slots=True)
class SnapshotCheck:
    """What checking one snapshot found. `ok` when nothing is in `problems`."""

    sha256: str  # of the body's canonical bytes, computed here
    recorded: dict  # the `result` the snapshot states
    recomputed: dict | None  # None when the body cannot be recomputed (see `problems`)
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_snapshot(body: dict, sha256: str | None = None) -> SnapshotCheck:
    """Check `body` (and, when given, that its canonical bytes hash to `sha256`). Never
    raises for a malformed body: what is wrong is listed in `problems`."""
    problems: list[str] = []
    computed = snapshot_hash(body)
    if sha256 is not None and computed != sha256.lower():
        problems.append(f"sha256 {computed} of the canonical bytes is not the recorded {sha256}")
    if body.get("schema") != SNAPSHOT_SCHEMA:
        problems.append(f"schema {body.get('schema')!r} is not {SNAPSHOT_SCHEMA!r}")
    problems += _days_problems(body)
    problems += _calibration_problems(body)
    recorded = body.get("result") or {}
    recomputed = None
    try:
        recomputed = recompute(body)
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        problems.append(f"cannot recompute: {type(exc).__name__}: {exc}")
    if recomputed is not None:
        for key in sorted(set(recorded) | set(recomputed)):
            if recorded.get(key) != recomputed.get(key):
                problems.append(f"result.{key}: recorded {recorded.get(key)!r}, recomputed {recomputed.get(key)!r}")
    return SnapshotCheck(computed, recorded, recomputed, tuple(problems))


def cover_amount(body: dict, quantity: Decimal) -> Decimal:
    """What `quantity` units of the cover are paid on the snapshot before the line item's
    sum-insured cap: quantity × payout per unit, rounded half-even to the minor unit once
    (docs/settlement.md, "What a policy is paid")."""
    return round_payout(Decimal(body["result"]["payoutPerUnit"]) * quantity, body["terms"]["currency"])


def _days_problems(body: dict) -> list[str]:
    """Each day of the period exactly once, in order."""
    try:
        start, end = dt.date.fromisoformat(body["periodStart"]), dt.date.fromisoformat(body["periodEnd"])
        days = [v["day"] for v in body["values"]]
    except (KeyError, TypeError, ValueError) as exc:
        return [f"unreadable period or values: {exc}"]
    wanted = [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
    if days != wanted:
        missing = sorted(set(wanted) - set(days))
        extra = sorted({d for d in days if days.count(d) > 1} | (set(days) - set(wanted)))
        return [f"values are not the period's days once each, in order (missing {missing}, extra or repeated {extra})"]
    return []


def _calibration_problems(body: dict) -> list[str]:
    """Each FALLBACK value = the snapshot's calibration applied to the fallback's own value."""
    fallbacks = [v for v in body.get("values") or [] if isinstance(v, dict) and v.get("rung") == FALLBACK]
    if not fallbacks:
        return []
    raw = body.get("calibration")
    if not raw:
        return ["FALLBACK values without a calibration"]
    try:
        calibration = Calibration(
            raw["fallbackDataSet"], Decimal(raw["intercept"]), Decimal(raw["slope"]), Decimal(raw["sigma"]),
            raw["pairs"], raw["scope"], dt.date.fromisoformat(raw["firstDay"]), dt.date.fromisoformat(raw["lastDay"]),
        )
        primary, variable = INDEX_DATA[body["indexCode"]]
        DATA_SETS[primary].variables[variable]
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        return [f"unreadable calibration: {exc}"]
    out = []
    for v in fallbacks:
        if v.get("raw") is None:
            out.append(f"{v['day']}: FALLBACK value without the fallback's own value (raw)")
            continue
        mapped = calibration.apply(Decimal(v["raw"]), variable, primary)
        if mapped != Decimal(v["value"]):
            out.append(f"{v['day']}: calibrated {v['raw']} gives {mapped}, the snapshot says {v['value']}")
    return out

