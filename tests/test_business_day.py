"""The sellable window's "today" is India's date from models.clock (review of issue 24,
finding 8), not the host's local date (`dt.date.today()`): two hosts in different time
zones agreed on the window only by chance, and a test could not freeze it. Frozen here at
19:00 UTC on 30 November, which is already 1 December in India: next month is January."""

from __future__ import annotations

import datetime as dt

import pytest

import models.clock
from api.catalogue.service import catalogue_window
from api.catalogue.window import sellable_window
from models.clock import business_today


@pytest.fixture
def indian_midnight_passed(monkeypatch):
    moment = dt.datetime(2026, 11, 30, 19, 0, tzinfo=dt.timezone.utc)  # 00:30 IST on 1 December
    monkeypatch.setattr(models.clock, "utcnow", lambda: moment)
    return moment


def test_the_business_day_is_indias(indian_midnight_passed):
    assert business_today() == dt.date(2026, 12, 1)


def test_the_sellable_window_follows_the_clock_not_the_host(indian_midnight_passed, settings):
    assert sellable_window(24) == (dt.date(2027, 1, 1), dt.date(2028, 12, 31))
    slots = catalogue_window(settings)
    assert min(s.start for s in slots) == dt.date(2027, 1, 1)


def test_the_window_turns_at_indian_midnight(monkeypatch):
    before = dt.datetime(2026, 11, 30, 18, 29, tzinfo=dt.timezone.utc)  # 23:59 IST on 30 November
    monkeypatch.setattr(models.clock, "utcnow", lambda: before)
    assert sellable_window(24)[0] == dt.date(2026, 12, 1)
