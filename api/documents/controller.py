"""Document downloads, each checked against the file's readers (models/domain/file_access.py):
catalogue documents, the tenant's own (quote documents, policy schedules, claim reports), the
staff's (a candidate run's documents, the whole book's portfolio report). A file the caller
may not read answers 404, as one that does not exist."""

from __future__ import annotations

import uuid

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import NotFound
from api.auth.roles import Caller, callers
from api.auth.tokens import STAFF_ROLES
from models.db.files import readable_file
from models.domain.file_access import Reader


def reader_of(principal: Principal) -> Reader:
    """The principal as a file's reader: a staff member by its roles, a tenant's client by its
    tenant."""
    return Reader(tenant_id=principal.tenant_id, staff_roles=frozenset(principal.roles) & STAFF_ROLES)


def file_response(request: Request, row: dict | None, file_id: uuid.UUID) -> Response[bytes]:
    if row is None:
        raise NotFound(f"file {file_id} does not exist")
    etag = f'"{row["sha256"]}"'
    if request.headers.get("if-none-match") == etag:
        return Response(content=b"", status_code=304, headers={"ETag": etag})
    return Response(
        content=bytes(row["content"]),
        media_type=row["media_type"],
        headers={
            "ETag": etag,
            "Content-Disposition": f'inline; filename="{row["filename"]}"',
            "X-Content-SHA256": row["sha256"],
        },
    )


class InternalFileController(Controller):
    opt = callers(Caller.TENANT_INTERNAL, Caller.DATA, Caller.ACTUARY, Caller.OPERATIONS)
    path = "/internal/files"
    tags = ["Internal surface"]
    parameters = tenant_header()

    @get(
        "/{file_id:uuid}",
        operation_id="downloadFile",
        summary="Download a document (fact sheet, technical pricing report, quote document, policy schedule)",
        media_type="application/pdf",
        responses=problems(*AUTHED, 404),
    )
    async def download(
        self, request: Request, file_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]
    ) -> Response[bytes]:
        return file_response(request, await readable_file(file_id, reader_of(principal)), file_id)


class TenantFileController(Controller):
    opt = callers(Caller.TENANT)
    path = "/files"
    tags = ["Tenant surface"]
    parameters = tenant_header()

    @get(
        "/{file_id:uuid}",
        operation_id="downloadTenantFile",
        summary="Download a document: the tenant's own (quote document, policy schedule, claim report) or a "
        "coverage's fact sheet",
        media_type="application/pdf",
        responses=problems(*AUTHED, 404),
    )
    async def download(
        self, request: Request, file_id: FromPath[uuid.UUID], principal: NamedDependency[Principal]
    ) -> Response[bytes]:
        return file_response(request, await readable_file(file_id, reader_of(principal), tenant_surface=True), file_id)
