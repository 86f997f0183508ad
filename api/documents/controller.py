"""Document downloads: catalogue documents and the tenant's own (quote documents, policy
schedules). Another tenant's file answers 404."""

from __future__ import annotations

import uuid

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from api.auth.tokens import Principal
from api.openapi_docs import AUTHED, problems, tenant_header
from api.problems import NotFound
from models.db.files import readable_file
from api.auth.roles import Caller, callers


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
        return file_response(request, await readable_file(file_id, principal.tenant_id, include_catalogue=True), file_id)


# Catalogue documents a tenant-surface client may read: the fact sheet of each cover it buys.
TENANT_CATALOGUE_KINDS = ("fact-sheet",)


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
        file = await readable_file(file_id, principal.tenant_id, include_catalogue=True)
        if file is not None and file["tenant_id"] is None and file["kind"] not in TENANT_CATALOGUE_KINDS:
            file = None  # the actuaries' technical pricing report stays on the internal surface
        return file_response(request, file, file_id)
