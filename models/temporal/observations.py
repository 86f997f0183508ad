"""Workflow and activity inputs of observation ingestion (fields only added, with defaults)."""

from __future__ import annotations

import datetime as dt

import msgspec

OBSERVATION_INGEST_WORKFLOW = "ObservationIngestWorkflow"
INGEST_SCHEDULE_ID = "observations-daily"


class IngestRunInput(msgspec.Struct, frozen=True):
    providers: list[str]
    lookback_days: int = 10  # late values and revisions of the last days are picked up


class IngestProviderInput(msgspec.Struct, frozen=True):
    provider: str
    today: dt.date  # the run's day (workflow time): values up to the day before
    lookback_days: int = 10
    task_queue: str = ""  # the lifecycle queue the settlement workflows run on


class IngestSummary(msgspec.Struct, frozen=True):
    provider: str
    targets: int
    rows: int
    new: int
    revised: int
    unchanged: int
    settlements_notified: int
    refused: int = 0  # rows the validation refused (the batch was not written)
    detail: str = ""
