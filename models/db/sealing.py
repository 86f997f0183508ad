"""Secrets sealed at rest: AES-256-GCM with the deployment's secrets key.

What is sealed: webhook signing secrets (models/db/webhook_secrets.py) and the token
signing keys' private halves (models/db/signing_keys.py). A value is stored as
`enc1:<base64url(nonce | ciphertext | tag)>` with associated data naming what it belongs to
(an endpoint, a key id), so a sealed value copied to another row does not open.

The key (32 bytes, base64) comes from SECRETS_KEY (its first name, WEBHOOK_SECRETS_KEY, is
still read), the same on every host of a deployment: a host with another key can open
nothing another host sealed. Several comma-separated keys let it be changed (the first
seals, each one opens). Unset: a key kept in `var/keys/webhook-secrets.key`, created 0600 on
first use, which serves one host only; so with PostgreSQL (a database hosts share) SECRETS_KEY
is required (`require_key`): a key file per host sealed what the other hosts could not open.
The database keeps the fingerprints of the keys that sealed in it (models/db/sealing_keys.py):
a process whose keys are not among them refuses to start.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from models.private_files import create_once
from models.settings import Settings, load_settings

PREFIX = "enc1:"
KEY_FILE = Path("keys") / "webhook-secrets.key"  # its first user's name: kept, installs have it
NONCE_BYTES = 12


class SecretUnreadable(Exception):
    """A sealed value no configured key opens (the secrets key differs between hosts, or the
    key file was replaced)."""


class SecretsKeyMissing(RuntimeError):
    """PostgreSQL without SECRETS_KEY (`require_key`)."""


def require_key(settings: Settings) -> None:
    """SecretsKeyMissing with PostgreSQL and no SECRETS_KEY: each host would make a key file
    of its own and seal what the others cannot open."""
    if settings.is_postgres and not settings.webhook_secrets_key:
        raise SecretsKeyMissing(
            "SECRETS_KEY is required with PostgreSQL (DATABASE_URL): base64 of 32 random bytes "
            "(`openssl rand -base64 32`), the same on every host of the deployment. It seals webhook "
            "secrets and token signing keys; a key file under var/ (the SQLite default) serves one host only"
        )


def fingerprint(key: bytes) -> str:
    """A key's name in the database (HMAC-SHA256 of a fixed text under the key, 32 hex
    characters): the same key, the same fingerprint; it tells nothing of the key."""
    return hmac.new(key, b"parametric secrets key fingerprint", hashlib.sha256).hexdigest()[:32]


def b64decode(text: str) -> bytes:
    """Standard or URL-safe base64, padded or not."""
    text = text.strip().replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def parse_keys(setting: str) -> list[bytes]:
    """SECRETS_KEY (WEBHOOK_SECRETS_KEY): one or more comma-separated base64 keys of 32 bytes."""
    keys = []
    for part in (p for p in setting.split(",") if p.strip()):
        try:
            key = b64decode(part)
        except (binascii.Error, ValueError):
            raise ValueError(
                "WEBHOOK_SECRETS_KEY (SECRETS_KEY) must be base64 (e.g. `openssl rand -base64 32`)"
            ) from None
        if len(key) != 32:
            raise ValueError(f"WEBHOOK_SECRETS_KEY (SECRETS_KEY) keys are 32 bytes, one is {len(key)}")
        keys.append(key)
    if not keys:
        raise ValueError("WEBHOOK_SECRETS_KEY (SECRETS_KEY) holds no key")
    return keys


@functools.lru_cache(maxsize=4)
def _keys_for(setting: str | None, var_dir: Path) -> tuple[bytes, ...]:
    if setting:
        return tuple(parse_keys(setting))
    path = var_dir / KEY_FILE
    if not path.exists():
        create_once(path, base64.urlsafe_b64encode(os.urandom(32)) + b"\n")
    return (b64decode(path.read_text()),)


def keys() -> tuple[bytes, ...]:
    """The configured keys, the sealing one first (read once per process and setting);
    SecretsKeyMissing with PostgreSQL and no SECRETS_KEY."""
    settings = load_settings()
    require_key(settings)
    return _keys_for(settings.webhook_secrets_key, settings.var_dir)


def seal(raw: bytes, aad: bytes) -> str:
    """The stored form of `raw`, bound to `aad` (what it belongs to)."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(keys()[0]).encrypt(nonce, raw, aad)
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def unseal(stored: str, aad: bytes, what: str = "sealed value") -> bytes:
    """`raw` from its stored form; SecretUnreadable when no configured key opens it."""
    if not stored.startswith(PREFIX):
        raise SecretUnreadable(f"the stored {what} is not sealed (enc1:)")
    blob = b64decode(stored[len(PREFIX):])
    nonce, sealed = blob[:NONCE_BYTES], blob[NONCE_BYTES:]
    for key in keys():
        try:
            return AESGCM(key).decrypt(nonce, sealed, aad)
        except InvalidTag:
            continue
    raise SecretUnreadable(
        f"no configured key opens the {what}: WEBHOOK_SECRETS_KEY / SECRETS_KEY (or var/keys/webhook-secrets.key) "
        "is not the key it was sealed with; every host must have the same key"
    )


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)
