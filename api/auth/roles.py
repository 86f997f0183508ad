"""Who may call what: the kinds of caller, and the one guard that checks every route.

Tenants (insurers, distributors, travel platforms) and the platform operator's staff are
principals of different kinds (docs/roles.md):

- a **tenant client** calls the tenant surface; with the internal role (`tenants create
  NAME --internal`) also its own internal surface (catalogue reads, partners, fast quotes,
  its quotes, policies, events, settlements and webhooks), always scoped to its tenant;
- a tenant's **API key** calls the travel surface of its tenant;
- **staff** (`staff create NAME --role data|actuary|operations`) hold the platform's
  powers: observations (`data`), pricing reruns and their publication (`actuary`),
  cross-tenant reads and payout holds (`operations`). Staff are never tenants: they get
  403 on the tenant surface and on the tenant's own internal quoting routes.

Every route handler declares its callers with `opt=callers(...)` (on the handler or its
controller); the app-level guard `authorize` refuses any other caller with 403, and refuses
everyone on a route that declares nothing. `tests/api/test_route_access.py` walks the
app's route table: a route without a declaration fails it.
"""

from __future__ import annotations

import enum
import re
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from api.auth.tokens import STAFF_ROLES, Principal

ACCESS = "access"  # the opt key holding a route's callers


class Caller(str, enum.Enum):
    PUBLIC = "public"  # no credentials (token endpoint, keys, health, API docs)
    TENANT = "tenant"  # any client of a tenant, with a token
    TENANT_INTERNAL = "tenant-internal"  # a tenant client with the internal role
    TRAVEL = "travel"  # a tenant's API key (or token) on its travel surface
    DATA = "data"  # staff: observations and their revisions
    ACTUARY = "actuary"  # staff: pricing reruns, publishing another actuary's run
    OPERATIONS = "operations"  # staff: cross-tenant reads, payout holds

    @property
    def staff(self) -> bool:
        return self in STAFF_CALLERS


STAFF_CALLERS = frozenset({Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS})
assert {c.value for c in STAFF_CALLERS} == STAFF_ROLES
# Litestar's own routes (the OpenAPI document and its viewers) are public: they are
# declared here, by path, because their handlers are not ours to annotate.
PUBLIC_PREFIXES = ("/schema",)

_WORDS = {
    Caller.PUBLIC: "anyone",
    Caller.TENANT: "tenant clients",
    Caller.TENANT_INTERNAL: "tenant clients with the internal role",
    Caller.TRAVEL: "the tenant's API key",
    Caller.DATA: "data staff",
    Caller.ACTUARY: "actuaries",
    Caller.OPERATIONS: "operations staff",
}


def callers(*allowed: Caller) -> dict[str, Any]:
    """`opt=` of a route or controller: who may call it."""
    if not allowed:
        raise ValueError("a route declares at least one caller")
    return {ACCESS: frozenset(allowed)}


def declared(handler: BaseRouteHandler) -> frozenset[Caller] | None:
    """The callers a route handler declares (its own or its controller's), or None."""
    access = handler.opt.get(ACCESS)
    if access is None and (_under_public_prefix(handler) or _auto_options(handler)):
        return frozenset({Caller.PUBLIC})
    return access


def under_public_prefix(path: str) -> bool:
    """Whether `path` is one of PUBLIC_PREFIXES or below it (`/schema`, `/schema/...`; not
    `/schema-x`, a route of its own that must declare its callers)."""
    return any(path == prefix or path.startswith(prefix + "/") for prefix in PUBLIC_PREFIXES)


def _under_public_prefix(handler: BaseRouteHandler) -> bool:
    return any(under_public_prefix(str(getattr(layer, "path", ""))) for layer in handler.ownership_layers)


def _auto_options(handler: BaseRouteHandler) -> bool:
    """Litestar's own OPTIONS handler of a path (it answers which methods the path has)."""
    return getattr(handler, "http_methods", None) == {"OPTIONS"} and handler.handler_name == "options_handler"


