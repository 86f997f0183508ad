"""Webhook signing secrets sealed at rest (docs/webhooks.md, "Secrets at rest").

A secret (`whsec_<base64 of 32 bytes>`) is stored as `enc1:<base64url(nonce | AES-256-GCM
ciphertext | tag)>`, its endpoint's id as associated data, so a sealed value copied to another
endpoint's row does not open. The key (32 bytes, base64) comes from WEBHOOK_SECRETS_KEY, the
same on every host of a deployment; several comma-separated keys let it be changed (the
first seals, each one opens). Unset: a key kept in `var/keys/webhook-secrets.key`, created
0600 on first use (one host). Rows written before sealing hold the secret in the clear; they
are still read (and the migration that added sealing sealed those it found).
"""

from __future__ import annotations

import base64
import binascii
import functools
import os
import uuid
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from models.private_files import create_once
from models.settings import load_settings

PREFIX = "enc1:"
PLAIN_PREFIX = "whsec_"
KEY_FILE = Path("keys") / "webhook-secrets.key"
NONCE_BYTES = 12


class SecretUnreadable(Exception):
    """A sealed secret no configured key opens (WEBHOOK_SECRETS_KEY differs between hosts, or
    the key file was replaced)."""


def _b64decode(text: str) -> bytes:
    """Standard or URL-safe base64, padded or not."""
    text = text.strip().replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def parse_keys(setting: str) -> list[bytes]:
    """WEBHOOK_SECRETS_KEY: one or more comma-separated base64 keys of 32 bytes."""
    keys = []
    for part in (p for p in setting.split(",") if p.strip()):
        try:
            key = _b64decode(part)
        except (binascii.Error, ValueError):
            raise ValueError("WEBHOOK_SECRETS_KEY must be base64 (e.g. `openssl rand -base64 32`)") from None
        if len(key) != 32:
            raise ValueError(f"WEBHOOK_SECRETS_KEY keys are 32 bytes, one is {len(key)}")
        keys.append(key)
    if not keys:
        raise ValueError("WEBHOOK_SECRETS_KEY holds no key")
    return keys


@functools.lru_cache(maxsize=4)
def _keys_for(setting: str | None, var_dir: Path) -> tuple[bytes, ...]:
    if setting:
        return tuple(parse_keys(setting))
    path = var_dir / KEY_FILE
    if not path.exists():
        create_once(path, base64.urlsafe_b64encode(os.urandom(32)) + b"\n")
    return (_b64decode(path.read_text()),)


def keys() -> tuple[bytes, ...]:
    """The configured keys, the sealing one first (read once per process and setting)."""
    settings = load_settings()
    return _keys_for(settings.webhook_secrets_key, settings.var_dir)


def _aad(endpoint_id: uuid.UUID | str) -> bytes:
    return f"webhook_endpoint:{uuid.UUID(str(endpoint_id))}".encode()


def seal(secret: str, endpoint_id: uuid.UUID | str) -> str:
    """The stored form of a `whsec_` secret of the endpoint (fits the 100-character column)."""
    raw = base64.b64decode(secret.removeprefix(PLAIN_PREFIX), validate=True)
    if PLAIN_PREFIX + base64.b64encode(raw).decode() != secret:
        raise ValueError("only secrets of the form whsec_<standard base64> are sealed")
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(keys()[0]).encrypt(nonce, raw, _aad(endpoint_id))
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def unseal(stored: str, endpoint_id: uuid.UUID | str) -> str:
    """The `whsec_` secret from its stored form; a value of before sealing is returned as it is."""
    if stored.startswith(PLAIN_PREFIX):
        return stored
    if not stored.startswith(PREFIX):
        raise SecretUnreadable("the stored webhook secret is neither sealed (enc1:) nor a whsec_ secret")
    blob = _b64decode(stored[len(PREFIX):])
    nonce, sealed = blob[:NONCE_BYTES], blob[NONCE_BYTES:]
    for key in keys():
        try:
            raw = AESGCM(key).decrypt(nonce, sealed, _aad(endpoint_id))
        except InvalidTag:
            continue
        return PLAIN_PREFIX + base64.b64encode(raw).decode()
    raise SecretUnreadable(
        "no configured key opens the endpoint's sealed secret: WEBHOOK_SECRETS_KEY (or var/keys/webhook-secrets.key) "
        "is not the key it was sealed with"
    )


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)
