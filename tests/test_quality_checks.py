"""The quality checks, pure (issue 34; models/domain/quality_checks.py): each check fails
what it should and skips without a record; every threshold has its reason; and the property
the issue asks for: no SUSPECT value pays (a value any check fails is stored SUSPECT, and the
source ladder never chooses it, on any rung)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from models.domain.data_sets import DATA_SETS
from models.domain.ladder import Reading, choose_rungs
from models.domain.quality_checks import (
    CHECKS,
    FLAT_LINE,
    NEIGHBOURS,
    RANGE,
    SPIKE,
    SPIKE_MIN_RECORD,
    ACCEPTED,
    THRESHOLDS,
    Context,
    checked_verdict,
    distance_km,
    failed_check,
    kept_verdict,
    flat_line,
    missing_days,
    needs_context,
    neighbour_inconsistent,
    one_in_1000,
    quantile,
    spike,
)
from models.domain.settlement_basis import Calibration

RAIN = ("IMD-RF-DAILY", "rainfall_mm")
TMAX = ("IMD-TMAX-1DEG", "temperature_c")


def test_every_data_set_variable_has_thresholds_with_a_reason_for_every_check():
    for data_set in DATA_SETS.values():
        for variable, (_, low, high) in data_set.variables.items():
            t = THRESHOLDS[(data_set.id, variable)]
            assert set(t.why) == set(CHECKS), (data_set.id, variable)
            assert all(len(reason) > 20 for reason in t.why.values())
            # The physical range lies within what the API accepts at all (outside that: 400).
            assert low <= t.low < t.high <= high, (data_set.id, variable)


def test_physical_range():
    assert failed_check(*RAIN, Decimal(1001)) == RANGE
    assert failed_check(*RAIN, Decimal(1000)) is None
    assert failed_check(*TMAX, Decimal("52.5")) == RANGE
    assert failed_check(*TMAX, Decimal("-26")) == RANGE
    assert failed_check(*TMAX, Decimal("44.2")) is None


def test_spike_needs_a_thousand_days_of_record_and_then_flags_beyond_the_1_in_1000_day():
    record = [Decimal(i) for i in range(SPIKE_MIN_RECORD)]  # 0..999 mm
    assert quantile(record, Decimal("0.999")) == Decimal(998) == one_in_1000(record)  # rank ceil(999.0) = 999
    assert one_in_1000([*record, Decimal(5000)]) == Decimal(999)  # n = 1001: rank ceil(999.999) = 1000
    assert one_in_1000(record[:-1]) is None  # too short a record: no 1-in-1000 day
    wet = Context(day_1_in_1000=one_in_1000(record))
    assert failed_check(*RAIN, Decimal("998.5"), wet) == SPIKE
    assert failed_check(*RAIN, Decimal(998), wet) is None
    assert failed_check(*RAIN, Decimal(999), Context(day_1_in_1000=None)) is None  # skipped
    # Temperature: 2 °C beyond the cell's 1-in-1000 day.
    warm = Context(day_1_in_1000=Decimal(39))
    assert failed_check(*TMAX, Decimal(41), warm) is None
    assert failed_check(*TMAX, Decimal("41.1"), warm) == SPIKE
    # Cyclone wind from the tracks: every storm is a spike by nature, not checked.
    assert failed_check("IBTRACS-WIND", "wind_kmh", Decimal(180), Context(day_1_in_1000=Decimal(0))) is None


def test_flat_line_is_the_same_non_zero_value_five_days_running():
    same = [Decimal("12.3")] * 4
    assert failed_check(*RAIN, Decimal("12.3"), Context(before=same)) == FLAT_LINE
    assert failed_check(*RAIN, Decimal("12.4"), Context(before=same)) is None
    assert failed_check(*RAIN, Decimal(0), Context(before=[Decimal(0)] * 4)) is None  # dry spells are flat
    assert failed_check(*RAIN, Decimal("12.3"), Context(before=same[:3])) is None  # too short a record
    assert failed_check(*RAIN, Decimal("12.3"), Context(before=[None, *same[:3]])) is None  # a gap breaks it
    assert failed_check("IMD-RF-HOURLY", "rainfall_mm", Decimal("0.5"), Context(before=[Decimal("0.5")] * 30)) is None


def test_neighbours():
    dry = [Decimal(0), Decimal(5), Decimal(9)]
    assert failed_check(*RAIN, Decimal(120), Context(neighbours=dry)) == NEIGHBOURS
    assert failed_check(*RAIN, Decimal(80), Context(neighbours=dry)) is None  # below the 100 mm floor
    assert failed_check(*RAIN, Decimal(120), Context(neighbours=[Decimal(0), Decimal(5), Decimal(13)])) is None
    assert failed_check(*RAIN, Decimal(120), Context(neighbours=dry[:2])) is None  # too few: skipped
    cells = [Decimal(38), Decimal(39), Decimal(41), Decimal(40)]
    assert failed_check(*TMAX, Decimal("49.6"), Context(neighbours=cells)) == NEIGHBOURS  # median 39.5: 10.1 away
    assert failed_check(*TMAX, Decimal("29"), Context(neighbours=cells)) == NEIGHBOURS
    assert failed_check(*TMAX, Decimal("49.5"), Context(neighbours=cells)) is None


def test_missing_days_and_distance():
    start = dt.date(2027, 2, 1)
    present = [start + dt.timedelta(days=i) for i in range(28) if i not in (3, 27)]
    assert missing_days(present, start, dt.date(2027, 2, 28)) == [dt.date(2027, 2, 4), dt.date(2027, 2, 28)]
    assert 27 < distance_km(12.875, 77.625, 13.125, 77.625) < 28.5  # one 0.25° cell north


# --- the property: no SUSPECT value pays ---------------------------------------------------------

decimals = st.decimals(min_value=-60, max_value=2100, places=2, allow_nan=False, allow_infinity=False)
DAYS = [dt.date(2027, 7, 1) + dt.timedelta(days=i) for i in range(10)]


# A key's latest stored (value, quality, provisional, check), as the store writes them: no
# check on a value stored GOOD or ESTIMATED, a check (or none: stored before the checks) on a
# SUSPECT one, "accepted:<check>" on an accepted one; or nothing stored yet.
STORED = st.one_of(
    st.none(),
    st.tuples(decimals, st.sampled_from(["GOOD", "ESTIMATED"]), st.booleans(), st.just("")),
    st.tuples(decimals, st.just("SUSPECT"), st.booleans(), st.sampled_from(["", *CHECKS, "reported"])),
    st.tuples(decimals, st.just("GOOD"), st.booleans(), st.sampled_from([ACCEPTED + c for c in (*CHECKS, "reported")])),
)


def _stored_quality(data_set, variable, value, provisional, context, sent, stored) -> str:
    """As the store records a received value (models/db/observations.py `judged`): the
    verdict kept (a repeat of a stored value, a value sent SUSPECT) or the checks'."""
    kept = kept_verdict(value, sent, provisional, stored)
    quality, check = kept or checked_verdict(sent, failed_check(data_set, variable, value, context))
    if failed_check(data_set, variable, value, context) is not None and not check.startswith(ACCEPTED):
        # A value any check fails is SUSPECT, unless a data staff member accepted that very value.
        assert quality == "SUSPECT" or (kept is not None and stored is not None and stored[1] != "SUSPECT"
                                        and not stored[3]), (kept, stored)
    return quality


