"""An ended policy's wait for its covers' settlement, as one activity the server retries
(docs/settlement.md, "Policies expire after their last settlement").

Each attempt reads whether every cover the policy holds is settled, and fails (a benign
failure: logged at debug level, not counted as an error) while one is not. The workflow's
retry policy spaces the attempts (an hour, backing off to a day); a regular activity's
retries add nothing to the workflow's history, so however long data is missing the policy's
history holds one scheduled activity, and ops see it pending in the Temporal UI with its
attempt count and "covers not settled yet" as its last failure.
"""

from __future__ import annotations

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from models.db import settlement as settlement_db
from models.temporal.settlement import PolicySettledInput

NOT_SETTLED = "CoversNotSettled"


@activity.defn
async def await_policy_settled(request: PolicySettledInput) -> bool:
    """True once every cover of the policy is settled; fails, to be retried, until then."""
    if await settlement_db.policy_settled(request.policy_id):
        return True
    raise ApplicationError(
        f"covers of policy {request.policy_id} not settled yet", type=NOT_SETTLED, category=ApplicationErrorCategory.BENIGN
    )
