"""Which secrets keys sealed in this database (table `sealing_key`, fingerprints only), so a
process started with another SECRETS_KEY refuses to start: it would seal webhook secrets and
signing keys that every other process fails to open, and fail to open theirs.

`check_sealing_key` (the API at its start, the `keys` commands): its sealing key (the first
of SECRETS_KEY) is recorded, or is recorded now when the table is empty (the database's
first key: if it holds a sealed signing key or webhook secret already, from before this
table, the key must open it) or when one of its other keys is recorded (a rotation:
SECRETS_KEY=new,old); otherwise SealingKeyMismatch. Race-safe without locks: `ordinal` is unique, so of two
processes with different keys starting on an empty database one is first and the other is
refused."""

from __future__ import annotations

from models.clock import utcnow
from models.db.core import insert_rows
from models.db.sealing import PREFIX, SecretUnreadable, fingerprint, keys, unseal
from models.db.signing_keys import signing_key_aad
from models.db.tables import SealingKey, SigningKey, WebhookEndpoint
from models.db.webhook_secrets import endpoint_aad

_checked: set[tuple[bytes, ...]] = set()  # key lists this process found recorded


class SealingKeyMismatch(RuntimeError):
    """None of this process's secrets keys sealed in this database."""


async def check_sealing_key() -> None:
    """Record or check this process's secrets key (module docstring); once per process and
    key list. SecretsKeyMissing (models/db/sealing.py) with PostgreSQL and no SECRETS_KEY."""
    configured = keys()
    if configured in _checked:
        return
    prints = [fingerprint(key) for key in configured]
    for _ in range(5):  # another process recording at the same moment: read again
        rows = await SealingKey.select(SealingKey.fingerprint, SealingKey.ordinal)
        recorded = {r["fingerprint"] for r in rows}
        if prints[0] in recorded:
            _checked.add(configured)
            return
        if recorded and not recorded.intersection(prints):
            raise SealingKeyMismatch(
                "SECRETS_KEY is not the key the secrets in this database were sealed with (its fingerprint "
                f"{prints[0]}; the database's: {', '.join(sorted(recorded))}): this process would seal what the "
                "others cannot open. Every host needs the same SECRETS_KEY; to change it, list the new key "
                "first and the old one after it (SECRETS_KEY=new,old)"
            )
        if not recorded:
            await _opens_what_is_sealed()
        ordinal = max((r["ordinal"] for r in rows), default=0) + 1
        await insert_rows([SealingKey(fingerprint=prints[0], ordinal=ordinal, recorded_at=utcnow())],
                          on_conflict_nothing=True)
    raise SealingKeyMismatch("the recorded secrets keys kept changing while this process checked its own; try again")


async def _opens_what_is_sealed() -> None:
    """SealingKeyMismatch when a value sealed before fingerprints were kept (a signing key's
    private half, a webhook secret) does not open with this process's keys."""
    key = await SigningKey.select(SigningKey.kid, SigningKey.private_key).where(
        SigningKey.private_key.like(f"{PREFIX}%")
    ).first()
    endpoint = await WebhookEndpoint.select(WebhookEndpoint.id, WebhookEndpoint.secret).where(
        WebhookEndpoint.secret.like(f"{PREFIX}%")
    ).first()
    try:
        if key is not None:
            unseal(key["private_key"], signing_key_aad(key["kid"]), "token signing key")
        if endpoint is not None:
            unseal(endpoint["secret"], endpoint_aad(endpoint["id"]), "webhook secret")
    except SecretUnreadable as exc:
        raise SealingKeyMismatch(f"SECRETS_KEY does not open what this database holds sealed: {exc}") from None
