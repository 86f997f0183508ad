"""Whose book a cross-tenant read covers (the book's risk, its PDF, the bordereaux): a tenant's
internal client reads its own; operations staff read the whole book (no `tenantId`) or one
tenant's. A `tenantId` of another tenant from a tenant is a 400 naming the field; one that
names no tenant is a 404 for staff."""

from __future__ import annotations

import uuid

from api.auth.roles import Caller, is_staff
from api.auth.tokens import Principal
from api.problems import InvalidInput, NotFound
from models.db.tables import Tenant


async def tenant_scope(principal: Principal, tenant_filter: uuid.UUID | None, what: str) -> uuid.UUID | None:
    """The tenant whose `what` (e.g. "book", "bordereaux") is read; None: every tenant's."""
    if not is_staff(principal, Caller.OPERATIONS):
        own = uuid.UUID(principal.tenant_id)
        if tenant_filter is not None and tenant_filter != own:
            raise InvalidInput.of_field("tenantId", f"only operations staff read another tenant's {what}")
        return own
    if tenant_filter is not None and not await Tenant.exists().where(
        (Tenant.id == tenant_filter) & (Tenant.kind != "PLATFORM")
    ):
        raise NotFound(f"tenant {tenant_filter} does not exist")
    return tenant_filter
