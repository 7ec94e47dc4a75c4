"""The whole tree's import graph has no cycle, not even one hidden behind a function-level import.

grimp (the graph import-linter is built on) reads every import statement,
wherever it sits in a module, so a cycle broken only at run time by a lazy
import still shows here. The layers contract inside `mirror/` (pyproject.toml)
orders the packages; this test covers every module of every package.
"""

from __future__ import annotations

import sys
import tomllib

import grimp

from tests import REPO_ROOT


def _root_packages() -> list[str]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["root_packages"]


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return cycles


def test_the_detector_finds_a_cycle_through_three_modules():
    graph = grimp.ImportGraph()
    for importer, imported in [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "a.w")]:
        graph.add_import(importer=importer, imported=imported)
    assert import_cycles(graph) == [["a.x", "a.y", "a.z"]]


def test_no_module_of_the_tree_is_in_an_import_cycle(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO_ROOT))
    graph = grimp.build_graph(*_root_packages(), cache_dir=None)
    assert len(graph.modules) > 100  # the whole tree was read
    assert import_cycles(graph) == []
