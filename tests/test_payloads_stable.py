"""Every public payload of the demo's example companies is what tests/golden/public_payloads.json holds.

The golden file was written by `python -m tests.public_payloads` from the
tree before the read layer (issue 23: "public payloads are byte-identical
before and after"), and the same command on that tree and on this one gave
the same text. A change that means to alter a payload writes the file again
in the same commit (`DATABASE_URL=<an empty Postgres database>
.venv/bin/python -m tests.public_payloads tests/golden/public_payloads.json`) and says so; any other difference is a
regression this test names.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.public_payloads import collect

GOLDEN = Path(__file__).resolve().parent / "golden" / "public_payloads.json"


def test_every_public_payload_of_the_demo_is_the_recorded_one(database_url):
    expected = json.loads(GOLDEN.read_text())
    seen = collect(database_url)
    assert sorted(seen) == sorted(expected)
    changed = [name for name in expected if seen[name] != expected[name]]
    assert not changed, f"payloads changed: {changed}"
