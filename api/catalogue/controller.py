"""Index definitions and the pin-code → monitoring-target mapping file."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io

from litestar import Controller, Request, Response, get

from api.openapi_docs import AUTHED, problems, tenant_header
from models.db.tables import IndexDefinition, MonitoringTarget, PincodeMapping
from models.wire.common import ContentEnvelope
from models.wire.tenant import IndexDefinitionOut
from api.auth.roles import REFERENCE_DATA_READERS


class IndexDefinitionController(Controller):
    opt = REFERENCE_DATA_READERS
    path = "/index-definitions"
    tags = ["Tenant surface"]
    parameters = tenant_header()

    @get(
        operation_id="listIndexDefinitions",
        summary="What can be insured: the weather indices covers are written on",
        responses=problems(*AUTHED),
    )
    async def list_index_definitions(self) -> ContentEnvelope[IndexDefinitionOut]:
        rows = await IndexDefinition.select().order_by(IndexDefinition.code)
        return ContentEnvelope(
            content=[
                IndexDefinitionOut(
                    id=str(r["id"]), name=r["name"], description=r["description"], unit=r["unit"], type=r["type"]
                )
                for r in rows
            ]
        )


class PincodeMappingController(Controller):
    opt = REFERENCE_DATA_READERS
    path = "/pincode-mapping"
    tags = ["Tenant surface"]
    parameters = tenant_header()

    @get(
        operation_id="getPincodeMapping",
        summary="CSV mapping every pin code to its monitoring target",
        description="Header `pin_code,monitoring_target_id,monitoring_target_name`; one row per pin code.",
        media_type="text/csv",
        responses=problems(*AUTHED),
    )
    async def pincode_mapping(self, request: Request) -> Response[bytes]:
        body, gzipped, etag = await _mapping_csv(request)
        if request.headers.get("if-none-match") == etag:
            return Response(content=b"", status_code=304, headers={"ETag": etag})
        headers = {"ETag": etag, "Content-Disposition": 'attachment; filename="pincode-mapping.csv"', "Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(content=gzipped, media_type="text/csv", headers={**headers, "Content-Encoding": "gzip"})
        return Response(content=body, media_type="text/csv", headers=headers)


async def _mapping_csv(request: Request) -> tuple[bytes, bytes, str]:
    """Built once per process (the mapping changes only with a reference-data release)."""
    cached = getattr(request.app.state, "pincode_csv", None)
    if cached is not None:
        return cached
    names = {r["id"]: r["name"] for r in await MonitoringTarget.select(MonitoringTarget.id, MonitoringTarget.name)}
    rows = await PincodeMapping.select(PincodeMapping.pin_code, PincodeMapping.monitoring_target_id).order_by(
        PincodeMapping.pin_code
    )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["pin_code", "monitoring_target_id", "monitoring_target_name"])
    for r in rows:
        writer.writerow([r["pin_code"], r["monitoring_target_id"], names.get(r["monitoring_target_id"], "")])
    body = buffer.getvalue().encode()
    result = (body, gzip.compress(body, compresslevel=6, mtime=0), '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
    if rows:
        request.app.state.pincode_csv = result
    return result
