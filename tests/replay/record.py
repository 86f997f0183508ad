"""Record the histories the replay tests replay: every workflow type in its main paths.

    .venv/bin/python -m tests.replay.record LABEL [--only NAME ...]

writes `tests/replay/histories/LABEL/<name>.json` (Temporal's JSON history format). Each
scenario drives the workflows as the service does (update-with-start, updates, timers), on a
private database and Temporal servers started from the project's binaries: the time-skipping
server for lifecycles over months, the dev server for the rest.

A label is a snapshot of the code at one commit (`v0`: before issue 9; later labels after
each change to a workflow). Histories are never re-recorded once checked in: they stand for
workflows that were running when that code was deployed, and every later version of the
workflows must replay them (tests/replay/test_replay.py). This script refuses to write a
file that exists, and appends each file it writes to histories/MANIFEST.sha256, against
which tests/replay/test_corpus.py checks every history.

The scenarios import the workflow code of the commit they are recorded at, so this file
changes with the workflows; the recorded files do not. To record an older release's paths,
run this file from a git worktree of that release's commit (docs/workflow-versioning.md,
"The replay corpus", says which histories were recorded how; tests/replay/cross.py records
runs that cross a deploy).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import os
import sys
import tempfile
import uuid
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
# A private database; the pricing pool's spawned processes import this module again and
# must find the same one (they inherit PARAMETRIC_RECORD_VAR_DIR).
os.environ["PARAMETRIC_VAR_DIR"] = os.environ.setdefault("PARAMETRIC_RECORD_VAR_DIR", tempfile.mkdtemp(prefix="parametric-record-"))
os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")


def _binary(name: str) -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `make install`")
    return str(path)


async def _history(client, workflow_id: str):
    return await client.get_workflow_handle(workflow_id).fetch_history()


def _cover(code: str, start: dt.date, end: dt.date, salt: str = ""):
    from models.temporal.quotes import CoverSnapshot

    return CoverSnapshot(
        coverage_id=uuid.uuid5(uuid.NAMESPACE_URL, f"record:{salt}{code}:{start}"),
        index_code=code,
        index_definition_id=uuid.uuid5(uuid.NAMESPACE_URL, code),
        start=start,
        end=end,
        direction="ABOVE" if code == "RAINFALL_MONTHLY_TOTAL" else "BELOW",
        trigger=Decimal("180.5") if code == "RAINFALL_MONTHLY_TOTAL" else Decimal("12.5"),
        exit=None,
        currency="INR",
        limit_minor=10_000_000,
        min_payout_minor=1_000_000,
        payout_per_unit_minor=50_000,
        gross_premium_pct=Decimal("0.015"),
        risk_premium_pct=Decimal("0.01"),
        pricing_version=1,
    )


def quote_draft(tenant_id: str, start: dt.date, months: int, today: dt.date, target: str = "IN-12.875N-077.625E"):
    from models.domain.quotes import build_quote, month_segments
    from models.domain.terms import CoverageSlot

    end = dt.date(start.year + (start.month - 1 + months) // 12, (start.month - 1 + months) % 12 + 1, 1) - dt.timedelta(days=1)
    covers = {
        CoverageSlot(index_code=code, start=s, end=e): _cover(code, s, e, "" if target == "IN-12.875N-077.625E" else target)
        for s, e in month_segments(start, end)
        for code in ("RAINFALL_MONTHLY_TOTAL", "RAINFALL_DEFICIT")
    }
    return build_quote(
        quote_id=uuid.uuid4(),
        line_item_ids=[uuid.uuid4() for _ in month_segments(start, end)],
        tenant_id=tenant_id,
        monitoring_target_id=target,
        start=start,
        end=end,
        currency="INR",
        sum_insured_minor=25_000_000,
        external_ref="record-4711",
        covers_by_slot=covers,
        today=today,
    )


def first_of_month_after(day: dt.date, months: int) -> dt.date:
    index = day.month - 1 + months
    return dt.date(day.year + index // 12, index % 12 + 1, 1)


# --- how the service starts lifecycles (as api/controllers/quotes.py does) -------------------------


def _pairs(pairs):
    from temporalio.common import TypedSearchAttributes

    return TypedSearchAttributes(pairs)


def quote_start(draft, queue: str, package: bool = False):
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy

    from models.domain.lifecycle import day_start
    from models.temporal.ids import quote_workflow_id
    from models.temporal.quotes import QuoteWorkflowInput
    from models.temporal.search_attributes import (
        MONITORING_TARGET_ID,
        QUOTE_STATE,
        RISK_PERIOD_END,
        RISK_PERIOD_START,
        TENANT_ID,
    )
    from workflows.quotes import QuoteWorkflow

    return WithStartWorkflowOperation(
        QuoteWorkflow.run,
        # `package`: as POST /quotes starts it since issue 26 (the package priced before the write)
        QuoteWorkflowInput(draft=draft, lifecycle=2, simulations=2048, seed=20261125, price_package=True)
        if package
        else QuoteWorkflowInput(draft=draft, lifecycle=2),
        id=quote_workflow_id(draft.tenant_id, draft.id),
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
        search_attributes=_pairs(
            [
                SearchAttributePair(TENANT_ID, draft.tenant_id),
                SearchAttributePair(QUOTE_STATE, "CREATED"),
                SearchAttributePair(MONITORING_TARGET_ID, draft.monitoring_target_id),
                SearchAttributePair(RISK_PERIOD_START, day_start(draft.risk_period_from)),
                SearchAttributePair(RISK_PERIOD_END, day_start(draft.risk_period_to + dt.timedelta(days=1))),
            ]
        ),
        static_summary="Quote · Bengaluru Urban · recorded",
    )


def policy_start(draft, queue: str):
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import (
        SearchAttributePair,
        WorkflowIDConflictPolicy,
        WorkflowIDReusePolicy,
    )

    from models.domain.lifecycle import policy_id_for_quote, quote_deadline
    from models.domain.quotes import month_segments
    from models.temporal.ids import policy_workflow_id
    from models.temporal.policies import PolicyWorkflowInput
    from models.temporal.search_attributes import POLICY_STATUS, QUOTE_ID, TENANT_ID
    from workflows.policies import PolicyWorkflow

    policy_id = policy_id_for_quote(draft.id)
    return WithStartWorkflowOperation(
        PolicyWorkflow.run,
        PolicyWorkflowInput(
            tenant_id=draft.tenant_id,
            policy_id=policy_id,
            monitoring_target_id=draft.monitoring_target_id,
            external_ref=draft.external_ref,
            periods=month_segments(draft.risk_period_from, draft.risk_period_to),
            quote_id=draft.id,
            lapse_at=quote_deadline(draft.valid_until, draft.risk_period_from),
        ),
        id=policy_workflow_id(draft.tenant_id, policy_id),
        task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
        search_attributes=_pairs(
            [
                SearchAttributePair(TENANT_ID, draft.tenant_id),
                SearchAttributePair(POLICY_STATUS, "CREATED"),
                SearchAttributePair(QUOTE_ID, str(draft.id)),
            ]
        ),
        static_summary="Policy · Bengaluru Urban · recorded",
    )


async def convert(client, draft, queue: str):
    """PATCH /quotes/{id}: update-with-start on the policy's workflow; returns its handle."""
    from models.domain.lifecycle import policy_id_for_quote
    from models.temporal.ids import policy_workflow_id
    from workflows.policies import PolicyWorkflow

    operation = policy_start(draft, queue)
    await client.execute_update_with_start_workflow(PolicyWorkflow.convert, start_workflow_operation=operation)
    return client.get_workflow_handle(policy_workflow_id(draft.tenant_id, policy_id_for_quote(draft.id)))


# --- scenarios on the dev server ----------------------------------------------------------------


async def candidate_reruns(client, queue: str, coverage_id) -> dict[str, object]:
    """An actuary's reruns (issue 24, four eyes), as the API starts them (on the pricing
    queue): v3 stored as a candidate and published by a second actuary's `publish` update;
    v4 a candidate nobody publishes, which lapses."""
    from temporalio.client import WorkflowUpdateFailedError

    from models.temporal.ids import coverage_pricing_workflow_id
    from models.temporal.pricing import PriceCoverageInput, PublishCandidate, coverage_seed
    from models.temporal.queues import task_queue
    from workflows.pricing import CoveragePricingWorkflow

    async def start(version: int, lifetime: int, requested_by_id: str = ""):
        return await client.start_workflow(
            CoveragePricingWorkflow.run,
            PriceCoverageInput(
                coverage_id=coverage_id, version=version, simulations=8192, seed=coverage_seed(coverage_id),
                expected_loss_ratio=Decimal("0.65"), requested_by="staff:arun", candidate=True,
                candidate_lifetime_seconds=lifetime, requested_by_id=requested_by_id,
            ),
            id=coverage_pricing_workflow_id(coverage_id, version),
            task_queue=task_queue(queue, "pricing"),
        )

    # Since issue 33 the publisher is checked against the staff table (pricing-publisher-checked):
    # the staff exist, and a forged publisher is refused before bea publishes.
    arun = await recording_staff("arun", "actuary")
    bea = await recording_staff("bea", "actuary")
    published = await start(3, 3600, arun)
    for _ in range(1200):
        if await published.query(CoveragePricingWorkflow.stage) == "candidate":
            break
        await asyncio.sleep(0.25)
    try:
        await published.execute_update(CoveragePricingWorkflow.publish, PublishCandidate(published_by="staff:nobody-forged"))
    except WorkflowUpdateFailedError:
        pass
    await published.execute_update(CoveragePricingWorkflow.publish, PublishCandidate(published_by="staff:bea", published_by_id=bea))
    await published.result()
    lapsed = await start(4, 2, arun)
    await lapsed.result()
    history = await _history(client, published.id)
    return {
        "coverage-pricing-published": history,
        "coverage-pricing-publisher-checked": history,
        "coverage-pricing-lapsed": await _history(client, lapsed.id),
    }


