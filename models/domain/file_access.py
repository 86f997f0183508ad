"""Who may read a stored document (docs/documents.md, "Who reads what").

Every file carries its readers, stored with it and checked on every read by every route that
serves files; knowing a file's id grants nothing:

- `OWNER`: the owner tenant's clients (a quote document, a policy schedule, a claim report, a
  tenant's portfolio risk report), and the staff roles in `staff_roles` if any (operations for a
  tenant's portfolio risk report, which they read through `/internal/portfolio/report.pdf`);
- `STAFF`: staff holding one of `staff_roles`, no tenant (a candidate pricing run's documents:
  actuaries; the whole book's portfolio risk report: operations);
- `CATALOGUE`: the published catalogue, every tenant and every staff member (a published
  run's fact sheet and technical pricing report). On the tenant surface (`/files`) only the
  kinds of `TENANT_SURFACE_CATALOGUE_KINDS` (the fact sheet a buyer reads); the technical
  pricing report is the internal surface's.

A staff member is never a tenant's reader: its calls carry the platform tenant's id, which
owns no document.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Audience(str, enum.Enum):
    OWNER = "OWNER"
    STAFF = "STAFF"
    CATALOGUE = "CATALOGUE"


# Catalogue documents a tenant-surface client reads: the fact sheet of each cover it buys.
TENANT_SURFACE_CATALOGUE_KINDS = frozenset({"fact-sheet"})


@dataclass(frozen=True)
class Readers:
    """A file's readers as stored: `audience`, the owner tenant (OWNER only) and the staff
    roles (comma-separated in the database, `staff_roles` column)."""

    audience: Audience
    tenant_id: str | None = None
    staff_roles: frozenset[str] = frozenset()

    @classmethod
    def owner(cls, tenant_id: str, *staff_roles: str) -> "Readers":
        return cls(Audience.OWNER, str(tenant_id), frozenset(staff_roles))

    @classmethod
    def staff(cls, *roles: str) -> "Readers":
        if not roles:
            raise ValueError("a staff audience names at least one role")
        return cls(Audience.STAFF, None, frozenset(roles))

    @classmethod
    def catalogue(cls) -> "Readers":
        return cls(Audience.CATALOGUE)

    @property
    def roles_text(self) -> str:
        return ",".join(sorted(self.staff_roles))


def parse_roles(text: str | None) -> frozenset[str]:
    return frozenset(r for r in (text or "").split(",") if r)


@dataclass(frozen=True)
class Reader:
    """Who asks: a tenant's client (`tenant_id`, no roles) or a staff member (`staff_roles`)."""

    tenant_id: str
    staff_roles: frozenset[str] = frozenset()


def may_read(readers: Readers, kind: str, reader: Reader, tenant_surface: bool) -> bool:
    """Whether `reader` may read a file of `kind` with `readers`, on the tenant surface
    (`/files`, `tenant_surface=True`) or the internal one."""
    if reader.staff_roles:
        if readers.audience == Audience.CATALOGUE:
            return not tenant_surface
        return not tenant_surface and bool(readers.staff_roles & reader.staff_roles)
    if readers.audience == Audience.CATALOGUE:
        return not tenant_surface or kind in TENANT_SURFACE_CATALOGUE_KINDS
    if readers.audience == Audience.OWNER:
        return readers.tenant_id is not None and readers.tenant_id == str(reader.tenant_id)
    return False
