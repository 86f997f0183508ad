"""Index definitions and the pin-code mapping file."""

from __future__ import annotations

import csv
import io

from models.db.reference_data import read_pin_codes
from models.domain.index_catalog import INDEX_DEFINITIONS


async def test_index_definitions_list_the_seeded_definitions(tenant):
    r = await tenant.get("/index-definitions")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"content"}
    by_name = {d["name"]: d for d in body["content"]}
    assert len(by_name) == len(INDEX_DEFINITIONS)
    for spec in INDEX_DEFINITIONS:
        item = by_name[spec.name]
        assert item == {
            "id": str(spec.id),
            "name": spec.name,
            "description": spec.description,
            "unit": spec.unit,
            "type": "WEATHER",
        }
    units = {d["unit"] for d in body["content"]}
    assert {"mm", "km/h", "°C"} <= units


async def test_pincode_mapping_is_a_csv_covering_every_pin_code_with_coordinates(tenant):
    r = await tenant.get("/pincode-mapping")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0] == ["pin_code", "monitoring_target_id", "monitoring_target_name"]
    mapping = {row[0]: (row[1], row[2]) for row in rows[1:]}
    expected = {pc.pin_code for pc in read_pin_codes()}
    assert set(mapping) == expected
    assert len(expected) > 19_000
    assert all(target and name for target, name in mapping.values())
    assert mapping["560001"][0] == "IN-12.875N-077.625E"
    assert "Bengaluru" in mapping["560001"][1]
    assert mapping["110001"][0] != mapping["400001"][0]  # Delhi and Mumbai are different cells


async def test_pincode_mapping_supports_conditional_get(tenant):
    first = await tenant.get("/pincode-mapping")
    again = await tenant.get("/pincode-mapping", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


async def test_pincode_mapping_needs_authentication(http, tenant):
    r = await http.get("/pincode-mapping", headers={"x-tenant-id": tenant.id})
    assert r.status_code == 401


async def test_health_reports_database_and_temporal(http):
    r = await http.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "ok" and body["temporal"]["status"] == "ok"


async def test_pincode_mapping_is_served_gzipped_to_clients_that_accept_it(tenant):
    import gzip

    plain = await tenant.get("/pincode-mapping", headers={"Accept-Encoding": "identity"})
    packed = await tenant.get("/pincode-mapping", headers={"Accept-Encoding": "gzip"})
    assert plain.headers["content-type"] == "text/csv; charset=utf-8"
    assert packed.headers["content-encoding"] == "gzip"
    assert int(packed.headers["content-length"]) < len(plain.content) / 3
    assert packed.content == plain.content  # httpx decodes it
    assert gzip.decompress(gzip.compress(plain.content)) == plain.content
