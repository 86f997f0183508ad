#!/usr/bin/env python3
"""Re-run a parametric settlement from its snapshot alone, with the Python standard library
only (3.9 or later; no package of the service is imported).

A settlement snapshot holds exactly the daily values a settlement used (each with the rung
and data set it came from, its revision and its stated error), the cover's per-unit terms,
the share of the error an INITIAL payment is reduced by, the calibration of any fallback
values, and the result the service computed. This script

1. computes the SHA-256 of the snapshot's canonical bytes (JSON, keys sorted, no spaces,
   UTF-8, every decimal as plain text) and compares it with the hash the service recorded;
2. checks the period's days are each there once, and that every FALLBACK value is its
   calibration applied to the fallback's own value;
3. recomputes the index, its error, the index the stage pays on and the payout per unit
   of cover by the contract's rule, and compares them with the snapshot's `result`;
4. with `--units Q`, prints what Q units of the cover are paid (quantity × payout per unit,
   rounded half-even to the currency's minor unit; a line item pays at most its sum
   insured over all its covers).

Usage (docs/settlement.md, "Settlements anyone can re-run"):

    curl -s -H "Authorization: Bearer $TOKEN" \\
        "$BASE/internal/settlements/$COVERAGE_ID/snapshot" > snapshot.json
    python3 verify_settlement.py snapshot.json --units 2.5
    python3 verify_settlement.py - < snapshot.json          # from stdin

The input is the API's answer ({coverageId, revision, stage, sha256, snapshot, ...}) or the
bare snapshot (then give the recorded hash with `--sha256` to check it). Exit status: 0 when
everything matches, 1 on any mismatch, 2 when the input cannot be read.

The rule, as docs/settlement.md and docs/payout-structures.md state it:

- SUM index: the sum of the days' values; its error √Σ(error²) to 0.01; INITIAL pays on the
  sum moved by share × error towards paying less (ABOVE: down, BELOW: up).
- MAX index: the largest value; its error that day's; INITIAL (ABOVE) pays on the largest
  of (value − share × error) over the days, (BELOW) on max + share × error.
- DAILY_COUNT index: the days at or above the trigger; INITIAL counts a day only when
  value − share × error reaches the trigger.
- When every day is FINAL the error is 0 and INITIAL pays on the index itself.
- Linear payout per unit: 0 short of the trigger; the limit at or beyond the exit; else
  min(minimum payout + payout per unit × distance beyond the trigger, limit).
  Daily count: min(payout per unit × counted days, limit).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from decimal import ROUND_HALF_EVEN, Decimal

SCHEMA = "parametric.settlement-snapshot/1"
MINOR_UNITS = {"INR": 2, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "SGD": 2, "AED": 2, "JPY": 0, "KWD": 3}
HUNDREDTH = Decimal("0.01")
# The plausible range of each index's variable on its primary data set (docs/observations.md):
# a calibrated fallback value is kept within it.
RANGES = {
    "RAINFALL_MONTHLY_TOTAL": (Decimal(0), Decimal(2000)),
    "RAINFALL_DEFICIT": (Decimal(0), Decimal(2000)),
    "TEMPERATURE_MAX": (Decimal(-40), Decimal(60)),
    "WIND_MAX_SPEED": (Decimal(0), Decimal(400)),
    "RAINFALL_DAYTIME_HOURS": (Decimal(0), Decimal(500)),
}


def plain(x: Decimal) -> str:
    """A decimal as the snapshot writes it: no exponent, no trailing zeros."""
    text = format(x.normalize(), "f")
    return "0" if text in ("-0", "") else text


def canonical_bytes(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def payout_per_unit(terms: dict, aggregation: str, index: Decimal) -> Decimal:
    limit, per_unit = Decimal(terms["limit"]), Decimal(terms["payoutPerUnit"])
    if aggregation == "DAILY_COUNT":
        return min(per_unit * int(index), limit)
    trigger = Decimal(terms["trigger"])
    above = terms["direction"] == "ABOVE"
    distance = index - trigger if above else trigger - index
    if distance < 0:
        return Decimal(0)
    if terms["exit"] is not None:
        exit_ = Decimal(terms["exit"])
        if (index >= exit_) if above else (index <= exit_):
            return limit
    return min(Decimal(terms["minPayout"]) + per_unit * distance, limit)


def recompute(body: dict) -> dict:
    """The snapshot's `result` from its values, terms and error share."""
    terms, aggregation, stage = body["terms"], body["aggregation"], body["stage"]
    k = Decimal(body["initialErrorShare"])
    trigger, above = Decimal(terms["trigger"]), terms["direction"] == "ABOVE"
    days = [(v["day"], Decimal(v["value"]), Decimal(v["error"])) for v in body["values"]]
    final = all(v["rung"] == "FINAL" for v in body["values"])
    counted, initial_counted = [], []
    if aggregation == "SUM":
        value = sum((x for _, x, _ in days), Decimal(0))
        error = sum((e * e for _, _, e in days), Decimal(0)).sqrt().quantize(HUNDREDTH)
        initial = value - k * error if above else value + k * error
    elif aggregation == "MAX":
        value = max(x for _, x, _ in days)
        error = max(e for _, x, e in days if x == value)
        initial = max(x - k * e for _, x, e in days) if above else value + k * error
    elif aggregation == "DAILY_COUNT":
        counted = [d for d, x, _ in days if x >= trigger]
        initial_counted = [d for d, x, e in days if x - k * e >= trigger]
        value, error, initial = Decimal(len(counted)), Decimal(len(counted) - len(initial_counted)), Decimal(len(initial_counted))
    else:
        raise ValueError(f"unknown aggregation {aggregation!r}")
    if final:
        initial, error, initial_counted = value, Decimal(0), counted
    paid = initial if stage == "INITIAL" else value
    result = {"indexValue": plain(value), "indexError": plain(error), "paidIndex": plain(paid),
              "payoutPerUnit": plain(payout_per_unit(terms, aggregation, paid))}
    if aggregation == "DAILY_COUNT":
        result["countedDays"] = initial_counted if stage == "INITIAL" else counted
    return result


