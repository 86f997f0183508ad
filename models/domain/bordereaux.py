"""Monthly bordereaux for the risk carrier (docs/bordereaux.md): the months they cover and the
CSV they are written as, pure (no I/O), so a re-run over the same rows gives the same bytes.

A **month** is a calendar month in UTC, `YYYY-MM`: `[first day 00:00 UTC, first day of the
next month 00:00 UTC)`. The risk bordereau of a month lists the policies **bound** in it
(activated: `policy.activated_at` in the month); the claims bordereau the **payouts** recorded
in it (`payout.created_at` in the month), an adjustment as a row of its own.

The columns are the Lloyd's Coverholder Reporting Standards v5 columns that apply to a
parametric cover (names as the standard spells them), then a few of the service's own,
prefixed `Parametric:`. Money is written from integer minor units as an exact decimal with
the currency's number of places (`1234567` paise: `12345.67`); dates are ISO 8601.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models.domain.dates import month_outside
from models.domain.money import from_minor, minor_units

MONTH_RE = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
KINDS = ("risk", "claims")


class BadMonth(ValueError):
    """A month that is not `YYYY-MM`, before year 2000 or past the service's calendar
    (models/domain/dates.py)."""


def parse_month(text: str) -> dt.date:
    """`YYYY-MM` → the month's first day; BadMonth otherwise."""
    match = MONTH_RE.match(text or "")
    if match is None:
        raise BadMonth("a month is YYYY-MM, e.g. 2026-10")
    year, month = int(match.group(1)), int(match.group(2))
    if year < 2000:
        raise BadMonth("months before 2000 hold no business")
    if why := month_outside(year, month):
        raise BadMonth(why)
    return dt.date(year, month, 1)


def month_text(first: dt.date) -> str:
    return f"{first.year:04d}-{first.month:02d}"


