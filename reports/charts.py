"""Hand-made SVG charts for the documents.

Why not a charting library: a chart here is a few KiB of SVG built in about a millisecond,
and WeasyPrint turns it into vector paths and real (searchable) text. matplotlib's SVG is
several times larger and takes longer than the whole page to produce.

Every chart function returns one ``<svg>`` element as a string, sized in CSS pixels
(1/96 inch) with a matching ``viewBox`` so that fonts keep their size on the page:
``FULL_WIDTH`` fills the text column of an A4 page with the report margins, ``HALF_WIDTH``
fits two side by side. Text uses the document font (DejaVu Sans).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from xml.sax.saxutils import escape, quoteattr

from .formatting import (
    NBSP,
    currency_symbol,
    decimal_places,
    format_index,
    format_money,
    format_number,
    format_pct,
)
from .inputs import (
    CalibrationFit,
    ClaimReportInput,
    Convergence,
    CoverFacts,
    Direction,
    AsIfYearLoss,
    HistoricalYear,
    LossDistribution,
    PayoutCurve,
    PolicyLineItem,
    QuoteCover,
    ReturnPeriodLoss,
    RiskMetrics,
)

__all__ = [
    "FULL_WIDTH",
    "Chart",
    "Label",
    "HALF_WIDTH",
    "as_if_years_chart",
    "claim_index_chart",
    "convergence_chart",
    "cover_timeline_chart",
    "exceedance_chart",
    "historical_index_chart",
    "loss_histogram_chart",
    "monthly_fit_chart",
    "payout_curve_chart",
    "premium_by_line_item_chart",
    "qq_chart",
    "return_period_chart",
]

# A4 is 210 mm wide, the stylesheet's side margins are 16 mm: 178 mm ≈ 672 CSS px.
FULL_WIDTH = 670
HALF_WIDTH = 324

FONT = "DejaVu Sans"
TICK_SIZE = 9.5
LABEL_SIZE = 10.5
# Average advance of DejaVu Sans glyphs in em; used only to keep labels inside the chart.
CHAR_EM = 0.62

INK = "#1d2733"
GRID = "#e3e7ec"
AXIS = "#5b6673"
BLUE = "#1f5f99"
LIGHT_BLUE = "#a9c4e0"
BAND = "#cfe0f1"
RED = "#c0392b"
ORANGE = "#d9822b"
LIGHT_ORANGE = "#f6d7b4"
GREY = "#8a96a3"
LIGHT_GREY = "#c9d1da"
SERIES = (BLUE, ORANGE, "#2e8b57", "#7b4fa0", "#b03a5b", "#4f7f8f")

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def text_width(text: str, size: float) -> float:
    """Estimated width in px of ``text`` at font size ``size`` px."""
    return len(text) * size * CHAR_EM


# --- scales and ticks ----------------------------------------------------------------------


def nice_step(span: float, target: int = 5) -> float:
    """A 1-2-2.5-5 × 10^k step giving about ``target`` intervals over ``span``."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / target
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * magnitude >= raw * 0.999:
            return m * magnitude
    return 10 * magnitude


def nice_domain(lo: float, hi: float, target: int = 5) -> tuple[float, float, list[float]]:
    """Round ``[lo, hi]`` outwards to the tick step; returns (lo, hi, ticks)."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        pad = abs(hi) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, target)
    lo2 = math.floor(lo / step + 1e-9) * step
    hi2 = math.ceil(hi / step - 1e-9) * step
    n = round((hi2 - lo2) / step)
    ticks = [lo2 + i * step for i in range(n + 1)]
    return lo2, hi2, ticks


def step_places(step: float) -> int:
    """Decimals needed to print ticks ``step`` apart."""
    if step >= 1 and abs(step - round(step)) < 1e-9:
        return 0
    return max(0, -math.floor(math.log10(step) + 1e-9)) + (1 if abs(step * 10 ** -math.floor(math.log10(step)) - 2.5) < 1e-9 else 0)


def log_ticks(lo: float, hi: float) -> list[float]:
    """Decades between ``lo`` and ``hi``; with 1-2-5 steps when the range is under two decades."""
    lo_e, hi_e = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    mults = (1, 2, 5) if hi_e - lo_e <= 2 else (1,)
    ticks = [m * 10.0**e for e in range(lo_e, hi_e + 1) for m in mults]
    return [t for t in ticks if lo * 0.999 <= t <= hi * 1.001]


class Linear:
    def __init__(self, d0: float, d1: float, r0: float, r1: float) -> None:
        self.d0, self.d1, self.r0, self.r1 = d0, d1, r0, r1

    def __call__(self, v: float) -> float:
        return self.r0 + (v - self.d0) / (self.d1 - self.d0) * (self.r1 - self.r0)


class Log:
    def __init__(self, d0: float, d1: float, r0: float, r1: float) -> None:
        self.l0, self.l1, self.r0, self.r1 = math.log10(d0), math.log10(d1), r0, r1

    def __call__(self, v: float) -> float:
        return self.r0 + (math.log10(v) - self.l0) / (self.l1 - self.l0) * (self.r1 - self.r0)


class Band:
    """Categories (years, months) as equal bands; ``__call__`` gives the band's centre."""

    def __init__(self, n: int, r0: float, r1: float, padding: float = 0.2, max_width: float = 40) -> None:
        self.n, self.r0 = n, r0
        self.step = (r1 - r0) / max(n, 1)
        self.width = min(self.step * (1 - padding), max_width)  # a lone bar stays a bar

    def __call__(self, i: float) -> float:
        return self.r0 + (i + 0.5) * self.step


# --- SVG building --------------------------------------------------------------------------


