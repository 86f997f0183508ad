"""One person, one staff identity (issue 33, section 3).

`parametric staff create` accepted `RT-ACT1-…` (a case variant) and `rt-аct1-…` (a Cyrillic а)
beside `rt-act1-…`, and the look-alike published the run its twin ran; a plain Temporal client
sent the `publish` update with published_by="staff:nobody-forged" and the run was published.
Now a staff member is a person with an e-mail, names and e-mails are unique under case
folding and TR#39's skeleton (in the database), four eyes compare stable staff ids, and every
actor-carrying update takes effect only after an activity has checked the actor against the
staff table."""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
import os
import uuid
from decimal import Decimal

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from api.auth.tenants import StaffExists, create_staff
from models.clock import utcnow
from models.db import observation_revisions as revisions_db
from models.db import pricing as pricing_db
from models.db.tables import ApiClient, ObservationRevision
from models.domain.identity import identity_key
from models.temporal.ids import coverage_pricing_workflow_id
from models.temporal.observations import DECIDE_UPDATE, REVISION_STATUS_QUERY, RevisionDecided, RevisionDecision, RevisionStatus
from models.temporal.pricing import COVERAGE_PRICING_WORKFLOW, PUBLISH_UPDATE, PriceCoverageInput, PricingRunResult, PublishCandidate
from models.temporal.queues import task_queue
from models.temporal.staff import SAME_PERSON, UNKNOWN_ACTOR
from tests.api.test_pricing_publication import catalogue  # noqa: F401 - the module's fixture
from tests.conftest import assert_problem


def _suffix() -> str:
    return uuid.uuid4().hex[:6]


async def test_a_case_variant_or_a_look_alike_of_a_staff_name_is_refused(settings, database):
    tail = _suffix()
    first = await create_staff(f"rt-act1-{tail}", ["actuary"], settings.scope, email=f"act1-{tail}@platform.example")
    assert first.email == f"act1-{tail}@platform.example"
    for twin in (f"RT-ACT1-{tail}", f"rt-\u0430ct1-{tail}", f"rt-actl-{tail}", f"RT-ACTI-{tail}", f" rt-act1-{tail} "):
        with pytest.raises(StaffExists, match="one person has one staff identity|exists"):
            await create_staff(twin, ["actuary"], settings.scope, email=f"other-{_suffix()}@platform.example")
    # The e-mail is the person key: a case variant or a look-alike of it is the same person.
    # A sub-address (RFC 5233 "+tag") reaches the same mailbox: the same person too.
    for twin in (f"ACT1-{tail}@PLATFORM.EXAMPLE", f"\u0430ct1-{tail}@platform.example",
                 f"act1-{tail}+second@platform.example"):
        with pytest.raises(StaffExists, match="one person has one staff identity"):
            await create_staff(f"someone-else-{_suffix()}", ["actuary"], settings.scope, email=twin)
    # Required, and an address.
    for bad in ("", "  ", "no-at-sign", "a@b", "two@@example.com"):
        with pytest.raises(ValueError, match="e-mail"):
            await create_staff(f"nobody-{_suffix()}", ["data"], settings.scope, email=bad)
    # A name with a zero-width character (a format character) is refused as a staff name.
    with pytest.raises(ValueError, match="a staff name cannot contain"):
        await create_staff(f"rt-act1\u200b-{tail}", ["actuary"], settings.scope, email=f"zw-{tail}@platform.example")
    twins = await ApiClient.count().where(ApiClient.name_key == identity_key(f"rt-act1-{tail}"))
    assert twins == 1


async def test_look_alikes_created_at_once_leave_one_staff_member(settings, database):
    """The keys are unique in the database: two look-alike creations at the same moment
    cannot both pass a check-then-insert."""
    tail = _suffix()
    names = [f"twin-{tail}", f"TWIN-{tail}", f"tw\u0456n-{tail}", f"Tw\u0456N-{tail}"]  # Cyrillic і
    outcomes = await asyncio.gather(
        *(create_staff(n, ["data"], settings.scope, email=f"{n.encode('unicode_escape').decode()}-{i}@platform.example")
          for i, n in enumerate(names)),
        return_exceptions=True,
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1, outcomes
    assert all(isinstance(o, StaffExists) for o in outcomes if isinstance(o, BaseException)), outcomes


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "api.cli", *args], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)


