"""One person, one staff identity: the key under which two staff names (or two e-mail
addresses) count as the same.

`identity_key(text)` is Unicode TR#39's confusable *skeleton* (ICU's SpoofChecker, the
reference implementation; docs/library-choices.md) taken over the text's case variants:

    key(s) = skeleton(casefold(skeleton(upper(NFKC(s)))))

- `upper` first, so case variants meet ("RT-ACT1" and "rt-act1"), and the skeleton of the
  capitals catches the look-alikes that exist in capitals only ("I" looks like "l");
- `casefold` then the skeleton again catches the lower-case look-alikes ("rn" and "m",
  Cyrillic "а" and Latin "a") and the folds upper-casing leaves ("ß" → "SS" → "ss").

Two strings with the same key are refused as two identities (api/auth/tenants.py); the key
is stored in a unique column so the refusal holds under concurrent creations. The key is
for comparison only, never shown. It errs on the side of refusing: "li" and "ii" share one
(an "I" looks like an "l"), and a second staff member simply picks another name.
"""

from __future__ import annotations

import re
import unicodedata

import icu

_CHECKER = icu.SpoofChecker()
KEY_LENGTH = 400  # characters a key column holds: a skeleton is longer than its text at most 4 times
# An e-mail address as a person key: one @, a non-empty local part, a dotted domain; no
# spaces or control characters. Deliberately plain: the address is a key, not a mailbox
# we validate deliverability of.
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
EMAIL_MAX = 254


def _skeleton(text: str) -> str:
    return _CHECKER.getSkeleton(0, text)


def identity_key(text: str) -> str:
    """The text's comparison key (module docstring); "" for "" ."""
    normal = unicodedata.normalize("NFKC", text)
    return _skeleton(_skeleton(normal.upper()).casefold())


def email_key(email: str) -> str:
    """An e-mail address's person key: `identity_key` of the address without its
    sub-address tag (RFC 5233: "rt-act1+x@example.com" is rt-act1's mailbox, delivered to the
    same person), so a plus-address is not a second identity."""
    local, at, domain = email.rpartition("@")
    if at and "+" in local.lstrip("+"):
        local = local[: local.index("+", 1 if local.startswith("+") else 0)]
    return identity_key(f"{local}{at}{domain}" if at else email)


def check_email(email: str) -> str:
    """An e-mail address, stripped: ValueError in words unless it is one (at most 254
    characters, no spaces or control characters)."""
    cleaned = email.strip()
    if not cleaned or len(cleaned) > EMAIL_MAX or not _EMAIL.match(cleaned):
        raise ValueError(f"an e-mail address (the person's key) is required, like name@example.com; got {email!r}")
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise ValueError("an e-mail address cannot contain control or format characters")
    return cleaned