def undeclared(handlers) -> list[str]:
    """The route handlers among `handlers` that declare no callers (none may exist)."""
    return sorted(f"{sorted(h.http_methods)} {h.paths}" for h in handlers if declared(h) is None)


def caller_kinds(principal: Principal | None, travel: bool = False) -> frozenset[Caller]:
    """What a principal counts as (a staff member: each of its roles)."""
    if principal is None:
        return frozenset({Caller.PUBLIC})
    if principal.roles:
        return frozenset(Caller(r) for r in principal.roles if r in STAFF_ROLES)
    if travel:
        return frozenset({Caller.TRAVEL})
    kinds = {Caller.TENANT}
    if principal.internal:
        kinds.add(Caller.TENANT_INTERNAL)
    return frozenset(kinds)


def describe(kinds: frozenset[Caller]) -> str:
    return ", ".join(_WORDS[k] for k in sorted(kinds, key=lambda k: list(Caller).index(k))) or "nobody"


def authorize(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """The app-level guard: 403 unless the caller is one the route declares."""
    allowed = declared(handler)
    if allowed is None:  # a route that says nothing is open to no one (and fails its test)
        raise PermissionDeniedException(detail="this route declares no callers")
    if Caller.PUBLIC in allowed:
        return
    principal = connection.scope.get("user")
    travel = connection.url.path.startswith("/travel/")
    kinds = caller_kinds(principal if isinstance(principal, Principal) else None, travel)
    if kinds & allowed:
        return
    raise PermissionDeniedException(
        detail=f"this route is for {describe(allowed)}; the caller is {describe(kinds) if principal else 'not authenticated'}"
    )


def is_staff(principal: Principal, *roles: Caller) -> bool:
    """Whether the caller is staff holding any of `roles` (any staff role when none given)."""
    held = caller_kinds(principal)
    return bool(held & (frozenset(roles) if roles else STAFF_CALLERS))


# Reference data (index definitions, the pin-code mapping) is read by every client and staff.
REFERENCE_DATA_READERS = callers(Caller.TENANT, Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS)
# The shared catalogue: a tenant's internal client buys from it, staff price and watch it.
CATALOGUE_READERS = callers(Caller.TENANT_INTERNAL, Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS)


MATRIX_COLUMNS = (Caller.TENANT, Caller.TENANT_INTERNAL, Caller.TRAVEL, Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS)
_HEADS = {
    Caller.TENANT: "tenant",
    Caller.TENANT_INTERNAL: "tenant internal",
    Caller.TRAVEL: "travel key",
    Caller.DATA: "data",
    Caller.ACTUARY: "actuary",
    Caller.OPERATIONS: "operations",
}


def route_matrix(app) -> str:
    """The role matrix of the app's routes as a Markdown table (docs/roles.md holds it, and a
    test checks the two agree). A tenant's internal client is also a tenant client, so a
    route open to tenant clients is open to it too; a travel route is open to the travel key and
    to the tokens of the path's tenant's clients (caller_kinds counts them as its key there)."""
    rows = {}
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            allowed = declared(handler) or frozenset()
            if Caller.PUBLIC in allowed:
                continue
            for method in sorted(m for m in handler.http_methods if m not in ("OPTIONS", "HEAD")):
                path = re.sub(r"\{([a-z_]+):[a-z]+\}", r"{\1}", route.path)
                rows[(path, method)] = allowed
    head = "| route | " + " | ".join(_HEADS[c] for c in MATRIX_COLUMNS) + " |"
    lines = [head, "|---|" + "---|" * len(MATRIX_COLUMNS)]
    for (path, method), allowed in sorted(rows.items()):
        effective = set(allowed) | ({Caller.TENANT_INTERNAL} if Caller.TENANT in allowed else set())
        if Caller.TRAVEL in allowed:  # on /travel/ a token of the path's tenant counts as its key (caller_kinds)
            effective |= {Caller.TENANT, Caller.TENANT_INTERNAL}
        cells = ["✓" if c in effective else "" for c in MATRIX_COLUMNS]
        lines.append(f"| `{method} {path}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m api.auth.roles: print the matrix for docs/roles.md
    from api.app import create_app

    print(route_matrix(create_app()))
