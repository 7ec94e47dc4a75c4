"""The suite, laid out like the source: a module's tests are under tests/<its package path>/.

Whole-project checks (docs, make run, payloads, import graph, cross-surface
rules) sit here at the top; shared fixtures are in conftest.py, shared helpers
in the *_helpers.py modules beside it.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
