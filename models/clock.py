"""One place for 'now' so stored times are always UTC and timezone-aware, and for the
business day every host agrees on (tests freeze both by replacing `utcnow`)."""

import datetime as dt

# The product's business day is India's: its covers are on Indian targets, their months and
# observation days are Indian ones (IMD's day ends 08:30 IST), and a cover sold "from next
# month" starts at an Indian midnight. Every host takes the date here, never its own
# local date, so two hosts (or a host and a test) agree on which month is next.
IST = dt.timezone(dt.timedelta(hours=5, minutes=30), "IST")


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def business_today() -> dt.date:
    """Today's date in India (IST, UTC+05:30), whatever the host's own time zone."""
    return utcnow().astimezone(IST).date()