def _f(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _attrs(**attrs: object) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = _f(value)
        parts.append(f"{name}={quoteattr(str(value))}")
    return " ".join(parts)


@dataclass(frozen=True)
class Label:
    """A text of a chart: ``(x, y)`` is the anchor point on the baseline, in px."""

    x: float
    y: float
    text: str
    size: float
    anchor: str  # start | middle | end
    fill: str
    weight: str | None
    rotate: float | None


@dataclass(frozen=True)
class Chart:
    """A rendered chart.

    ``svg`` is the complete chart (shapes and text), e.g. for a web page. For the PDF the
    chart is split: ``image_svg`` (shapes and the short labels, such as tick values) becomes
    an image, and ``overlay`` (the longer labels: axis titles, legends, notes) is laid out
    as HTML text on top of it. WeasyPrint lays out SVG text one glyph at a time and an HTML
    label costs about as much as a dozen glyphs, so each label goes where it is cheaper;
    either way the PDF gets real, searchable text. ``labels`` lists every text.
    """

    name: str
    title: str
    width: float
    height: float
    svg: str
    image_svg: str
    labels: tuple[Label, ...]
    overlay: tuple[Label, ...]

    def __str__(self) -> str:
        return self.svg


@dataclass
class Legend:
    label: str
    color: str
    kind: str = "box"  # box | line | dash | dot | band


class Svg:
    """A minimal SVG writer with the document's typography."""

    def __init__(self, width: float, height: float, name: str, title: str) -> None:
        self.width, self.height, self.name, self.title = width, height, name, title
        # (is text, markup) or (False, batch key): lines, rects and dots of one style are
        # batched into a single <path> drawn where the first of them was; a renderer's cost
        # goes with the number of elements (a bar chart of 115 years is 2 paths, not 115 rects).
        self.parts: list[tuple[bool, str | tuple[str, ...]]] = []  # is_overlay_text, markup
        self.batches: dict[tuple[str, ...], list[str]] = {}
        self.labels: list[Label] = []

    def add(self, markup: str) -> None:
        self.parts.append((False, markup))

    def _batch(self, key: tuple[str, ...], segment: str) -> None:
        if key not in self.batches:
            self.batches[key] = []
            self.parts.append((False, key))
        self.batches[key].append(segment)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = AXIS, width: float = 1, dash: str | None = None) -> None:
        self._batch(("stroke", stroke, _f(width), dash or ""), f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}")

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float | None = None) -> None:
        if w <= 0 or h <= 0:
            return
        self._batch(("fill", fill, _f(opacity) if opacity is not None else ""), f"M{_f(x)} {_f(y)}h{_f(w)}v{_f(h)}h{_f(-w)}z")

    def polyline(self, points: Iterable[tuple[float, float]], stroke: str, width: float = 1.8, dash: str | None = None) -> None:
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in points)
        self.add(
            f"<polyline {_attrs(points=pts, fill='none', stroke=stroke, stroke_width=width, stroke_dasharray=dash, stroke_linejoin='round')}/>"
        )

    def polygon(self, points: Iterable[tuple[float, float]], fill: str, opacity: float | None = None) -> None:
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in points)
        self.add(f"<polygon {_attrs(points=pts, fill=fill, fill_opacity=opacity, stroke='none')}/>")

    def circle(self, x: float, y: float, r: float, fill: str) -> None:
        self._batch(("fill", fill, ""), f"M{_f(x - r)} {_f(y)}a{_f(r)} {_f(r)} 0 1 0 {_f(2 * r)} 0a{_f(r)} {_f(r)} 0 1 0 {_f(-2 * r)} 0z")

    def text(
        self,
        x: float,
        y: float,
        content: str,
        *,
        size: float = TICK_SIZE,
        anchor: str = "start",
        fill: str = INK,
        weight: str | None = None,
        rotate: float | None = None,
    ) -> None:
        transform = f"rotate({_f(rotate)} {_f(x)} {_f(y)})" if rotate else None
        markup = (
            f"<text {_attrs(x=x, y=y, font_size=size, text_anchor=anchor, fill=fill, font_weight=weight, transform=transform)}>"
            f"{escape(content)}</text>"
        )
        label = Label(x, y, content, size, anchor, fill, weight, rotate)
        self.parts.append((not _in_image(label), markup))
        self.labels.append(label)

    def label(self, x: float, y: float, content: str, *, anchor: str, lo: float, hi: float, size: float = TICK_SIZE, fill: str = INK, weight: str | None = None) -> None:
        """Text kept inside ``[lo, hi]`` horizontally: flips or shifts the anchor when needed."""
        w = text_width(content, size)
        if anchor == "end" and x - w < lo:
            anchor, x = ("start", x + 8) if x + 8 + w <= hi else ("start", lo)
        elif anchor == "start" and x + w > hi:
            anchor, x = ("end", x - 8) if x - 8 - w >= lo else ("end", hi)
        elif anchor == "middle":
            x = min(max(x, lo + w / 2), hi - w / 2)
        self.text(x, y, content, size=size, anchor=anchor, fill=fill, weight=weight)

    def legend(self, items: Sequence[Legend], x: float, y: float, max_x: float) -> None:
        """One row of legend items starting at (x, y) (y is the text baseline)."""
        cx = x
        for item in items:
            w = 16 + 5 + text_width(item.label, TICK_SIZE) + 14
            if cx + w - 14 > max_x and cx > x:
                break  # never overflow: a legend that does not fit loses its tail
            mid = y - TICK_SIZE * 0.35
            if item.kind == "box":
                self.rect(cx, mid - 5, 14, 10, item.color)
            elif item.kind == "band":
                self.rect(cx, mid - 5, 14, 10, item.color)
            elif item.kind == "dot":
                self.circle(cx + 7, mid, 3.5, item.color)
            else:
                self.line(cx, mid, cx + 16, mid, item.color, 2, "5 3" if item.kind == "dash" else None)
            self.text(cx + 21, y, item.label)
            cx += w

    def _svg(self, with_text: bool) -> str:
        head = (
            f"<svg xmlns=\"http://www.w3.org/2000/svg\" {_attrs(width=self.width, height=self.height)} "
            f"viewBox=\"0 0 {_f(self.width)} {_f(self.height)}\" {_attrs(font_family=FONT, font_size=TICK_SIZE)} "
            f"class=\"chart\" data-chart={quoteattr(self.name)} role=\"img\" aria-label={quoteattr(self.title)}>"
        )
        body = "".join(
            self._batch_markup(item) if isinstance(item, tuple) else item
            for is_text, item in self.parts
            if with_text or not is_text
        )
        return head + f"<title>{escape(self.title)}</title>" + body + "</svg>"

    def _batch_markup(self, key: tuple[str, ...]) -> str:
        d = "".join(self.batches[key])
        if key[0] == "stroke":
            _, stroke, width, dash = key
            return f"<path {_attrs(d=d, fill='none', stroke=stroke, stroke_width=width, stroke_dasharray=dash or None)}/>"
        _, fill, opacity = key
        return f"<path {_attrs(d=d, fill=fill, fill_opacity=opacity or None)}/>"

    def render(self) -> Chart:
        overlay = tuple(label for label in self.labels if not _in_image(label))
        return Chart(self.name, self.title, self.width, self.height, self._svg(True), self._svg(False), tuple(self.labels), overlay)


