"""The README stays a newcomer's page: short, pointing at every reference page, and no table exists twice."""

from __future__ import annotations

import re

from tests import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = sorted((REPO_ROOT / "docs").rglob("*.md"))


def _tables(text: str) -> list[str]:
    """Every Markdown table in `text` (its rows joined), outside fenced code."""
    tables, current, in_code = [], [], False
    for line in text.splitlines() + [""]:
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("|"):
            current.append(line.strip())
            continue
        if len(current) >= 3:
            tables.append("\n".join(current))
        current = []
    return tables


def test_the_readme_reads_in_five_minutes():
    assert README.read_text().count("\n") < 400


def test_the_readme_links_every_reference_page():
    text = README.read_text()
    for page in DOCS:
        relative = page.relative_to(REPO_ROOT).as_posix()
        if page.parent.name == "contracts":
            relative = "docs/contracts/"
        assert f"]({relative})" in text, f"README.md does not link {relative}"


def test_no_table_exists_twice():
    seen: dict[str, str] = {}
    for path in [README, *DOCS]:
        for table in _tables(path.read_text()):
            body = re.sub(r"\s+", " ", table)
            assert body not in seen, f"the same table is in {seen.get(body)} and {path.name}"
            seen[body] = path.name
