"""Render the four documents to PDF bytes.

Each document is HTML from a Jinja2 template in ``templates/`` plus the one stylesheet
``templates/report.css``, laid out by WeasyPrint. The Python side (``*_html``) prepares every
figure, sentence and table row; templates only place them. Charts come from ``charts.py``
as SVG and are embedded as images with their longer labels as HTML text (see ``_chart``).

Rendering is pure: no clock, no network, no file access. The PDF metadata date is the
document's ``issued_at``, so the same input gives the same bytes (useful for checksums and
idempotent storage). WeasyPrint is imported on first use (it costs about 0.7 s), so importing
this package for its input types stays cheap.

Fonts: the stylesheet asks fontconfig for "DejaVu Sans" and "DejaVu Sans Mono" (Debian
``fonts-dejavu-core``); WeasyPrint embeds the subset of glyphs used. Install Debian
``libharfbuzz-subset0`` too: without it WeasyPrint subsets fonts with fontTools, about 0.4 s
slower per document, and the bytes differ from run to run.

Layout choices are driven by WeasyPrint's cost per box and per text line (see
docs/documents.md, "Render time"): fixed table layouts, whole columns as preformatted
lines in the big tables, inline blocks instead of flex or grid.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup, escape

from models.domain.payout import linear_payout_exact, round_payout

from . import charts
from .formatting import (
    currency_symbol,
    decimal_places,
    format_coordinates,
    format_date,
    format_datetime,
    format_index,
    format_money,
    format_number,
    format_pct,
    format_period,
    format_period_short,
    format_probability,
    text_width_em,
)
from .inputs import (
    Approval,
    ClaimReportInput,
    CoverFacts,
    Direction,
    FactSheetInput,
    PolicyScheduleInput,
    PortfolioReportInput,
    QuoteDocumentInput,
    RiskMetrics,
    TechnicalPricingReportInput,
)

if TYPE_CHECKING:
    import weasyprint

__all__ = [
    "MEDIA_TYPE",
    "fact_sheet_html",
    "policy_schedule_html",
    "portfolio_report_html",
    "quote_document_html",
    "render_fact_sheet",
    "render_policy_schedule",
    "render_portfolio_report",
    "render_quote_document",
    "render_technical_pricing_report",
    "technical_pricing_report_html",
]

MEDIA_TYPE = "application/pdf"
TEMPLATES = Path(__file__).with_name("templates")
STYLESHEET = TEMPLATES / "report.css"


# --- Jinja2 and WeasyPrint plumbing ----------------------------------------------------------


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        money=format_money,
        pct=format_pct,
        prob=format_probability,
        num=format_number,
        index=format_index,
        date=format_date,
        period=format_period,
        period_short=format_period_short,
        datetime=format_datetime,
        coords=format_coordinates,
    )
    return env


_local = threading.local()


def _stylesheet() -> weasyprint.CSS:
    # One parsed stylesheet per thread: activities may render on a thread pool, and a parsed
    # CSS object is not documented as safe to share between concurrent renders.
    css = getattr(_local, "css", None)
    if css is None:
        import weasyprint

        css = weasyprint.CSS(string=STYLESHEET.read_text(encoding="utf-8"), url_fetcher=_fetcher())
        _local.css = css
    return css


def _fetcher() -> Any:
    from weasyprint.urls import URLFetcher

    # Documents hold customer-provided text: never let anything in them fetch a URL or a
    # file. Only data: URLs (charts, the table rules) are allowed.
    return URLFetcher(allowed_protocols=("data",))


def _write_pdf(html: str) -> bytes:
    import weasyprint

    document = weasyprint.HTML(string=html, url_fetcher=_fetcher())
    return document.write_pdf(stylesheets=[_stylesheet()])


@dataclass(frozen=True)
class _Doc:
    """What the base template needs: title, header ids, footer line, PDF metadata."""

    kind: str
    title: str
    ids: str
    footer: str
    author: str
    issued_at: dt.datetime

    @property
    def created(self) -> str:
        return self.issued_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _html(template: str, doc: _Doc, **context: Any) -> str:
    return _env().get_template(template).render(doc=doc, **context)


# Distance from the top of a ``line-height: 1`` box to the baseline, in em, for DejaVu Sans
# (ascent 0.928 em, descent 0.236 em, half-leading −0.082 em). Puts an HTML label's baseline
# exactly where the SVG text's baseline would be.
_BASELINE_EM = 0.846
# Width of the box that carries a label: wider than any label, so text-align can anchor it.
_LABEL_BOX = 400.0


# Label typography as classes (see report.css): an inline style is parsed per element,
# and with a hundred labels a page that parsing showed up in the profile.
_ANCHOR_CLASS = {"start": "ls", "middle": "lm", "end": "le"}
_SIZE_CLASS = {charts.TICK_SIZE: "", charts.LABEL_SIZE: " lt"}
_COLOR_CLASS = {
    charts.INK: "",
    charts.AXIS: " ca",
    charts.RED: " cr",
    charts.ORANGE: " co",
    charts.GREY: " cg",
    charts.BLUE: " cb",
    "white": " cw",
}


def _label_html(label: charts.Label) -> Markup:
    top = label.y - _BASELINE_EM * label.size
    left = {"start": label.x, "middle": label.x - _LABEL_BOX / 2, "end": label.x - _LABEL_BOX}[label.anchor]
    classes = _ANCHOR_CLASS[label.anchor] + _SIZE_CLASS.get(label.size, "") + _COLOR_CLASS.get(label.fill, "")
    if label.weight == "bold":
        classes += " lb"
    style = f"left:{left:.1f}px;top:{top:.1f}px"
    if label.size not in _SIZE_CLASS:
        style += f";font-size:{label.size:g}px"
    if label.fill not in _COLOR_CLASS:
        style += f";color:{label.fill}"
    if label.rotate:
        # Rotate about the anchor point, as SVG's rotate(a x y) does.
        style += f";transform-origin:{label.x - left:.1f}px {label.y - top:.1f}px;transform:rotate({label.rotate:g}deg)"
    return Markup('<span class="{}" style="{}">{}</span>').format(classes, style, label.text)


def _chart(chart: charts.Chart) -> Markup:
    """A chart for the PDF: the SVG (shapes, short labels) as an image, the longer labels
    as HTML text on top (see ``charts.Chart``).

    Why not inline ``<svg>``: every SVG element would go through the HTML cascade, and
    WeasyPrint lays out SVG text one glyph at a time; both were most of the render time.
    """
    data = base64.b64encode(chart.image_svg.encode("utf-8")).decode("ascii")
    labels = Markup("").join(_label_html(label) for label in chart.overlay)
    return Markup(
        '<div class="chart" data-chart="{}" style="width:{:g}px;height:{:g}px">'
        '<img alt="{}" src="data:image/svg+xml;base64,{}">{}</div>'
    ).format(chart.name, chart.width, chart.height, chart.title, Markup(data), labels)


@dataclass(frozen=True)
class _Col:
    """A column of a line table: title, width in percent, right-aligned when numeric."""

    title: str
    width: float
    num: bool = False


_PT_TO_MM = 25.4 / 72
_TEXT_COLUMN_MM = 178.0  # A4 minus the 16 mm side margins of report.css


def _fit_columns(
    cols: list[_Col], rows: Sequence[Sequence[object]], font_pt: float, pad_mm: float = 2.0, min_pt: float = 6.2
) -> tuple[list[_Col], float]:
    """Column widths (%) and a font size (pt) such that every value of a line table fits.

    Values cannot wrap in a line table, and terms vary a lot (₹900,000/mm next to ₹75/mm):
    each column gets the width of its widest value (bold lines included); leftover width is
    shared in proportion; when even that does not fit, the font shrinks (not below
    ``min_pt``; past that, the stylesheet cuts values with an ellipsis).
    """
    need_em = []
    for j, col in enumerate(cols):
        widest = max(
            (text_width_em(re.sub(r"<[^>]+>", "", str(row[j])), bold="<b>" in str(row[j])) for row in rows),
            default=0.0,
        )
        title = max((text_width_em(word, bold=True) * 7.4 / font_pt for word in col.title.split()), default=0.0)
        need_em.append(max(widest, title) + 0.3)
    text_mm = sum(need_em) * font_pt * _PT_TO_MM
    room_mm = _TEXT_COLUMN_MM - pad_mm * len(cols)
    if text_mm > room_mm:
        font_pt = max(min_pt, font_pt * room_mm / text_mm)
    need_mm = [e * font_pt * _PT_TO_MM + pad_mm for e in need_em]
    scale = _TEXT_COLUMN_MM / sum(need_mm)
    return [_Col(c.title, round(mm * scale / _TEXT_COLUMN_MM * 100, 2), c.num) for c, mm in zip(cols, need_mm)], round(font_pt, 2)


def _lines(rows: Sequence[Sequence[object]], per_block: int = 40) -> list[list[Markup]]:
    """Rows of a table as blocks of columns: each cell holds one column of up to
    ``per_block`` rows as preformatted lines (``table.lines`` in report.css).

    WeasyPrint spends about as much on each table cell as on a whole paragraph; one text box
    per column instead of one per value made the big tables 5–10 times cheaper. Rows stay
    aligned because every line has the same fixed height; values must fit on one line.
    """
    blocks = []
    for start in range(0, len(rows), per_block):
        chunk = rows[start : start + per_block]
        blocks.append([Markup("\n").join(escape(row[i]) for row in chunk) for i in range(len(chunk[0]))])
    return blocks


def _line_table(cols: list[_Col], rows: Sequence[Sequence[object]], font_pt: float) -> dict[str, Any]:
    """A line table whose every value fits: widths from the values (`_fit_columns`, the font
    shrunk if it must), the rows as blocks (`_lines`). The technical report's tables had fixed
    widths, so a long note was cut ("N = …")."""
    fitted, font = _fit_columns(cols, rows, font_pt)
    return {"cols": fitted, "lines": _lines(rows) if rows else [], "font": font}


# --- shared wording ---------------------------------------------------------------------------


def cover_sentences(cover: CoverFacts) -> dict[str, str]:
    """The cover in plain words, one sentence per question a buyer asks."""
    unit, cur = cover.unit, cover.currency
    above = cover.direction is Direction.ABOVE
    side = "or more" if above else "or less"
    beyond = "above" if above else "below"
    trigger = format_index(cover.trigger, unit)
    days = (cover.risk_period_end - cover.risk_period_start).days + 1
    pays = (
        f"The cover pays when the {cover.index_name.lower()} measured for the risk period is "
        f"{trigger} {side}."
    )
    how = f"At the trigger it pays {format_money(cover.min_payout, cur)}"
    if cover.payout_per_unit > 0:
        how += f", plus {format_money(cover.payout_per_unit, cur)} for every {unit} {beyond} {trigger}"
    how += f", up to the limit of {format_money(cover.limit, cur)}"
    if cover.exit is not None:
        how += f", which is reached at {format_index(cover.exit, unit)} (the exit)"
    how += ". Amounts are per unit of cover; the payout is made without a loss assessment."
    where = cover.monitoring_target_name
    if "°" not in where:  # target names often carry their coordinates already
        where += f", at {format_coordinates(cover.latitude, cover.longitude)}"
    return {
        "where": where,
        "when": f"{format_period(cover.risk_period_start, cover.risk_period_end)} ({days} days, both days included)",
        "what": f"{cover.index_description} ({unit}).",
        "pays": pays,
        "how": how,
    }


def payout_examples(cover: CoverFacts) -> list[tuple[str, str]]:
    """A few index values and what the cover pays for each, by the payout rule itself
    (models/domain/payout.py), rounded as it would be paid."""
    t = cover.trigger
    e = cover.exit
    sign = 1 if cover.direction is Direction.ABOVE else -1
    span = abs(e - t) if e is not None else max(abs(t) * Decimal("0.2"), Decimal(1))
    xs = [t - sign * span / 3, t, t + sign * span / 2]
    xs.append(e if e is not None else t + sign * span)
    places = max(decimal_places(cover.trigger), decimal_places(cover.exit) if cover.exit is not None else 0)
    quantum = Decimal(1).scaleb(-places)
    rows = []
    for x in xs:
        if x < 0 and cover.unit == "mm":
            continue
        x = x.quantize(quantum, rounding=ROUND_HALF_EVEN)
        paid = linear_payout_exact(
            x,
            direction=cover.direction.value,
            trigger=cover.trigger,
            payout_per_unit=cover.payout_per_unit,
            limit=cover.limit,
            min_payout=cover.min_payout,
            exit=cover.exit,
        )
        rows.append((format_index(float(x), cover.unit, places), format_money(round_payout(paid, cover.currency), cover.currency)))
    return rows


def _metric_rows(m: RiskMetrics, currency: str) -> list[tuple[str, str, str]]:
    money = lambda v: format_money(v, currency)  # noqa: E731
    return [
        ("Expected loss (EL)", money(m.expected_loss), "mean simulated payout"),
        ("Standard deviation σ", money(m.standard_deviation), "of the payout"),
        ("Standard error of EL", money(m.standard_error), f"spread of 16 independent batch means / 4, N = {format_number(m.simulations)}"),
        ("P(attach)", format_probability(m.p_attach), "probability of any payout"),
        ("P(exhaust)", format_probability(m.p_exhaust), "probability of the full limit"),
        ("VaR 99%", money(m.var_99), "1-in-100 payout"),
        ("TVaR 99%", money(m.tvar_99), "mean payout beyond VaR 99%"),
        ("VaR 99.5%", money(m.var_995), "1-in-200 payout"),
        ("TVaR 99.5%", money(m.tvar_995), "mean payout beyond VaR 99.5%"),
        *m.checks,
    ]


def _premium_rows(m: RiskMetrics, currency: str) -> list[tuple[str, str, str]]:
    money = lambda v: format_money(v, currency)  # noqa: E731
    if m.premium_parts:
        return [
            *((label, money(value), note) for label, value, note in m.premium_parts),
            ("Gross premium", money(m.gross_premium), ""),
            ("Expected loss ratio", format_pct(m.expected_loss_ratio, 1), "EL / gross premium"),
        ]
    risk_load = m.risk_premium - m.expected_loss
    expense_load = m.gross_premium - m.risk_premium
    return [
        ("Expected loss", money(m.expected_loss), ""),
        ("Risk loading", money(risk_load), format_pct(risk_load / m.expected_loss, 1) + " of EL" if m.expected_loss else ""),
        ("Risk premium", money(m.risk_premium), ""),
        ("Expense and profit loading", money(expense_load), format_pct(expense_load / m.gross_premium, 1) + " of gross" if m.gross_premium else ""),
        ("Gross premium", money(m.gross_premium), ""),
        ("Expected loss ratio", format_pct(m.expected_loss_ratio, 1), "EL / gross premium"),
    ]


def _run_rows(m: RiskMetrics, pricing_version: str | None, approval: Approval | None = None) -> list[tuple[str, str]]:
    rows = [
        ("Simulations N", format_number(m.simulations)),
        ("Seed", str(m.seed)),
        ("Model version", m.model_version),
        ("Data hash", m.data_hash),
    ]
    if approval is not None:
        rows += [("Run by", approval.run_by), ("Published by", approval.published_by or "not yet published (candidate)")]
    if pricing_version:
        rows.insert(0, ("Pricing version", pricing_version))
    return rows


def _terms_rows(cover: CoverFacts) -> list[tuple[str, str]]:
    cur, unit = cover.currency, cover.unit
    rows = [
        ("Monitoring target", f"{cover.monitoring_target_name} ({cover.monitoring_target_id})"),
        ("Location", format_coordinates(cover.latitude, cover.longitude)),
        ("Risk period", format_period(cover.risk_period_start, cover.risk_period_end)),
        ("Index", f"{cover.index_name}: {cover.index_description}"),
        ("Pays when", f"index {'≥' if cover.direction is Direction.ABOVE else '≤'} trigger ({cover.direction.value})"),
        ("Trigger", format_index(cover.trigger, unit)),
        ("Exit", format_index(cover.exit, unit) if cover.exit is not None else "none (payout capped by the limit)"),
        ("Minimum payout", format_money(cover.min_payout, cur)),
        ("Payout per unit", f"{format_money(cover.payout_per_unit, cur)} per {unit}"),
        ("Limit", format_money(cover.limit, cur)),
    ]
    if cover.data_source:
        rows.append(("Data source", cover.data_source))
    return rows


# --- fact sheet -------------------------------------------------------------------------------


def _pin_codes(codes: Sequence[str], shown: int = 6) -> str:
    """"560001, 560002 and 14 more": a grid cell can hold dozens of pin codes."""
    if len(codes) <= shown + 1:
        return ", ".join(codes)
    return f"{', '.join(codes[:shown])} and {len(codes) - shown} more"


def fact_sheet_html(data: FactSheetInput) -> str:
    """The fact sheet as HTML (what ``render_fact_sheet`` lays out)."""
    c = data.cover
    hist = [h for h in data.history if h.index_value is not None]
    paid = [h for h in hist if h.payout > 0]
    years = f"{hist[0].year}–{hist[-1].year}" if hist else ""
    if paid:
        worst = max(paid, key=lambda h: h.payout)
        history_text = (
            f"Over the {len(hist)} years {years}, this cover would have paid in {len(paid)} "
            f"year{'s' if len(paid) != 1 else ''} (about one year in {round(len(hist) / len(paid))}), "
            f"most recently in {paid[-1].year}; the largest payout would have been "
            f"{format_money(worst.payout, c.currency)} in {worst.year}."
        )
    elif hist:
        history_text = f"Over the {len(hist)} years {years}, this cover would not have paid."
    else:
        history_text = "No historical index values are available for this monitoring target."
    footer = [
        data.issuer or c.risk_carrier,
        f"Issued {format_date(data.issued_at.date())}",
        f"Pricing {data.pricing_version}" if data.pricing_version else "",
        "a summary: the policy schedule governs",
    ]
    # Long names take more lines at the top; the charts give the room back, so that the
    # fact sheet stays on one page for the targets and labels the catalogue produces.
    compact = len(c.label) > 40 or len(c.monitoring_target_name) > 40 or len(c.pin_codes) > 8
    # the settlement basis takes two lines: the charts give them back too
    short_charts = compact or c.settlement_ladder is not None
    doc = _Doc(
        kind="fact-sheet",
        title=f"Fact sheet · {c.label}",
        ids=f"Coverage {c.coverage_id}",
        footer=" · ".join(x for x in footer if x),
        author=data.issuer or c.risk_carrier or "",
        issued_at=data.issued_at,
    )
    return _html(
        "fact_sheet.html",
        doc,
        d=data,
        c=c,
        words=cover_sentences(c),
        pin_codes=_pin_codes(c.pin_codes),
        examples=payout_examples(c),
        history_text=history_text,
        compact=compact,
        payout_chart=_chart(charts.payout_curve_chart(c, data.payout_curve, height=170 if short_charts else 185)),
        history_chart=_chart(charts.historical_index_chart(c, data.history, height=150 if short_charts else 165)) if hist else None,
    )


def render_fact_sheet(data: FactSheetInput) -> bytes:
    """The buyer's fact sheet of one cover as PDF bytes (one or two A4 pages)."""
    return _write_pdf(fact_sheet_html(data))


