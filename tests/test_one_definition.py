"""What the service decides once is written once (review of issues 24/25, duplicates): the staff
roles a client can be given and a token can carry, and how settlements are told that their data
changed (the API's shortcut after a commit and the activities' writers and sweep each had their
own loop of signals then `told`, so a rule such as the revision window had to be taught twice)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_staff_roles_are_defined_once():
    from api.auth import tenants, tokens

    assert tenants.STAFF_ROLES is tokens.STAFF_ROLES


def test_settlements_are_told_one_way():
    for path in ("api/settlement/observations.py", "activities/observations.py"):
        source = (ROOT / path).read_text()
        assert "observations_db.tell_notices(" in source, path
        assert "observations_db.told(" not in source, path
