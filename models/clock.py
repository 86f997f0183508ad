"""One place for 'now' so stored times are always UTC and timezone-aware."""

import datetime as dt


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
