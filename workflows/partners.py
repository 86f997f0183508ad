"""Onboarding of a business partner (intermediary, policy holder or risk carrier).

Today one step, the durable write; the place where screening and contract steps go.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.partners import save_business_partner
    from models.temporal.partners import (
        BUSINESS_PARTNER_WORKFLOW,
        RegisterBusinessPartnerInput,
    )
    from models.wire.internal import BusinessPartner

DB_WRITE_TIMEOUT = timedelta(seconds=30)
DB_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=10), maximum_attempts=10
)


@workflow.defn(name=BUSINESS_PARTNER_WORKFLOW)
class BusinessPartnerWorkflow:
    @workflow.run
    async def run(self, command: RegisterBusinessPartnerInput) -> BusinessPartner:
        return await workflow.execute_activity(
            save_business_partner,
            command,
            start_to_close_timeout=DB_WRITE_TIMEOUT,
            retry_policy=DB_RETRY,
        )