async def recording_staff(name: str, role: str) -> str:
    """Staff member NAME with ROLE in the recording's database (made once); their stable id."""
    from api.auth.tenants import StaffExists, create_staff
    from models.db.staff import staff_by_actor

    try:
        return (await create_staff(name, [role], "record", email=f"{name}@record.example")).client_id
    except StaffExists:
        return (await staff_by_actor(f"staff:{name}")).id


async def dev_scenarios(only: set[str] | None) -> dict[str, object]:
    from temporalio.client import WithStartWorkflowOperation, WorkflowUpdateFailedError
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy
    from temporalio.testing import WorkflowEnvironment

    from models.domain.lifecycle import policy_id_for_quote
    from models.domain.terms import CoverageSlot
    from models.temporal.catalogue import CatalogueInput, EnsureCoveragesRequest
    from models.temporal.converter import data_converter
    from models.temporal.ids import (
        business_partner_workflow_id,
        catalogue_workflow_id,
        coverage_documents_workflow_id,
        coverage_pricing_workflow_id,
        policy_schedule_workflow_id,
        policy_workflow_id,
        quote_workflow_id,
    )
    from models.temporal.partners import RegisterBusinessPartnerInput
    from models.temporal.pricing import PriceCoverageInput, coverage_seed
    from models.temporal.search_attributes import (
        MONITORING_TARGET_ID,
        search_attribute_keys,
    )
    from models.wire.internal import NewAddress, NewBusinessPartner
    from workflows.catalogue import CatalogueWorkflow
    from workflows.partners import BusinessPartnerWorkflow
    from workflows.policies import PolicyWorkflow
    from workflows.pricing import CoveragePricingWorkflow
    from workflows.quotes import QuoteWorkflow
    from workflows.worker import Workers

    histories: dict[str, object] = {}
    env = await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        search_attributes=search_attribute_keys(),
        dev_server_existing_path=_binary("temporal"),
        dev_server_extra_args=["--log-level", "error"],
    )
    client = env.client
    queue = f"record-{uuid.uuid4()}"
    today = dt.date.today()
    tenant_id = str(uuid.uuid4())

    def wanted(*names: str) -> bool:
        return only is None or bool(only & set(names))

    async def start_quote(start: dt.date, months: int):
        draft = quote_draft(tenant_id, start, months, today)
        await client.execute_update_with_start_workflow(QuoteWorkflow.created, start_workflow_operation=quote_start(draft, queue))
        return draft, client.get_workflow_handle(quote_workflow_id(draft.tenant_id, draft.id))

    try:
        async with Workers(client, queue, pricing_processes=1):
            start = first_of_month_after(today, 2)
            if wanted("bordereaux", "bordereaux-scheduled"):
                histories.update(await bordereaux_runs(client, queue))
            if wanted("portfolio", "portfolio-report"):
                histories["portfolio"] = await portfolio_run(client, queue)
                if wanted("portfolio-report"):
                    histories["portfolio-report"] = await portfolio_report_run(client, queue)
            if wanted("policy-draft", "policy-accepted", "policy-schedule"):
                draft, handle = await start_quote(start, 12)
                policy = await convert(client, draft, queue)
                histories["policy-draft"] = await _history(client, policy.id)
                await policy.execute_update(PolicyWorkflow.activate)
                schedule = client.get_workflow_handle(policy_schedule_workflow_id(tenant_id, policy.id.rsplit(":", 1)[1]))
                for _ in range(200):
                    try:
                        await asyncio.wait_for(schedule.result(), 1)
                        break
                    except Exception:
                        await asyncio.sleep(0.25)
                histories["policy-schedule"] = await _history(client, schedule.id)
                histories["policy-accepted"] = await _history(client, policy.id)
            if wanted("quote-rejected", "policy-not-created"):
                draft, handle = await start_quote(start, 3)
                await handle.execute_update(QuoteWorkflow.reject)
                await handle.result()
                histories["quote-rejected"] = await _history(client, handle.id)
                try:  # converting a rejected quote: the policy's workflow ends without a policy
                    await convert(client, draft, queue)
                except WorkflowUpdateFailedError:
                    pass
                policy = client.get_workflow_handle(
                    policy_workflow_id(draft.tenant_id, policy_id_for_quote(draft.id))
                )
                await policy.result()
                histories["policy-not-created"] = await _history(client, policy.id)
            if wanted("quote-created"):
                _, handle = await start_quote(start, 3)
                histories["quote-created"] = await _history(client, handle.id)
            if wanted("quote-converted-told"):
                # Issue 29: once PATCH /quotes/{id} has converted the quote, the API tells the
                # quote's workflow (the `converted` signal); it upserts ACCEPTED and PolicyId and
                # ends, its deadline timer cancelled.
                from models.temporal.quotes import CONVERTED_SIGNAL

                draft, handle = await start_quote(start, 3)
                await convert(client, draft, queue)
                await handle.signal(CONVERTED_SIGNAL, str(policy_id_for_quote(draft.id)))
                assert await asyncio.wait_for(handle.result(), 30) == "ACCEPTED"
                histories["quote-converted-told"] = await _history(client, handle.id)
            if wanted("quote-package-priced", "quote-package-cached"):
                # Issue 26: a tenant quote's package priced on the pricing queue (first), then
                # the same package (same covers, a new quote) read from the package-price cache.
                for name in ("quote-package-priced", "quote-package-cached"):
                    draft = quote_draft(tenant_id, start, 3, today)
                    await client.execute_update_with_start_workflow(
                        QuoteWorkflow.created, start_workflow_operation=quote_start(draft, queue, package=True)
                    )
                    histories[name] = await _history(client, quote_workflow_id(draft.tenant_id, draft.id))
            if wanted("quote-book-capital"):
                # Issue 27 (`quote-book-capital`): a tenant quote priced after a whole-book run
                # kept its paths (a policy in force, its run), its package's capital then taken
                # from the book by `price_against_book` on the pricing queue.
                draft, _ = await start_quote(start, 3)
                policy = await convert(client, draft, queue)
                await policy.execute_update(PolicyWorkflow.activate)
                await portfolio_run(client, queue)
                draft = quote_draft(tenant_id, start, 3, today)
                await client.execute_update_with_start_workflow(
                    QuoteWorkflow.created, start_workflow_operation=quote_start(draft, queue, package=True)
                )
                histories["quote-book-capital"] = await _history(client, quote_workflow_id(draft.tenant_id, draft.id))
            if wanted("business-partner"):
                partner_id = uuid.uuid4()
                partner = NewBusinessPartner(
                    name="Record Farmers Co-op",
                    role="POLICY_HOLDER",
                    contact_name="A. Recorder",
                    contact_email_address="ops@record.example",
                    contact_phone_number="+91 80 1234 5678",
                    address=NewAddress(country_code="IN", city="Bengaluru"),
                    tax_status="REGISTERED",
                )
                workflow_id = business_partner_workflow_id(tenant_id, partner_id)
                await client.execute_workflow(
                    BusinessPartnerWorkflow.run,
                    RegisterBusinessPartnerInput(
                        tenant_id=tenant_id, partner_id=partner_id, partner=partner, requested_by="record"
                    ),
                    id=workflow_id,
                    task_queue=queue,
                )
                histories["business-partner"] = await _history(client, workflow_id)
            if wanted("settlement-notice-sweep"):
                from models.temporal.observations import NoticeSweepInput
                from workflows.observations import SettlementNoticeSweepWorkflow

                await client.execute_workflow(
                    SettlementNoticeSweepWorkflow.run, NoticeSweepInput(task_queue=queue, grace_seconds=0),
                    id="settlement-notices-record", task_queue=queue,
                )
                histories["settlement-notice-sweep"] = await _history(client, "settlement-notices-record")
            if wanted("start-sweep"):
                from models.temporal.sweeps import StartSweepInput
                from workflows.start_sweep import StartSweepWorkflow

                await client.execute_workflow(
                    StartSweepWorkflow.run, StartSweepInput(base_queue=queue, grace_seconds=0),
                    id="start-sweep-record", task_queue=queue,
                )
                histories["start-sweep"] = await _history(client, "start-sweep-record")
            if wanted(
                "catalogue", "catalogue-open", "coverage-pricing", "coverage-documents",
                "coverage-pricing-published", "coverage-pricing-lapsed", "quote-fast", "quote-fast-rejected",
                "coverage-pricing-publisher-checked",
            ):
                target = "IN-12.875N-077.625E"
                slot = CoverageSlot(index_code="RAINFALL_MONTHLY_TOTAL", start=start, end=first_of_month_after(start, 1) - dt.timedelta(days=1))
                planned = await client.execute_update_with_start_workflow(
                    CatalogueWorkflow.ensure,
                    EnsureCoveragesRequest(slots=[slot], wait_for_pricing=True),
                    start_workflow_operation=WithStartWorkflowOperation(
                        CatalogueWorkflow.run,
                        CatalogueInput(
                            target_id=target,
                            unit_limit=Decimal("100000"),
                            currency="INR",
                            expected_loss_ratio=Decimal("0.65"),
                            simulations=8192,
                            created_by="record@parametric.example",
                        ),
                        id=catalogue_workflow_id(target),
                        task_queue=queue,
                        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                        search_attributes=_pairs([SearchAttributePair(MONITORING_TARGET_ID, target)]),
                    ),
                )
                coverage_id = planned[0].coverage_id
                # (since catalogue-documents-batch a catalogue's documents have no per-coverage
                # workflow: these three are recorded from worktrees of older commits)
                if wanted("catalogue", "catalogue-open", "coverage-pricing", "coverage-documents"):
                    documents = client.get_workflow_handle(coverage_documents_workflow_id(coverage_id, 1))
                    for _ in range(240):
                        try:
                            await asyncio.wait_for(documents.result(), 1)
                            break
                        except Exception:
                            await asyncio.sleep(0.5)
                    # Version 1 is priced jointly inside the catalogue workflow (since
                    # catalogue-joint-pricing); a reprice (version 2) is a CoveragePricingWorkflow.
                    await client.execute_workflow(
                        CoveragePricingWorkflow.run,
                        PriceCoverageInput(
                            coverage_id=coverage_id,
                            version=2,
                            simulations=8192,
                            seed=coverage_seed(coverage_id),
                            expected_loss_ratio=Decimal("0.65"),
                            requested_by="record@parametric.example",
                        ),
                        id=coverage_pricing_workflow_id(coverage_id, 2),
                        task_queue=queue,
                    )
                    histories["coverage-pricing"] = await _history(client, coverage_pricing_workflow_id(coverage_id, 2))
                    histories["coverage-documents"] = await _history(client, documents.id)
                    histories["catalogue-open"] = await _history(client, catalogue_workflow_id(target))
                if wanted("coverage-pricing-published", "coverage-pricing-lapsed", "coverage-pricing-publisher-checked"):
                    histories.update(await candidate_reruns(client, queue, coverage_id))
                if wanted("quote-fast"):
                    histories["quote-fast"] = await fast_quote(client, queue, tenant_id, coverage_id)
                if wanted("quote-fast-rejected"):
                    histories["quote-fast-rejected"] = await fast_quote_rejected(client, tenant_id, coverage_id)
                if wanted("catalogue"):
                    # The catalogue closes after two idle minutes.
                    await asyncio.wait_for(client.get_workflow_handle(catalogue_workflow_id(target)).result(), 200)
                    histories["catalogue"] = await _history(client, catalogue_workflow_id(target))
            if wanted("catalogue-batched", "catalogue-documents-batch"):
                histories.update(await catalogue_batch(client, queue))
        if wanted("catalogue-joint-pricing", "catalogue-continued", "coverage-pricing-failed", "quote-fast-error"):
            # The service's workers with faults the scenarios switch on and off (FAULTS).
            faulty = f"record-faults-{uuid.uuid4()}"
            overrides = {
                "simulate_coverages": flaky_simulate_coverages,
                "simulate_coverage": flaky_simulate_coverage,
                "price_fast_quote": failing_fast_pricing,
            }
            async with Workers(client, faulty, pricing_processes=0, activity_overrides=overrides):
                histories.update(await faulty_pricing(client, faulty, tenant_id, only))
    finally:
        await env.shutdown()
    return histories