def next_month(first: dt.date) -> dt.date:
    return dt.date(first.year + first.month // 12, first.month % 12 + 1, 1)


def previous_month(day: dt.date) -> dt.date:
    """The first day of the month before `day`'s (the month a run on `day` reports)."""
    first = day.replace(day=1) - dt.timedelta(days=1)
    return first.replace(day=1)


def month_bounds(first: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The month's instants, `[start, end)`, in UTC."""
    utc = dt.timezone.utc
    return (dt.datetime.combine(first, dt.time(0), tzinfo=utc), dt.datetime.combine(next_month(first), dt.time(0), tzinfo=utc))


def month_ended(first: dt.date, now: dt.datetime) -> bool:
    return now >= month_bounds(first)[1]


def money(minor: int, currency: str) -> str:
    """Integer minor units as the exact decimal the currency writes (`-1050` INR: `-10.50`)."""
    places = minor_units(currency)
    return f"{from_minor(minor, currency):.{places}f}"


def cell_text(text: str | None) -> str:
    """A name typed by someone (tenant, insured, target) as a cell: never read as a formula by
    a spreadsheet (OWASP CSV injection: a leading `=`, `+`, `-`, `@`, tab or CR is escaped
    with an apostrophe)."""
    value = (text or "").replace("\r", " ").replace("\n", " ")
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t") else value


def country_of(target_id: str) -> str:
    """The ISO 3166 alpha-2 country of a monitoring target (`IN-12.875N-077.625E`: IN)."""
    head = (target_id or "").split("-", 1)[0]
    return head if len(head) == 2 and head.isalpha() and head.isupper() else ""


# --- columns --------------------------------------------------------------------------------

RISK_COLUMNS: tuple[str, ...] = (
    "Reporting Period (End Date)",
    "Coverholder Name",
    "Insurer",
    "Certificate Reference",
    "Transaction Type",
    "Class of Business",
    "Insured Name",
    "Location of Risk State/Province/County",
    "Location of Risk Country",
    "Risk Inception Date",
    "Risk Expiry Date",
    "Policy Issuance Date",
    "Sum Insured Currency",
    "Sum Insured Amount",
    "Original Currency",
    "Gross Premium Paid this Time",
    "Parametric: Policy Kind",
    "Parametric: External Reference",
    "Parametric: Monitoring Targets",
    "Parametric: Indices",
    "Parametric: Risk Premium",
)

CLAIMS_COLUMNS: tuple[str, ...] = (
    "Reporting Period (End Date)",
    "Coverholder Name",
    "Insurer",
    "Certificate Reference",
    "Claim Reference",
    "Insured Name",
    "Risk Inception Date",
    "Risk Expiry Date",
    "Location of Loss State/Province/County",
    "Location of Loss Country",
    "Date of Loss (From)",
    "Date of Loss (To)",
    "Cause of Loss Code",
    "Loss Description",
    "Date Claim Made",
    "Date Claim Paid",
    "Claim Status",
    "Original Currency",
    "Paid this Month - Indemnity",
    "Previously Paid - Indemnity",
    "Reserve - Indemnity",
    "Total Incurred - Indemnity",
    "Parametric: Payment Kind",
    "Parametric: Monitoring Target",
    "Parametric: Index Value",
    "Parametric: Data Set",
    "Parametric: Revision",
    "Parametric: Simulated",
)

CLASS_OF_BUSINESS = "Parametric weather index"
ORIGINAL_PREMIUM = "Original Premium"  # a bound policy's premium, written once, when bound
CLAIM_CLOSED = "Closed"  # a parametric payout is decided and paid at once: nothing outstanding


@dataclass(frozen=True)
class RiskLine:
    """A policy bound in the month, with what the bordereau says of it."""

    tenant_id: str
    tenant_name: str
    insurer: str
    policy_id: str
    bound_at: dt.datetime
    insured_name: str
    states: str  # "; "-joined, sorted
    countries: str
    inception: dt.date
    expiry: dt.date
    currency: str
    sum_insured_minor: int
    gross_premium_minor: int
    risk_premium_minor: int
    kind: str
    external_ref: str
    targets: str
    indices: str

    def sort_key(self) -> tuple:
        return (self.tenant_name, self.bound_at, self.policy_id)


@dataclass(frozen=True)
class ClaimLine:
    """A payout recorded in the month (a settlement's or an adjustment's)."""

    tenant_id: str
    tenant_name: str
    insurer: str
    policy_id: str
    claim_reference: str  # the settlement key: <policy>:<coverage>:r<revision>
    insured_name: str
    inception: dt.date
    expiry: dt.date
    state: str
    country: str
    loss_from: dt.date
    loss_to: dt.date
    event_type: str
    loss_description: str
    claim_made: dt.date
    paid_at: dt.datetime
    currency: str
    paid_minor: int
    previously_paid_minor: int
    payment_kind: str  # SETTLEMENT | ADJUSTMENT
    target: str
    index_value: str
    data_set: str
    revision: int
    simulated: bool

    def sort_key(self) -> tuple:
        return (self.tenant_name, self.paid_at, self.claim_reference)


def risk_cells(line: RiskLine, period_end: dt.date) -> list[str]:
    return [
        period_end.isoformat(),
        cell_text(line.tenant_name),
        cell_text(line.insurer),
        line.policy_id,
        ORIGINAL_PREMIUM,
        CLASS_OF_BUSINESS,
        cell_text(line.insured_name),
        cell_text(line.states),
        line.countries,
        line.inception.isoformat(),
        line.expiry.isoformat(),
        line.bound_at.astimezone(dt.timezone.utc).date().isoformat(),
        line.currency,
        money(line.sum_insured_minor, line.currency),
        line.currency,
        money(line.gross_premium_minor, line.currency),
        line.kind,
        cell_text(line.external_ref),
        cell_text(line.targets),
        line.indices,
        money(line.risk_premium_minor, line.currency),
    ]


def claim_cells(line: ClaimLine, period_end: dt.date) -> list[str]:
    return [
        period_end.isoformat(),
        cell_text(line.tenant_name),
        cell_text(line.insurer),
        line.policy_id,
        line.claim_reference,
        cell_text(line.insured_name),
        line.inception.isoformat(),
        line.expiry.isoformat(),
        cell_text(line.state),
        line.country,
        line.loss_from.isoformat(),
        line.loss_to.isoformat(),
        line.event_type,
        cell_text(line.loss_description),
        line.claim_made.isoformat(),
        line.paid_at.astimezone(dt.timezone.utc).date().isoformat(),
        CLAIM_CLOSED,
        line.currency,
        money(line.paid_minor, line.currency),
        money(line.previously_paid_minor, line.currency),
        money(0, line.currency),
        money(line.previously_paid_minor + line.paid_minor, line.currency),
        line.payment_kind,
        cell_text(line.target),
        line.index_value,
        line.data_set,
        str(line.revision),
        "true" if line.simulated else "false",
    ]


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[str]]) -> bytes:
    """RFC 4180 CSV, UTF-8 without a byte-order mark, CRLF line ends, a header row; no
    timestamp of its writing (a re-run over the same rows gives the same bytes)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def risk_csv(lines: Iterable[RiskLine], first: dt.date) -> bytes:
    end = next_month(first) - dt.timedelta(days=1)
    return write_csv(RISK_COLUMNS, (risk_cells(line, end) for line in sorted(lines, key=RiskLine.sort_key)))


def claims_csv(lines: Iterable[ClaimLine], first: dt.date) -> bytes:
    end = next_month(first) - dt.timedelta(days=1)
    return write_csv(CLAIMS_COLUMNS, (claim_cells(line, end) for line in sorted(lines, key=ClaimLine.sort_key)))


def for_carrier(content: bytes, carrier: str) -> tuple[bytes, int]:
    """The rows of a produced file whose `Insurer` is `carrier` (a policy whose covers name
    several carriers lists them joined with "; ": it counts for each), written as production
    writes them, and how many: one risk carrier's part of a tenant's bordereau."""
    reader = csv.reader(io.StringIO(content.decode("utf-8"), newline=""))
    header = next(reader)
    column = header.index("Insurer")
    wanted = cell_text(carrier)
    rows = [row for row in reader if wanted in row[column].split("; ")]
    return write_csv(header, rows), len(rows)


def header_only(kind: str) -> bytes:
    """The file of a tenant with nothing in the month."""
    return write_csv(RISK_COLUMNS if kind == "risk" else CLAIMS_COLUMNS, ())


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def totals(lines: Iterable[RiskLine | ClaimLine]) -> dict[str, int]:
    """Per currency: the gross premium (risk) or the amount paid (claims), in minor units."""
    out: dict[str, int] = {}
    for line in lines:
        amount = line.gross_premium_minor if isinstance(line, RiskLine) else line.paid_minor
        out[line.currency] = out.get(line.currency, 0) + amount
    return dict(sorted(out.items()))
