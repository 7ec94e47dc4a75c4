"""`make docs`: regenerate the generated parts of the docs.

Today that is the configuration table in README.md, written from the one
settings declaration (mirror/runtime/config.py). tests/mirror/runtime/test_config.py fails when the
committed table differs from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the project's own packages

from mirror.runtime.config import DOC_PAGE, write_doc_table  # noqa: E402

if __name__ == "__main__":
    changed = write_doc_table()
    print(f"{DOC_PAGE.relative_to(ROOT)}: {'configuration table regenerated' if changed else 'up to date'}")
