"""Settlements anyone can re-run (issue 34; docs/settlement.md, "Settlements anyone can
re-run"): a snapshot as settlement writes it (models/domain/ladder.py) is checked whole by
`models.domain.snapshot_check` and by the stand-alone docs/examples/verify_settlement.py,
which runs here with the standard library only (`python -I -S`: no site-packages) and agrees
with the service's rule on every index form, stage and rung (hypothesis); a changed value,
hash, result or calibration is a MISMATCH with exit status 1."""

from __future__ import annotations

import copy
import datetime as dt
import importlib.util
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.domain.ladder import recompute, snapshot_hash
from models.domain.snapshot_check import check_snapshot, cover_amount
from tests.snapshot_samples import body

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "examples" / "verify_settlement.py"
_spec = importlib.util.spec_from_file_location("verify_settlement", SCRIPT)
standalone = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(standalone)


def run_script(path: Path, *args: str) -> subprocess.CompletedProcess:
    """The example as a reader runs it: no package of the service, no site-packages."""
    return subprocess.run([sys.executable, "-I", "-S", str(SCRIPT), str(path), *args],
                          capture_output=True, text=True, timeout=60, cwd="/")


SAMPLES = {
    "sum, provisional and fallback days, INITIAL": lambda: body(
        values=[Decimal(11)] * 31, provisional=set(range(10, 31)), fallback={3: Decimal(20), 4: Decimal("0.4")},
        trigger=Decimal(300)),
    "sum, every day final, FINAL": lambda: body(stage="FINAL", values=[Decimal("10.3")] * 31),
    "deficit (BELOW), provisional, INITIAL": lambda: body(
        "RAINFALL_DEFICIT", direction="BELOW", trigger=Decimal(200), values=[Decimal(3)] * 31, provisional=set(range(31))),
    "max with an exit, INITIAL": lambda: body(
        "TEMPERATURE_MAX", trigger=Decimal(40), exit=Decimal(44), values=[Decimal(38)] * 30 + [Decimal("42.5")],
        provisional={30}, provisional_error=Decimal("0.5"), payout_per_unit=Decimal(400)),
    "daily count, INITIAL": lambda: body(
        "RAINFALL_DAYTIME_HOURS", start=dt.date(2026, 7, 1), end=dt.date(2026, 7, 7), trigger=Decimal(10),
        values=[Decimal(v) for v in ("9", "10.2", "12", "30", "0", "10", "11")], provisional={1, 5},
        provisional_error=Decimal("0.5"), payout_per_unit=Decimal(500), limit=Decimal(1500), min_payout=Decimal(0)),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_written_snapshot_checks_out_in_the_service_and_stand_alone(name, tmp_path):
    snapshot = SAMPLES[name]()
    sha = snapshot_hash(snapshot)
    check = check_snapshot(snapshot, sha)
    assert check.ok, check.problems
    assert check.recomputed == snapshot["result"] and check.sha256 == sha
    assert standalone.recompute(snapshot) == snapshot["result"]
    # The API's answer, saved to a file, re-run with the standard library alone.
    answer = tmp_path / "snapshot.json"
    answer.write_text(json.dumps({"coverageId": snapshot["coverageId"], "revision": 1, "stage": snapshot["stage"],
                                  "sha256": sha, "snapshot": snapshot}, indent=2))
    ran = run_script(answer, "--units", "2.5")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"sha256    {sha} OK" in ran.stdout and ran.stdout.rstrip().endswith("OK")
    assert f"payout    {snapshot['result']['payoutPerUnit']} INR per unit" in ran.stdout
    assert f"cover     {cover_amount(snapshot, Decimal('2.5'))} INR for 2.5 units" in ran.stdout


def test_the_initial_payment_is_the_payout_at_the_index_less_its_error():
    """29 days of 11 mm from the primary, 21 of them provisional (± 2 mm each), and two filled
    by the calibrated fallback (± 3.2 mm): 1.5 + 0.9 × 20 = 19.5 and 1.5 + 0.9 × 0.4 = 1.86.
    Index 319 + 21.36 = 340.36 mm, error √(21 × 2² + 2 × 3.2²) = √104.48 = 10.22 mm; INITIAL
    pays at 340.36 − 10.22 = 330.14 mm: 100 + 12.5 × 30.14 = 476.75 per unit, and 2.5 units
    1,191.875 → 1,191.88 (half-even, once)."""
    snapshot = SAMPLES["sum, provisional and fallback days, INITIAL"]()
    values = {v["day"]: v for v in snapshot["values"]}
    assert values["2026-07-04"] == {"day": "2026-07-04", "value": "19.5", "rung": "FALLBACK", "dataSet": "REAN-SFC-HOURLY",
                                    "source": "open-meteo", "revision": 1, "error": "3.2", "raw": "20"}
    assert values["2026-07-05"]["value"] == "1.86" and values["2026-07-11"]["rung"] == "PROVISIONAL"
    assert snapshot["result"] == {"indexValue": "340.36", "indexError": "10.22", "paidIndex": "330.14",
                                  "payoutPerUnit": "476.75"}
    assert cover_amount(snapshot, Decimal("2.5")) == Decimal("1191.88")


def test_a_changed_snapshot_is_a_mismatch(tmp_path):
    snapshot = SAMPLES["sum, provisional and fallback days, INITIAL"]()
    sha = snapshot_hash(snapshot)
    path = tmp_path / "bare.json"

    # One day's value changed, the recorded hash kept: the hash and the result both differ.
    moved = copy.deepcopy(snapshot)
    moved["values"][0]["value"] = "111"
    check = check_snapshot(moved, sha)
    assert not check.ok and any(p.startswith("sha256") for p in check.problems)
    assert any(p.startswith("result.indexValue") for p in check.problems)
    path.write_text(json.dumps(moved))
    ran = run_script(path, "--sha256", sha)
    assert ran.returncode == 1 and "MISMATCH" in ran.stdout and "result.indexValue" in ran.stdout, ran.stdout

    # The result edited to pay more, hashed again: the hash holds, the recomputation does not.
    richer = copy.deepcopy(snapshot)
    richer["result"]["payoutPerUnit"] = "2500"
    check = check_snapshot(richer, snapshot_hash(richer))
    assert check.problems == ("result.payoutPerUnit: recorded '2500', recomputed '476.75'",)
    path.write_text(json.dumps(richer))
    assert run_script(path, "--sha256", snapshot_hash(richer)).returncode == 1

    # A fallback value that is not its calibration applied to the fallback's own value.
    miscalibrated = copy.deepcopy(snapshot)
    day = next(v for v in miscalibrated["values"] if v["rung"] == "FALLBACK")
    day["value"] = "25"
    miscalibrated["result"] = recompute(miscalibrated)
    check = check_snapshot(miscalibrated)
    assert check.problems == ("2026-07-04: calibrated 20 gives 19.50, the snapshot says 25",)
    path.write_text(json.dumps(miscalibrated))
    ran = run_script(path)
    assert ran.returncode == 1 and "calibrated 20 gives 19.50" in ran.stdout

    # A day left out.
    short = copy.deepcopy(snapshot)
    del short["values"][5]
    assert any("once each" in p for p in check_snapshot(short).problems)
    path.write_text(json.dumps(short))
    assert run_script(path).returncode == 1

    # Not JSON at all: exit status 2.
    path.write_text("{not json")
    assert run_script(path).returncode == 2


def test_the_stand_alone_script_reads_stdin():
    snapshot = SAMPLES["daily count, INITIAL"]()
    ran = subprocess.run([sys.executable, "-I", "-S", str(SCRIPT), "-", "--sha256", snapshot_hash(snapshot)],
                         input=json.dumps(snapshot), capture_output=True, text=True, timeout=60, cwd="/")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # 10.2 and 10 (± 0.5) count only on final values; 12, 30 and 11 are certain.
    assert snapshot["result"]["countedDays"] == ["2026-07-03", "2026-07-04", "2026-07-07"]
    assert "payout    1500 INR per unit" in ran.stdout


def test_the_stand_alone_ranges_are_the_data_sets():
    """The script keeps a calibrated value within its variable's range as the service does."""
    from models.domain.data_sets import DATA_SETS, INDEX_DATA

    assert standalone.RANGES == {code: DATA_SETS[ds].variables[var][1:] for code, (ds, var) in INDEX_DATA.items()}


decimals = st.decimals(min_value=0, max_value=120, places=2, allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    index_code=st.sampled_from(["RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "RAINFALL_DAYTIME_HOURS"]),
    stage=st.sampled_from(["INITIAL", "FINAL"]),
    values=st.lists(decimals, min_size=10, max_size=10),
    provisional=st.sets(st.integers(0, 9)),
    fallback=st.dictionaries(st.integers(0, 9), decimals, max_size=3),
    trigger=st.decimals(min_value=1, max_value=600, places=1),
    exit_offset=st.none() | st.decimals(min_value=1, max_value=200, places=1),
    per_unit=st.decimals(min_value=0, max_value=500, places=2),
    error=st.decimals(min_value=0, max_value=5, places=1),
    share=st.sampled_from([Decimal(0), Decimal("0.5"), Decimal(1)]),
)
def test_the_stand_alone_rule_is_the_services(index_code, stage, values, provisional, fallback, trigger, exit_offset,
                                              per_unit, error, share):
    """Over random values, rungs, terms, errors and shares, the stand-alone script computes
    exactly the `result` the service writes (and `recompute` gives)."""
    direction = "BELOW" if index_code == "RAINFALL_DEFICIT" else "ABOVE"
    exit = None if exit_offset is None or index_code == "RAINFALL_DAYTIME_HOURS" else (
        trigger + exit_offset if direction == "ABOVE" else max(trigger - exit_offset, Decimal(0)))
    snapshot = body(index_code, stage=stage, values=values, provisional=provisional, fallback=fallback,
                    start=dt.date(2026, 6, 1), end=dt.date(2026, 6, 10), direction=direction, trigger=trigger, exit=exit,
                    payout_per_unit=per_unit, limit=Decimal(3000), min_payout=Decimal(0) if exit else Decimal(50),
                    provisional_error=error, error_share=share)
    assert standalone.recompute(snapshot) == recompute(snapshot) == snapshot["result"]
    assert check_snapshot(snapshot, snapshot_hash(snapshot)).ok
    assert standalone.calibration_problems(snapshot) == []
