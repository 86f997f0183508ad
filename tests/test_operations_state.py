"""The pending-deliveries gauge (`/metrics`, models/db/operations_state.py) leaves out the
payout messages a standing payout hold keeps waiting: ops placed the hold on purpose, and
counting them made the "webhook deliveries pending for hours" alert fire for every long hold."""

from __future__ import annotations

import datetime as dt
import uuid

from models.clock import utcnow
from models.db.core import insert_rows
from models.db.operations_state import operations_state
from models.db.tables import PayoutHold, WebhookDelivery, WebhookMessage
from models.domain.webhooks import PAYOUT_RECORDED


async def test_a_held_policys_payout_message_is_not_counted_pending(service):
    now = utcnow()
    tenant, policy = uuid.uuid4(), uuid.uuid4()
    message = f"msg_{uuid.uuid4()}"
    await insert_rows([WebhookMessage(id=message, tenant_id=tenant, event_type=PAYOUT_RECORDED, payload={},
                                      created_at=now, policy_id=policy)])
    await insert_rows([WebhookDelivery(id=f"{message}:{uuid.uuid4()}", tenant_id=tenant, message_id=message,
                                       endpoint_id=uuid.uuid4(), status="PENDING",
                                       created_at=now - dt.timedelta(hours=5), updated_at=now)])
    counted = (await operations_state(3600)).deliveries_pending
    hold = uuid.uuid4()
    await insert_rows([PayoutHold(id=hold, tenant_id=tenant, policy_id=policy, state="HELD", reason="screening",
                                  held_by="staff:olga", held_at=now)])
    assert (await operations_state(3600)).deliveries_pending == counted - 1
    await PayoutHold.update({PayoutHold.state: "RELEASED"}).where(PayoutHold.id == hold)
    assert (await operations_state(3600)).deliveries_pending == counted
