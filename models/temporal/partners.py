"""Workflow and activity inputs of business partners."""

from __future__ import annotations

import uuid

import msgspec

from models.wire.internal import NewBusinessPartner

# The business partner workflow's contract (see models/temporal/quotes.py).
BUSINESS_PARTNER_WORKFLOW = "BusinessPartnerWorkflow"



class RegisterBusinessPartnerInput(msgspec.Struct, frozen=True):
    tenant_id: str
    partner_id: uuid.UUID
    partner: NewBusinessPartner
    requested_by: str  # OAuth client id
