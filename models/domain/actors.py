"""How an audit trail's actor is shown: staff by name, never a tenant client's id.

Stored actors are `Principal.actor` values ("staff:arun", "client:<id>"), the catalogue's
creator ("catalogue@parametric.example"), or, on pricing runs recorded before staff roles
(issue 24), the bare id of the tenant client that asked. A view shared by every tenant
(pricing runs of the shared catalogue) must not name another tenant's client."""

from __future__ import annotations

import uuid

STAFF_PREFIX = "staff:"
CLIENT_PREFIX = "client:"
TENANT_CLIENT = "tenant client"
TENANT_CLIENT_BEFORE_ROLES = "tenant client (before roles)"


def staff_actor(name: str) -> str:
    return f"{STAFF_PREFIX}{name}"


def shown_actor(stored: str | None) -> str | None:
    """"staff:arun" → "arun"; a tenant client (by actor or bare id) → a neutral phrase;
    anything else (the catalogue's creator) as stored."""
    if stored is None:
        return None
    if stored.startswith(STAFF_PREFIX):
        return stored[len(STAFF_PREFIX):]
    if stored.startswith(CLIENT_PREFIX):
        return TENANT_CLIENT
    if _is_uuid(stored):  # a tenant client's id, recorded before roles
        return TENANT_CLIENT_BEFORE_ROLES
    return stored


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
