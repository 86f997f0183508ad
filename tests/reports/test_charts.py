"""Hand-made SVG charts: well-formed, small, labelled, and their labels stay inside."""

from __future__ import annotations

import dataclasses
import math
import re
import time
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from reports import charts
from tests.document_samples import samples
from reports.formatting import NBSP
from reports.inputs import Direction, PayoutCurve, PayoutPoint

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def tech():
    return samples.sample_technical_pricing_report_input()


@pytest.fixture(scope="module")
def all_charts(tech) -> dict[str, charts.Chart]:
    fact = samples.sample_fact_sheet_input()
    quote = samples.sample_quote_document_input()
    policy = samples.sample_policy_schedule_input()
    c, cur = tech.cover, tech.cover.currency
    return {
        "payout-curve": charts.payout_curve_chart(c, tech.payout_curve),
        "historical-index": charts.historical_index_chart(c, fact.history),
        "loss-histogram": charts.loss_histogram_chart(tech.loss_distribution, cur),
        "exceedance-curve": charts.exceedance_chart(tech.loss_distribution, tech.metrics, cur),
        "convergence": charts.convergence_chart(tech.convergence, cur),
        "monthly-fit": charts.monthly_fit_chart(tech.calibration, c.unit, 9),
        "qq-plot": charts.qq_chart(tech.calibration, c.unit),
        "premium-by-line-item": charts.premium_by_line_item_chart(quote.covers, cur),
        "cover-timeline": charts.cover_timeline_chart(policy.line_items),
    }


def texts(chart: charts.Chart) -> list[str]:
    root = ET.fromstring(chart.svg)
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_every_chart_is_well_formed_small_and_named(all_charts):
    for name, chart in all_charts.items():
        root = ET.fromstring(chart.svg)  # raises on malformed XML
        assert root.tag == f"{SVG}svg"
        assert root.get("data-chart") == name == chart.name
        assert float(root.get("width")) == chart.width
        assert root.get("viewBox") == f"0 0 {chart.width:g} {chart.height:g}"
        assert len(chart.svg.encode()) < 16 * 1024, f"{name} is {len(chart.svg)} bytes"
        # Something is drawn; the PDF split keeps every text exactly once, either in the
        # image or in the HTML overlay, and rotated or long texts in the overlay.
        assert len(root) > 5
        assert [lb.text for lb in chart.labels] == texts(chart)
        image = ET.fromstring(chart.image_svg)
        in_image = [t.text for t in image.iter(f"{SVG}text")]
        assert sorted(in_image + [lb.text for lb in chart.overlay]) == sorted(texts(chart))
        assert all(len(t) <= charts.SHORT_LABEL for t in in_image)
        assert all(lb.rotate or len(lb.text) > charts.SHORT_LABEL for lb in chart.overlay)


def test_charts_are_fast(tech):
    start = time.perf_counter()
    for _ in range(20):
        charts.exceedance_chart(tech.loss_distribution, tech.metrics, "INR")
    assert (time.perf_counter() - start) / 20 < 0.05


def test_axes_carry_titles_with_units(all_charts):
    expected = {
        "payout-curve": ["Payout (₹)", "Monthly total rainfall (mm)"],
        "historical-index": ["Year", "Index (mm)"],
        "loss-histogram": ["Share of simulations", "Payout (₹)"],
        "exceedance-curve": ["P(payout > x)", "Payout x (₹)"],
        "convergence": ["Expected loss (₹)", "Simulations N (log scale)"],
        "monthly-fit": ["Index (mm)", "Calendar month"],
        "qq-plot": ["Observed quantile (mm)", "Fitted quantile (mm)"],
        "premium-by-line-item": ["Premium (₹)", "Line item (risk period start)"],
        "cover-timeline": ["Monthly total rainfall (mm)", "Maximum temperature (°C)"],
    }
    for name, titles in expected.items():
        found = texts(all_charts[name])
        for title in titles:
            assert title in found, f"{name}: {title!r} not in {found}"


def test_payout_curve_marks_trigger_exit_and_limit(all_charts):
    found = texts(all_charts["payout-curve"])
    assert f"Trigger 200{NBSP}mm" in found
    assert f"Exit 260{NBSP}mm" in found
    assert "Limit ₹10,000" in found


def test_historical_chart_has_a_bar_per_year_coloured_by_payout(all_charts):
    fact = samples.sample_fact_sheet_input()
    root = ET.fromstring(all_charts["historical-index"].svg)
    # Shapes of one style are batched into one path: count its rectangles (subpaths).
    rects = {p.get("fill"): p.get("d").count("z") for p in root.iter(f"{SVG}path") if p.get("fill") not in (None, "none")}
    paid = sum(1 for h in fact.history if h.payout > 0)
    assert rects[charts.BLUE] == paid + 1  # + the legend swatch
    assert rects[charts.LIGHT_BLUE] == len(fact.history) - paid + 1
    assert "1910" in texts(all_charts["historical-index"])


def test_shapes_of_one_style_are_batched(all_charts):
    for name, chart in all_charts.items():
        root = ET.fromstring(chart.svg)
        styles = [(p.get("fill"), p.get("stroke"), p.get("stroke-width"), p.get("stroke-dasharray"), p.get("fill-opacity")) for p in root.iter(f"{SVG}path")]
        assert len(styles) == len(set(styles)), name
        assert not list(root.iter(f"{SVG}rect")) and not list(root.iter(f"{SVG}line")), name


