"""The source ladder's pure core (models/domain/ladder.py, models/domain/settlement_basis.py):
rungs per day, the index with its error, the INITIAL index, disagreement, calibration and the
canonical snapshot that anyone can recompute."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal as D

from hypothesis import given, settings
from hypothesis import strategies as st

from models.domain.ladder import (
    Reading,
    choose_rungs,
    disagree,
    ladder_index,
    per_unit_payout,
    recompute,
    snapshot_body,
    snapshot_hash,
    terms_of,
)
from models.domain.settlement_basis import (
    FALLBACK,
    FINAL,
    LADDERS,
    PROVISIONAL,
    basis_for,
    decode_basis,
    encode_basis,
    fit_calibration,
)

START = dt.date(2027, 1, 1)
DAYS = [START + dt.timedelta(days=i) for i in range(31)]
END = DAYS[-1]
RAIN_TERMS = terms_of("ABOVE", D(100), D(300), D(200), D(40000), D(0), "INR")


def reading(day, value, provisional=False, quality="GOOD", data_set="IMD-RF-DAILY", revision=1):
    return Reading(day, D(value), provisional, quality, revision, "test", data_set)


def calibration(slope=1.0, intercept=0.0, noise=1.0, n=60, seed=1):
    rnd = random.Random(seed)
    pairs = []
    for i in range(n):
        x = rnd.uniform(0, 40)
        pairs.append((START - dt.timedelta(days=i + 1), D(f"{x:.1f}"), D(f"{intercept + slope * x + rnd.gauss(0, noise):.1f}")))
    return fit_calibration(pairs, "REAN-SFC-HOURLY", "target")


def rungs(primary, fallback=None, use_fallback=False, cal=None, provisional_error=D(2)):
    return choose_rungs(
        DAYS, primary, fallback or {}, provisional_error=provisional_error, calibration=cal,
        use_fallback=use_fallback, variable="rainfall_mm", data_set="IMD-RF-DAILY",
    )


def rain_index(r, share=D(1)):
    return ladder_index("RAINFALL_MONTHLY_TOTAL", START, END, r, trigger=D(100), direction="ABOVE", error_share=share)


def test_every_primary_data_set_has_a_ladder_and_a_basis_round_trips():
    for code, data_set in (("RAINFALL_MONTHLY_TOTAL", "IMD-RF-DAILY"), ("TEMPERATURE_MAX", "IMD-TMAX-1DEG"),
                           ("WIND_MAX_SPEED", "IBTRACS-WIND"), ("RAINFALL_DAYTIME_HOURS", "IMD-RF-HOURLY")):
        basis = basis_for(code, data_set)
        assert basis is not None and basis.data_set in LADDERS
        assert decode_basis(encode_basis(basis)) == basis
        assert basis.calculation_deadline(END) == END + dt.timedelta(days=15)
    # A cover recorded without a data set (sold before the ladder) has no basis: final-only.
    assert basis_for("TEMPERATURE_MAX", None) is None and decode_basis(None) is None


def test_the_highest_rung_wins_and_suspect_is_on_no_rung():
    primary = {d: reading(d, 5, provisional=d.day > 20) for d in DAYS}
    primary[DAYS[3]] = reading(DAYS[3], 900, quality="SUSPECT")
    fallback = {d: reading(d, 4, data_set="REAN-SFC-HOURLY") for d in DAYS}
    before = rungs(primary, fallback, use_fallback=False, cal=calibration())
    assert before.chosen[DAYS[0]].rung == FINAL and before.chosen[DAYS[25]].rung == PROVISIONAL
    assert DAYS[3] not in before.chosen and before.suspect == (DAYS[3],)
    assert not rain_index(before).complete
    # At the deadline the calibrated fallback fills the SUSPECT day; the SUSPECT 900 mm never counts.
    after = rungs(primary, fallback, use_fallback=True, cal=calibration())
    assert after.chosen[DAYS[3]].rung == FALLBACK and after.chosen[DAYS[3]].raw == D(4)
    assert after.chosen[DAYS[3]].value < D(10)
    index = rain_index(after)
    assert index.complete and not index.final and index.value < D(200)


def test_a_fallback_is_never_used_without_a_calibration():
    primary = {d: reading(d, 5) for d in DAYS[1:]}
    fallback = {d: reading(d, 4, data_set="REAN-SFC-HOURLY") for d in DAYS}
    assert rungs(primary, fallback, use_fallback=True, cal=None).missing == (DAYS[0],)
    assert fit_calibration([(START, D(1), D(1))] * 29, "REAN-SFC-HOURLY", "target") is None


def test_a_calibration_recovers_a_known_linear_relation():
    cal = calibration(slope=0.8, intercept=2.0, noise=0.5, n=400)
    assert abs(cal.slope - D("0.8")) < D("0.05") and abs(cal.intercept - D(2)) < D("0.5")
    assert D("0.3") < cal.sigma < D("0.7") and cal.pairs == 400


def test_an_index_all_final_has_no_error_and_pays_in_full():
    index = rain_index(rungs({d: reading(d, 5) for d in DAYS}))
    assert index.final and index.value == D(155) and index.error == 0 and index.initial_value == index.value


def test_initial_index_moves_by_the_error_towards_paying_less():
    index = rain_index(rungs({d: reading(d, 5, provisional=True) for d in DAYS}, provisional_error=D(2)))
    # 31 provisional days of σ = 2 mm: √31 × 2 = 11.14 mm.
    assert index.error == D("11.14") and index.initial_value == D(155) - D("11.14")
    deficit = ladder_index("RAINFALL_DEFICIT", START, END, rungs({d: reading(d, 1, provisional=True) for d in DAYS}),
                           trigger=D(60), direction="BELOW", error_share=D(1))
    assert deficit.initial_value == D(31) + deficit.error


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.decimals(min_value=0, max_value=80, places=1), min_size=31, max_size=31),
    provisional=st.lists(st.booleans(), min_size=31, max_size=31),
    share=st.sampled_from([D(0), D("0.5"), D(1), D(2)]),
)
def test_an_initial_payment_never_exceeds_the_payment_on_the_same_values(values, provisional, share):
    index = rain_index(rungs({d: reading(d, v, provisional=p) for d, v, p in zip(DAYS, values, provisional)}), share)
    assert per_unit_payout(RAIN_TERMS, "SUM", index.initial_value) <= per_unit_payout(RAIN_TERMS, "SUM", index.value)


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.decimals(min_value=0, max_value=80, places=1), min_size=31, max_size=31),
    rung_of=st.lists(st.sampled_from(["final", "provisional", "fallback"]), min_size=31, max_size=31),
    stage=st.sampled_from(["INITIAL", "FINAL"]),
    code=st.sampled_from(["RAINFALL_MONTHLY_TOTAL", "TEMPERATURE_MAX"]),
)
def test_every_snapshot_recomputes_to_its_result(values, rung_of, stage, code):
    primary = {d: reading(d, v, provisional=r == "provisional") for d, v, r in zip(DAYS, values, rung_of) if r != "fallback"}
    fallback = {d: reading(d, v, data_set="REAN-SFC-HOURLY") for d, v in zip(DAYS, values)}
    index = ladder_index(code, START, END, rungs(primary, fallback, use_fallback=True, cal=calibration()),
                         trigger=D(40), direction="ABOVE", error_share=D(1))
    body = snapshot_body(coverage_id="c", revision=1, stage=stage, index_code=code, start=START, end=END,
                         terms=terms_of("ABOVE", D(40), None, D(100), D(5000), D(0), "INR"), error_share=D(1),
                         calibration=calibration(), index=index)
    assert recompute(body) == body["result"]
    # The hash is of the canonical bytes: the same values in another key order hash the same.
    assert snapshot_hash(dict(reversed(list(body.items())))) == snapshot_hash(body)
    changed = dict(body, values=[dict(body["values"][0], value="999")] + body["values"][1:])
    assert snapshot_hash(changed) != snapshot_hash(body)


def test_sources_disagree_only_across_the_trigger_and_beyond_the_tolerance():
    common = {"trigger": D(100), "direction": "ABOVE", "aggregation": "SUM", "tolerance": D(10)}
    assert disagree(D(80), D(120), **common)
    assert not disagree(D(95), D(104), **common)  # across the trigger, within the tolerance
    assert not disagree(D(120), D(300), **common)  # the same side
    assert disagree(D(120), D(80), **common) == disagree(D(80), D(120), **common)