async def bordereaux_runs(client, queue: str) -> dict[str, object]:
    """Issue 27: a month's bordereaux produced on demand (`bordereaux:<month>`, as the API
    starts it) and as the `bordereaux-monthly` Schedule starts it (no month: the month
    before the run's start, from workflow time), on the documents queue."""
    from models.temporal.bordereaux import BORDEREAUX_WORKFLOW, BordereauxInput, bordereaux_workflow_id
    from models.temporal.queues import task_queue

    documents = task_queue(queue, "documents")
    on_demand = await client.start_workflow(
        BORDEREAUX_WORKFLOW, BordereauxInput(month="2024-02"), id=bordereaux_workflow_id("2024-02"), task_queue=documents
    )
    scheduled = await client.start_workflow(
        BORDEREAUX_WORKFLOW, BordereauxInput(), id=f"bordereaux-monthly-{uuid.uuid4()}", task_queue=documents
    )
    await on_demand.result()
    await scheduled.result()
    return {"bordereaux": await on_demand.fetch_history(), "bordereaux-scheduled": await scheduled.fetch_history()}


async def portfolio_run(client, queue: str) -> object:
    """Issue 27: the book's risk computed on the pricing queue, as `GET /internal/portfolio`
    starts it (`portfolio:<scope>:<book hash>`, the day given), over the recording's book."""
    from models.db.portfolio import ALL, book_hash
    from models.temporal.portfolio import PORTFOLIO_WORKFLOW, PortfolioInput, portfolio_workflow_id
    from models.temporal.queues import task_queue

    today = dt.datetime.now(dt.timezone.utc).date()
    handle = await client.start_workflow(
        PORTFOLIO_WORKFLOW, PortfolioInput(as_of=today.isoformat(), paths=1 << 12),
        id=portfolio_workflow_id(ALL, await book_hash(None, today)), task_queue=task_queue(queue, "pricing"),
    )
    await handle.result()
    return await handle.fetch_history()


async def portfolio_report_run(client, queue: str) -> object:
    """Issue 27: the portfolio risk report of the whole book's last result, rendered on the
    documents queue as `GET /internal/portfolio/report.pdf` starts it (on the lifecycle queue,
    `portfolio-report:<scope>:<version>`)."""
    from models.db.portfolio import ALL
    from models.db.portfolio_reports import latest_version
    from models.temporal.portfolio import PORTFOLIO_REPORT_WORKFLOW, PortfolioReportRequest, portfolio_report_workflow_id

    version = await latest_version(ALL)
    handle = await client.start_workflow(
        PORTFOLIO_REPORT_WORKFLOW, PortfolioReportRequest(scope=ALL, version=version, owner_tenant_id=str(uuid.uuid4())),
        id=portfolio_report_workflow_id(ALL, version), task_queue=queue,
    )
    await handle.result()
    return await handle.fetch_history()


from temporalio import activity  # noqa: E402

# The faulty activities' argument types (an activity's parameters are decoded by their hints).
from models.temporal.policies import ConvertToPolicyInput, PolicyStatusInput  # noqa: E402
from models.temporal.pricing import JointSimulationInput, SimulationInput  # noqa: E402
from models.temporal.quotes import FastQuoteJob  # noqa: E402


async def catalogue_batch(client, queue: str) -> dict[str, object]:
    """A target's first catalogue request since `catalogue-documents-batch` (issue 25): its
    new slots priced jointly, then ONE CatalogueDocumentsWorkflow renders the batch's
    documents, a few coverages per activity. `catalogue-documents-batch`: the batch, rendered;
    `catalogue-batched`: the catalogue once the batch has finished (still open)."""
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy

    from api.catalogue.service import MONTHLY_INDEX_CODES
    from models.db.catalogue import target_for_pin
    from models.domain.periods import month_slots
    from models.temporal.catalogue import CatalogueInput, EnsureCoveragesRequest
    from models.temporal.ids import catalogue_workflow_id
    from models.temporal.queues import task_queue
    from models.temporal.search_attributes import MONITORING_TARGET_ID
    from workflows.catalogue import CatalogueWorkflow

    target = await target_for_pin("411001")  # Pune: no other scenario prices it
    slots = month_slots(MONTHLY_INDEX_CODES, dt.date(dt.date.today().year + 1, 6, 1), 2)  # the monsoon's
    planned = await client.execute_update_with_start_workflow(
        CatalogueWorkflow.ensure,
        EnsureCoveragesRequest(slots=slots, wait_for_pricing=True),
        start_workflow_operation=WithStartWorkflowOperation(
            CatalogueWorkflow.run,
            CatalogueInput(
                target_id=target, unit_limit=Decimal("100000"), currency="INR", expected_loss_ratio=Decimal("0.65"),
                simulations=8192, created_by="record@parametric.example",
            ),
            id=catalogue_workflow_id(target),
            task_queue=task_queue(queue, "pricing"),
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            search_attributes=_pairs([SearchAttributePair(MONITORING_TARGET_ID, target)]),
        ),
    )
    priced = [c for c in planned if c.coverage_id is not None]
    assert len(priced) > 4, "more coverages than one render activity takes"
    catalogue = client.get_workflow_handle(catalogue_workflow_id(target))
    for _ in range(240):  # the catalogue's `pricing` query names the batch once started
        batches = {r.documents_workflow_id for r in await catalogue.query(CatalogueWorkflow.pricing)} - {None}
        if batches:
            break
        await asyncio.sleep(0.5)
    batch = client.get_workflow_handle(batches.pop())
    await asyncio.wait_for(batch.result(), 300)
    await asyncio.sleep(1)  # the catalogue's task for the child's completion
    return {"catalogue-documents-batch": await batch.fetch_history(), "catalogue-batched": await catalogue.fetch_history()}


