import asyncio
from tests.api.test_documents import documented_coverage  # noqa: F401
from tests.api.test_quotes_policies import new_quote


async def test_dump(tenant, documented_coverage):
    c = documented_coverage
    for key in ("factSheetReportFileId", "technicalPricingReportFileId"):
        r = await tenant.get(f"/internal/files/{c[key]}")
        open(f"/tmp/preview/real-{key[:4]}.pdf", "wb").write(r.content)
    quote = (await tenant.post("/quotes", json=new_quote())).json()
    policy = (await tenant.patch(f"/quotes/{quote['id']}")).json()
    await tenant.patch(f"/policies/{policy['id']}")
    for _ in range(600):
        r = await tenant.get(f"/policies/{policy['id']}/schedule")
        if r.status_code == 200:
            break
        await asyncio.sleep(0.2)
    open("/tmp/preview/real-sche.pdf", "wb").write(r.content)
