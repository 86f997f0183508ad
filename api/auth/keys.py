"""The token signing keys: ES256, one set shared by every API process through the database
(models/db/signing_keys.py), published as a JWKS with RFC 7638 key ids.

- **First use**: whichever process needs a key first makes it; two at once cannot both win
  (the key's generation is unique), the other reads the winner's. The private half is
  sealed at rest with the deployment's secrets key (models/db/sealing.py: SECRETS_KEY, the
  same on every host).
- **An install from before** (a key file at SIGNING_KEY_PATH, default
  `var/keys/signing-key.pem`): that key is imported as the first key, so the tokens it
  signed keep verifying (same kid), and its `signing-key.previous.pub.pem`, if any, as a
  retired key. A host whose key file is not in the table (several hosts each made their
  own) adds its public key as retired: the tokens it issued before the upgrade verify for
  their lifetime. The file is only read; it may be deleted once imported.
- **Rotation** (`parametric keys rotate`): a new key becomes current; the keys before it
  retire (their private halves erased) and keep verifying, and stay in the JWKS, for a
  token lifetime plus the refresh interval after retiring, since a process may sign with
  the old key until it next reads the table.
- **Revocation** (`parametric keys revoke KID`, a key thought stolen): its tokens are refused
  at once (every process re-reads the revoked key ids at most a second apart:
  api/auth/revocations.py), it leaves the JWKS and its private half is erased; the current
  key is replaced first.
- **Every process** re-reads the keys every `REFRESH_SECONDS`, and at once (at most once a
  second) when a token names a key id it does not know, so a key another process just made
  is found.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from models.clock import utcnow
from models.db import signing_keys as keys_db
from models.db.sealing import SecretUnreadable
from models.db.sealing_keys import check_sealing_key
from models.settings import Settings

log = logging.getLogger("parametric.api")

REFRESH_SECONDS = 60.0  # how stale a process's view of the keys may get
LEEWAY_SECONDS = 30  # as the tokens' exp/nbf leeway (api/auth/tokens.py)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_jwk(public_key: ec.EllipticCurvePublicKey) -> dict[str, str]:
    numbers = public_key.public_numbers()
    jwk = {
        "crv": "P-256",
        "kty": "EC",
        "x": _b64(numbers.x.to_bytes(32, "big")),
        "y": _b64(numbers.y.to_bytes(32, "big")),
    }
    # RFC 7638 thumbprint over the required members in lexicographic order.
    kid = _b64(hashlib.sha256(json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()).digest())
    return {**jwk, "kid": kid, "use": "sig", "alg": "ES256"}


def _public_key(jwk: dict[str, str]) -> ec.EllipticCurvePublicKey:
    def number(text: str) -> int:
        return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")

    return ec.EllipticCurvePublicNumbers(number(jwk["x"]), number(jwk["y"]), ec.SECP256R1()).public_key()


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


@dataclass(frozen=True)
class KeyRing:
    """What one process signs and verifies with, as read at `loaded_at` (monotonic)."""

    kid: str | None  # the current key; None: this host's secrets key does not open it
    private_key: ec.EllipticCurvePrivateKey | None
    public_by_kid: dict[str, ec.EllipticCurvePublicKey]
    jwks: dict[str, list[dict[str, str]]]
    loaded_at: float


def verify_window(settings: Settings) -> dt.timedelta:
    """How long a retired key keeps verifying: a token lifetime after the last token it
    can have signed (a process learns of a rotation within REFRESH_SECONDS)."""
    return dt.timedelta(seconds=settings.token_ttl_seconds + REFRESH_SECONDS + LEEWAY_SECONDS)


def _read_key_file(path: Path) -> ec.EllipticCurvePrivateKey | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    key = serialization.load_pem_private_key(data, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{path} must hold an EC P-256 private key")
    return key


def _read_public_file(path: Path) -> ec.EllipticCurvePublicKey | None:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except FileNotFoundError:
        return None
    return key if isinstance(key, ec.EllipticCurvePublicKey) else None


async def _make_current(key: ec.EllipticCurvePrivateKey, generation: int) -> bool:
    jwk = public_jwk(key.public_key())
    return await keys_db.add_current(jwk["kid"], generation, json.dumps(jwk), _pem(key))


async def ensure_keys(settings: Settings) -> None:
    """A current key exists (the key file's, or a new one), and this host's key file, if
    it has one, verifies its tokens. First, this process's SECRETS_KEY is the one that seals
    in this database (models/db/sealing_keys.py: SealingKeyMismatch otherwise)."""
    await check_sealing_key()
    path = settings.signing_key_path
    from_file = _read_key_file(path)
    if await keys_db.current_generation() == 0:
        if await _make_current(from_file or ec.generate_private_key(ec.SECP256R1()), 1) and from_file is not None:
            log.info("token signing key imported from %s", path)
            previous = _read_public_file(path.with_name(path.stem + ".previous.pub.pem"))
            if previous is not None:
                jwk = public_jwk(previous)
                await keys_db.add_retired(jwk["kid"], json.dumps(jwk))
    if from_file is not None:
        jwk = public_jwk(from_file.public_key())
        if jwk["kid"] not in await keys_db.known_kids():
            log.info("the key of %s (not the shared one) verifies its tokens for a token lifetime", path)
            await keys_db.add_retired(jwk["kid"], json.dumps(jwk))


async def rotate(settings: Settings) -> str:
    """Make a new current key; the previous ones retire (and still verify for
    `verify_window`). Returns the new key id."""
    await ensure_keys(settings)
    key = ec.generate_private_key(ec.SECP256R1())
    for _ in range(5):  # another rotation at the same moment: go after it
        if await _make_current(key, await keys_db.current_generation() + 1):
            return public_jwk(key.public_key())["kid"]
    raise RuntimeError("the signing keys kept changing under the rotation; try again")


async def revoke(settings: Settings, kid: str) -> str | None:
    """Revoke key `kid`: every process refuses its tokens within a second (api/auth/tokens.py,
    `Revocations`), it leaves the JWKS, its private half is erased. The current key is
    replaced first (`rotate`: the new key id is returned). LookupError for an unknown kid."""
    from models.db.tables import SigningKey

    row = await SigningKey.select(SigningKey.generation, SigningKey.retired_at).where(SigningKey.kid == kid).first()
    if row is None:
        raise LookupError(f"no signing key {kid!r} (parametric keys list)")
    new_kid = None
    if row["generation"] is not None and row["retired_at"] is None:  # the current key: replace it first
        new_kid = await rotate(settings)
    await keys_db.revoke(kid)
    return new_kid


def _current(rows: list[keys_db.KeyRow]) -> keys_db.KeyRow | None:
    return next((r for r in rows if r.generation is not None and r.retired_at is None), None)


async def load_ring(settings: Settings, ensure: bool = False) -> KeyRing:
    """The keys as the table holds them now; `ensure`: first make sure of them
    (`ensure_keys`: a process does once). The first key is made when there is none."""
    if ensure:
        await ensure_keys(settings)
    retired_after = utcnow() - verify_window(settings)
    try:
        rows = await keys_db.usable(retired_after)
    except SecretUnreadable as exc:
        log.error("this host cannot sign tokens (it verifies them): %s", exc)
        rows = await keys_db.usable(retired_after, unseal_current=False)
    current = _current(rows)
    if current is None:
        if ensure:
            raise RuntimeError("no current token signing key right after making one")
        return await load_ring(settings, ensure=True)
    private_key = None
    if current.private_pem is not None:
        loaded = serialization.load_pem_private_key(current.private_pem, password=None)
        private_key = loaded if isinstance(loaded, ec.EllipticCurvePrivateKey) else None
    jwks = [json.loads(r.public_jwk) for r in rows]
    return KeyRing(
        kid=current.kid if private_key is not None else None,
        private_key=private_key,
        public_by_kid={jwk["kid"]: _public_key(jwk) for jwk in jwks},
        jwks={"keys": jwks},
        loaded_at=time.monotonic(),
    )
