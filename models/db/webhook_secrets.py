"""Webhook signing secrets sealed at rest (docs/webhooks.md, "Secrets at rest").

A secret (`whsec_<base64 of 32 bytes>`) is sealed with the deployment's secrets key
(models/db/sealing.py: AES-256-GCM, `enc1:` values), its endpoint's id as associated data,
so a sealed value copied to another endpoint's row does not open. Rows written before
sealing hold the secret in the clear; they are still read (and the migration that added
sealing sealed those it found).
"""

from __future__ import annotations

import base64
import uuid

from models.db.sealing import KEY_FILE, PREFIX, SecretUnreadable, _keys_for, keys, parse_keys  # noqa: F401
from models.db.sealing import seal as seal_raw
from models.db.sealing import unseal as unseal_raw

PLAIN_PREFIX = "whsec_"


def endpoint_aad(endpoint_id: uuid.UUID | str) -> bytes:
    return f"webhook_endpoint:{uuid.UUID(str(endpoint_id))}".encode()


def seal(secret: str, endpoint_id: uuid.UUID | str) -> str:
    """The stored form of a `whsec_` secret of the endpoint (fits the 100-character column)."""
    raw = base64.b64decode(secret.removeprefix(PLAIN_PREFIX), validate=True)
    if PLAIN_PREFIX + base64.b64encode(raw).decode() != secret:
        raise ValueError("only secrets of the form whsec_<standard base64> are sealed")
    return seal_raw(raw, endpoint_aad(endpoint_id))


def unseal(stored: str, endpoint_id: uuid.UUID | str) -> str:
    """The `whsec_` secret from its stored form; a value of before sealing is returned as it is."""
    if stored.startswith(PLAIN_PREFIX):
        return stored
    if not stored.startswith(PREFIX):
        raise SecretUnreadable("the stored webhook secret is neither sealed (enc1:) nor a whsec_ secret")
    return PLAIN_PREFIX + base64.b64encode(unseal_raw(stored, endpoint_aad(endpoint_id), "endpoint's sealed secret")).decode()


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)