def day_problems(body: dict) -> list[str]:
    start, end = dt.date.fromisoformat(body["periodStart"]), dt.date.fromisoformat(body["periodEnd"])
    wanted = [(start + dt.timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
    have = [v["day"] for v in body["values"]]
    return [] if have == wanted else [f"the values are not the period's {len(wanted)} days once each, in order"]


def calibration_problems(body: dict) -> list[str]:
    """FALLBACK value = intercept + slope × raw, to 0.01 half-even, within the variable's
    plausible range (rain and wind are never negative)."""
    low, high = RANGES[body["indexCode"]]
    out = []
    for v in body["values"]:
        if v["rung"] != "FALLBACK":
            continue
        c = body.get("calibration")
        if not c or v.get("raw") is None:
            out.append(f"{v['day']}: a FALLBACK value without its calibration or raw value")
            continue
        mapped = (Decimal(c["intercept"]) + Decimal(c["slope"]) * Decimal(v["raw"])).quantize(HUNDREDTH, ROUND_HALF_EVEN)
        mapped = min(max(mapped, low), high)
        if Decimal(v["value"]) != mapped:
            out.append(f"{v['day']}: calibrated {v['raw']} gives {mapped}, the snapshot says {v['value']}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Re-run a settlement from its snapshot (standard library only).")
    parser.add_argument("file", help="the snapshot JSON (the API's answer or the bare snapshot); - for stdin")
    parser.add_argument("--sha256", help="the recorded hash, when the file is the bare snapshot")
    parser.add_argument("--units", type=Decimal, help="print what this many units of the cover are paid")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            doc = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as f:
                doc = json.load(f)
        body = doc.get("snapshot", doc)
        recorded_hash = args.sha256 or (doc.get("sha256") if "snapshot" in doc else None)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"cannot read the snapshot: {exc}", file=sys.stderr)
        return 2
    problems = []
    digest = hashlib.sha256(canonical_bytes(body)).hexdigest()
    if recorded_hash is None:
        hash_line = f"sha256    {digest} (no recorded hash given to compare)"
    elif digest == recorded_hash.lower():
        hash_line = f"sha256    {digest} OK"
    else:
        hash_line = f"sha256    {digest} MISMATCH: recorded {recorded_hash}"
        problems.append("sha256")
    try:
        if body.get("schema") != SCHEMA:
            problems.append(f"schema {body.get('schema')!r}")
        problems += day_problems(body) + calibration_problems(body)
        result = recompute(body)
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        print(f"cannot recompute the snapshot: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    currency = body["terms"]["currency"]
    print(f"snapshot  coverage {body['coverageId']}, revision {body['revision']}, {body['stage']}, "
          f"{body['indexCode']} {body['periodStart']}..{body['periodEnd']}, {len(body['values'])} days")
    print(hash_line)
    print(f"index     {result['indexValue']} (error {result['indexError']}), paid on {result['paidIndex']}")
    print(f"payout    {result['payoutPerUnit']} {currency} per unit of cover")
    if args.units is not None:
        quantum = Decimal(1).scaleb(-MINOR_UNITS.get(currency, 2))
        amount = (Decimal(result["payoutPerUnit"]) * args.units).quantize(quantum, ROUND_HALF_EVEN)
        print(f"cover     {amount} {currency} for {args.units} units (before the line item's sum-insured cap)")
    for key in sorted(set(result) | set(body.get("result") or {})):
        if result.get(key) != (body.get("result") or {}).get(key):
            problems.append(f"result.{key}: recorded {(body.get('result') or {}).get(key)!r}, recomputed {result.get(key)!r}")
    print("OK" if not problems else "MISMATCH: " + "; ".join(problems))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
