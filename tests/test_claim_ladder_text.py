"""The claim explanation of a cover on a source ladder, pure (models/domain/claims.py; issue
34): an INITIAL event says the index on its values, its error and the index it paid on; a
waived true-up says how much was waived and why; each day names its rung and source, a
final-only cover's days from its snapshot."""

from __future__ import annotations

import datetime as dt
import types
import uuid
from decimal import Decimal

from models.domain.claims import claim_arithmetic, claim_text, index_path
from models.domain.index_catalog import BY_CODE
from models.domain.quotes import CoverSnapshot

CODE = "RAINFALL_MONTHLY_TOTAL"
COVER = CoverSnapshot(
    coverage_id=uuid.uuid4(), index_code=CODE, index_definition_id=BY_CODE[CODE].id, start=dt.date(2026, 8, 1),
    end=dt.date(2026, 8, 31), direction="ABOVE", trigger=Decimal("180.5"), exit=None, currency="INR",
    limit_minor=10_000_000, min_payout_minor=1_000_000, payout_per_unit_minor=50_000,
    gross_premium_pct=Decimal("0.015"), risk_premium_pct=Decimal("0.01"), pricing_version=1,
)
ITEM = types.SimpleNamespace(covers=[COVER], currency="INR", quantity=Decimal("2.5"), sum_insured_minor=25_000_000)


def _row(stage: str, kind: str, payout_minor: int, index_value: str, explanation: dict) -> dict:
    return {"coverage_id": COVER.coverage_id, "stage": stage, "kind": kind, "payout_minor": payout_minor,
            "index_value": Decimal(index_value), "explanation": explanation}


def test_an_initial_payment_says_what_it_paid_on():
    own = {"payoutPerUnit": "14180", "coverPayoutMinor": 3_545_000, "paidByOtherCoversMinor": 0, "previouslyPaidMinor": 0,
           "stage": "INITIAL", "indexValue": "200", "indexError": "11.14", "paidIndex": "188.86"}
    a = claim_arithmetic(_row("INITIAL", "SETTLEMENT", 3_545_000, "188.86", own), ITEM)
    assert (a["stage"], a["ladderIndexValue"], a["indexError"], a["paidIndex"]) == ("INITIAL", "200", "11.14", "188.86")
    text = claim_text(BY_CODE[CODE], a, (COVER.start, COVER.end), "INR")
    assert ("First payment (INITIAL), on values not all final: the index on them is 200 with a stated error of 11.14; "
            "it is paid on 188.86") in text and "35,450.00 INR" in text


def test_a_waived_true_up_says_how_much_and_why():
    own = {"payoutPerUnit": "12250", "coverPayoutMinor": 3_062_500, "paidByOtherCoversMinor": 0,
           "previouslyPaidMinor": 3_545_000, "stage": "FINAL", "indexValue": "185", "indexError": "0", "paidIndex": "185",
           "waivedMinor": 482_500, "waived": "INITIAL paid only what the stated error made certain"}
    a = claim_arithmetic(_row("FINAL", "ADJUSTMENT", 0, "185", own), ITEM)
    assert a["waived"] == "4825.00" and a["paid"] == "35450.00"
    text = claim_text(BY_CODE[CODE], a, (COVER.start, COVER.end), "INR")
    assert ("The final values give 4,825.00 INR less than the INITIAL payment paid: waived (INITIAL paid only what the "
            "stated error made certain).") in text
    assert "First payment" not in text


def test_each_day_names_its_rung_and_source():
    ladder = [{"day": "2026-08-01", "value": "12", "revision": 1, "counted": False, "rung": "FALLBACK",
               "dataSet": "REAN-SFC-HOURLY", "source": "open-meteo", "error": "3.2"}]
    assert index_path(ladder, None, "IMD-RF-DAILY")[0] == ladder[0]
    final_only = [{"day": "2026-08-01", "value": "12", "revision": 2, "counted": False}]
    snapshot = {"snapshot": {"values": [{"day": "2026-08-01", "value": "12", "rung": "FINAL", "dataSet": "IMD-RF-DAILY",
                                         "source": "IMD", "revision": 2, "error": "0"}]}}
    assert index_path(final_only, None, "IMD-RF-DAILY", snapshot)[0] == final_only[0] | {
        "rung": "FINAL", "dataSet": "IMD-RF-DAILY", "source": "IMD", "error": "0"}
    # Settled before snapshots were kept: the data set's final values, source not recorded.
    assert index_path(final_only, ["2026-08-01"], "IMD-RF-DAILY")[0] == final_only[0] | {
        "rung": "FINAL", "dataSet": "IMD-RF-DAILY", "source": None, "error": "0", "counted": True}
