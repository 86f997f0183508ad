"""Cold quotes <= 1 s (issue 26): the speedups keep every number bit for bit.

- The hourly model's daily windows are computed on the wet hours (or on whole arrays when
  many are wet) from a vectorised chain, not by summing ``simulate_hours``' loop: the same
  bits, and the generator left in the same state.
- A stay's band replicates share their hourly uniforms (common random numbers): the same
  numbers as drawing them again.
- A band's variants and a stay's simulations run on the pricing's threads: the same numbers
  as one after another.
- Bootstrap replicates and a seed's batch streams are kept per process.
- A pricing pool process loads the modules and calibration data before its first activity.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
from decimal import Decimal

import numpy as np
import pytest

from activities.pricing import hourly as hourly_module
from activities.pricing import montecarlo, propose_terms, sampling, threads, uncertainty
from activities.pricing.climate_data import _load
from activities.pricing.hourly import HOURLY_CHUNK, HourlyRainModel
from models.temporal.catalogue import SiteRef
from models.temporal.travel import PriceStayInput


def summed_loop(model: HourlyRainModel, totals, days, windows, rng, month=None, uniforms=None):
    """The daily windows as they were computed before: ``simulate_hours`` (the hour-by-hour
    loop) block by block, summed per window."""
    totals = np.asarray(totals, dtype=np.float64)
    outs = [np.empty((totals.size, days)) for _ in windows]
    for s in range(0, totals.size, HOURLY_CHUNK):
        e = min(s + HOURLY_CHUNK, totals.size)
        hrs = model.simulate_hours(totals[s:e], days, rng, month).reshape(days, 24, e - s)
        for out, (h0, h1) in zip(outs, windows):
            out[s:e] = hrs[:, h0:h1, :].sum(axis=1, dtype=np.float64).T
    return outs


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


CASES = [  # (pin, month, days, paths, scale of the totals (mm), seed)
    ("110001", 1, 31, 4096, 5.0, 1),  # Delhi January: few wet hours, many dry months
    ("400001", 7, 31, 5000, 400.0, 2),  # Mumbai July: many wet hours; two blocks, the second short
    ("600001", 11, 30, 37, 60.0, 3),  # a block whose width is not a multiple of 8
    ("110001", 2, 28, 9000, 0.3, 4),  # near-zero totals: months with no wet hour get one
    ("560001", None, 30, 300, 100.0, 5),  # no month: Beijing's persistence
    ("400001", 12, 31, 64, 0.0, 6),  # no rain at all on any path
]


@pytest.mark.parametrize("pin, month, days, paths, scale, seed", CASES)
@pytest.mark.parametrize("dense_share", [0.0, 1.0, None], ids=["dense", "sparse", "default"])
def test_daily_windows_are_the_loops_bits(site_models, monkeypatch, pin, month, days, paths, scale, seed, dense_share):
    model = site_models[pin].hourly
    if dense_share is not None:
        monkeypatch.setattr(hourly_module, "DENSE_WET_SHARE", dense_share)
    totals = np.random.default_rng(seed).gamma(0.6, scale, paths)
    totals[::9] = 0.0
    windows = ((8, 20), (0, 24), (20, 24))
    old_rng, new_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    expected = summed_loop(model, totals, days, windows, old_rng, month)
    got = model.simulate_daily_windows(totals, days, windows, new_rng, month)
    assert all(same_bits(a, b) for a, b in zip(expected, got))
    assert old_rng.bit_generator.state == new_rng.bit_generator.state  # the next draws are the same too
    assert (got[1] > 0).any() == (scale > 0)


def test_shared_uniforms_give_the_same_numbers(site_models):
    """Generators seeded alike (a stay's replicates) draw their hours' uniforms once."""
    model = site_models["110001"].hourly
    totals = np.random.default_rng(7).gamma(0.6, 8.0, 2048)
    cache: dict = {}
    first = model.simulate_daily_windows(totals, 31, ((8, 20),), np.random.default_rng(11), 1, uniforms=cache)
    rng = np.random.default_rng(11)
    again = model.simulate_daily_windows(totals * 1.5, 31, ((8, 20),), rng, 1, uniforms=cache)
    alone_rng = np.random.default_rng(11)
    alone = model.simulate_daily_windows(totals * 1.5, 31, ((8, 20),), alone_rng, 1)
    assert len(cache) == 1 and same_bits(again[0], alone[0]) and not same_bits(first[0], again[0])
    assert rng.bit_generator.state == alone_rng.bit_generator.state


def _stay(site_models, pin: str, month: int, nights: int = 3) -> PriceStayInput:
    from activities.pricing import load_climate_data, pincode_site
    from models.settings import DATA_DIR

    s = pincode_site(load_climate_data(DATA_DIR), pin)
    site = SiteRef(target_id=f"T-{pin}", target_name=pin, district=s.query_district, state=s.query_state,
                   latitude=s.latitude, longitude=s.longitude)
    first = dt.date(2027, month, 27)
    return PriceStayInput(site=site, first_night=first, last_night=first + dt.timedelta(days=nights - 1),
                          triggers=[Decimal(5), Decimal(10), Decimal(20)], simulations=8192, seed=20261210)


@pytest.mark.parametrize("pin, month", [("110001", 1), ("400001", 7)])  # a stay within a month; one across two
def test_stay_prices_as_before(site_models, monkeypatch, pin, month):
    """The stay's counts with every speedup equal those of the loop, one replicate after
    another, nothing kept between calls (the activity as it was)."""
    from activities.travel import price_stay_nights

    request = _stay(site_models, pin, month, nights=3 if month == 1 else 7)
    fast = price_stay_nights(request)
    monkeypatch.setattr(HourlyRainModel, "simulate_daily_windows", summed_loop)
    monkeypatch.setattr(montecarlo, "batch_streams", sampling.batch_streams.__wrapped__)  # fresh seeds each run
    monkeypatch.setattr(montecarlo, "children", lambda parent, count: parent.spawn(count))
    monkeypatch.setattr(threads, "THREADS", 1)
    monkeypatch.setattr(uncertainty, "_replicates", {})
    assert price_stay_nights(request) == fast
    assert any(n > 0 for t in fast.by_trigger for n in t.night_counts[1:])


def _catalogue_covers(model):
    covers = []
    for m in (1, 6, 7, 11):
        start, end = dt.date(2027, m, 1), dt.date(2027, m, calendar.monthrange(2027, m)[1])
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX", "WIND_MAX_SPEED"):
            proposal = propose_terms(model, code, start, end, Decimal(100000))
            if proposal.viable:
                covers.append(proposal.terms)
    return covers


def test_band_is_the_same_on_threads(site_models, monkeypatch):
    model = site_models["600001"]
    covers = _catalogue_covers(model)
    assert len(covers) >= 8
    on_threads = uncertainty.parameter_bands(model, covers, 7, replicates=6, paths=2048)
    monkeypatch.setattr(threads, "THREADS", 1)
    monkeypatch.setattr(uncertainty, "_replicates", {})
    alone = uncertainty.parameter_bands(model, covers, 7, replicates=6, paths=2048)
    assert on_threads == alone
    assert {d.name for d in alone[0].drivers} >= {"sampling", "scale"}


def test_in_threads_keeps_the_order_and_runs_the_first_alone():
    seen: list[str] = []

    def job(i):
        def run():
            seen.append("first" if not seen else "later")
            return i * i

        return run

    assert threads.in_threads([job(i) for i in range(9)], threads=2) == [i * i for i in range(9)]
    assert seen[0] == "first" and threads.in_threads([]) == []

    # a job on one of the threads that fans out again runs its jobs there, in order
    import threading

    def fan_out():
        names = threads.in_threads([lambda: threading.current_thread().name for _ in range(4)], threads=2)
        return len(set(names))

    assert threads.in_threads([fan_out, fan_out, fan_out], threads=2)[1:] == [1, 1]


def test_replicates_are_kept_per_model(site_models):
    model = site_models["560001"]
    a = uncertainty.replicate_model(model, 3)
    assert uncertainty.replicate_model(model, 3) is a
    other = dataclasses.replace(model)
    assert uncertainty.replicate_model(other, 3) is not a
    fresh = uncertainty._replicate_model(model, 3)
    assert np.array_equal(fresh.rain.p_zero, a.rain.p_zero) and np.array_equal(fresh.rain.shape, a.rain.shape)


def loaded_data_sets() -> int:
    """In a pool process: the calibration data sets it has loaded."""
    return _load.cache_info().currsize


def test_pricing_pool_processes_warm_up_when_the_pool_starts():
    """The pool's processes start with it and load the calibration data before any activity
    (before: a pool process started at its first activity and loaded the data in it)."""
    from workflows.worker import PricingPool

    pool = PricingPool(1)
    try:
        assert len(pool.executor._processes) == 1  # started, not waiting for a first activity
        assert pool.executor.submit(loaded_data_sets).result(timeout=120) == 1
    finally:
        pool.close()


def test_warm_up_never_fails_a_process(caplog):
    from activities.site_models import warm_up

    warm_up(("activities.no_such_module",))
    assert "pricing warm-up failed" in caplog.text


def test_package_band_is_the_same_on_threads(site_models, monkeypatch):
    from activities.pricing import quote_pricing
    from activities.pricing.quote_pricing import PackageLineItem

    model = site_models["110001"]
    covers = _catalogue_covers(model)
    items = [PackageLineItem(covers=tuple(covers[i:i + 2]), quantity=1.0 / float(covers[i].limit), cap=1.0)
             for i in range(0, len(covers), 2)]
    flat = [c for item in items for c in item.covers]
    on_threads = quote_pricing.package_band(model, flat, items, 5, replicates=5, paths=2048)
    monkeypatch.setattr(threads, "THREADS", 1)
    monkeypatch.setattr(quote_pricing, "_draws", {})
    alone = quote_pricing.package_band(model, flat, items, 5, replicates=5, paths=2048)
    assert on_threads.shape == (5, len(flat)) and same_bits(on_threads, alone)


def test_batch_streams_are_kept_and_children_are_the_spawns():
    assert sampling.batch_streams(9, 4) is sampling.batch_streams(9, 4)
    parent = sampling.batch_streams(9, 4)[2].hourly
    kids = sampling.children(parent, 3)
    spawned = np.random.SeedSequence(9).spawn(4)[2].spawn(2)[1].spawn(3)
    assert [k.generate_state(4).tolist() for k in kids] == [k.generate_state(4).tolist() for k in spawned]
    assert parent.n_children_spawned == 0  # the next run reads the same children


def test_catalogue_pricing_is_the_same_on_threads(site_models, monkeypatch):
    """A target's first catalogue pricing (terms, joint simulation, band, burn views,
    premiums, reports) and its fit summaries on the pricing's threads equal the serial ones,
    bit for bit."""
    import msgspec
    from temporalio.testing import ActivityEnvironment

    from activities.catalogue import propose_and_price_coverages
    from activities.pricing_runs import summarise_fits
    from models.domain.terms import CoverageSlot
    from models.temporal.catalogue import ProposeTermsInput
    from models.temporal.pricing import ProposeAndPriceInput

    stay = _stay(site_models, "400001", 1)
    slots = [CoverageSlot(code, dt.date(2027, m, 1), dt.date(2027, m, calendar.monthrange(2027, m)[1]))
             for m in (1, 6, 7, 10) for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT", "TEMPERATURE_MAX")]
    request = ProposeAndPriceInput(
        proposal=ProposeTermsInput(site=stay.site, slots=slots, unit_limit=Decimal(100000), currency="INR",
                                   fallbacks=True),
        simulations=8192, expected_loss_ratio=Decimal("0.65"), requested_by="test",
    )

    def priced() -> dict:
        done = ActivityEnvironment().run(propose_and_price_coverages, request)
        result = msgspec.to_builtins(done)
        for item in result["priced"]:
            item["outcome"].pop("seconds")  # wall-clock time of the activity, not a figure
        result["fits"] = msgspec.to_builtins(ActivityEnvironment().run(summarise_fits, done.joint))
        return result

    on_threads = priced()
    monkeypatch.setattr(threads, "THREADS", 1)
    monkeypatch.setattr(uncertainty, "_replicates", {})
    monkeypatch.setattr(montecarlo, "batch_streams", sampling.batch_streams.__wrapped__)
    assert priced() == on_threads
    assert len(on_threads["priced"]) >= 6
