"""When the simulated feed's final values come (`make dev` only; docs/observations.md, "The
simulated feed"): the simulated real-time product gives a day's provisional value the next
day; the simulated **archive** of a month gives its final values once it is published,
ARCHIVE_LAG_DAYS after the month's end or at once when `parametric demo settle` publishes
it. Publishing is a file named `YYYY-MM` in the archive directory (`var/simulated-archive/`),
as IMD's archive is a file dropped in `IMD_GRID_DIR`: the CLI writes it, the feed reads it.
Pure but for those two file operations."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

# IMD's real archive comes early the next year; the simulated one is shortened so that a
# dev stack sees final values, true-ups and a calibration overlap within weeks.
ARCHIVE_LAG_DAYS = 40
ARCHIVE_DIR = "simulated-archive"  # under PARAMETRIC_VAR_DIR


def month_key(year: int, month: int) -> str:
    return f"{year:04d}-{month:02d}"


def month_end(year: int, month: int) -> dt.date:
    return dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)


def is_published(year: int, month: int, today: dt.date, published: set[str]) -> bool:
    """Whether the month's simulated archive (its final values) is out on `today`."""
    return month_key(year, month) in published or today >= month_end(year, month) + dt.timedelta(days=ARCHIVE_LAG_DAYS)


def published_months(directory: Path | None) -> set[str]:
    """The months published early in `directory` (none when it does not exist)."""
    if directory is None or not directory.is_dir():
        return set()
    return {p.name for p in directory.iterdir() if p.is_file()}


def publish(directory: Path, year: int, month: int) -> None:
    """Publish the month's simulated archive now (idempotent)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / month_key(year, month)).touch()
