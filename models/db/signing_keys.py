"""The token signing keys every API process shares (table `signing_key`; api/auth/keys.py
makes and uses them).

Race-safe without locks: the current key is the one with the highest `generation`, which
is unique, so two processes making the first key (or rotating at once) cannot both win: the
loser's insert does nothing and it reads the winner's key. A private key is sealed at rest
(models/db/sealing.py, its key id as associated data) and erased when its key retires."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from models.clock import utcnow
from models.db.core import insert_rows
from models.db.sealing import seal, unseal
from models.db.tables import SigningKey


@dataclass(frozen=True, slots=True)
class KeyRow:
    kid: str
    generation: int | None
    public_jwk: str  # JSON text
    private_pem: bytes | None  # unsealed; None when erased or never held
    created_at: dt.datetime
    retired_at: dt.datetime | None


def signing_key_aad(kid: str) -> bytes:
    return f"signing_key:{kid}".encode()


async def usable(retired_after: dt.datetime, unseal_current: bool = True) -> list[KeyRow]:
    """The keys that sign or still verify: not revoked, and not retired or retired after
    `retired_after`;
    newest generation first (the current key leads). The current key's private half is
    unsealed (SecretUnreadable when this host's secrets key does not open it), unless
    `unseal_current` is false."""
    rows = await SigningKey.select().where(
        (SigningKey.retired_at.is_null() | (SigningKey.retired_at > retired_after)) & SigningKey.revoked_at.is_null()
    )
    rows.sort(key=lambda r: (r["generation"] is None, -(r["generation"] or 0), r["kid"]))
    current = next((r for r in rows if r["generation"] is not None and r["retired_at"] is None), None)
    return [
        KeyRow(
            kid=r["kid"],
            generation=r["generation"],
            public_jwk=r["public_jwk"],
            private_pem=unseal(r["private_key"], signing_key_aad(r["kid"]), "token signing key")
            if unseal_current and r is current and r["private_key"]
            else None,
            created_at=r["created_at"],
            retired_at=r["retired_at"],
        )
        for r in rows
    ]


async def known_kids() -> set[str]:
    return {r["kid"] for r in await SigningKey.select(SigningKey.kid)}


async def current_generation() -> int:
    row = await SigningKey.select(SigningKey.generation).where(SigningKey.generation.is_not_null()).order_by(
        SigningKey.generation, ascending=False
    ).first()
    return 0 if row is None else int(row["generation"])


async def add_current(kid: str, generation: int, public_jwk: str, private_pem: bytes) -> bool:
    """Make the key current as `generation` (the next after the current one); False when
    another process made that generation first (nothing written). Then the keys before it
    retire now and their private halves are erased."""
    now = utcnow()
    row = SigningKey(
        kid=kid, generation=generation, public_jwk=public_jwk, private_key=seal(private_pem, signing_key_aad(kid)),
        created_at=now, retired_at=None,
    )
    await insert_rows([row], on_conflict_nothing=True)
    won = await SigningKey.exists().where((SigningKey.kid == kid) & (SigningKey.generation == generation))
    if won:
        await SigningKey.update({SigningKey.retired_at: now, SigningKey.private_key: ""}).where(
            SigningKey.generation.is_not_null() & (SigningKey.generation < generation) & SigningKey.retired_at.is_null()
        )
    return won


async def add_retired(kid: str, public_jwk: str) -> None:
    """A key that only verifies, from now for a token lifetime (an imported public key); a
    key already known is left as it is."""
    now = utcnow()
    await insert_rows(
        [SigningKey(kid=kid, generation=None, public_jwk=public_jwk, private_key="", created_at=now, retired_at=now)],
        on_conflict_nothing=True,
    )


async def revoke(kid: str) -> bool:
    """Revoke a key that is not the current one (api/auth/keys.py makes a new current key
    first): retired now if it was not, its private half erased. False for an unknown kid."""
    now = utcnow()
    row = await SigningKey.select(SigningKey.retired_at).where(SigningKey.kid == kid).first()
    if row is None:
        return False
    await SigningKey.update(
        {SigningKey.revoked_at: now, SigningKey.retired_at: row["retired_at"] or now, SigningKey.private_key: ""}
    ).where((SigningKey.kid == kid) & SigningKey.revoked_at.is_null())
    return True


async def revoked_kids() -> set[str]:
    return {r["kid"] for r in await SigningKey.select(SigningKey.kid).where(SigningKey.revoked_at.is_not_null())}