def test_the_cli_needs_an_email_and_refuses_a_look_alike(database):
    tail = _suffix()
    missing = _cli("staff", "create", f"cli-staff-{tail}", "--role", "data")
    assert missing.returncode != 0 and "--email" in missing.stderr
    made = _cli("staff", "create", f"cli-staff-{tail}", "--role", "data", "--email", f"cli-{tail}@platform.example")
    assert made.returncode == 0, made.stderr
    twin = _cli("staff", "create", f"CLI-STAFF-{tail}", "--role", "actuary", "--email", f"cli2-{tail}@platform.example")
    assert twin.returncode != 0 and "one person has one staff identity" in twin.stderr, twin.stderr
    listed = _cli("staff", "list")
    assert f'"email": "cli-{tail}@platform.example"' in listed.stdout


# --- the actor of a workflow update is checked against the staff table ---------------------------


async def _candidate(catalogue, service, temporal_env, requested_by: str, requested_by_id: str):  # noqa: F811
    """A candidate rerun of the catalogue's first coverage, as the API starts one; its handle
    and its run path once it waits for a second actuary."""
    coverage = catalogue[0]
    version = await pricing_db.allocate_pricing_run(
        uuid.UUID(coverage["id"]), 1000, 13, Decimal("0.65"), requested_by, "INR"
    )
    handle = await temporal_env.client.start_workflow(
        COVERAGE_PRICING_WORKFLOW,
        PriceCoverageInput(
            coverage_id=uuid.UUID(coverage["id"]), version=version, simulations=1000, seed=13,
            expected_loss_ratio=Decimal("0.65"), requested_by=requested_by, candidate=True,
            candidate_lifetime_seconds=3600, requested_by_id=requested_by_id,
        ),
        id=coverage_pricing_workflow_id(coverage["id"], version),
        task_queue=task_queue(service.task_queue, "pricing"),
    )
    return handle, f"/internal/coverages/{coverage['id']}/pricing-runs/{version}"


async def waiting_for_publication(handle, timeout: float = 300) -> None:
    """Until the workflow's stage is `candidate` (the run row says CANDIDATE a moment before:
    the workflow starts the documents between the two)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while await handle.query("stage") != "candidate":
        assert asyncio.get_running_loop().time() < deadline, await handle.query("stage")
        await asyncio.sleep(0.25)


async def _refused(handle, update: str, argument, result_type) -> ApplicationError:
    with pytest.raises(WorkflowUpdateFailedError) as failed:
        await handle.execute_update(update, argument, result_type=result_type)
    assert isinstance(failed.value.cause, ApplicationError), failed.value
    return failed.value.cause


async def test_a_forged_publisher_sent_by_a_plain_temporal_client_is_refused(
    catalogue, service, temporal_env, actuary, second_actuary  # noqa: F811
):
    arun, bea = actuary.credentials["client_id"], second_actuary.credentials["client_id"]
    handle, run_path = await _candidate(catalogue, service, temporal_env, "staff:arun", arun)
    await waiting_for_publication(handle)

    # Nobody of that name; a real name with another's id; the requester's own id under
    # another actuary's name (four eyes by id); a staff member without the actuary role.
    forged = await _refused(handle, PUBLISH_UPDATE, PublishCandidate(published_by="staff:nobody-forged"), PricingRunResult)
    assert forged.type == UNKNOWN_ACTOR and "nobody-forged" in forged.message
    mismatched = await _refused(
        handle, PUBLISH_UPDATE, PublishCandidate(published_by="staff:bea", published_by_id=str(uuid.uuid4())), PricingRunResult
    )
    assert mismatched.type == UNKNOWN_ACTOR
    by_id = await _refused(
        handle, PUBLISH_UPDATE, PublishCandidate(published_by="staff:bea", published_by_id=arun), PricingRunResult
    )
    assert by_id.type in ("SameActuary", SAME_PERSON)
    assert (await _refused(handle, PUBLISH_UPDATE, PublishCandidate(published_by="staff:dana"), PricingRunResult)).type == UNKNOWN_ACTOR

    # The run is still a candidate, waiting; the real second actuary publishes it.
    assert await handle.query("stage") == "candidate"
    assert (await actuary.get(run_path)).json()["status"] == "CANDIDATE"
    result = await handle.execute_update(
        PUBLISH_UPDATE, PublishCandidate(published_by="staff:bea", published_by_id=bea), result_type=PricingRunResult
    )
    assert result.status == "COMPLETED"
    assert (await actuary.get(run_path)).json()["publishedBy"] == "bea"


async def test_a_twin_made_before_identities_were_unique_cannot_publish_its_twins_run(
    catalogue, service, temporal_env, make_staff, second_actuary  # noqa: F811
):
    """The issue's attack on data made before the unique keys: a look-alike staff row (no
    keys, as the migration found it) publishing the run its twin ran. Four eyes compare the
    person (stable id, or names alike), not the string: 403 from the API, refused by the
    workflow's check too."""
    tail = _suffix()
    original = await make_staff("actuary", name=f"rt-act1-{tail}")
    twin = await make_staff("actuary", name=f"twin-placeholder-{tail}")
    # What the database held before issue 33: the twin's name a Cyrillic look-alike, no keys.
    await ApiClient.update({ApiClient.name: f"rt-\u0430ct1-{tail}", ApiClient.name_key: None, ApiClient.email_key: None}).where(
        ApiClient.id == uuid.UUID(twin.credentials["client_id"])
    )
    handle, run_path = await _candidate(
        catalogue, service, temporal_env, f"staff:rt-act1-{tail}", original.credentials["client_id"]
    )
    await waiting_for_publication(handle)
    refused = assert_problem(await twin.post(f"{run_path}/publish"), 403)
    assert "four eyes" in refused["detail"] or "that staff member" in refused["detail"]
    cause = await _refused(
        handle, PUBLISH_UPDATE,
        PublishCandidate(published_by=f"staff:rt-\u0430ct1-{tail}", published_by_id=twin.credentials["client_id"]),
        PricingRunResult,
    )
    assert cause.type == SAME_PERSON
    assert (await second_actuary.get(run_path)).json()["status"] == "CANDIDATE"
    assert (await second_actuary.post(f"{run_path}/publish")).status_code == 200


