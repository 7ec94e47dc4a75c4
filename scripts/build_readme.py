"""Assemble README.md from the per-feature sections in docs/ (their one source).

Each feature's section lives beside its peers in docs/; this script joins them
in reading order, demoting headings so every section sits under the README's
single title. Run it after editing a section: `.venv/bin/python scripts/build_readme.py`.
It first regenerates the configuration table in docs/operations.md from the
settings declaration (mirror/config.py), so a new setting reaches both.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the project's own packages

from mirror.config import write_doc_table  # noqa: E402

ORDER = ["intro", "core", "web-surfaces", "business-feed", "mcp", "webmcp", "ucp", "a2a", "operations", "performance"]


def _demote(text: str) -> str:
    """Make a section's top heading level 2, leaving code blocks alone."""
    lines = text.splitlines()
    top = min((len(l) - len(l.lstrip("#")) for l in _prose(lines) if l.startswith("#")), default=2)
    shift = max(0, 2 - top)
    out, in_code = [], False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        if not in_code and line.startswith("#") and shift:
            line = "#" * shift + line
        out.append(line)
    return "\n".join(out).strip() + "\n"


def _prose(lines: list[str]) -> list[str]:
    """The lines outside fenced code blocks."""
    kept, in_code = [], False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code:
            kept.append(line)
    return kept


def build() -> str:
    """The README text."""
    parts = []
    for name in ORDER:
        path = ROOT / "docs" / f"{name}.md"
        if path.exists():
            text = path.read_text()
            parts.append(text.strip() + "\n" if name == "intro" else _demote(text))
    return "\n".join(parts)


if __name__ == "__main__":
    if write_doc_table():
        print("docs/operations.md: configuration table regenerated")
    (ROOT / "README.md").write_text(build())
    print("README.md written")
