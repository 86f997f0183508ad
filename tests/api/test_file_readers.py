"""Who reads which stored file (issue 33, section 5; docs/documents.md, "Who reads what"):
every kind of file × every kind of principal, over real HTTP, on both routes that serve files
by id. A file the caller may not read answers 404 as an unknown id does; a route the caller
may not call at all answers 403 (staff on the tenant surface, a tenant's plain client on the
internal one), anonymous callers 401.

The files are stored with the readers the activities give each kind (activities/documents.py,
activities/fast_quotes.py); tests/api/test_pricing_publication.py and
tests/api/test_portfolio_report.py check, end to end, the readers the real renders store
(a candidate run's documents, the whole book's and a tenant's portfolio reports)."""

from __future__ import annotations

import base64
import uuid

import pytest

from models.db.files import file_id_for, store_file
from models.domain.file_access import Readers

# kind -> (readers for the owner tenant `t`, file kind as stored)
KINDS = {
    "fact-sheet": lambda t: Readers.catalogue(),
    "technical-pricing-report": lambda t: Readers.catalogue(),
    "candidate-fact-sheet": lambda t: Readers.staff("actuary"),
    "candidate-technical-pricing-report": lambda t: Readers.staff("actuary"),
    "quote-document": lambda t: Readers.owner(t),
    "policy-schedule": lambda t: Readers.owner(t),
    "claim-report": lambda t: Readers.owner(t),
    "portfolio-risk-report": lambda t: Readers.owner(t, "operations"),
    "whole-book-portfolio-risk-report": lambda t: Readers.staff("operations"),
}
STORED_KIND = {"candidate-fact-sheet": "fact-sheet", "candidate-technical-pricing-report": "technical-pricing-report",
               "whole-book-portfolio-risk-report": "portfolio-risk-report"}
PRINCIPALS = ("owner", "owner-plain", "other-internal", "other-plain", "data", "actuary", "operations", "anonymous")
OWNED = {"quote-document", "policy-schedule", "claim-report", "portfolio-risk-report"}

# Who reads each kind (docs/documents.md): on /internal/files, and on /files.
INTERNAL_READERS = {
    "fact-sheet": {"owner", "other-internal", "data", "actuary", "operations"},
    "technical-pricing-report": {"owner", "other-internal", "data", "actuary", "operations"},
    "candidate-fact-sheet": {"actuary"},
    "candidate-technical-pricing-report": {"actuary"},
    "quote-document": {"owner"},
    "policy-schedule": {"owner"},
    "claim-report": {"owner"},
    "portfolio-risk-report": {"owner", "operations"},
    "whole-book-portfolio-risk-report": {"operations"},
}
TENANT_SURFACE_READERS = {
    "fact-sheet": {"owner", "owner-plain", "other-internal", "other-plain"},
    "quote-document": {"owner", "owner-plain"},
    "policy-schedule": {"owner", "owner-plain"},
    "claim-report": {"owner", "owner-plain"},
    "portfolio-risk-report": {"owner", "owner-plain"},
}


def expected(surface: str, kind: str, principal: str) -> int:
    if principal == "anonymous":
        return 401
    staff = principal in ("data", "actuary", "operations")
    if surface == "/files":
        if staff:
            return 403  # staff are not tenants
        return 200 if principal in TENANT_SURFACE_READERS.get(kind, set()) else 404
    if principal.endswith("-plain"):
        return 403  # the internal surface is for internal clients and staff
    return 200 if principal in INTERNAL_READERS[kind] else 404


@pytest.fixture(scope="module")
async def clients(make_tenant, data_staff, actuary, operations_staff, http, settings):
    from api.auth.tenants import add_client

    name = f"files-{uuid.uuid4().hex[:8]}"
    owner = await make_tenant(internal=True, name=name)
    plain = await add_client(name, False, settings.scope)
    other = await make_tenant(internal=True)
    other_plain = await make_tenant(internal=False)
    from tests.conftest import Tenant

    return {"owner": owner, "owner-plain": Tenant(plain.to_dict(), http), "other-internal": other,
            "other-plain": other_plain, "data": data_staff, "actuary": actuary, "operations": operations_staff}


@pytest.fixture(scope="module")
async def files(clients) -> dict[str, uuid.UUID]:
    owner = clients["owner"].id
    stored = {}
    for kind, readers in KINDS.items():
        file_id = file_id_for(kind, uuid.uuid4())
        await store_file(file_id, readers(owner), STORED_KIND.get(kind, kind), f"{kind}.pdf", "application/pdf",
                         b"%PDF-1.7 " + kind.encode())
        stored[kind] = file_id
    return stored


@pytest.mark.parametrize("surface", ["/files", "/internal/files"])
@pytest.mark.parametrize("principal", PRINCIPALS)
@pytest.mark.parametrize("kind", list(KINDS))
async def test_who_reads_each_kind_of_file(surface, principal, kind, clients, files, http):
    path = f"{surface}/{files[kind]}"
    if principal == "anonymous":
        r = await http.get(path, headers={"x-tenant-id": clients["owner"].id})  # no credentials
    else:
        r = await clients[principal].get(path)
    want = expected(surface, kind, principal)
    assert r.status_code == want, (surface, kind, principal, r.text[:300])
    if want == 200:
        assert r.content == b"%PDF-1.7 " + kind.encode()
    else:
        assert r.headers["content-type"].startswith("application/problem+json")
        assert b"%PDF" not in r.content


async def test_a_file_it_may_not_read_answers_as_an_unknown_id(clients, files):
    """Nothing tells a file one may not read from one that does not exist."""
    other = clients["other-internal"]
    hidden = (await other.get(f"/internal/files/{files['policy-schedule']}")).json()
    unknown_id = uuid.uuid4()
    unknown = (await other.get(f"/internal/files/{unknown_id}")).json()
    assert hidden["detail"].replace(str(files["policy-schedule"]), "ID") == unknown["detail"].replace(str(unknown_id), "ID")


def test_file_ids_are_keyed_by_the_servers_secret(monkeypatch):
    """The id of a document is an HMAC under the server's key: not the uuid5 of its name anyone
    could compute (issue 33: `uuid5(FILE_NAMESPACE, "fact-sheet:<coverage>:<v>-candidate")`),
    the same for the same document under one key, another under another key."""
    from models.db import files

    coverage = uuid.uuid4()
    ours = file_id_for("fact-sheet", coverage, "2-candidate")
    assert ours == file_id_for("fact-sheet", coverage, "2-candidate")  # a retried render stores once
    assert ours != uuid.uuid5(uuid.UUID("0f3c2b8e-7a0e-4c1e-9a51-3f0d2f6b7c21"), f"fact-sheet:{coverage}:2-candidate")
    assert ours.version == 8 and ours.variant == uuid.RFC_4122
    monkeypatch.setenv("FILE_ID_KEY", base64.b64encode(b"k" * 32).decode())
    theirs = file_id_for("fact-sheet", coverage, "2-candidate")
    assert theirs != ours
    monkeypatch.setenv("FILE_ID_KEY", base64.b64encode(b"short").decode())
    with pytest.raises(ValueError, match="32 bytes"):
        files.file_id_for("fact-sheet", coverage, "2-candidate")
