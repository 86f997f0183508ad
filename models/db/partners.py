"""Row → wire mapping for business partners (used by the activity and the API)."""

from __future__ import annotations

from models.db.core import json_value
from models.db.tables import BusinessPartner
from models.wire.common import iso_millis
from models.wire.internal import Address
from models.wire.internal import BusinessPartner as BusinessPartnerOut


def partner_out(row: BusinessPartner) -> BusinessPartnerOut:
    address = json_value(row.address) or {}
    fields = {name: str(address.get(key, "")) for name, key in _ADDRESS_KEYS}
    return BusinessPartnerOut(
        id=row.id,
        name=row.name,
        role=row.role,
        contact_name=row.contact_name,
        contact_email_address=row.contact_email,
        contact_phone_number=row.contact_phone,
        address=Address(**fields),
        tax_status=row.tax_status,
        created_at=iso_millis(row.created_at),
    )


_ADDRESS_KEYS = [
    ("country_code", "countryCode"),
    ("house_number", "houseNumber"),
    ("street", "street"),
    ("country", "country"),
    ("county", "county"),
    ("postcode", "postcode"),
    ("state", "state"),
    ("district", "district"),
    ("city", "city"),
    ("state_code", "stateCode"),
]
