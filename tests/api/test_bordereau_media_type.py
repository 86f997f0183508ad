"""A bordereau's Content-Type names its charset once (docs/bordereaux.md, "The files"): the
download answered `text/csv; charset=utf-8; charset=utf-8`, the framework adding the charset
the controller had already written into the media type."""

from __future__ import annotations

from api.bordereaux.controller import PRODUCE_WAIT


async def test_a_bordereau_names_its_charset_once(operations_staff):
    for kind in ("risk", "claims"):
        # The month is produced on the spot, on the documents queue, behind whatever it renders
        # (the suite's catalogue documents): the API waits up to PRODUCE_WAIT, so does the client.
        response = await operations_staff.get(f"/internal/bordereaux/2021-03/{kind}.csv", timeout=PRODUCE_WAIT + 30)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "text/csv; charset=utf-8"
