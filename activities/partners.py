"""Persistence of business partners (idempotent on the partner id)."""

from __future__ import annotations

import msgspec
from temporalio import activity

from models.clock import utcnow
from models.db.core import scoped_objects
from models.db.partners import partner_out
from models.db.tables import BusinessPartner
from models.temporal.partners import RegisterBusinessPartnerInput
from models.wire.internal import BusinessPartner as BusinessPartnerOut


@activity.defn
async def save_business_partner(command: RegisterBusinessPartnerInput) -> BusinessPartnerOut:
    existing = await scoped_objects(BusinessPartner, command.tenant_id).where(
        BusinessPartner.id == command.partner_id
    ).first()
    if existing is None:
        p = command.partner
        address = msgspec.to_builtins(p.address)
        address.pop("@type", None)
        existing = BusinessPartner(
            id=command.partner_id,
            tenant_id=command.tenant_id,
            name=p.name,
            role=p.role,
            contact_name=p.contact_name,
            contact_email=p.contact_email_address,
            contact_phone=p.contact_phone_number,
            address=address,
            tax_status=p.tax_status,
            created_at=utcnow(),
        )
        await existing.save()
    return partner_out(existing)