# Labels up to this many characters stay SVG text in the PDF image (see Chart).
SHORT_LABEL = 8


def _in_image(label: Label) -> bool:
    return len(label.text) <= SHORT_LABEL and not label.rotate


@dataclass
class Frame:
    """The plot area inside a chart, after room for ticks, axis titles and the legend."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top


def _frame(width: float, height: float, y_labels: Sequence[str], *, legend: bool, y_title: bool = True, right_pad: float = 12) -> Frame:
    widest = max((text_width(s, TICK_SIZE) for s in y_labels), default=0)
    left = 6 + (LABEL_SIZE + 6 if y_title else 0) + widest + 6
    top = 24 if legend else 10
    bottom = height - (14 + LABEL_SIZE + 12)
    return Frame(left, top, width - right_pad, bottom)


def _y_axis(svg: Svg, fr: Frame, ticks: Sequence[float], scale: Callable[[float], float], fmt: Callable[[float], str], title: str | None, grid: bool = True) -> None:
    for t in ticks:
        y = scale(t)
        if grid:
            svg.line(fr.left, y, fr.right, y, GRID, 0.8)
        svg.line(fr.left - 4, y, fr.left, y, AXIS, 0.8)
        svg.text(fr.left - 6, y + TICK_SIZE * 0.35, fmt(t), anchor="end", fill=AXIS)
    svg.line(fr.left, fr.top, fr.left, fr.bottom, AXIS, 1)
    if title:
        # A rotated title longer than the axis would run off the chart: fall back to "(unit)".
        room = fr.height + min(fr.top, svg.height - fr.bottom)
        if text_width(title, LABEL_SIZE) > room and "(" in title:
            title = "Index " + title[title.rindex("(") :]
        x = 6 + LABEL_SIZE * 0.8
        y = (fr.top + fr.bottom) / 2
        svg.text(x, y, title, size=LABEL_SIZE, anchor="middle", rotate=-90)


def _x_axis(svg: Svg, fr: Frame, ticks: Sequence[tuple[float, str]], title: str | None) -> None:
    svg.line(fr.left, fr.bottom, fr.right, fr.bottom, AXIS, 1)
    for x, text in ticks:
        svg.line(x, fr.bottom, x, fr.bottom + 4, AXIS, 0.8)
        svg.label(x, fr.bottom + 6 + TICK_SIZE, text, anchor="middle", lo=0, hi=svg.width, fill=AXIS)
    if title:
        svg.text((fr.left + fr.right) / 2, svg.height - 6, title, size=LABEL_SIZE, anchor="middle")


def _num(places: int) -> Callable[[float], str]:
    return lambda v: format_number(v, places)


def _linear_axis_ticks(lo: float, hi: float, target: int = 5) -> tuple[float, float, list[float], Callable[[float], str]]:
    lo, hi, ticks = nice_domain(lo, hi, target)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    return lo, hi, ticks, _num(step_places(step))


def _pct_fmt(v: float) -> str:
    if v == 0:
        return "0%"
    places = 0 if v >= 0.01 else 1 if v >= 0.001 else 2 if v >= 0.0001 else 3
    return format_pct(v, places)


# --- document charts -------------------------------------------------------------------------


def payout_curve_chart(cover: CoverFacts, curve: PayoutCurve, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """Payout per unit of cover (money) against the index (index unit), with trigger, exit and limit."""
    unit, cur = cover.unit, cover.currency
    trigger = float(cover.trigger)
    exit_ = float(cover.exit) if cover.exit is not None else None
    limit = float(cover.limit)
    xs = [p.index_value for p in curve.points]
    x_lo, x_hi, x_ticks, x_fmt = _linear_axis_ticks(min(xs), max(xs), 5)
    y_top = max(max(p.payout for p in curve.points), limit) * 1.3  # headroom for the labels
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(0, y_top, 5)
    svg = Svg(width, height, "payout-curve", f"Payout curve: payout against {cover.index_name}")
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=False)
    sx, sy = Linear(x_lo, x_hi, fr.left, fr.right), Linear(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Payout ({currency_symbol(cur)})")
    _x_axis(svg, fr, [(sx(t), x_fmt(t)) for t in x_ticks], f"{cover.index_name} ({unit})")

    # Flat beyond the given points, out to the axis ends.
    pts = [(sx(x_lo), sy(curve.points[0].payout))]
    pts += [(sx(p.index_value), sy(p.payout)) for p in curve.points]
    pts.append((sx(x_hi), sy(curve.points[-1].payout)))
    svg.polygon([(pts[0][0], sy(0)), *pts, (pts[-1][0], sy(0))], BAND, 0.8)
    svg.polyline(pts, BLUE, 2.2)

    # Trigger and exit lines rise from the axis to the limit line; the band above the limit
    # line (kept free by the headroom of the y axis) carries their labels, so that no label
    # ever sits on a line or on the curve, whatever the terms.
    above = cover.direction is Direction.ABOVE
    ly = sy(limit)
    tx = sx(trigger)
    ex = sx(exit_) if exit_ is not None else None
    svg.line(fr.left, ly, fr.right, ly, GREY, 1, "2 3")
    svg.line(tx, ly, tx, fr.bottom, RED, 1.2, "5 3")
    if ex is not None:
        svg.line(ex, ly, ex, fr.bottom, ORANGE, 1.2, "5 3")
    rows = (ly - 5, ly - 5 - TICK_SIZE - 3)
    below = ly + TICK_SIZE + 3
    vertical = [tx] + ([ex] if ex is not None else [])
    taken: list[tuple[float, float, float, float]] = []

    def place(text: str, color: str, candidates: list[tuple[float, float, str]]) -> None:
        w = text_width(text, TICK_SIZE)
        for x, y, anchor in candidates:
            x0 = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            x0 = min(max(x0, fr.left + 2), fr.right - 2 - w)
            box = (x0 - 2, x0 + w + 2, y - TICK_SIZE, y + 2)
            if any(b[0] < box[1] and box[0] < b[1] and b[2] < box[3] and box[2] < b[3] for b in taken):
                continue
            if y > ly and any(box[0] < v < box[1] for v in vertical):
                continue  # under the limit line the trigger and exit lines run
            taken.append(box)
            svg.text(x0, y, text, fill=color)
            return

    place(f"Trigger {format_index(cover.trigger, unit)}", RED, [(tx, rows[0], "middle"), (tx, rows[1], "middle")])
    if ex is not None:
        place(f"Exit {format_index(cover.exit, unit)}", ORANGE, [(ex, rows[0], "middle"), (ex, rows[1], "middle")])
    # The limit: under its line on the side that does not pay (the curve is at zero there),
    # else in the band above.
    side = (fr.left + 4, "start") if above else (fr.right - 4, "end")
    place(
        f"Limit {format_money(cover.limit, cur, 0)}",
        GREY,
        [(side[0], below, side[1]), (side[0], rows[0], side[1]), (side[0], rows[1], side[1])],
    )
    return svg.render()


def historical_index_chart(cover: CoverFacts, history: Sequence[HistoricalYear], width: float = FULL_WIDTH, height: float = 210) -> Chart:
    """The index over the risk period in each past year (bars), against trigger and exit."""
    unit = cover.unit
    years = [h.year for h in history]
    values = [h.index_value for h in history if h.index_value is not None]
    refs = [("Trigger", cover.trigger, RED)] + ([("Exit", cover.exit, ORANGE)] if cover.exit is not None else [])
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(0, max(values + [float(v) for _, v, _ in refs]) * 1.05, 5)
    svg = Svg(width, height, "historical-index", f"{cover.index_name} per year against the trigger")
    # Trigger and exit are labelled in a right margin, where they never hide a bar.
    ref_labels = [(name, format_index(value, unit), value, color) for name, value, color in refs]
    margin = 10 + max(max(text_width(n, TICK_SIZE) * 1.12, text_width(v, TICK_SIZE)) for n, v, _, _ in ref_labels)
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True, right_pad=margin)
    sy = Linear(y_lo, y_hi, fr.bottom, fr.top)
    first, last = min(years), max(years)
    band = Band(last - first + 1, fr.left, fr.right, padding=0.25 if last - first < 40 else 0.15)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"{cover.index_name} ({unit})")
    span = last - first
    every = 1 if span <= 12 else 2 if span <= 24 else 5 if span <= 60 else 10
    x_ticks = [(band(y - first), str(y)) for y in range(first, last + 1) if y % every == 0]
    _x_axis(svg, fr, x_ticks, "Year")

    for h in history:
        if h.index_value is None:
            continue
        x = band(h.year - first)
        top = sy(max(h.index_value, y_lo))
        svg.rect(x - band.width / 2, top, band.width, sy(y_lo) - top, BLUE if h.payout > 0 else LIGHT_BLUE)

    placed: list[float] = []
    for name, text, value, color in sorted(ref_labels, key=lambda r: -float(r[2])):
        y = sy(float(value))
        svg.line(fr.left, y, fr.right, y, color, 1.4, "6 3")
        # Two lines: name above, value below, centred on the line; nudged apart if close.
        ty = y - 1
        for other in placed:
            if abs(ty - other) < 2 * TICK_SIZE + 2:
                ty = other + 2 * TICK_SIZE + 2
        placed.append(ty)
        svg.text(fr.right + 5, ty, name, fill=color, weight="bold")
        svg.text(fr.right + 5, ty + TICK_SIZE + 1, text, fill=color)

    items = [Legend("Year with a payout", BLUE), Legend("No payout", LIGHT_BLUE), Legend("Trigger", RED, "dash")]
    if cover.exit is not None:
        items.append(Legend("Exit", ORANGE, "dash"))
    svg.legend(items, fr.left, 14, width)
    return svg.render()


def loss_histogram_chart(dist: LossDistribution, currency: str, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """Share of simulations (%) per payout bin, positive payouts only (money per unit)."""
    n = dist.simulations
    shares = [c / n for c in dist.counts]
    edges = dist.bin_edges
    x_lo, x_hi, x_ticks, x_fmt = _linear_axis_ticks(edges[0], edges[-1], 4)
    y_lo, y_hi, y_ticks, _ = _linear_axis_ticks(0, max(shares) * 1.1 or 0.01, 4)
    svg = Svg(width, height, "loss-histogram", "Histogram of simulated payouts")
    fr = _frame(width, height, [_pct_fmt(t) for t in y_ticks], legend=True)
    sx, sy = Linear(x_lo, x_hi, fr.left, fr.right), Linear(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, _pct_fmt, "Share of simulations")
    _x_axis(svg, fr, [(sx(t), x_fmt(t)) for t in x_ticks], f"Payout ({currency_symbol(currency)})")
    for a, b, s in zip(edges, edges[1:], shares):
        x0, x1 = sx(a), sx(b)
        svg.rect(x0 + 0.5, sy(s), max(x1 - x0 - 1, 0.5), sy(0) - sy(s), BLUE)
    zero_share = dist.zero_count / n
    svg.text(fr.left, 14, f"No payout in {format_pct(zero_share, 1)} of {format_number(n)} runs (not drawn)", fill=AXIS)
    return svg.render()


def exceedance_chart(dist: LossDistribution, metrics: RiskMetrics | None, currency: str, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """P(payout > x) on a log scale against the payout x (money), with the 1 % and 0.5 % levels."""
    pts = [(p.loss, p.probability) for p in dist.exceedance if p.probability > 0]
    # Where the curve reaches zero (beyond the largest simulated payout) it drops off the log
    # scale: draw the drop to the bottom edge at that payout.
    drop = next((p.loss for p in dist.exceedance if p.probability == 0 and (not pts or p.loss > pts[-1][0])), None)
    p_min = min([p for _, p in pts] + [0.005])
    y_lo = 10 ** math.floor(math.log10(p_min) + 1e-9)
    y_hi = 1.0
    losses = [p.loss for p in dist.exceedance] + [dist.bin_edges[-1]]
    x_lo, x_hi, x_ticks, x_fmt = _linear_axis_ticks(0, max(losses), 4)
    y_ticks = log_ticks(y_lo, y_hi)
    svg = Svg(width, height, "exceedance-curve", "Exceedance probability of the payout")
    fr = _frame(width, height, [_pct_fmt(t) for t in y_ticks], legend=True)
    sx, sy = Linear(x_lo, x_hi, fr.left, fr.right), Log(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, _pct_fmt, "P(payout > x)")
    _x_axis(svg, fr, [(sx(t), x_fmt(t)) for t in x_ticks], f"Payout x ({currency_symbol(currency)})")
    # Labelled at the left, where the curve is high above them (at the right it ends with
    # the drop past the largest payout).
    for level, name, color in ((0.01, "1% · VaR 99", RED), (0.005, "0.5% · VaR 99.5", ORANGE)):
        y = sy(level)
        svg.line(fr.left, y, fr.right, y, color, 1, "5 3")
        svg.text(fr.left + 4, y - 3 if level == 0.01 else y + TICK_SIZE + 1, name, fill=color)
    # Step curve: P(L > x) is right-continuous and drops at each simulated value.
    step: list[tuple[float, float]] = []
    for i, (x, p) in enumerate(pts):
        step.append((sx(x), sy(p)))
        nxt = pts[i + 1][0] if i + 1 < len(pts) else None
        if nxt is not None:
            step.append((sx(nxt), sy(p)))
    if pts and drop is not None:
        step += [(sx(drop), sy(pts[-1][1])), (sx(drop), sy(y_lo))]
    if pts:
        svg.polyline(step, BLUE, 2)
    items = [Legend("P(payout > x)", BLUE, "line")]
    if metrics is not None:
        items.append(Legend(f"P(attach) {format_pct(metrics.p_attach, 1)}", BLUE, "dot"))
        svg.circle(sx(0), sy(max(metrics.p_attach, y_lo)), 3.5, BLUE)
    svg.legend(items, fr.left, 14, width)
    return svg.render()


def convergence_chart(conv: Convergence, currency: str, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """The running expected-loss estimate (money) with its 95 % interval against N (log)."""
    pts = conv.points
    lows = [p.estimate - p.interval_half_width for p in pts]
    highs = [p.estimate + p.interval_half_width for p in pts]
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(min(lows), max(highs), 5)
    n_lo, n_hi = pts[0].simulations, pts[-1].simulations
    if n_hi == n_lo:
        n_hi = n_lo * 10
    ticks = log_ticks(n_lo, n_hi)
    svg = Svg(width, height, "convergence", "Convergence of the expected loss with the number of simulations")
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True, right_pad=16)
    sx, sy = Log(n_lo, n_hi, fr.left, fr.right), Linear(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Expected loss ({currency_symbol(currency)})")
    _x_axis(svg, fr, [(sx(t), format_number(t)) for t in ticks], "Simulations N (log scale)")
    band = [(sx(p.simulations), sy(h)) for p, h in zip(pts, highs)] + [
        (sx(p.simulations), sy(lo)) for p, lo in reversed(list(zip(pts, lows)))
    ]
    svg.polygon(band, BAND, 0.9)
    final = pts[-1].estimate
    svg.line(fr.left, sy(final), fr.right, sy(final), GREY, 1, "3 3")
    svg.polyline([(sx(p.simulations), sy(p.estimate)) for p in pts], BLUE, 2)
    svg.legend([Legend("EL estimate", BLUE, "line"), Legend("±2 SE", BAND, "band"), Legend("Final", GREY, "dash")], fr.left, 14, width)
    return svg.render()


def monthly_fit_chart(cal: CalibrationFit, unit: str, highlight_month: int | None = None, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """Observed against fitted monthly mean and 10–90 % range of the index (index unit)."""
    rows = sorted(cal.monthly, key=lambda m: m.month)
    vals = [v for m in rows for v in (m.observed_mean, m.fitted_mean, m.observed_p90, m.fitted_p90) if v is not None]
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(0, max(vals) * 1.05, 5)
    svg = Svg(width, height, "monthly-fit", "Observed against fitted index by calendar month")
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True)
    band = Band(12, fr.left, fr.right, padding=0.3)
    sy = Linear(y_lo, y_hi, fr.bottom, fr.top)
    if highlight_month:
        svg.rect(band(highlight_month - 1) - band.step / 2, fr.top, band.step, fr.height, "#f3efe0")
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Index ({unit})")
    _x_axis(svg, fr, [(band(i), MONTHS[i][0] if width < 400 else MONTHS[i]) for i in range(12)], "Calendar month")
    fitted_band = [(band(m.month - 1), m.fitted_p10, m.fitted_p90) for m in rows if m.fitted_p10 is not None and m.fitted_p90 is not None]
    if fitted_band:
        svg.polygon([(x, sy(hi)) for x, _, hi in fitted_band] + [(x, sy(lo)) for x, lo, _ in reversed(fitted_band)], LIGHT_ORANGE, 0.8)
    svg.polyline([(band(m.month - 1), sy(m.fitted_mean)) for m in rows], ORANGE, 2)
    for m in rows:
        x = band(m.month - 1)
        if m.observed_p10 is not None and m.observed_p90 is not None:
            svg.line(x, sy(m.observed_p10), x, sy(m.observed_p90), INK, 1.2)
            svg.line(x - 3, sy(m.observed_p10), x + 3, sy(m.observed_p10), INK, 1.2)
            svg.line(x - 3, sy(m.observed_p90), x + 3, sy(m.observed_p90), INK, 1.2)
        svg.circle(x, sy(m.observed_mean), 3, INK)
    svg.legend([Legend("Observed (10–90%)", INK, "dot"), Legend("Fitted (10–90%)", ORANGE, "line")], fr.left, 14, width)
    return svg.render()


def qq_chart(cal: CalibrationFit, unit: str, width: float = HALF_WIDTH, height: float = 220) -> Chart:
    """Observed against fitted quantiles of the risk-period index (index unit)."""
    qs = cal.quantiles
    vals = [q.observed for q in qs] + [q.fitted for q in qs]
    lo, hi, ticks, fmt = _linear_axis_ticks(min(0.0, min(vals)), max(vals) * 1.05, 5)
    svg = Svg(width, height, "qq-plot", "Observed against fitted quantiles")
    fr = _frame(width, height, [fmt(t) for t in ticks], legend=True)
    sx, sy = Linear(lo, hi, fr.left, fr.right), Linear(lo, hi, fr.bottom, fr.top)
    _y_axis(svg, fr, ticks, sy, fmt, f"Observed quantile ({unit})")
    _x_axis(svg, fr, [(sx(t), fmt(t)) for t in ticks], f"Fitted quantile ({unit})")
    svg.line(sx(lo), sy(lo), sx(hi), sy(hi), GREY, 1, "4 3")
    for q in qs:
        svg.circle(sx(q.fitted), sy(q.observed), 3.2, BLUE)
    svg.legend([Legend("Quantiles 2%–98%", BLUE, "dot"), Legend("Perfect fit", GREY, "dash")], fr.left, 14, width)
    return svg.render()


def _month_label(d: dt.date, first: bool) -> str:
    """"Sep 26" for the first month and each January, "Oct" otherwise."""
    return f"{MONTHS[d.month - 1]}{NBSP}{d:%y}" if first or d.month == 1 else MONTHS[d.month - 1]


def premium_by_line_item_chart(covers: Sequence[QuoteCover], currency: str, width: float = FULL_WIDTH, height: float = 200) -> Chart:
    """Gross premium per line item (money), stacked by index, with expected loss where known."""
    groups: dict[str, list[QuoteCover]] = {}
    for qc in covers:
        groups.setdefault(qc.line_item or qc.cover.risk_period_start.isoformat(), []).append(qc)
    kinds: list[str] = []
    for qc in covers:
        if qc.cover.index_name not in kinds:
            kinds.append(qc.cover.index_name)
    colors = {k: SERIES[i % len(SERIES)] for i, k in enumerate(kinds)}
    totals = [sum(float(qc.premium) for qc in g) for g in groups.values()]
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(0, max(totals) * 1.08, 5)
    svg = Svg(width, height, "premium-by-line-item", "Gross premium per line item")
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True)
    band = Band(len(groups), fr.left, fr.right, padding=0.35)
    sy = Linear(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Premium ({currency_symbol(currency)})")
    ordered = list(groups.values())
    _x_axis(svg, fr, [(band(i), _month_label(g[0].cover.risk_period_start, i == 0)) for i, g in enumerate(ordered)], "Line item (risk period start)")
    has_el = False
    for i, g in enumerate(ordered):
        x, base = band(i), 0.0
        for qc in sorted(g, key=lambda q: kinds.index(q.cover.index_name)):
            top = base + float(qc.premium)
            svg.rect(x - band.width / 2, sy(top), band.width, sy(base) - sy(top), colors[qc.cover.index_name])
            base = top
        el = [qc.expected_loss for qc in g]
        if all(v is not None for v in el):
            has_el = True
            y = sy(sum(float(v) for v in el))  # type: ignore[arg-type]
            svg.line(x - band.width / 2 - 2, y, x + band.width / 2 + 2, y, INK, 2)
    items = [Legend(k, colors[k]) for k in kinds]
    if has_el:
        items.append(Legend("Expected loss", INK, "line"))
    svg.legend(items, fr.left, 14, width)
    return svg.render()


def cover_timeline_chart(line_items: Sequence[PolicyLineItem], width: float = FULL_WIDTH) -> Chart:
    """Risk periods of every cover on a calendar, one row per index, with each trigger."""
    covers = [c for li in line_items for c in li.covers]
    rows: list[tuple[str, str]] = []
    for c in covers:
        key = (c.index_name, c.unit)
        if key not in rows:
            rows.append(key)
    row_labels = [f"{name} ({unit})" for name, unit in rows]
    start = min(c.risk_period_start for c in covers)
    end = max(c.risk_period_end for c in covers)
    row_h, gap = 24, 8
    left = 12 + max(text_width(s, TICK_SIZE) for s in row_labels)
    top = 10
    height = top + len(rows) * (row_h + gap) + 14 + TICK_SIZE + 10
    svg = Svg(width, height, "cover-timeline", "Risk periods and triggers of the covers")
    fr = Frame(left, top, width - 12, top + len(rows) * (row_h + gap))
    days = (end - start).days + 1
    sx = Linear(0, days, fr.left, fr.right)

    def dx(d: dt.date) -> float:
        return sx((d - start).days)

    # Month boundaries as the time axis, each month labelled in its middle.
    month = start.replace(day=1)
    ticks: list[tuple[float, str]] = []
    while month <= end:
        nxt = dt.date(month.year + month.month // 12, month.month % 12 + 1, 1)
        x0 = dx(max(month, start))
        svg.line(x0, fr.top, x0, fr.bottom, GRID, 0.8)
        mid = (x0 + sx((min(nxt, end + dt.timedelta(days=1)) - start).days)) / 2
        ticks.append((mid, _month_label(month, not ticks)))
        month = nxt
    svg.line(fr.right, fr.top, fr.right, fr.bottom, GRID, 0.8)
    svg.line(fr.left, fr.bottom, fr.right, fr.bottom, AXIS, 1)
    for x, label in ticks:
        svg.label(x, fr.bottom + 6 + TICK_SIZE, label, anchor="middle", lo=0, hi=width, fill=AXIS)

    for r, label in enumerate(row_labels):
        y = fr.top + r * (row_h + gap) + gap / 2
        svg.text(fr.left - 8, y + row_h / 2 + TICK_SIZE * 0.35, label, anchor="end")
    for c in covers:
        r = rows.index((c.index_name, c.unit))
        y = fr.top + r * (row_h + gap) + gap / 2
        x0 = dx(c.risk_period_start)
        x1 = sx((c.risk_period_end - start).days + 1)
        color = SERIES[r % len(SERIES)]
        svg.rect(x0 + 1, y, x1 - x0 - 2, row_h, color)
        sign = "≥" if c.direction is Direction.ABOVE else "≤"
        text = f"{sign}{format_number(c.trigger, decimal_places(c.trigger))}"
        if text_width(text, TICK_SIZE) < x1 - x0 - 4:
            svg.text((x0 + x1) / 2, y + row_h / 2 + TICK_SIZE * 0.35, text, anchor="middle", fill="white", weight="bold")
    return svg.render()


def claim_index_chart(data: ClaimReportInput, width: float = FULL_WIDTH, height: float = 220) -> Chart:
    """The index path of a claim: the daily values (bars) and, for a sum, the running total
    (line), against the trigger (and exit)."""
    days = list(data.path)
    unit = data.unit
    daily = [float(d.value) for d in days]
    running = []
    total = 0.0
    for v in daily:
        total += v
        running.append(total)
    shown = running if data.aggregation == "SUM" else daily
    refs = [("Trigger", float(data.trigger), RED)] + ([("Exit", float(data.exit), ORANGE)] if data.exit is not None else [])
    top_value = max(shown + [v for _, v, _ in refs] + [1.0])
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(min(0.0, min(daily, default=0.0)), top_value * 1.05, 5)
    svg = Svg(width, height, "claim-index", f"{data.index_name} over the risk period against the trigger")
    margin = 10 + max(text_width(f"{n} {format_index(Decimal(str(v)), unit)}", TICK_SIZE) for n, v, _ in refs)
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True, right_pad=margin)
    sy = Linear(y_lo, y_hi, fr.bottom, fr.top)
    band = Band(max(1, len(days)), fr.left, fr.right, padding=0.2)
    title = f"{'Running total' if data.aggregation == 'SUM' else 'Daily value'} ({unit})"
    _y_axis(svg, fr, y_ticks, sy, y_fmt, title)
    every = 1 if len(days) <= 10 else 5 if len(days) <= 40 else 10
    _x_axis(svg, fr, [(band(i), f"{d.day.day}") for i, d in enumerate(days) if i % every == 0 or i == len(days) - 1], "Day of the period")
    for i, d in enumerate(days):
        value = float(d.value)
        top = sy(max(value, y_lo))
        svg.rect(band(i) - band.width / 2, top, band.width, sy(max(y_lo, 0.0)) - top, BLUE if d.counted else LIGHT_BLUE)
    if data.aggregation == "SUM" and days:
        for i in range(1, len(days)):
            svg.line(band(i - 1), sy(running[i - 1]), band(i), sy(running[i]), INK, 1.6)
    for name, value, color in refs:
        y = sy(value)
        svg.line(fr.left, y, fr.right, y, color, 1.4, "6 3")
        svg.text(fr.right + 5, y + TICK_SIZE * 0.35, f"{name} {format_index(Decimal(str(value)), unit)}", fill=color)
    items = [Legend("Daily value", LIGHT_BLUE)]
    if data.aggregation == "DAILY_COUNT":
        items = [Legend("Day counted", BLUE), Legend("Day not counted", LIGHT_BLUE)]
    if data.aggregation == "SUM":
        items.append(Legend("Running total", INK))
    items.append(Legend("Trigger", RED, "dash"))
    if data.exit is not None:
        items.append(Legend("Exit", ORANGE, "dash"))
    svg.legend(items, fr.left, 14, width)
    return svg.render()


# --- portfolio risk report ------------------------------------------------------------------------


def money_scale(top: float, currency: str) -> tuple[float, str]:
    """A divisor and an axis unit for a book's amounts, so that tick labels stay short:
    (1e6, "₹ million") for hundreds of millions, (1e3, "₹ thousand") for hundreds of thousands."""
    symbol = currency_symbol(currency)
    if top >= 1e7:
        return 1e6, f"{symbol} million"
    if top >= 1e4:
        return 1e3, f"{symbol} thousand"
    return 1.0, symbol


def return_period_chart(
    points: Sequence[ReturnPeriodLoss], currency: str, name: str, title: str, width: float = HALF_WIDTH,
    height: float = 230,
) -> Chart:
    """An exceedance curve as losses against the return period (years, log scale): the loss
    exceeded once in T years and the TVaR (the mean loss in those years), each point with
    whiskers of ±2 standard errors (money)."""
    tops = [float(p.tvar + 2 * p.tvar_standard_error) for p in points] + [float(p.loss + 2 * p.standard_error) for p in points]
    lows = [float(p.loss - 2 * p.standard_error) for p in points]
    top = max(tops, default=1.0) or 1.0
    div, unit = money_scale(top, currency)
    lo = min(lows, default=0.0)
    # From zero, unless the curve lives high above it: then the differences between return
    # periods (what the chart is for) would be a few pixels.
    floor = 0.0 if lo < 0.4 * top else lo * 0.9
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(floor / div, top * 1.04 / div, 5)
    svg = Svg(width, height, name, title)
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True, right_pad=16)
    periods = [p.return_period for p in points] or [10, 250]
    t_lo, t_hi = min(periods + [10]), max(periods + [250])
    sx, sy = Log(t_lo * 0.9, t_hi * 1.1, fr.left, fr.right), Linear(y_lo, y_hi, fr.bottom, fr.top)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Loss ({unit})")
    ticks = [t for t in (10, 25, 50, 100, 250) if t_lo <= t <= t_hi]
    _x_axis(svg, fr, [(sx(t), str(t)) for t in ticks], "Return period (years, log scale)")
    for t in ticks:
        svg.line(sx(t), fr.top, sx(t), fr.bottom, GRID, 0.8)

    def series(values: Sequence[tuple[int, Decimal, Decimal]], color: str, dash: str | None, shift: float) -> None:
        pts = [(sx(t) + shift, sy(float(v) / div)) for t, v, _ in values]
        for (x, y), (_, v, se) in zip(pts, values):
            if se > 0:
                y0, y1 = sy(float(v - 2 * se) / div), sy(float(v + 2 * se) / div)
                svg.line(x, y0, x, y1, color, 1.2)
                svg.line(x - 3, y0, x + 3, y0, color, 1.2)
                svg.line(x - 3, y1, x + 3, y1, color, 1.2)
        if len(pts) > 1:
            svg.polyline(pts, color, 2, dash)
        for x, y in pts:
            svg.circle(x, y, 2.8, color)

    # TVaR a little to the right, so the whiskers of a flat curve (TVaR = loss) stay apart.
    series([(p.return_period, p.tvar, p.tvar_standard_error) for p in points], ORANGE, "5 3", 2.5)
    series([(p.return_period, p.loss, p.standard_error) for p in points], BLUE, None, -2.5)
    svg.legend([Legend("Loss", BLUE, "line"), Legend("TVaR", ORANGE, "dash"), Legend("±2 SE", INK, "line")],
               fr.left, 14, width)
    return svg.render()


def short_target_name(name: str) -> str:
    """"Bengaluru GPO" of "Bengaluru GPO (pin code 560001), Karnataka": legends have little room."""
    return name.split(" (")[0].split(",")[0].strip() or name


def as_if_years_chart(
    years: Sequence[AsIfYearLoss], names: dict[str, str], currency: str, reference: tuple[str, Decimal] | None = None,
    width: float = FULL_WIDTH, height: float = 230, most_targets: int = 5,
) -> Chart:
    """The worst years of the record applied to today's book (money), worst first, each bar
    split by monitoring target (the targets paying most over these years each a colour, the
    rest together); ``reference`` draws a level across (e.g. the simulated 1-in-100 AEP)."""
    totals: dict[str, Decimal] = {}
    for y in years:
        for target, amount in y.by_target:
            totals[target] = totals.get(target, Decimal(0)) + amount
    ranked = sorted(totals, key=lambda t: (-totals[t], t))
    shown = ranked[:most_targets] if len(ranked) <= most_targets else ranked[: most_targets - 1]
    colors = {t: SERIES[i % len(SERIES)] for i, t in enumerate(shown)}
    others = len(ranked) > len(shown)
    top = max([float(y.loss) for y in years] + ([float(reference[1])] if reference else []) + [1.0])
    div, unit = money_scale(top, currency)
    y_lo, y_hi, y_ticks, y_fmt = _linear_axis_ticks(0, top * 1.12 / div, 5)
    svg = Svg(width, height, "as-if-years", "The worst years of the record applied to today's book, by target")
    items = [Legend(short_target_name(names.get(t, t)), colors[t]) for t in shown]
    if others:
        items.append(Legend(f"{len(ranked) - len(shown)} other targets", LIGHT_GREY))
    if reference:
        items.append(Legend(reference[0], RED, "dash"))
    # The legend in as many rows as it needs (a row never overflows the chart).
    rows: list[list[Legend]] = [[]]
    used = 0.0
    for item in items:
        w = 16 + 5 + text_width(item.label, TICK_SIZE) + 14
        if rows[-1] and used + w - 14 > width - 60:
            rows.append([])
            used = 0.0
        rows[-1].append(item)
        used += w
    fr = _frame(width, height, [y_fmt(t) for t in y_ticks], legend=True)
    fr.top = 10 + 15 * len(rows)
    sy = Linear(y_lo, y_hi, fr.bottom, fr.top)
    band = Band(max(len(years), 1), fr.left, fr.right, padding=0.35, max_width=44)
    _y_axis(svg, fr, y_ticks, sy, y_fmt, f"Loss ({unit})")
    _x_axis(svg, fr, [(band(i), str(y.year)) for i, y in enumerate(years)], "Year of the record (worst first)")
    for i, y in enumerate(years):
        x, base = band(i), 0.0
        parts = [(colors[t], float(a)) for t, a in sorted(y.by_target, key=lambda ta: ranked.index(ta[0])) if t in colors]
        rest = sum(float(a) for t, a in y.by_target if t not in colors)
        if rest:
            parts.append((LIGHT_GREY, rest))
        for color, amount in parts:
            top_ = base + amount
            svg.rect(x - band.width / 2, sy(top_ / div), band.width, sy(base / div) - sy(top_ / div), color)
            base = top_
        # The year's total over its bar; where the reference line would cross it, inside the
        # bar's top in white instead (a person read "46.5" struck through by the line).
        bar_top = sy(float(y.loss) / div)
        label = format_number(float(y.loss) / div, 1)
        crossed = reference is not None and bar_top - 4 - TICK_SIZE - 2 <= sy(float(reference[1]) / div) <= bar_top
        if crossed and sy(0) - bar_top > TICK_SIZE + 6 and text_width(label, TICK_SIZE) < band.width:
            svg.text(x, bar_top + TICK_SIZE + 2, label, anchor="middle", fill="white", weight="bold")
        else:
            svg.text(x, bar_top - 4, label, anchor="middle", fill=AXIS)
    if reference:
        ry = sy(float(reference[1]) / div)
        svg.line(fr.left, ry, fr.right, ry, RED, 1.2, "6 3")
    for r, row in enumerate(rows):
        svg.legend(row, fr.left, 14 + 15 * r, width)
    return svg.render()