async def fast_quote(client, queue: str, tenant_id: str, coverage_id) -> object:
    """A fast quote over a priced catalogue coverage, as POST /internal/quotes starts it: its
    job priced jointly on the pricing queue, its document rendered, then CREATED."""
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy

    from api.catalogue.service import snapshot
    from models.db import catalogue as catalogue_db
    from models.domain.lifecycle import line_item_ids
    from models.domain.quotes import build_fast_quote
    from models.temporal.ids import quote_workflow_id
    from models.temporal.quotes import QuoteWorkflowInput
    from models.temporal.search_attributes import MONITORING_TARGET_ID, QUOTE_STATE, TENANT_ID
    from workflows.quotes import QuoteWorkflow

    row = await catalogue_db.coverage_row(coverage_id)
    quote_id = uuid.uuid4()
    draft = build_fast_quote(
        quote_id=quote_id, line_item_ids=line_item_ids(quote_id, 1), tenant_id=tenant_id, name="Record fast quote",
        customer_id=uuid.uuid4(), monitoring_target_id=row.monitoring_target_id, covers=[snapshot(row)],
        sum_insured_minor=25_000_000, today=dt.date.today(),
    )
    workflow_id = quote_workflow_id(tenant_id, quote_id)
    await client.execute_update_with_start_workflow(
        QuoteWorkflow.created,
        start_workflow_operation=WithStartWorkflowOperation(
            QuoteWorkflow.run,
            QuoteWorkflowInput(draft=draft, lifecycle=2, simulations=2048, seed=20261125),
            id=workflow_id,
            task_queue=queue,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
            search_attributes=_pairs([
                SearchAttributePair(TENANT_ID, tenant_id),
                SearchAttributePair(QUOTE_STATE, "PENDING"),
                SearchAttributePair(MONITORING_TARGET_ID, row.monitoring_target_id),
            ]),
        ),
    )
    handle = client.get_workflow_handle(workflow_id)
    for _ in range(600):
        if (await handle.query(QuoteWorkflow.status))["status"] in ("CREATED", "ERROR"):
            break
        await asyncio.sleep(0.25)
    assert (await handle.query(QuoteWorkflow.status))["status"] == "CREATED"
    return await handle.fetch_history()


@activity.defn(name="price_fast_quote")
async def held_fast_pricing(job: FastQuoteJob):
    """Marks the quote running, then waits (heartbeating) until its workflow cancels it."""
    from models.clock import utcnow
    from models.db import quotes as quotes_db
    from models.domain.statuses import QuoteStatus
    from models.temporal.quotes import FastQuoteStatusInput

    await quotes_db.set_job_status(
        FastQuoteStatusInput(job.tenant_id, job.quote_id, QuoteStatus.RUNNING, [QuoteStatus.QUEUED], utcnow())
    )
    while True:
        activity.heartbeat()
        await asyncio.sleep(0.2)


async def fast_quote_rejected(client, tenant_id: str, coverage_id) -> object:
    """Issue 29 (`fast-quote-job-rejectable`): a fast quote rejected while its pricing runs
    (held on workers of their own once it has marked the quote running): the rejection is
    written, the job cancelled (its pricing activity cancelled, no document, no completion)
    and the run ends REJECTED."""
    from temporalio.client import WithStartWorkflowOperation
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy

    from api.catalogue.service import snapshot
    from models.db import catalogue as catalogue_db
    from models.db import quotes as quotes_db
    from models.domain.lifecycle import line_item_ids
    from models.domain.quotes import build_fast_quote
    from models.temporal.ids import quote_workflow_id
    from models.temporal.quotes import QuoteWorkflowInput
    from models.temporal.search_attributes import MONITORING_TARGET_ID, QUOTE_STATE, TENANT_ID
    from workflows.quotes import QuoteWorkflow
    from workflows.worker import Workers

    row = await catalogue_db.coverage_row(coverage_id)
    quote_id = uuid.uuid4()
    draft = build_fast_quote(
        quote_id=quote_id, line_item_ids=line_item_ids(quote_id, 1), tenant_id=tenant_id, name="Record rejected fast quote",
        customer_id=uuid.uuid4(), monitoring_target_id=row.monitoring_target_id, covers=[snapshot(row)],
        sum_insured_minor=25_000_000, today=dt.date.today(),
    )
    queue = f"record-held-{uuid.uuid4()}"
    workflow_id = quote_workflow_id(tenant_id, quote_id)
    async with Workers(client, queue, pricing_processes=0, activity_overrides={"price_fast_quote": held_fast_pricing}):
        await client.execute_update_with_start_workflow(
            QuoteWorkflow.created,
            start_workflow_operation=WithStartWorkflowOperation(
                QuoteWorkflow.run,
                QuoteWorkflowInput(draft=draft, lifecycle=2, simulations=2048, seed=20261125),
                id=workflow_id,
                task_queue=queue,
                id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
                search_attributes=_pairs([
                    SearchAttributePair(TENANT_ID, tenant_id),
                    SearchAttributePair(QUOTE_STATE, "PENDING"),
                    SearchAttributePair(MONITORING_TARGET_ID, row.monitoring_target_id),
                ]),
            ),
        )
        for _ in range(240):
            if (await quotes_db.quote_row(tenant_id, quote_id)).status == "RUNNING":
                break
            await asyncio.sleep(0.25)
        handle = client.get_workflow_handle(workflow_id)
        assert await handle.execute_update(QuoteWorkflow.reject) == "REJECTED"
        assert await asyncio.wait_for(handle.result(), 60) == "REJECTED"
        await asyncio.sleep(2)  # the pricing's cancellation reaches the history
    return await handle.fetch_history()


@activity.defn(name="simulate_coverages")
def flaky_simulate_coverages(request: JointSimulationInput):
    from activities.pricing_runs import simulate_coverages

    if FAULTS["pricing"] == "fail":
        raise ValueError("the joint simulation diverged")  # not retried (SIMULATION_RETRY)
    return simulate_coverages(request)


@activity.defn(name="simulate_coverage")
def flaky_simulate_coverage(request: SimulationInput):
    raise ValueError("the simulation diverged")  # not retried (SIMULATION_RETRY)


@activity.defn(name="price_fast_quote")
async def failing_fast_pricing(job: FastQuoteJob):
    from temporalio.exceptions import ApplicationError

    raise ApplicationError("the joint model has no fit for this target", non_retryable=True)


async def faulty_pricing(client, queue: str, tenant_id: str, only: set[str] | None) -> dict[str, object]:
    """On workers whose pricing fails as FAULTS says:
    - a catalogue whose two unpriced coverages are priced jointly (`simulate_coverages`):
      first the simulation fails (the runs FAILED, the request answers an error), the next
      request prices them; then requests until the run continues as new, and the continued
      run, closed after its idle spell;
    - a pricing run whose simulation fails (FAILED, the workflow fails);
    - a fast quote whose pricing fails (ERROR)."""
    from temporalio.client import WithStartWorkflowOperation, WorkflowFailureError, WorkflowUpdateFailedError
    from temporalio.common import SearchAttributePair, WorkflowIDConflictPolicy
    from temporalio.testing import ActivityEnvironment

    from activities.catalogue import propose_coverage_terms
    from api.catalogue.service import snapshot
    from models.db import catalogue as catalogue_db
    from models.domain.lifecycle import line_item_ids
    from models.domain.quotes import build_fast_quote
    from models.domain.terms import CoverageSlot
    from models.temporal.catalogue import CatalogueInput, EnsureCoveragesRequest, ProposeTermsInput
    from models.temporal.ids import catalogue_workflow_id, coverage_pricing_workflow_id, quote_workflow_id
    from models.temporal.pricing import PriceCoverageInput, coverage_seed
    from models.temporal.queues import task_queue
    from models.temporal.quotes import QuoteWorkflowInput
    from models.temporal.search_attributes import MONITORING_TARGET_ID, QUOTE_STATE, TENANT_ID
    from workflows.catalogue import MAX_REQUESTS_PER_RUN, CatalogueWorkflow
    from workflows.pricing import CoveragePricingWorkflow
    from workflows.quotes import QuoteWorkflow

    histories: dict[str, object] = {}
    target = "IN-19.125N-072.875E"
    month = first_of_month_after(dt.date.today(), 3)
    slots = [
        CoverageSlot(index_code="RAINFALL_MONTHLY_TOTAL", start=m, end=first_of_month_after(m, 1) - dt.timedelta(days=1))
        for m in (month, first_of_month_after(month, 1))
    ]
    site = await catalogue_db.site_of(target)
    proposals = ActivityEnvironment().run(
        propose_coverage_terms,
        ProposeTermsInput(site=site, slots=slots, unit_limit=Decimal("100000"), currency="INR", fallbacks=False),
    )
    # Coverages that exist unpriced (as the per-coverage path left them): priced jointly.
    await catalogue_db.create_coverages(site, proposals, "record@parametric.example", "record", Decimal("0.65"), 8192)

    def ensure():
        return client.execute_update_with_start_workflow(
            CatalogueWorkflow.ensure,
            EnsureCoveragesRequest(slots=slots, wait_for_pricing=True),
            start_workflow_operation=WithStartWorkflowOperation(
                CatalogueWorkflow.run,
                CatalogueInput(
                    target_id=target, unit_limit=Decimal("100000"), currency="INR", expected_loss_ratio=Decimal("0.65"),
                    simulations=2048, created_by="record@parametric.example",
                ),
                id=catalogue_workflow_id(target),
                task_queue=task_queue(queue, "pricing"),
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                search_attributes=_pairs([SearchAttributePair(MONITORING_TARGET_ID, target)]),
            ),
        )

    catalogue = client.get_workflow_handle(catalogue_workflow_id(target))
    FAULTS["pricing"] = "fail"
    try:
        await ensure()
        raise AssertionError("the pricing should have failed")
    except WorkflowUpdateFailedError:
        pass
    FAULTS["pricing"] = None
    first_run = (await catalogue.describe()).run_id
    planned = await ensure()
    assert all(c.priced for c in planned)
    for _ in range(MAX_REQUESTS_PER_RUN - 2):
        await ensure()
    for _ in range(240):
        if (await catalogue.describe()).run_id != first_run:
            break
        await asyncio.sleep(0.25)
    histories["catalogue-joint-pricing"] = await client.get_workflow_handle(catalogue.id, run_id=first_run).fetch_history()
    if only is None or "catalogue-continued" in only:
        await asyncio.wait_for(catalogue.result(), 300)  # closes after its idle spell
        histories["catalogue-continued"] = await catalogue.fetch_history()

    coverage_id = planned[0].coverage_id
    failed = await client.start_workflow(
        CoveragePricingWorkflow.run,
        PriceCoverageInput(
            coverage_id=coverage_id, version=2, simulations=2048, seed=coverage_seed(coverage_id),
            expected_loss_ratio=Decimal("0.65"), requested_by="staff:arun",
        ),
        id=coverage_pricing_workflow_id(coverage_id, 2),
        task_queue=task_queue(queue, "pricing"),
    )
    try:
        await failed.result()
        raise AssertionError("the pricing run should have failed")
    except WorkflowFailureError:
        pass
    histories["coverage-pricing-failed"] = await failed.fetch_history()

    row = await catalogue_db.coverage_row(coverage_id)
    quote_id = uuid.uuid4()
    draft = build_fast_quote(
        quote_id=quote_id, line_item_ids=line_item_ids(quote_id, 1), tenant_id=tenant_id, name="Record fast quote",
        customer_id=uuid.uuid4(), monitoring_target_id=target, covers=[snapshot(row)],
        sum_insured_minor=25_000_000, today=dt.date.today(),
    )
    await client.execute_update_with_start_workflow(
        QuoteWorkflow.created,
        start_workflow_operation=WithStartWorkflowOperation(
            QuoteWorkflow.run,
            QuoteWorkflowInput(draft=draft, lifecycle=2, simulations=2048, seed=20261125),
            id=quote_workflow_id(tenant_id, quote_id),
            task_queue=queue,
            id_conflict_policy=WorkflowIDConflictPolicy.FAIL,
            search_attributes=_pairs([
                SearchAttributePair(TENANT_ID, tenant_id),
                SearchAttributePair(QUOTE_STATE, "PENDING"),
                SearchAttributePair(MONITORING_TARGET_ID, target),
            ]),
        ),
    )
    quote = client.get_workflow_handle(quote_workflow_id(tenant_id, quote_id))
    assert await asyncio.wait_for(quote.result(), 120) == "ERROR"
    histories["quote-fast-error"] = await quote.fetch_history()
    return histories


