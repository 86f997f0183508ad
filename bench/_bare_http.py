"""The bare HTTP app of bench/api.py's baselines (bench/_bare.py says what each measures).

Kept apart from bench/_bare.py, whose workflow the Temporal sandbox re-imports: Litestar is
imported here only.
"""

from __future__ import annotations

import os
import uuid
from contextlib import asynccontextmanager

import msgspec
from litestar import Litestar, Response, get, patch
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

from bench._bare import BareUpdateWorkflow


def create_app():
    state: dict[str, object] = {}
    encoder = msgspec.json.Encoder(decimal_format="number")  # as the API writes money

    @asynccontextmanager
    async def lifespan(app):
        from models.temporal.converter import data_converter

        state["client"] = await Client.connect(os.environ["TEMPORAL_ADDRESS"], data_converter=data_converter)
        yield

    @get("/bare", sync_to_thread=False)
    def bare() -> dict[str, object]:
        return {"status": "ok", "items": [1, 2, 3]}

    @patch("/bare-convert/{tenant_id:str}/{quote_id:uuid}")
    async def bare_convert(tenant_id: str, quote_id: uuid.UUID) -> Response:
        from api.quotes import responses
        from models.clock import utcnow
        from models.db import policies as policies_db
        from models.domain.lifecycle import policy_id_for_quote
        from models.temporal.policies import ConvertToPolicyInput

        policy_id = policy_id_for_quote(quote_id)
        outcome = await policies_db.convert_to_policy(
            ConvertToPolicyInput(tenant_id=tenant_id, quote_id=quote_id, policy_id=policy_id, at=utcnow())
        )
        if not outcome.applied:
            return Response(content=b'{"status": 409}', status_code=409, media_type="application/json")
        await state["client"].execute_update_with_start_workflow(
            BareUpdateWorkflow.ping,
            start_workflow_operation=WithStartWorkflowOperation(
                BareUpdateWorkflow.run,
                id=f"bare-convert:{quote_id}",
                task_queue=os.environ.get("BARE_TASK_QUEUE", "bench-bare"),
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            ),
        )
        policy = await responses.policy_out(tenant_id, policy_id)
        return Response(content=encoder.encode(policy), media_type="application/json")

    return Litestar(
        route_handlers=[bare, bare_convert], lifespan=[lifespan], logging_config=None, debug=False, openapi_config=None
    )
