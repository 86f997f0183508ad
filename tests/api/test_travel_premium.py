"""A travel stay's premium over HTTP (issue 26, finding 6): risk load and a minimum premium
per stay. The old code quoted the expected payout alone: a 3-night, 1,000 INR a night, 20 mm
cover in Delhi in January cost 1.40 INR."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

from models.db.tables import Quote, TravelCoverage
from models.domain import travel
from models.settings import load_settings
from tests.api.test_travel import get_coverages, quote

DELHI = {"lat": "28.6139", "long": "77.2090"}


def next_january_stay(nights: int = 3) -> tuple[dt.date, dt.date]:
    """Check-in on the 10th of the next January that is after today (within the sellable year)."""
    today = dt.date.today()
    check_in = dt.date(today.year, 1, 10)
    if check_in <= today:
        check_in = dt.date(today.year + 1, 1, 10)
    return check_in, check_in + dt.timedelta(days=nights)


async def test_a_delhi_january_stay_costs_at_least_the_minimum_and_carries_a_load(http, tenant):
    settings = load_settings()
    check_in, check_out = next_january_stay()
    r = await get_coverages(http, tenant, **DELHI, time_range=f"{check_in}/{check_out}")
    assert r.status_code == 200, r.text
    covers = {c["name"].split("(")[1].split(" mm")[0]: c["id"] for c in r.json()["coverages"]}
    assert set(covers) == {"5", "10", "20"}, r.json()

    # 3 nights at 1,000 INR, heavy rain (20 mm): a premium of at least the minimum per stay
    # (and 1 % of the 3,000 INR sum insured), above the expected payout.
    small = await quote(http, tenant, covers["20"], max_payout=1000, qty=3, ref="delhi-jan-20")
    assert small.status_code == 200, small.text
    body = small.json()
    expected_loss = Decimal(str(body["technical_rate"])) * 3000
    price = Decimal(str(body["risk_price"]))
    assert price >= max(settings.travel_min_premium, Decimal("30.00")) and price > 2 * expected_loss > 0
    stored = await Quote.select().where(Quote.id == uuid.UUID(body["quote_id"])).first()
    assert stored["gross_premium_minor"] == int(price * 100)
    assert abs(stored["risk_premium_minor"] - expected_loss * 100) <= 2  # the expected payout, to the paisa

    # 3 nights at 100,000 INR, light rain (5 mm): far above the minimum, the load shows: the
    # premium is the stored counts and band priced with the catalogue's loads.
    large = await quote(http, tenant, covers["5"], max_payout=100_000, qty=3, ref="delhi-jan-5")
    assert large.status_code == 200, large.text
    row = await TravelCoverage.select().where(TravelCoverage.coverage_id == uuid.UUID(covers["5"])).first()
    as_list = (lambda v: v if isinstance(v, list) else __import__("json").loads(v))
    priced = travel.price(as_list(row["night_counts"]), Decimal(100_000), 3, travel.TravelLoads.of(settings),
                          as_list(row["replicate_counts"]))
    assert Decimal(str(large.json()["risk_price"])) == priced.risk_price and not priced.floored
    assert priced.uncertainty_load > 0 and priced.capital_load > 0
    assert priced.risk_price > (priced.expected_loss + priced.uncertainty_load + priced.capital_load) * Decimal("1.24")