# --- scenarios on the time-skipping server ------------------------------------------------------

from temporalio import workflow  # noqa: E402


@workflow.defn(sandboxed=False)
class RecordClockWorkflow:
    """Only a timer: the time-skipping server skips from timer to timer."""

    @workflow.run
    async def run(self, seconds: float) -> None:
        await workflow.sleep(seconds)


# --- faults the scenarios inject (the service's activities, failing while a scenario says) -------

FAULTS: dict[str, str | None] = {"conversion": None, "status": None, "pricing": None}


@activity.defn(name="convert_to_policy")
async def flaky_conversion(command: ConvertToPolicyInput):
    """`fail`: the database refuses; `commit-then-fail`: the write commits but its answer
    is lost (the request gives up; the policy's workflow finds the draft at the deadline)."""
    from activities.policies import convert_to_policy

    if FAULTS["conversion"] == "fail":
        raise RuntimeError("database unreachable")
    outcome = await convert_to_policy(command)
    if FAULTS["conversion"] == "commit-then-fail":
        raise RuntimeError("connection lost after the commit")
    return outcome


@activity.defn(name="set_policy_status")
async def flaky_status_write(command: PolicyStatusInput):
    """Refuses the write to the status FAULTS["status"] names."""
    from activities.policies import set_policy_status

    if FAULTS["status"] is not None and command.to_status == FAULTS["status"]:
        raise RuntimeError("database unreachable")
    return await set_policy_status(command)