def test_labels_stay_inside_the_chart(all_charts):
    for name, chart in all_charts.items():
        for label in chart.labels:
            if label.rotate:
                continue
            w = charts.text_width(label.text, label.size)
            left = {"start": label.x, "middle": label.x - w / 2, "end": label.x - w}[label.anchor]
            assert left >= -1 and left + w <= chart.width + 1, f"{name}: {label.text!r} sticks out"
            assert label.size <= label.y <= chart.height, f"{name}: {label.text!r} cut vertically"


def test_a_long_rotated_title_falls_back_to_the_unit(tech):
    cover = dataclasses.replace(tech.cover, index_name="A very long index name indeed, far too long for the axis")
    chart = charts.payout_curve_chart(cover, tech.payout_curve, height=160)
    assert "Payout (₹)" in texts(chart)
    hist = charts.historical_index_chart(cover, samples.sample_fact_sheet_input().history, height=150)
    assert "Index (mm)" in texts(hist)


def test_deficit_cover_puts_labels_on_the_other_side():
    fact = samples.sample_fact_sheet_input(deficit=True)
    assert fact.cover.direction is Direction.BELOW
    chart = charts.payout_curve_chart(fact.cover, fact.payout_curve)
    trigger = next(lb for lb in chart.labels if lb.text.startswith("Trigger"))
    assert trigger.anchor == "start"  # right of the line: the left side carries the ramp


def test_cover_without_exit_draws_no_exit():
    fact = samples.sample_fact_sheet_input()
    cover = dataclasses.replace(fact.cover, exit=None)
    found = texts(charts.payout_curve_chart(cover, fact.payout_curve))
    assert not any(t.startswith("Exit") for t in found)
    assert not any(t.startswith("Exit") for t in texts(charts.historical_index_chart(cover, fact.history)))


def test_text_is_escaped():
    fact = samples.sample_fact_sheet_input()
    cover = dataclasses.replace(fact.cover, index_name="Rain <b>&</b>", unit="mm")
    chart = charts.payout_curve_chart(cover, fact.payout_curve)
    assert "Rain <b>&</b> (mm)" in texts(chart)


@pytest.mark.parametrize(
    ("lo", "hi"),
    [(0, 1), (0, 10_000), (3.2, 97.5), (-5, 5), (0, 0.013), (120, 120)],
)
def test_nice_domain_covers_the_data_with_round_ticks(lo, hi):
    d_lo, d_hi, ticks = charts.nice_domain(lo, hi)
    assert d_lo <= lo and d_hi >= hi
    assert 3 <= len(ticks) <= 12
    steps = {round(b - a, 12) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1
    step = steps.pop()
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1, 2, 2.5, 5)


def test_log_ticks():
    assert charts.log_ticks(0.001, 1) == [0.001, 0.01, 0.1, 1.0]
    assert charts.log_ticks(100, 20_000) == [100, 1000, 10_000]
    assert charts.log_ticks(100, 5000) == [100, 200, 500, 1000, 2000, 5000]


def test_exceedance_drops_to_the_floor_past_the_largest_payout(tech):
    chart = charts.exceedance_chart(tech.loss_distribution, tech.metrics, "INR")
    root = ET.fromstring(chart.svg)
    curve = [p for p in root.iter(f"{SVG}polyline") if p.get("stroke") == charts.BLUE][-1]
    last_y = float(curve.get("points").split()[-1].split(",")[1])
    axis = next(p for p in root.iter(f"{SVG}path") if p.get("stroke") == charts.AXIS and p.get("stroke-width") == "1")
    # The axes are segments "M x1 y1 L x2 y2"; the horizontal one lies on the plot's floor.
    segments = re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", axis.get("d"))
    floors = [float(y1) for x1, y1, x2, y2 in segments if y1 == y2]
    assert floors and any(abs(last_y - y) < 0.01 for y in floors)
    assert Decimal(tech.metrics.p_exhaust) > 0


def test_labels_never_cross_the_trigger_line():
    fact = samples.sample_fact_sheet_input()
    # A trigger close to the left edge leaves no room for the label before it.
    tight = lambda c: PayoutCurve(  # noqa: E731  the curve starts just before the trigger
        tuple(
            PayoutPoint(x, y)
            for x, y in ((195.0, 0.0), (200.0, 0.0), (200.0, float(c.min_payout)), (260.0, float(c.limit)), (280.0, float(c.limit)))
        )
    )
    for cover, curve in ((fact.cover, fact.payout_curve), (fact.cover, tight(fact.cover))):
        chart = charts.payout_curve_chart(cover, curve)
        root = ET.fromstring(chart.svg)
        red = next(p for p in root.iter(f"{SVG}path") if p.get("stroke") == charts.RED)
        x, y1, _, y2 = map(float, re.match(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", red.get("d")).groups())
        for label in chart.labels:
            if label.text.startswith(("Limit", "Exit")):
                w = charts.text_width(label.text, label.size)
                left = {"start": label.x, "middle": label.x - w / 2, "end": label.x - w}[label.anchor]
                crosses = left < x < left + w and min(y1, y2) < label.y and label.y - label.size < max(y1, y2)
                assert not crosses, (label.text, left, x)