async def _held_revision(service, temporal_env, submitted_by: str) -> uuid.UUID:
    from api.settlement.observations import hold_in_temporal
    from models.temporal.observations import held_input

    revision_id = uuid.uuid4()
    day = (utcnow() - dt.timedelta(days=400)).date()
    row = {"monitoringTargetId": "IN-12.875N-077.625E", "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
           "day": day.isoformat(), "hour": None, "value": "12", "source": "IMD", "quality": "GOOD",
           "provisional": False, "simulated": False, "revises": 0, "previousValue": "0",
           "previousQuality": "GOOD", "previousProvisional": False}
    await ObservationRevision.insert(ObservationRevision(
        id=revision_id, state="HELD", submitted_by=submitted_by, reason="issue 33", rows=[row], row_count=1,
        settlements=[], fingerprint=revision_id.hex, created_at=utcnow(),
    ))
    await hold_in_temporal(temporal_env.client, task_queue(service.task_queue, "lifecycle"),
                           held_input(await revisions_db.revision(revision_id)))
    return revision_id


async def test_a_forged_decider_sent_by_a_plain_temporal_client_is_refused(service, temporal_env, data_staff, make_staff):
    from models.temporal.observations import revision_workflow_id

    revision_id = await _held_revision(service, temporal_env, "staff:dana")
    handle = temporal_env.client.get_workflow_handle(revision_workflow_id(revision_id))
    dana = data_staff.credentials["client_id"]
    name = f"data-{_suffix()}"
    other = await make_staff("data", name=name)

    forged = await _refused(handle, DECIDE_UPDATE, RevisionDecision("APPROVED", "staff:nobody-forged", "ok"), RevisionDecided)
    assert forged.type == UNKNOWN_ACTOR
    # The submitter under another data staff member's name: the id they carry is dana's.
    own = await _refused(
        handle, DECIDE_UPDATE, RevisionDecision("APPROVED", f"staff:{name}", "ok", decided_by_id=dana), RevisionDecided
    )
    assert own.type == UNKNOWN_ACTOR
    status = await handle.query(REVISION_STATUS_QUERY, result_type=RevisionStatus)
    assert status.state == "HELD"
    assert (await revisions_db.revision(revision_id))["state"] == "HELD"
    # A real second data staff member decides: the workflow was left as it was.
    r = await other.post(f"/internal/observation-revisions/{revision_id}/refuse", json={"reason": "not ours"})
    assert r.status_code == 200, r.text
    assert (r.json()["state"], r.json()["decidedBy"]) == ("REFUSED", f"staff:{name}")