async def skipping_scenarios(only: set[str] | None) -> dict[str, object]:
    from temporalio.api.enums.v1 import IndexedValueType
    from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
    from temporalio.testing import WorkflowEnvironment
    from temporalio.worker import Worker

    from models.db import quotes as quotes_db
    from models.domain.lifecycle import quote_deadline
    from models.temporal.converter import data_converter
    from models.temporal.ids import policy_schedule_workflow_id, quote_workflow_id
    from models.temporal.search_attributes import SEARCH_ATTRIBUTES
    from workflows.policies import PolicyWorkflow
    from workflows.quotes import QuoteWorkflow
    from workflows.worker import Workers

    indexed = {"Keyword": IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Datetime": IndexedValueType.INDEXED_VALUE_TYPE_DATETIME, "Text": IndexedValueType.INDEXED_VALUE_TYPE_TEXT}
    histories: dict[str, object] = {}

    def wanted(*names: str) -> bool:
        return only is None or bool(only & set(names))

    async def fresh_env():
        env = await WorkflowEnvironment.start_time_skipping(
            test_server_existing_path=_binary("temporal-test-server"), data_converter=data_converter
        )
        await env.client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(
                namespace=env.client.namespace,
                search_attributes={n: indexed[kind] for n, kind in SEARCH_ATTRIBUTES.items()},
            )
        )
        return env

    async def advance(env, queue: str, delta: dt.timedelta) -> None:
        await env.client.start_workflow(
            RecordClockWorkflow.run, delta.total_seconds(), id=f"clock-{uuid.uuid4()}", task_queue=f"{queue}-clock"
        )
        await env.sleep(delta)

    async def draft_policy(env, queue: str, start: dt.date, months: int):
        """A quote in the database and its policy's workflow after the conversion (the quote's
        own workflow is left out: the test server stops skipping time for a parent whose
        child outlives it, and the quote's side is recorded on the dev server)."""
        draft = quote_draft(str(uuid.uuid4()), start, months, dt.date.today())
        await quotes_db.insert_quote(draft)
        with env.auto_time_skipping_disabled():
            handle = await convert(env.client, draft, queue)
        return draft, handle

    async def schedule_done(env, draft, handle) -> None:
        """The schedule's own workflow closed (the activate update can answer before the
        policy's run loop has started it: "not found" until then)."""
        from temporalio.service import RPCError, RPCStatusCode

        with env.auto_time_skipping_disabled():
            policy_id = handle.id.rsplit(":", 1)[1]
            schedule = env.client.get_workflow_handle(policy_schedule_workflow_id(draft.tenant_id, policy_id))
            for _ in range(200):
                try:
                    await schedule.describe()
                    break
                except RPCError as err:
                    if err.status != RPCStatusCode.NOT_FOUND:
                        raise
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(schedule.result(), 60)

    async def run(names: tuple[str, ...], body, overrides: dict | None = None) -> None:
        if not wanted(*names):
            return
        env = await fresh_env()
        queue = f"record-{uuid.uuid4()}"
        try:
            async with Workers(env.client, queue, pricing_processes=0, activity_overrides=overrides), Worker(
                env.client, task_queue=f"{queue}-clock", workflows=[RecordClockWorkflow]
            ):
                histories.update(await body(env, queue))
        finally:
            await env.shutdown()

    today = dt.date.today()
    start = first_of_month_after(today, 2)

    async def lived(env, queue):
        draft, handle = await draft_policy(env, queue, start, 3)
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
        await advance(env, queue, start_at - await env.get_current_time() + dt.timedelta(days=20))
        out = {"policy-active": await handle.fetch_history()}
        await handle.terminate("recorded")  # no observations: it would wait for settlement
        return out

    async def cancelled(env, queue):
        draft, handle = await draft_policy(env, queue, start, 3)
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
        await advance(env, queue, start_at - await env.get_current_time() + dt.timedelta(days=5))
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.cancel)
        assert await asyncio.wait_for(handle.result(), 60) == "CANCELED"
        return {"policy-cancelled": await handle.fetch_history()}

    async def lapsed(env, queue):
        draft, handle = await draft_policy(env, queue, start, 3)
        lapse_at = quote_deadline(draft.valid_until, draft.risk_period_from)
        await advance(env, queue, lapse_at - await env.get_current_time() + dt.timedelta(hours=1))
        assert await asyncio.wait_for(handle.result(), 60) == "LAPSED"
        return {"policy-lapsed": await handle.fetch_history()}

    async def converted_quote(env, queue):
        """A quote converted by its policy's workflow learns of it at its deadline."""
        draft = quote_draft(str(uuid.uuid4()), start, 3, today)
        with env.auto_time_skipping_disabled():
            await env.client.execute_update_with_start_workflow(
                QuoteWorkflow.created, start_workflow_operation=quote_start(draft, queue)
            )
            policy = await convert(env.client, draft, queue)
        handle = env.client.get_workflow_handle(quote_workflow_id(draft.tenant_id, draft.id))
        await advance(env, queue, dt.timedelta(days=40))
        assert await asyncio.wait_for(handle.result(), 60) == "ACCEPTED"
        assert await asyncio.wait_for(policy.result(), 60) == "LAPSED"  # the same deadline
        return {"quote-converted": await handle.fetch_history()}

    async def expired_quote(env, queue):
        draft = quote_draft(str(uuid.uuid4()), start, 3, today)
        with env.auto_time_skipping_disabled():
            await env.client.execute_update_with_start_workflow(
                QuoteWorkflow.created, start_workflow_operation=quote_start(draft, queue)
            )
        handle = env.client.get_workflow_handle(quote_workflow_id(draft.tenant_id, draft.id))
        await advance(env, queue, dt.timedelta(days=40))
        assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
        return {"quote-expired": await handle.fetch_history()}

    async def fresh_target_policy(env, queue, months: int, missing_days: int = 0, ladder: bool = False):
        """A converted, activated policy of `months` months at a target no other recording
        holds coverages at (its coverages written as the catalogue would), the daily
        rainfall of its period stored (7 mm a day) but for the first `missing_days` days;
        `ladder` (issue 34): the coverages have their settlement basis and the values are
        IMD's provisional ones; returns (draft, policy handle)."""
        from models.domain.settlement_basis import basis_for, encode_basis
        from models.clock import utcnow
        from models.db import observations as observations_db
        from models.db.tables import Coverage, MonitoringTarget
        from models.domain.index_catalog import BY_CODE
        from models.domain.observations import ObservationIn

        used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
        target = next(r["id"] for r in await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id) if r["id"] not in used)
        draft = quote_draft(str(uuid.uuid4()), start, months, today, target=target)
        now = utcnow()
        for item in draft.line_items:
            for c in item.covers:
                await Coverage.insert(
                    Coverage(id=c.coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[c.index_code].id,
                             risk_period_start=c.start, risk_period_end=c.end, risk_carrier="record", currency="INR",
                             direction=c.direction, trigger=c.trigger, limit_minor=c.limit_minor,
                             min_payout_minor=c.min_payout_minor, payout_per_unit_minor=c.payout_per_unit_minor,
                             expected_loss_ratio=Decimal("0.65"), created_by="record", created_at=now, updated_at=now,
                             settlement_basis=encode_basis(basis_for(c.index_code, "IMD-RF-DAILY")) if ladder else None)
                )
        days = [draft.risk_period_from + dt.timedelta(days=i) for i in range((draft.risk_period_to - draft.risk_period_from).days + 1)]
        await observations_db.store_batch(
            [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal("7"), "IMD", provisional=ladder)
             for d in days[missing_days:]]
        )
        await quotes_db.insert_quote(draft)
        with env.auto_time_skipping_disabled():
            handle = await convert(env.client, draft, queue)
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        return draft, handle

    async def settlement_flagged(env, queue):
        """A one-month policy whose first day of data is missing: its settlement waits, is
        flagged after 7 days and keeps checking; the day arrives 10 days after the flag and
        the period settles; the policy, checking meanwhile, expires; the settlement closes
        after its revision window."""
        from models.db import observations as observations_db
        from models.domain.observations import ObservationIn
        from models.temporal.ids import settlement_workflow_id
        from models.temporal.settlement import DATA_CHANGED_SIGNAL
        from workflows.settlement import MISSING_DATA_WINDOW, REVISION_WINDOW, due_at

        draft, handle = await fresh_target_policy(env, queue, 1, missing_days=1)
        first = draft.line_items[0]
        due = due_at(first.end)
        await advance(env, queue, due + MISSING_DATA_WINDOW + dt.timedelta(days=10) - await env.get_current_time())
        settlement = env.client.get_workflow_handle(settlement_workflow_id(draft.monitoring_target_id, first.start, first.end))
        assert (await settlement.query("status"))["state"] == "FLAGGED"
        await observations_db.store_batch(
            [ObservationIn(draft.monitoring_target_id, "IMD-RF-DAILY", "rainfall_mm", first.start, None, Decimal("7"), "IMD")]
        )
        with env.auto_time_skipping_disabled():
            await settlement.signal(DATA_CHANGED_SIGNAL)
        await advance(env, queue, dt.timedelta(days=2))
        assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
        await advance(env, queue, REVISION_WINDOW + dt.timedelta(days=1))
        assert await asyncio.wait_for(settlement.result(), 60) == "SETTLED"
        return {"settlement-flagged": await settlement.fetch_history(), "policy-settled-late": await handle.fetch_history()}

    async def settlement_continued(env, queue):
        """A settlement whose data stays missing long enough to continue as new (issue 25):
        the first run's history, and the continued run's once the data came, the period
        settled and its revision window closed."""
        from models.db import observations as observations_db
        from models.domain.observations import ObservationIn
        from models.temporal.ids import settlement_workflow_id
        from models.temporal.settlement import DATA_CHANGED_SIGNAL
        from workflows.settlement import REVISION_WINDOW, due_at

        draft, handle = await fresh_target_policy(env, queue, 1, missing_days=1)
        first = draft.line_items[0]
        settlement = env.client.get_workflow_handle(settlement_workflow_id(draft.monitoring_target_id, first.start, first.end))
        await advance(env, queue, due_at(first.end) + dt.timedelta(days=1) - await env.get_current_time())
        first_run = (await settlement.describe()).run_id
        await advance(env, queue, dt.timedelta(days=119))
        assert (await settlement.query("status"))["continuedRuns"] == 1
        await observations_db.store_batch(
            [ObservationIn(draft.monitoring_target_id, "IMD-RF-DAILY", "rainfall_mm", first.start, None, Decimal("7"), "IMD")]
        )
        with env.auto_time_skipping_disabled():
            await settlement.signal(DATA_CHANGED_SIGNAL)
        await advance(env, queue, dt.timedelta(days=2))
        assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
        await advance(env, queue, REVISION_WINDOW + dt.timedelta(days=1))
        assert await asyncio.wait_for(settlement.result(), 60) == "SETTLED"
        first_history = await env.client.get_workflow_handle(settlement.id, run_id=first_run).fetch_history()
        return {"settlement-continued-first": first_history, "settlement-continued": await settlement.fetch_history()}

    async def settlement_ladder(env, queue):
        """(issue 34, `settlement-ladder`) A one-month policy on the source ladder: IMD's
        provisional values in, its settlement first checks the day after the period's end +
        one day and pays INITIAL; the archive's final values come a month later (data-changed)
        and the FINAL true-up pays; the revision window closes."""
        from models.db import observations as observations_db
        from models.domain.observations import ObservationIn
        from models.temporal.ids import settlement_workflow_id
        from models.temporal.settlement import DATA_CHANGED_SIGNAL
        from workflows.settlement import REVISION_WINDOW

        draft, handle = await fresh_target_policy(env, queue, 1, ladder=True)
        first = draft.line_items[0]
        settlement = env.client.get_workflow_handle(settlement_workflow_id(draft.monitoring_target_id, first.start, first.end))
        end = dt.datetime.combine(first.end, dt.time(0), tzinfo=dt.timezone.utc)
        await advance(env, queue, end + dt.timedelta(days=3) - await env.get_current_time())
        assert (await settlement.query("status"))["state"] == "INITIAL"
        await advance(env, queue, dt.timedelta(days=30))
        days = [first.start + dt.timedelta(days=i) for i in range((first.end - first.start).days + 1)]
        await observations_db.store_batch(
            [ObservationIn(draft.monitoring_target_id, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal("8"), "IMD")
             for d in days]
        )
        with env.auto_time_skipping_disabled():
            await settlement.signal(DATA_CHANGED_SIGNAL)
        await advance(env, queue, dt.timedelta(days=1))
        assert (await settlement.query("status"))["state"] == "SETTLED"
        assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
        await advance(env, queue, REVISION_WINDOW + dt.timedelta(days=1))
        assert await asyncio.wait_for(settlement.result(), 60) == "SETTLED"
        return {"settlement-ladder": await settlement.fetch_history()}

    async def cancelled_accepted(env, queue):
        """Cancelled while ACCEPTED: activated, cancelled before its first risk start."""
        draft, handle = await draft_policy(env, queue, start, 3)
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.cancel)
        assert await asyncio.wait_for(handle.result(), 60) == "CANCELED"
        return {"policy-cancelled-accepted": await handle.fetch_history()}

    async def conversion_retried(env, queue):
        """The conversion's write fails (the update answers WriteFailed: a 503), the retried
        PATCH converts; the draft then lapses unactivated."""
        from temporalio.client import WorkflowUpdateFailedError

        draft = quote_draft(str(uuid.uuid4()), start, 3, dt.date.today())
        await quotes_db.insert_quote(draft)
        FAULTS["conversion"] = "fail"
        with env.auto_time_skipping_disabled():
            try:
                await convert(env.client, draft, queue)
                raise AssertionError("the conversion should have failed")
            except WorkflowUpdateFailedError:
                pass
            FAULTS["conversion"] = None
            handle = await convert(env.client, draft, queue)
        lapse_at = quote_deadline(draft.valid_until, draft.risk_period_from)
        await advance(env, queue, lapse_at - await env.get_current_time() + dt.timedelta(hours=1))
        assert await asyncio.wait_for(handle.result(), 60) == "LAPSED"
        return {"policy-conversion-retried": await handle.fetch_history()}

    async def conversion_capacity_refused(env, queue):
        """The conversion does not fit a capacity limit (issue 27: the update answers
        CapacityExceeded, a 409; nothing is written and the workflow waits on for a
        conversion); the limit raised, the next PATCH converts; the draft then lapses
        unactivated, giving its capacity back."""
        from temporalio.client import WorkflowUpdateFailedError

        from models.db import capacity as capacity_db
        from models.domain.capacity import LimitKey
        from models.temporal.lifecycle import CAPACITY_EXCEEDED

        tenant = uuid.uuid4()
        draft = quote_draft(str(tenant), start, 3, dt.date.today())
        await quotes_db.insert_quote(draft)
        limit = await capacity_db.create_limit(LimitKey(None, None, tenant), draft.currency, 1, "staff:olga")
        with env.auto_time_skipping_disabled():
            try:
                await convert(env.client, draft, queue)
                raise AssertionError("the conversion should have been refused")
            except WorkflowUpdateFailedError as err:
                assert err.cause.type == CAPACITY_EXCEEDED, err.cause
            await capacity_db.change_limit(limit.id, draft.currency, draft.total_sum_insured_minor)
            handle = await convert(env.client, draft, queue)
        assert (await capacity_db.get_limit(limit.id)).used_minor == draft.total_sum_insured_minor
        lapse_at = quote_deadline(draft.valid_until, draft.risk_period_from)
        await advance(env, queue, lapse_at - await env.get_current_time() + dt.timedelta(hours=1))
        assert await asyncio.wait_for(handle.result(), 60) == "LAPSED"
        assert (await capacity_db.get_limit(limit.id)).used_minor == 0
        return {"policy-conversion-capacity-refused": await handle.fetch_history()}

    async def conversion_late(env, queue):
        """Two conversions whose request gave up: one whose write committed after all (found
        at the quote's deadline: the draft exists, and lapses at once), one that never wrote
        (no policy: NOT_CREATED)."""
        from temporalio.client import WorkflowUpdateFailedError

        from models.domain.lifecycle import policy_id_for_quote
        from models.temporal.ids import policy_workflow_id

        handles = {}
        for name, fault in (("policy-conversion-late", "commit-then-fail"), ("policy-conversion-failed", "fail")):
            draft = quote_draft(str(uuid.uuid4()), start, 3, dt.date.today())
            await quotes_db.insert_quote(draft)
            FAULTS["conversion"] = fault
            with env.auto_time_skipping_disabled():
                try:
                    await convert(env.client, draft, queue)
                    raise AssertionError("the conversion should have failed")
                except WorkflowUpdateFailedError:
                    pass
            FAULTS["conversion"] = None
            policy_id = policy_id_for_quote(draft.id)
            handles[name] = (draft, env.client.get_workflow_handle(policy_workflow_id(draft.tenant_id, policy_id)))
        lapse_at = max(quote_deadline(d.valid_until, d.risk_period_from) for d, _ in handles.values())
        await advance(env, queue, lapse_at - await env.get_current_time() + dt.timedelta(hours=1))
        assert await asyncio.wait_for(handles["policy-conversion-late"][1].result(), 60) == "LAPSED"
        assert await asyncio.wait_for(handles["policy-conversion-failed"][1].result(), 60) == "NOT_CREATED"
        return {name: await h.fetch_history() for name, (_, h) in handles.items()}

    async def activation_write_retried(env, queue):
        """The ACTIVE write at the first risk start fails for six hours, then lands."""
        draft, handle = await draft_policy(env, queue, start, 3)
        with env.auto_time_skipping_disabled():
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        FAULTS["status"] = "ACTIVE"
        start_at = dt.datetime.combine(start, dt.time(0), tzinfo=dt.timezone.utc)
        await advance(env, queue, start_at - await env.get_current_time() - dt.timedelta(minutes=1))
        await write_left_the_worker(env, handle)
        for _ in range(12):
            await advance(env, queue, dt.timedelta(minutes=30))
        FAULTS["status"] = None
        await advance(env, queue, dt.timedelta(days=2))
        assert (await handle.query("status"))["status"] == "ACTIVE"
        out = {"policy-activation-write-retried": await handle.fetch_history()}
        await handle.terminate("recorded")
        return out

    async def write_left_the_worker(env, handle) -> None:
        """Past the risk start, until the failing write's retries are a timer (local activity
        backoff past a minute) or a regular activity: the attempts in the worker take real
        time, during which the test server does not move its clock."""
        from temporalio.api.enums.v1 import EventType

        before = len((await handle.fetch_history()).events)
        async with env.time_skipping_unlocked():
            for _ in range(300):
                events = (await handle.fetch_history()).events[before:]
                if any(e.event_type in (EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, EventType.EVENT_TYPE_TIMER_STARTED) for e in events):
                    return
                await asyncio.sleep(0.5)

    async def settled(env, queue):
        """A 3-month policy settled from loaded observations (it pays), expired after its
        last settlement; then a revision of the first month's data re-settles it."""
        from models.clock import utcnow
        from models.db import observations as observations_db
        from models.db.tables import Coverage
        from models.domain.index_catalog import BY_CODE
        from models.domain.observations import ObservationIn
        from models.temporal.ids import settlement_workflow_id
        from models.temporal.settlement import DATA_CHANGED_SIGNAL

        from models.db.tables import MonitoringTarget

        # A target without coverages: rows of earlier recordings and of the catalogue stay apart.
        used = {r["monitoring_target_id"] for r in await Coverage.select(Coverage.monitoring_target_id)}
        target = next(r["id"] for r in await MonitoringTarget.select(MonitoringTarget.id).order_by(MonitoringTarget.id) if r["id"] not in used)
        draft = quote_draft(str(uuid.uuid4()), start, 3, today, target=target)
        now = utcnow()
        for item in draft.line_items:
            for c in item.covers:
                await Coverage.insert(
                    Coverage(id=c.coverage_id, monitoring_target_id=target, index_definition_id=BY_CODE[c.index_code].id,
                             risk_period_start=c.start, risk_period_end=c.end, risk_carrier="record", currency="INR",
                             direction=c.direction, trigger=c.trigger, limit_minor=c.limit_minor,
                             min_payout_minor=c.min_payout_minor, payout_per_unit_minor=c.payout_per_unit_minor,
                             expected_loss_ratio=Decimal("0.65"), created_by="record", created_at=now, updated_at=now)
                )
        days = [draft.risk_period_from + dt.timedelta(days=i) for i in range((draft.risk_period_to - draft.risk_period_from).days + 1)]
        await observations_db.store_batch(
            [ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", d, None, Decimal("7"), "IMD") for d in days]
        )
        await quotes_db.insert_quote(draft)
        with env.auto_time_skipping_disabled():
            handle = await convert(env.client, draft, queue)
            await handle.execute_update(PolicyWorkflow.activate)
        await schedule_done(env, draft, handle)
        end_at = dt.datetime.combine(draft.risk_period_to, dt.time(0), tzinfo=dt.timezone.utc)
        await advance(env, queue, end_at - await env.get_current_time() + dt.timedelta(days=6))
        assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"
        first = draft.line_items[0]
        await observations_db.store_batch([ObservationIn(target, "IMD-RF-DAILY", "rainfall_mm", first.start, None, Decimal("30"), "IMD")])
        settlement = env.client.get_workflow_handle(settlement_workflow_id(target, first.start, first.end))
        with env.auto_time_skipping_disabled():
            await settlement.signal(DATA_CHANGED_SIGNAL)
        await advance(env, queue, dt.timedelta(hours=1))
        from models.db.tables import ParametricEvent
        from models.temporal.settlement import CLAIM_REPORT_WORKFLOW, ClaimReportRequest

        event = await ParametricEvent.select(ParametricEvent.id).where(
            (ParametricEvent.tenant_id == uuid.UUID(draft.tenant_id)) & (ParametricEvent.payout_minor > 0)
        ).first()
        with env.auto_time_skipping_disabled():
            report = await env.client.start_workflow(
                CLAIM_REPORT_WORKFLOW, ClaimReportRequest(tenant_id=draft.tenant_id, event_id=event["id"]),
                id=f"claim-report:{draft.tenant_id}:{event['id']}", task_queue=queue,
            )
            await asyncio.wait_for(report.result(), 120)
        return {"policy-expired": await handle.fetch_history(), "settlement": await settlement.fetch_history(),
                "claim-report": await report.fetch_history()}

    async def window_in_database(env, queue):
        """(issue 33) The `settled` scenario, then its first month's revision window closes,
        its end read from the database (`settlement-window-in-database`); then a run of the
        same settlement started again, as after Temporal's retention deleted the closed one:
        it settles nothing and ends at once (`settlement-after-window`)."""
        from models.domain.settlement import REVISION_WINDOW
        from models.temporal.settlement import SETTLEMENT_WORKFLOW, SettlementInput

        workflow_id = (await settled(env, queue))["settlement"].workflow_id
        target, first_day, last_day = workflow_id.removeprefix("settlement:").rsplit(":", 2)
        settlement = env.client.get_workflow_handle(workflow_id)
        await advance(env, queue, REVISION_WINDOW + dt.timedelta(days=1))
        assert await asyncio.wait_for(settlement.result(), 60) == "SETTLED"
        closed = env.client.get_workflow_handle(workflow_id, run_id=(await settlement.describe()).run_id)
        with env.auto_time_skipping_disabled():
            again = await env.client.start_workflow(
                SETTLEMENT_WORKFLOW,
                SettlementInput(target, dt.date.fromisoformat(first_day), dt.date.fromisoformat(last_day)),
                id=workflow_id, task_queue=queue,
            )
        assert await asyncio.wait_for(again.result(), 60) == "SETTLED"
        return {"settlement-window-in-database": await closed.fetch_history(),
                "settlement-after-window": await again.fetch_history()}

    async def webhooks(env, queue):
        """A message to an endpoint that refuses connections: retried over the window, FAILED."""
        from models.db import webhooks as webhooks_db
        from models.db.core import write_transaction
        from models.domain.webhooks import DELIVERY_WINDOW, POLICY_EXPIRED
        from models.temporal.ids import webhook_delivery_workflow_id
        from models.temporal.queues import task_queue
        from models.temporal.webhooks import WEBHOOK_DISPATCH_WORKFLOW, DispatchInput

        tenant_id = uuid.uuid4()
        endpoint = await webhooks_db.create_endpoint(str(tenant_id), "http://127.0.0.1:9/hook", ["*"], "record")
        now = dt.datetime.now(dt.timezone.utc)
        message = webhooks_db.outbox_row(tenant_id, POLICY_EXPIRED, f"record-{uuid.uuid4()}", now, {"policyId": "p"})
        async with write_transaction():
            await webhooks_db.write_outbox([message])
        hooks = task_queue(queue, "webhooks")
        dispatch = await env.client.start_workflow(
            WEBHOOK_DISPATCH_WORKFLOW, DispatchInput(task_queue=hooks), id=f"dispatch-{uuid.uuid4()}", task_queue=hooks
        )
        await dispatch.result()
        await advance(env, queue, DELIVERY_WINDOW + dt.timedelta(hours=1))
        delivery = env.client.get_workflow_handle(webhook_delivery_workflow_id(f"{message.id}:{endpoint['id']}"))
        assert (await delivery.result()).startswith("FAILED")
        return {"webhook-dispatch": await dispatch.fetch_history(), "webhook-delivery": await delivery.fetch_history()}

    async def observations(env, queue):
        """The daily run with a provider that reads files (none here: no network)."""
        from models.temporal.observations import OBSERVATION_INGEST_WORKFLOW, IngestRunInput

        handle = await env.client.start_workflow(
            OBSERVATION_INGEST_WORKFLOW, IngestRunInput(providers=["imd-grid", "no-such-provider"]),
            id=f"observations-{uuid.uuid4()}", task_queue=queue,
        )
        await handle.result()
        return {"observations-run": await handle.fetch_history()}

    async def travel_stay(env, queue):
        """The hotel-rain covers of a 3-night stay priced and recorded."""
        from models.domain.travel import TRIGGERS_MM
        from models.temporal.travel import TRAVEL_COVERAGES_WORKFLOW, TravelCoveragesInput, travel_coverages_workflow_id

        first = (await env.get_current_time()).date() + dt.timedelta(days=10)
        last = first + dt.timedelta(days=2)
        target = "IN-19.125N-072.875E"
        handle = await env.client.start_workflow(
            TRAVEL_COVERAGES_WORKFLOW,
            TravelCoveragesInput(target_id=target, first_night=first, last_night=last, triggers=list(TRIGGERS_MM),
                                 simulations=2048, seed=1),
            id=travel_coverages_workflow_id(target, first, last), task_queue=queue,
        )
        await handle.result()
        return {"travel-coverages": await handle.fetch_history()}

    async def observation_revisions(env, queue):
        """Held observation revisions (four eyes): one approved by a second data principal
        (its rows stored), one left undecided until it expires."""
        from models.db import observation_revisions as revisions_db
        from models.db.tables import ObservationRevision
        from api.settlement.observations import hold_in_temporal
        from temporalio.client import WorkflowUpdateFailedError

        from models.temporal.observations import DECIDE_UPDATE, RevisionDecided, RevisionDecision, held_input
        from workflows.observations import REVISION_HOLD_LIMIT

        async def held(day: dt.date) -> dict:
            revision_id = uuid.uuid4()
            row = {"monitoringTargetId": "IN-12.875N-077.625E", "dataSet": "IMD-RF-DAILY", "variable": "rainfall_mm",
                   "day": day.isoformat(), "hour": None, "value": "12", "source": "IMD", "quality": "GOOD",
                   "provisional": False, "simulated": False, "revises": 0, "previousValue": "0",
                   "previousQuality": "GOOD", "previousProvisional": False}
            await ObservationRevision.insert(ObservationRevision(
                id=revision_id, state="HELD", submitted_by="staff:dana", reason="record", rows=[row], row_count=1,
                settlements=[], fingerprint=revision_id.hex, created_at=dt.datetime.now(dt.timezone.utc),
            ))
            return await revisions_db.revision(revision_id)

        today = (await env.get_current_time()).date()
        # Since issue 33 the decider is checked against the staff table (revision-decider-checked):
        # the staff exist, and a forged decider is refused before devi approves.
        await recording_staff("dana", "data")
        devi = await recording_staff("devi", "data")
        with env.auto_time_skipping_disabled():
            approved = env.client.get_workflow_handle(
                await hold_in_temporal(env.client, queue, held_input(await held(today - dt.timedelta(days=40))))
            )
            try:
                await approved.execute_update(DECIDE_UPDATE, RevisionDecision("APPROVED", "staff:nobody-forged", "x"),
                                              result_type=RevisionDecided)
            except WorkflowUpdateFailedError:
                pass
            await approved.execute_update(DECIDE_UPDATE, RevisionDecision("APPROVED", "staff:devi", "checked", devi),
                                          result_type=RevisionDecided)
            expiring = env.client.get_workflow_handle(
                await hold_in_temporal(env.client, queue, held_input(await held(today - dt.timedelta(days=41))))
            )
        await approved.result()
        await advance(env, queue, REVISION_HOLD_LIMIT + dt.timedelta(days=1))
        await expiring.result()
        approved_history = await approved.fetch_history()
        return {"observation-revision-approved": approved_history,
                "observation-revision-decider-checked": approved_history,
                "observation-revision-expired": await expiring.fetch_history()}

    await run(("settlement-flagged", "policy-settled-late"), settlement_flagged)
    await run(("settlement-continued-first", "settlement-continued"), settlement_continued)
    await run(("settlement-ladder",), settlement_ladder)
    await run(("policy-cancelled-accepted",), cancelled_accepted)
    await run(("policy-conversion-retried",), conversion_retried, {"convert_to_policy": flaky_conversion})
    await run(("policy-conversion-capacity-refused",), conversion_capacity_refused)
    await run(("policy-conversion-late", "policy-conversion-failed"), conversion_late, {"convert_to_policy": flaky_conversion})
    await run(("policy-activation-write-retried",), activation_write_retried, {"set_policy_status": flaky_status_write})
    await run(("observation-revision-approved", "observation-revision-decider-checked", "observation-revision-expired"),
              observation_revisions)
    await run(("travel-coverages",), travel_stay)
    await run(("observations-run",), observations)
    await run(("webhook-dispatch", "webhook-delivery"), webhooks)
    await run(("policy-expired", "settlement", "claim-report"), settled)
    await run(("settlement-window-in-database", "settlement-after-window"), window_in_database)
    await run(("policy-active",), lived)
    await run(("policy-cancelled",), cancelled)
    await run(("policy-lapsed",), lapsed)
    await run(("quote-expired",), expired_quote)
    await run(("quote-converted",), converted_quote)
    return histories


async def main_async(label: str, only: set[str] | None) -> None:
    from models.db.core import close_pool, migrate, open_pool
    from models.db.reference_data import load_reference_data

    out = HERE / "histories" / label
    out.mkdir(parents=True, exist_ok=True)
    exist = sorted(n for n in (only or ()) if (out / f"{n}.json").exists())
    if exist:
        raise SystemExit(f"{label}/{', '.join(exist)} exist: recorded histories are never re-recorded (record a new label)")
    await open_pool()
    try:
        await migrate()
        await load_reference_data()
        histories = {**await skipping_scenarios(only), **await dev_scenarios(only)}
    finally:
        await close_pool()
    for name, history in sorted(histories.items()):
        if only is not None and name not in only:
            continue
        path = out / f"{name}.json"
        if path.exists():
            print(f"{path.relative_to(HERE.parent.parent)} exists: left as it is (recorded histories never change)")
            continue
        path.write_text(history.to_json())
        add_to_manifest(path)
        print(f"{path.relative_to(HERE.parent.parent)}: {len(history.events)} events")


def add_to_manifest(path: Path) -> None:
    """Append a newly recorded history to histories/MANIFEST.sha256 (tests/replay/test_corpus.py)."""
    histories = HERE / "histories"
    with (histories / "MANIFEST.sha256").open("a") as manifest:
        manifest.write(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(histories)}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("label", help="folder under tests/replay/histories, e.g. v1")
    ap.add_argument("--only", nargs="*", help="scenario names")
    args = ap.parse_args()
    asyncio.run(main_async(args.label, set(args.only) if args.only else None))


if __name__ == "__main__":
    main()
