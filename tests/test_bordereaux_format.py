"""The bordereaux's months and CSV, pure (models/domain/bordereaux.py; docs/bordereaux.md):
UTC month bounds, exact money from minor units, one order whatever the rows' order, no
formula a spreadsheet would run."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from models.domain import bordereaux as b


def _risk(policy: str, bound: dt.datetime, premium: int, tenant: str = "acme", currency: str = "INR") -> b.RiskLine:
    return b.RiskLine(
        tenant_id="t-" + tenant, tenant_name=tenant, insurer="Parametric Re Ltd", policy_id=policy, bound_at=bound,
        insured_name="=HYPERLINK(\"x\")", states="Karnataka", countries="IN", inception=dt.date(2026, 12, 1),
        expiry=dt.date(2026, 12, 31), currency=currency, sum_insured_minor=25_000_000, gross_premium_minor=premium,
        risk_premium_minor=premium // 2, kind="TENANT", external_ref="", targets="IN-12.875N-077.625E",
        indices="RAINFALL_MONTHLY_TOTAL",
    )


def test_months_are_utc_calendar_months():
    assert b.month_bounds(b.parse_month("2024-02")) == (
        dt.datetime(2024, 2, 1, tzinfo=dt.timezone.utc), dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc))
    assert b.next_month(dt.date(2026, 12, 1)) == dt.date(2027, 1, 1)
    assert b.previous_month(dt.date(2026, 1, 1)) == dt.date(2025, 12, 1)
    assert b.month_ended(dt.date(2026, 10, 1), dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc))
    assert not b.month_ended(dt.date(2026, 10, 1), dt.datetime(2026, 10, 31, 23, 59, 59, tzinfo=dt.timezone.utc))
    for bad in ("2026-00", "2026-1", "26-01", "", "2026-01-01", "1999-12"):
        with pytest.raises(b.BadMonth):
            b.parse_month(bad)


def test_money_is_written_exactly_from_minor_units():
    assert b.money(1_234_567, "INR") == "12345.67"
    assert b.money(-1_050, "INR") == "-10.50"
    assert b.money(5, "INR") == "0.05"
    assert b.money(0, "INR") == "0.00"
    assert b.money(1234, "JPY") == "1234"
    assert b.money(1234, "KWD") == "1.234"
    assert b.money(99_999_999_999_999_99, "INR") == "99999999999999.99"  # no float on the way


def test_the_same_rows_give_the_same_bytes_in_any_order():
    first = dt.date(2026, 10, 1)
    lines = [
        _risk("p3", dt.datetime(2026, 10, 3, tzinfo=dt.timezone.utc), 300, tenant="globex"),
        _risk("p1", dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc), 100),
        _risk("p2", dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc), 200),
    ]
    one = b.risk_csv(lines, first)
    assert one == b.risk_csv(list(reversed(lines)), first)
    rows = one.decode().split("\r\n")
    assert rows[0].startswith("Reporting Period (End Date),Coverholder Name,Insurer,Certificate Reference")
    assert [r.split(",")[3] for r in rows[1:4]] == ["p1", "p2", "p3"]  # tenant, bound, policy
    assert rows[1].startswith("2026-10-31,acme,Parametric Re Ltd,p1,Original Premium,")
    assert rows[-1] == ""  # CRLF after the last row, nothing else
    assert b.totals(lines) == {"INR": 600}


def test_names_never_become_formulas():
    assert b.cell_text("=1+1") == "'=1+1"
    assert b.cell_text("-x") == "'-x" and b.cell_text("@a") == "'@a" and b.cell_text("+a") == "'+a"
    assert b.cell_text("Acme\nFarms") == "Acme Farms"
    line = _risk("p1", dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc), 100)
    assert "'=HYPERLINK" in b.risk_csv([line], dt.date(2026, 10, 1)).decode()
    assert b.country_of("IN-12.875N-077.625E") == "IN" and b.country_of("odd") == ""


def test_one_carriers_rows_are_written_as_production_writes_them():
    first = dt.date(2026, 10, 1)
    ours = _risk("p1", dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc), 100)
    theirs = dataclasses.replace(_risk("p2", dt.datetime(2026, 10, 2, tzinfo=dt.timezone.utc), 200), insurer="Monsoon Re")
    both = dataclasses.replace(_risk("p3", dt.datetime(2026, 10, 3, tzinfo=dt.timezone.utc), 300),
                               insurer="Monsoon Re; Parametric Re Ltd")
    content = b.risk_csv([ours, theirs, both], first)
    assert b.for_carrier(content, "Monsoon Re") == (b.risk_csv([theirs, both], first), 2)
    assert b.for_carrier(content, "Parametric Re Ltd") == (b.risk_csv([ours, both], first), 2)
    assert b.for_carrier(content, "Monsoon") == (b.header_only("risk"), 0)
