"""The token signing key: ES256, kept on disk, published as a JWKS with an RFC 7638 key id.

Rotation: put the new key at SIGNING_KEY_PATH and the old public key file next to it with
the suffix `.previous.pub.pem`; both are published and accepted until the old one is removed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


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


@dataclass(frozen=True)
class SigningKeys:
    private_key: ec.EllipticCurvePrivateKey
    kid: str
    jwks: dict[str, list[dict[str, str]]]
    public_by_kid: dict[str, ec.EllipticCurvePublicKey]


def load_or_create(path: Path) -> SigningKeys:
    """Load the PEM private key at `path`, creating it (mode 0600) on first use."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        try:
            os.link(tmp, path)  # atomic and refuses to overwrite a key another process made
        except FileExistsError:
            pass
        tmp.unlink(missing_ok=True)
    private_key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(private_key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{path} must hold an EC P-256 private key")
    current = public_jwk(private_key.public_key())
    keys = [current]
    public_by_kid = {current["kid"]: private_key.public_key()}
    previous = path.with_name(path.stem + ".previous.pub.pem")
    if previous.exists():
        old = serialization.load_pem_public_key(previous.read_bytes())
        if isinstance(old, ec.EllipticCurvePublicKey):
            jwk = public_jwk(old)
            keys.append(jwk)
            public_by_kid[jwk["kid"]] = old
    return SigningKeys(private_key=private_key, kid=current["kid"], jwks={"keys": keys}, public_by_kid=public_by_kid)
