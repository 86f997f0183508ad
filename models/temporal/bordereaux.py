"""The Temporal contract of the monthly bordereaux (docs/bordereaux.md): the workflow's and
its activity's inputs and outputs (fields only added, with defaults)."""

from __future__ import annotations

import msgspec

BORDEREAUX_WORKFLOW = "BordereauxWorkflow"
BORDEREAUX_SCHEDULE_ID = "bordereaux-monthly"


def bordereaux_workflow_id(month: str) -> str:
    """A month's run asked for through the API (`bordereaux:2026-10`); a closed run's id is
    taken again by the next request (a re-run), a running one is joined."""
    return f"bordereaux:{month}"


class BordereauxInput(msgspec.Struct, frozen=True):
    # "YYYY-MM"; "" (the Schedule's runs): the month before the run's start, UTC.
    month: str = ""


class BordereauxJob(msgspec.Struct, frozen=True):
    month: str  # "YYYY-MM"
    produced_by: str  # the workflow id, recorded with the files


class BordereauxProduced(msgspec.Struct, frozen=True):
    month: str
    tenants: int  # tenants with a row in either file
    risk_rows: int
    claims_rows: int
    risk_sha256: str  # of the every-tenant files
    claims_sha256: str
