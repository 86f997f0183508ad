"""OpenAPI helpers: the problem responses each handler declares."""

from __future__ import annotations

from http import HTTPStatus

from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter

from models.wire.common import Problem

_DESCRIPTIONS = {
    400: "Invalid input (problem+json, `errors` lists the fields)",
    401: "No, invalid or expired access token",
    403: "Token of another tenant, or a client without the needed role",
    404: "No such resource for this tenant",
    409: "Not allowed in the resource's current state",
    413: "Request body too large",
    422: "Idempotency-Key reused with another body",
    503: "A dependency (database or Temporal) is unavailable",
}


def problems(*codes: int) -> dict[int, ResponseSpec]:
    return {
        code: ResponseSpec(
            data_container=Problem,
            description=_DESCRIPTIONS.get(code, HTTPStatus(code).phrase),
            media_type="application/problem+json",
            generate_examples=False,
        )
        for code in codes
    }


AUTHED = (400, 401, 403)


def tenant_header(required: bool = True) -> dict:
    """The `x-tenant-id` header, declared for the OpenAPI document (the auth middleware checks it):
    typed (a string), so generated clients keep the operation (openapi-python-client skipped every
    operation whose parameter had an untyped schema). No `format: uuid`: that generator then
    puts a UUID object in the headers, which httpx refuses."""
    return {
        "x_tenant_id": HeaderParameter(
            name="x-tenant-id",
            annotation=str,
            required=required,
            description="The caller's tenant id (a UUID); must be the tenant of the access token"
            + ("" if required else " (optional here: the path names the tenant)"),
        )
    }