@settings(max_examples=300, deadline=None)
@given(
    key=st.sampled_from(sorted(THRESHOLDS)),
    values=st.lists(decimals, min_size=len(DAYS), max_size=len(DAYS)),
    fallback_values=st.lists(decimals, min_size=len(DAYS), max_size=len(DAYS)),
    before=st.lists(st.one_of(st.none(), decimals), max_size=6),
    neighbours=st.lists(decimals, max_size=6),
    record=st.one_of(st.none(), decimals),
    provisional=st.lists(st.booleans(), min_size=len(DAYS), max_size=len(DAYS)),
    sent=st.sampled_from(["GOOD", "ESTIMATED", "SUSPECT"]),
    stored=STORED,
    repeat=st.booleans(),
    use_fallback=st.booleans(),
)
def test_no_suspect_value_pays(key, values, fallback_values, before, neighbours, record, provisional, sent, stored,
                               repeat, use_fallback):
    data_set, variable = key
    context = Context(day_1_in_1000=record, before=before, neighbours=neighbours)
    primary, fallback, failing = {}, {}, set()
    for day, value, fb, prov in zip(DAYS, values, fallback_values, provisional):
        # `repeat`: each day's value is its key's stored value again (a replay, a provider's resend).
        was = (value, stored[1], prov, stored[3]) if repeat and stored is not None else stored
        quality = _stored_quality(data_set, variable, value, prov, context, sent, was)
        primary[day] = Reading(day, value, prov, quality, 1, "IMD", data_set)
        fb_quality = _stored_quality("REAN-SFC-HOURLY", variable, fb, False, Context(), "GOOD", None)
        fallback[day] = Reading(day, fb, False, fb_quality, 1, "ERA5", "REAN-SFC-HOURLY")
        if quality == "SUSPECT":
            failing.add(("primary", day))
        if fb_quality == "SUSPECT":
            failing.add(("fallback", day))
    calibration = Calibration("REAN-SFC-HOURLY", Decimal(0), Decimal(1), Decimal(1), 40, "pooled", DAYS[0], DAYS[-1])
    rungs = choose_rungs(
        DAYS, primary, fallback, provisional_error=Decimal(1), calibration=calibration, use_fallback=use_fallback,
        variable=variable, data_set=data_set,
    )
    for day, chosen in rungs.chosen.items():
        source = "fallback" if chosen.rung == "FALLBACK" else "primary"
        assert (source, day) not in failing, (day, chosen)  # never paid on a SUSPECT value
    for day in DAYS:
        if ("primary", day) in failing and day not in rungs.chosen:
            assert day in rungs.suspect or day in rungs.missing


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(sorted(THRESHOLDS)), value=decimals, top=decimals,
       before=st.lists(st.one_of(st.none(), decimals), max_size=6), neighbours=st.lists(decimals, max_size=6))
def test_the_store_reads_what_a_value_could_fail(key, value, top, before, neighbours):
    """The store reads a check's context only for values `needs_context` says could fail it
    (bench/_quality_cost.py: most values are dry days): a value it skips passes the check
    with any context (a record of values in range has its 1-in-1000 day at or above the low end)."""
    t = THRESHOLDS[key]
    top = max(top, t.low)
    could_spike, could_flat, could_neighbours = needs_context(value, t)
    assert could_spike or not spike(value, top, t)
    assert could_flat or not flat_line(value, before, t)
    assert could_neighbours or not neighbour_inconsistent(value, neighbours, t)