# --- technical pricing report ------------------------------------------------------------------


def _named_value(value: float) -> str:
    """Parameters and statistics: integers as such, small numbers with 4 decimals."""
    if value == int(value) and abs(value) >= 1:
        return format_number(value, 0)
    return format_number(value, 4 if abs(value) < 10 else 2)


_MONO_EM = 0.602  # DejaVu Sans Mono's advance width, em
_BURN_PT = 7.6  # table.burn's font size (report.css)
_BURN_PAD_MM = 6.0  # a burn cell's side padding, both sides (report.css: 0 3mm)


def _burn_groups(line_chars: int, most: int = 3) -> int:
    """How many burn columns fit side by side: each holds a line of ``line_chars`` monospaced
    characters; with the adjusted index a line is 37 characters and three no longer fit (the
    cells cut every payout to an ellipsis and ran the headers together)."""
    per_group_mm = line_chars * _MONO_EM * _BURN_PT * _PT_TO_MM + _BURN_PAD_MM + 0.5
    return max(1, min(most, int(_TEXT_COLUMN_MM // per_group_mm)))


def _burn_table(data: TechnicalPricingReportInput, groups: int = 3, rows: int = 40) -> tuple[list[Markup], list[list[Markup]]]:
    """The burn rows as monospaced lines, years running down side-by-side columns (at most
    ``groups``, as many as fit a line: ``_burn_groups``).

    One line of text per year (year, index, payout aligned by the monospaced font) instead
    of a cell or a line per value: the burn table was half the report's layout work.
    Returns the header cell and the blocks (one table row of as many cells as columns).
    """
    c = data.cover
    adjusted = any(r.adjusted_index_value is not None for r in data.burn_rows)

    def line(year: str, index: str, adj: str, payout: str | Markup) -> Markup:
        cells = [escape(f"{year:<4}"), escape(f"{index:>9}")]
        if adjusted:
            cells.append(escape(f"{adj:>9}"))
        pad = " " * max(0, 9 - len(str(payout)))
        return Markup("  ").join(cells) + Markup("  ") + Markup(pad) + escape(payout)

    head = Markup("\n").join(
        [
            line("Year", "Index", "Adjusted", "Payout"),
            line("", f"({c.unit})", f"({c.unit})", f"({currency_symbol(c.currency)})"),
        ]
    )
    lines = []
    widest = len(line("Year", "Index", "Adjusted", "Payout"))
    for r in data.burn_rows:
        index = format_number(r.index_value, 1) if r.index_value is not None else "n/a"
        adj = format_number(r.adjusted_index_value, 1) if r.adjusted_index_value is not None else "–"
        pay = format_number(r.payout, 0) if r.payout else "–"
        text = line(str(r.year), index, adj, pay)
        widest = max(widest, len(text.unescape()))
        if r.payout:
            # Same advance width in bold: the columns stay aligned.
            text = Markup(str(text)[: -len(str(escape(pay)))]) + Markup('<b class="paid">{}</b>').format(pay)
        lines.append(text)
    groups = _burn_groups(widest, groups)
    blocks = []
    per_block = groups * rows
    for start in range(0, len(lines), per_block):
        chunk = lines[start : start + per_block]
        per_column = -(-len(chunk) // groups)
        blocks.append([Markup("\n").join(chunk[k * per_column : (k + 1) * per_column]) for k in range(groups)])
    return [head] * groups, blocks


def _view_row(v, m, c) -> tuple[str, str, str, str, str]:
    """A burn view's line: its burn against the model's EL and the top of its band."""
    el = float(m.expected_loss / c.limit)
    verdict = "holds the price for an actuary" if v.holds else ("above the EL, within the band" if v.burn_rate > el else "at or below the EL")
    return (
        v.name,
        f"{v.first_year}–{v.last_year}",
        f"{format_pct(Decimal(repr(v.burn_rate)), 1)} ± {format_pct(Decimal(repr(v.burn_se_rate)), 1)}",
        format_pct(Decimal(repr(v.frequency)), 0),
        verdict,
    )


def technical_pricing_report_html(data: TechnicalPricingReportInput) -> str:
    c, m, cur = data.cover, data.metrics, data.cover.currency
    rows = [r for r in data.burn_rows if r.index_value is not None]
    n = len(rows)
    total = sum((r.payout for r in rows), Decimal(0))
    burn_cost = total / n if n else Decimal(0)
    paid = [r for r in rows if r.payout > 0]
    burn = {
        "years": f"{n} years",
        "span": f"{rows[0].year}–{rows[-1].year}" if rows else "no data",
        "paid": f"{len(paid)} ({format_pct(Decimal(len(paid)) / n, 1) if n else '–'})",
        "exhausted": str(sum(1 for r in rows if r.payout >= c.limit)),
        "burn_cost": format_money(burn_cost, cur),
        "burn_pct": format_pct(burn_cost / c.limit, 2),
        "el": format_money(m.expected_loss, cur),
        "ratio": format_pct(m.expected_loss / burn_cost, 0) if burn_cost else "n/a",
        "max": format_money(max((r.payout for r in rows), default=Decimal(0)), cur),
    }
    head, burn_rows = _burn_table(data)
    conv = data.convergence.points
    step = max(1, -(-len(conv) // 6))  # about six rows: the chart shows the whole path
    conv_rows = [p for i, p in enumerate(conv) if i % step == 0 or i == len(conv) - 1]
    doc = _Doc(
        kind="technical",
        title=f"Technical pricing report · {c.label}",
        ids=f"Coverage {c.coverage_id}" + (f" · pricing {data.pricing_version}" if data.pricing_version else ""),
        footer=f"Seed {m.seed} · N = {format_number(m.simulations)} · data {m.data_hash[:19]}… · issued {format_datetime(data.issued_at)}",
        author=c.risk_carrier or "",
        issued_at=data.issued_at,
    )
    return _html(
        "technical_pricing_report.html",
        doc,
        d=data,
        c=c,
        m=m,
        cur=cur,
        terms=_terms_rows(c),
        metrics=_line_table([_Col("Metric (per unit of cover)", 34), _Col("Value", 20, True), _Col("", 4), _Col("Meaning", 42)],
                            [(a, b, "", c) for a, b, c in _metric_rows(m, cur)], 8.0),
        premium_rows=_premium_rows(m, cur),
        run_rows=_run_rows(m, data.pricing_version, data.approval),
        params=_line_table(
            [_Col(f"Parameter or statistic ({c.risk_period_start:%B})", 34), _Col("Value", 20, True), _Col("", 4), _Col("Note", 42)],
            [
                (p.name, _named_value(p.value) + (f" {p.unit}" if p.unit else ""), "", p.note)
                for p in (*data.calibration.parameters, *data.calibration.statistics)
            ],
            8.0,
        ),
        convergence=_line_table(
            [_Col("Simulations N", 25, True), _Col(f"EL estimate ({cur})", 25, True), _Col(f"Standard error ({cur})", 25, True), _Col("SE / EL", 25, True)],
            [
                (format_number(p.simulations), format_number(p.estimate, 2), format_number(p.standard_error, 2), format_pct(p.standard_error / p.estimate, 1) if p.estimate else "–")
                for p in conv_rows
            ],
            8.0,
        ),
        burn=burn,
        burn_head=head,
        burn_rows=burn_rows,
        views=_line_table([_Col("View of the record", 22), _Col("Years", 14), _Col("Burn (% of limit)", 18, True),
                           _Col("Pays in", 12, True), _Col("Against the band", 34)],
                          [_view_row(v, m, c) for v in data.burn_views], 7.6),
        view_intro=(
            "The cover's burn on three views of the record that do not share the model's projection (on the "
            f"scale the model prices), beside the model's expected loss, {format_pct(m.expected_loss / c.limit, 2)} "
            "of the limit"
            + (f", and the top of its parameter band, {format_pct(data.band_high / c.limit, 2)}" if data.band_high is not None else "")
            + ". A view above the band by more than its sampling error (±) holds the price for an actuary."
        ),
        drivers=_line_table(
            [_Col("Driver", 16), _Col(f"EL at 5 % ({cur})", 17, True), _Col(f"EL at 95 % ({cur})", 17, True),
             _Col("Share of variance", 14, True), _Col("How", 36)],
            [
                (d.name, format_number(d.low, 0), format_number(d.high, 0), format_pct(Decimal(repr(d.share)), 0), d.note)
                for d in data.band_drivers
            ],
            7.6,
        ),
        charts={
            "payout": _chart(charts.payout_curve_chart(c, data.payout_curve)),
            "monthly": _chart(charts.monthly_fit_chart(data.calibration, c.unit, c.risk_period_start.month)) if data.calibration.monthly else None,
            "qq": _chart(charts.qq_chart(data.calibration, c.unit)) if data.calibration.quantiles else None,
            "histogram": _chart(charts.loss_histogram_chart(data.loss_distribution, cur)),
            "exceedance": _chart(charts.exceedance_chart(data.loss_distribution, m, cur)),
            "convergence": _chart(charts.convergence_chart(data.convergence, cur)),
        },
    )


def render_technical_pricing_report(data: TechnicalPricingReportInput) -> bytes:
    """The actuary's technical pricing report of one cover as PDF bytes."""
    return _write_pdf(technical_pricing_report_html(data))


# --- quote document -------------------------------------------------------------------------------


def _parties(*parties: tuple[str, Any]) -> list[tuple[str, Any]]:
    return [(role, p) for role, p in parties if p is not None]


def _id_lines(entries: list[tuple[str, str]]) -> Markup:
    """(label, id) pairs as monospaced lines, ids aligned: one text line per entry."""
    width = max((len(label) for label, _ in entries), default=0) + 2
    return Markup("\n").join(escape(f"{label:<{width}}{id_}") for label, id_ in entries)


def _cover_id_entry(cover: CoverFacts) -> tuple[str, str]:
    return f"{format_period_short(cover.risk_period_start, cover.risk_period_end)} · {cover.index_name}", cover.coverage_id


def _contract_money(amount: Decimal, currency: str) -> str:
    """A contract term as the contract holds it: whole rupees without paise, else to the paisa
    (₹1,615.80/mm was printed ₹1,616/mm)."""
    return format_money(amount, currency, 0 if amount == amount.to_integral_value() else 2)


def _terms(cover: CoverFacts, currency: str) -> tuple[str, str, str, str, str]:
    """Trigger, exit, minimum payout, payout per unit, limit of a cover as table cells, exact."""
    return (
        f"{'≥' if cover.direction is Direction.ABOVE else '≤'} {format_index(cover.trigger, cover.unit)}",
        format_index(cover.exit, cover.unit) if cover.exit is not None else "–",
        _contract_money(cover.min_payout, currency),
        f"{_contract_money(cover.payout_per_unit, currency)}/{cover.unit}",
        _contract_money(cover.limit, currency),
    )


def _quantity(q: Decimal) -> str:
    return format_number(q, 0 if q == q.to_integral_value() else 2)


def _quote_cover_rows(data: QuoteDocumentInput) -> list[tuple[str, ...]]:
    """A row per cover; the sum insured is its line item's (its covers pay at most that
    together), shown on the line item's first cover, so the column adds up to the total."""
    rows = []
    previous = None
    previous_item = None
    for i, qc in enumerate(data.covers):
        c = qc.cover
        period = (c.risk_period_start, c.risk_period_end)
        item = qc.line_item if qc.line_item is not None else i
        rows.append(
            (
                format_period_short(*period) if period != previous else "",
                c.index_name,
                *_terms(c, data.currency),
                _quantity(qc.quantity),
                format_money(qc.sum_insured, data.currency, 0) if item != previous_item else "",
                format_money(qc.premium, data.currency),
            )
        )
        previous = period
        previous_item = item
    return rows


def _quote_total_label(data: QuoteDocumentInput) -> str:
    """"Total, 12 line items, 24 covers" (or "Total, 3 covers" when each cover is its own)."""
    n = len(data.covers)
    covers = f"{n} cover{'s' if n != 1 else ''}"
    items = len({qc.line_item if qc.line_item is not None else i for i, qc in enumerate(data.covers)})
    if items == n:
        return f"Total, {covers}"
    return f"Total, {items} line item{'s' if items != 1 else ''}, {covers}"


def quote_document_html(data: QuoteDocumentInput) -> str:
    cur = data.currency
    starts = [qc.cover.risk_period_start for qc in data.covers]
    ends = [qc.cover.risk_period_end for qc in data.covers]
    m = data.pricing.metrics
    doc = _Doc(
        kind="quote",
        title=f"Quote · {data.quote_name}",
        ids=f"Quote {data.quote_id}",
        footer=f"{data.insurer.name} · quote valid until {format_date(data.valid_until)} (UTC) · issued {format_datetime(data.issued_at)}",
        author=data.insurer.name,
        issued_at=data.issued_at,
    )
    dist = data.pricing.loss_distribution
    cover_rows = _quote_cover_rows(data)
    cover_cols, cover_font = _fit_columns(
        [
            _Col("Period", 0), _Col("Cover", 0), _Col("Trigger", 0, True), _Col("Exit", 0, True),
            _Col("Min payout", 0, True), _Col("Per unit of index", 0, True), _Col("Limit / unit", 0, True),
            _Col("Units", 0, True), _Col("Sum insured", 0, True), _Col("Premium", 0, True),
        ],
        cover_rows + [("", _quote_total_label(data), "", "", "", "", "", "", format_money(data.total_sum_insured, cur, 0), format_money(data.gross_premium, cur))],
        7.4,
    )
    return _html(
        "quote_document.html",
        doc,
        d=data,
        cur=cur,
        parties=_parties(("Insurer (risk carrier)", data.insurer), ("Customer", data.customer), ("Intermediary", data.intermediary)),
        period=format_period_short(min(starts), max(ends)),
        closes=format_datetime(data.acceptance_closes_at, data.local_timezone),
        rate=format_pct(data.gross_premium / data.total_sum_insured, 2) if data.total_sum_insured else "n/a",
        targets=sorted({(qc.cover.monitoring_target_name, qc.cover.monitoring_target_id, format_coordinates(qc.cover.latitude, qc.cover.longitude)) for qc in data.covers}),
        metric_cols=[_Col("Total payout of the quote", 58), _Col("Value", 42, True)],
        covers_premium_sum=sum((qc.premium for qc in data.covers), Decimal(0)),
        total_label=_quote_total_label(data),
        metric_lines=_lines([(a, b) for a, b, _ in _metric_rows(m, cur)]),
        premium_rows=_premium_rows(m, cur),
        run_rows=_run_rows(m, None),
        cover_cols=cover_cols,
        cover_font=cover_font,
        cover_lines=_lines(cover_rows),
        coverage_ids=_id_lines([_cover_id_entry(qc.cover) for qc in data.covers]),
        premium_chart=_chart(charts.premium_by_line_item_chart(data.covers, cur)),
        exceedance_chart=_chart(charts.exceedance_chart(dist, m, cur)) if dist else None,
        histogram_chart=_chart(charts.loss_histogram_chart(dist, cur)) if dist else None,
    )


def render_quote_document(data: QuoteDocumentInput) -> bytes:
    """The quote document of a (fast) quote as PDF bytes."""
    return _write_pdf(quote_document_html(data))


# --- policy schedule --------------------------------------------------------------------------------


def _schedule_rows(data: PolicyScheduleInput) -> list[tuple[str | Markup, ...]]:
    """One bold line per line item (units, sum insured per unit, total, premium), then a
    line per cover with its terms; money per unit except max payout and premium."""
    cur = data.currency
    rows: list[tuple[str | Markup, ...]] = []
    for li in data.line_items:
        first = li.covers[0]
        head = f"{format_period_short(first.risk_period_start, first.risk_period_end)} · {_quantity(li.quantity)} units"
        bold = [
            head,
            "",
            "",
            "",
            format_money(li.min_payout, cur, 0) if li.min_payout is not None else "",
            format_money(li.payout_per_unit, cur, 0) if li.payout_per_unit is not None else "",
            format_money(li.sum_insured, cur, 0),
            format_money(li.total_sum_insured, cur, 0),
        ]
        bold.append(format_money(li.premium, cur) if li.premium is not None else "")
        rows.append(tuple(Markup("<b>{}</b>").format(v) if v else "" for v in bold))
        for c in li.covers:
            rows.append(
                (
                    Markup("  {}").format(c.index_name),
                    format_period_short(c.risk_period_start, c.risk_period_end),
                    *_terms(c, cur),
                    format_money(c.limit * li.quantity, cur, 0),
                    format_money(c.gross_premium * li.quantity, cur),
                )
            )
    return rows


@dataclass(frozen=True)
class _Ladder:
    """One source ladder of a schedule and the covers settled on it."""

    data_set: str
    covers: str
    rungs: tuple
    calibration: str
    initial_rule: str


def _settlement_basis(covers: Sequence[CoverFacts]) -> dict[str, Any]:
    """The schedule's "Settlement basis": each distinct ladder once (its covers named), each
    cover's latest first payment and true-up, and the covers sold before the ladder."""
    ladders: dict[tuple, list[CoverFacts]] = {}
    deadlines, final_only = [], []
    for c in covers:
        L = c.settlement_ladder
        if L is None:
            final_only.append(c.index_name)
            continue
        name = f"{c.index_name}, {format_period_short(c.risk_period_start, c.risk_period_end)}"
        ladders.setdefault((L.rungs, L.calibration, L.initial_rule), []).append(c)
        deadlines.append((name, format_date(L.calculation_deadline), format_date(L.true_up_deadline)))
    return {
        "ladders": [
            _Ladder(rungs[0].data_set, ", ".join(sorted({c.index_name for c in cs})), rungs, calibration, rule)
            for (rungs, calibration, rule), cs in ladders.items()
        ],
        "deadline_cols": [_Col("Cover", 46), _Col("First payment at the latest", 27, True),
                          _Col("True-up at the latest", 27, True)],
        "deadline_lines": _lines(deadlines) if deadlines else [],
        "final_only": "; ".join(
            f"{n} {name} cover{'s' if n != 1 else ''}" for name, n in sorted(Counter(final_only).items())
        ),
    }


def policy_schedule_html(data: PolicyScheduleInput) -> str:
    cur = data.currency
    covers = [c for li in data.line_items for c in li.covers]
    targets: dict[str, CoverFacts] = {}
    for c in covers:
        targets.setdefault(c.monitoring_target_id, c)
    schedule_rows = _schedule_rows(data)
    schedule_cols, schedule_font = _fit_columns(
        [
            _Col("Cover", 0), _Col("Risk period", 0), _Col("Trigger", 0, True), _Col("Exit", 0, True),
            _Col("Min payout", 0, True), _Col("Per unit of index", 0, True), _Col("Limit / unit", 0, True),
            _Col("Max payout", 0, True), _Col("Premium", 0, True),
        ],
        schedule_rows,
        7.6,
    )
    doc = _Doc(
        kind="policy",
        title=f"Policy schedule · {data.policy_name}",
        ids=f"Policy {data.policy_id}",
        footer=f"{data.insurer.name} · policy {data.status} · issued {format_datetime(data.issued_at)}",
        author=data.insurer.name,
        issued_at=data.issued_at,
    )
    return _html(
        "policy_schedule.html",
        doc,
        d=data,
        cur=cur,
        parties=_parties(("Policyholder", data.policy_holder), ("Insurer (risk carrier)", data.insurer), ("Intermediary", data.intermediary)),
        activated=format_datetime(data.activated_at, data.local_timezone) if data.activated_at else "not yet activated",
        issued=format_datetime(data.issued_at, data.local_timezone),
        n_covers=len(covers),
        targets=list(targets.values()),
        timeline_chart=_chart(charts.cover_timeline_chart(data.line_items)),
        **_settlement_basis(covers),
        schedule_cols=schedule_cols,
        schedule_font=schedule_font,
        schedule_lines=_lines(schedule_rows),
        identifiers=_id_lines(
            [(f"Line item {li.name}", li.line_item_id) for li in data.line_items]
            + [_cover_id_entry(c) for c in covers]
        ),
    )


def render_policy_schedule(data: PolicyScheduleInput) -> bytes:
    """The policy schedule of an accepted policy as PDF bytes."""
    return _write_pdf(policy_schedule_html(data))


# --- claim report ---------------------------------------------------------------------------------


def claim_report_html(data: ClaimReportInput) -> str:
    doc = _Doc(
        kind="claim",
        title=f"Claim report · {data.policy_name}",
        ids=f"Event {data.event_id}",
        footer=f"Claim report · event {data.event_id} · issued {format_datetime(data.issued_at)}"
        + (" · SIMULATED DATA" if data.simulated else ""),
        author=data.tenant_name,
        issued_at=data.issued_at,
    )
    rows, total = [], Decimal(0)
    for d in data.path:
        total += d.value
        extra = ("yes" if d.counted else "no") if data.aggregation == "DAILY_COUNT" else format_index(total, data.unit)
        rows.append((format_date(d.day), format_index(d.value, data.unit), extra, d.rung.capitalize(), d.source))
    return _html(
        "claim_report.html",
        doc,
        d=data,
        index_value=format_index(data.index_value, "days" if data.aggregation == "DAILY_COUNT" else data.unit),
        trigger=format_index(data.trigger, data.unit),
        exit=format_index(data.exit, data.unit) if data.exit is not None else None,
        chart=_chart(charts.claim_index_chart(data)),
        rows=rows,
    )


def render_claim_report(data: ClaimReportInput) -> bytes:
    """The claim report of one validated parametric event as PDF bytes."""
    return _write_pdf(claim_report_html(data))


# --- portfolio risk report ------------------------------------------------------------------------


def _ratio(part: Decimal, whole: Decimal, places: int = 1) -> str:
    return format_pct(part / whole, places) if whole else "–"


def _curve_rows(points, cur: str) -> list[tuple[str, ...]]:
    return [
        (f"1 in {p.return_period}", format_pct(Decimal(1) / p.return_period, 1), format_money(p.loss, cur),
         format_money(p.standard_error, cur), format_money(p.tvar, cur), format_money(p.tvar_standard_error, cur))
        for p in points
    ]


def _slice_rows(slices, data: PortfolioReportInput, short: bool = False) -> list[tuple[str, ...]]:
    """A target's, month's or peril's totals: line items, insured (and its share of the
    book's), premium, EL, its SE, EL / premium."""
    cur = data.currency
    return [
        (charts.short_target_name(s.name) if short else s.name, format_number(s.line_items), format_money(s.insured, cur),
         _ratio(s.insured, data.insured), format_money(s.premium, cur), format_money(s.expected_loss, cur),
         format_money(s.standard_error, cur), _ratio(s.expected_loss, s.premium))
        for s in slices
    ]


_SLICE_COLS = ("Line items", "Insured", "Share", "Premium", "Expected loss", "SE", "EL / premium")


def _as_if_table(data: PortfolioReportInput, most: int = 4) -> tuple[list[_Col], list[tuple[str, ...]]]:
    """The worst years as a table: year, loss, then a column per target paying most over
    these years (at most ``most``; the rest in one column)."""
    cur = data.currency
    totals: dict[str, Decimal] = {}
    for y in data.as_if_years:
        for t, a in y.by_target:
            totals[t] = totals.get(t, Decimal(0)) + a
    ranked = sorted(totals, key=lambda t: (-totals[t], t))
    shown = ranked if len(ranked) <= most else ranked[: most - 1]
    rest = len(ranked) > len(shown)
    cols = [_Col("Year", 0), _Col("Loss", 0, True), _Col("Of 1-in-100 AEP", 0, True)]
    cols += [_Col(charts.short_target_name(data.target_name(t)), 0, True) for t in shown]
    if rest:
        cols.append(_Col(f"{len(ranked) - len(shown)} other targets", 0, True))
    aep100 = next((p.loss for p in data.aep if p.return_period == 100), None)
    rows = []
    for y in data.as_if_years:
        by = dict(y.by_target)
        row = [str(y.year), format_money(y.loss, cur), _ratio(y.loss, aep100, 0) if aep100 else "–"]
        row += [format_money(by[t], cur) if t in by else "–" for t in shown]
        if rest:
            other = sum((a for t, a in y.by_target if t not in shown), Decimal(0))
            row.append(format_money(other, cur) if other else "–")
        rows.append(tuple(row))
    return cols, rows


def _excluded(data: PortfolioReportInput) -> list[str]:
    """What the figures do not include, in sentences a risk carrier can sign under."""
    out = [
        "Dependence between monitoring targets: the simulation draws each target independently (the pricing model "
        "has no cross-target dependence), so a year that is bad at several targets at once is in the as-if years "
        "of the record, not in the simulated curves.",
    ]
    if data.unrecorded_line_items:
        out.append(
            f"{format_number(data.unrecorded_line_items)} of the {format_number(data.line_items)} line items hold a "
            "cover the historical record has no values for (heat, hourly rainfall): the as-if years leave those "
            "covers out; the simulated figures include them."
        )
    if data.other_currency_policies:
        out.append(
            f"{format_number(data.other_currency_policies)} polic{'y' if data.other_currency_policies == 1 else 'ies'} "
            f"in force in another currency than {data.currency}: counted, not in these figures."
        )
    out += [
        "Policies bound, cancelled or expired after the book was read (as of "
        f"{format_date(data.as_of)}): a later result of the book is a later version.",
        "Line items whose risk period ended before that day, and payouts already made"
        + (": what is still owed on them is the claims reserve above, not in the curves." if data.reserve is not None
           else "."),
        "Expenses, reinsurance, investment income and the currency's movements: the figures are the covers' "
        "payouts under their terms (each line item capped at its sum insured).",
    ]
    return out


def _reserve_rows(data: PortfolioReportInput) -> list[tuple[str, ...]]:
    """The claims reserve by data set and month, then its total."""
    cur = data.currency
    lines = data.reserve or ()
    rows = [(r.data_set, dt.date.fromisoformat(f"{r.month}-01").strftime("%b %Y"), format_number(r.open_covers),
             ", ".join(f"{n} {s}" for s, n in r.by_state), format_money(r.owed, cur), format_money(r.paid, cur),
             format_money(r.owed + r.paid, cur)) for r in lines]
    if lines:
        owed, paid = sum((r.owed for r in lines), Decimal(0)), sum((r.paid for r in lines), Decimal(0))
        rows.append(("Total", "", format_number(sum(r.open_covers for r in lines)), "", format_money(owed, cur),
                     format_money(paid, cur), format_money(owed + paid, cur)))
    return rows


_RESERVE_COLS = (("Data set", False), ("Month", False), ("Open covers", True), ("States", False), ("Owed", True),
                 ("Paid", True), ("Incurred", True))


def _kpi_font(values: list[str], room_mm: float = 36.5, largest_pt: float = 12.0) -> float:
    """The key figures' font size (pt): a book's amounts run to ₹1,194,240,000.00, wider than
    a key-figure box at the other documents' 12 pt."""
    widest = max(text_width_em(v, bold=True) for v in values)
    return round(min(largest_pt, room_mm / (widest * _PT_TO_MM)), 1)


def portfolio_report_html(data: PortfolioReportInput) -> str:
    """The portfolio risk report as HTML (what ``render_portfolio_report`` lays out)."""
    cur = data.currency
    names = {t.key: t.name for t in data.by_target} | dict(data.target_names)
    aep100 = next((p for p in data.aep if p.return_period == 100), None)
    version = f"version {data.version}"
    doc = _Doc(
        kind="portfolio",
        title=f"Portfolio risk report · {data.scope}",
        ids=f"{'Whole book' if data.tenant_id is None else 'Tenant ' + data.tenant_id} · {version}",
        footer=f"{data.issuer} · book {data.book_hash[:12]}… · issued {format_datetime(data.issued_at)}",
        author=data.issuer,
        issued_at=data.issued_at,
    )
    curve_cols = [_Col("Return period", 0), _Col("Probability a year", 0, True), _Col("Loss", 0, True),
                  _Col("SE", 0, True), _Col("TVaR", 0, True), _Col("TVaR SE", 0, True)]
    target_rows = sorted(data.by_target, key=lambda s: (-s.insured, s.key))
    as_if_cols, as_if_rows = _as_if_table(data)
    # The AEP and OEP tables share their column widths (fitted to both), so they read as one.
    aep_rows, oep_rows = _curve_rows(data.aep, cur), _curve_rows(data.oep, cur)
    fitted, font = _fit_columns(curve_cols, aep_rows + oep_rows, 7.8)
    curves = {name: {"cols": fitted, "lines": _lines(rows) if rows else [], "font": font}
              for name, rows in (("aep", aep_rows), ("oep", oep_rows))}
    worst = data.as_if_years[0] if data.as_if_years else None
    record = (f"{data.record_years} years of the record, {data.record_first_year}–{data.record_last_year}"
              if data.record_years else "no years of the record")
    return _html(
        "portfolio_report.html",
        doc,
        d=data,
        cur=cur,
        elr=_ratio(data.expected_loss, data.premium),
        cover_ratio=(f"premium {format_number(data.premium / data.expected_loss, 2)} × the expected loss"
                     if data.expected_loss else "no expected loss"),
        aep100=aep100,
        worst=worst,
        record=record,
        kpi_font=_kpi_font([format_money(v, cur) for v in (data.insured, data.premium, data.expected_loss)]),
        result_rows=[
            ("Scope", data.scope, ""),
            ("Version", str(data.version), f"computed {format_datetime(data.computed_at)}"),
            ("As of", format_date(data.as_of), "in force, risk period not ended"),
            ("Policies", format_number(data.policies), f"{format_number(data.line_items)} line items"),
        ],
        aep=curves["aep"],
        oep=curves["oep"],
        targets=_line_table([_Col("Monitoring target", 0), *(_Col(c, 0, True) for c in _SLICE_COLS)],
                            _slice_rows(target_rows, data, short=True), 7.6),
        target_ids=_id_lines([(s.name, s.key) for s in target_rows]),
        months=_line_table([_Col("Risk month", 0), *(_Col(c, 0, True) for c in _SLICE_COLS)],
                           _slice_rows(data.by_month, data), 7.6),
        perils=_line_table([_Col("Peril", 0), *(_Col(c, 0, True) for c in _SLICE_COLS)],
                           _slice_rows(data.by_peril, data), 7.6),
        as_if=_line_table(as_if_cols, as_if_rows, 7.6),
        reserve=_line_table([_Col(c, 0, right) for c, right in _RESERVE_COLS], _reserve_rows(data), 7.6)
        if data.reserve else None,
        excluded=_excluded(data),
        dependence=data.dependence[:1].upper() + data.dependence[1:],
        occurrence=data.occurrence[:1].upper() + data.occurrence[1:],
        charts={
            "aep": _chart(charts.return_period_chart(data.aep, cur, "aep-curve", "Aggregate exceedance: the year's loss", height=215)) if data.aep else None,
            "oep": _chart(charts.return_period_chart(data.oep, cur, "oep-curve", "Occurrence exceedance: the largest occurrence", height=215)) if data.oep else None,
            "as_if": _chart(charts.as_if_years_chart(
                data.as_if_years, names, cur, ("Simulated 1-in-100 AEP", aep100.loss) if aep100 else None,
            )) if data.as_if_years else None,
        },
    )


def render_portfolio_report(data: PortfolioReportInput) -> bytes:
    """The book's risk for its risk carrier as PDF bytes."""
    return _write_pdf(portfolio_report_html(data))
