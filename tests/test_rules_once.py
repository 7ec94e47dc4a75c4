"""Rules written once stay written once (issue 31, "every rule written once").

Each check reads the application's Python source as a syntax tree (so a
comment never counts, and a string only as a whole value) and names each
place where a rule is spelled again outside its one definition; each is
also shown the code it replaced, so a check that can no longer see its
repeat fails too. The definitions:

- the category kinds and tier slugs: mirror/catalog/trades.py (SYSTEM, ACCESSORY, CategoryKind, TIERS, TierSlug);
- a trade's label with the fallback for an unknown one: mirror/catalog/trades.py (in_sentence, known);
- money: mirror/values/money.py (the currency signs, cents to an amount and back);
- a Decimal as a JSON number: mirror/values/jsontext.py (decimal_number);
- a naive time read as UTC: mirror/values/timestamps.py (aware);
- text cut at a word boundary: mirror/values/storable.py (cut_at_word);
- a result row read by name, never by position: mirror/store/db.py (rows_by_name, for the
  tuples statement_rows gives; a SQLAlchemy row by attribute).

The demo upstream is left out on purpose: it shares no code with the mirror
(an import contract) and spells the upstream's records as the platform does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from mirror.catalog.trades import KINDS, TIERS
from tests import REPO_ROOT

PACKAGES = (
    "mirror",
    "agent_tools",
    "web",
    "feeds",
    "mcp_server",
    "webmcp",
    "a2a_server",
    "nlweb_server",
    "discovery",
    "commands",
)


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            yield path.relative_to(REPO_ROOT).as_posix(), ast.parse(path.read_text(), str(path))
    yield "wsgi.py", ast.parse((REPO_ROOT / "wsgi.py").read_text())


def _strings(node: ast.AST) -> Iterator[ast.Constant]:
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            yield child


def _homeowner_words(tree: ast.Module) -> set[int]:
    """The ids of the string constants of mirror/catalog/vocabulary.py's KIND_WORDS: words a question types."""
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "KIND_WORDS" for t in targets):
                return {id(c) for c in _strings(node.value)}
    raise AssertionError("mirror/catalog/vocabulary.py has no KIND_WORDS")


def _kinds(name: str, tree: ast.Module) -> list[int]:
    """ "system" and "accessory" as values (vocabulary.py's KIND_WORDS are the words a question types)."""
    words = _homeowner_words(tree) if name == "mirror/catalog/vocabulary.py" else set()
    return [c.lineno for c in _strings(tree) if c.value in KINDS and id(c) not in words]


def _typed_kinds_or_tiers(_name: str, tree: ast.Module) -> list[int]:
    """`Literal[...]` of tier slugs or kinds."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Literal"
        and {c.value for c in _strings(node.slice)} & {*TIERS, *KINDS}
    ]


def _trade_fallbacks(_name: str, tree: ast.Module) -> list[int]:
    """`x if t in TRADES else y` and `[... for t in ts if t in TRADES]` (a check that slugs are known, `not in`, is no label)."""
    found = []
    for node in ast.walk(tree):
        tests = (
            [node.test]
            if isinstance(node, ast.IfExp)
            else list(node.ifs)
            if isinstance(node, ast.comprehension)
            else []
        )
        for test in tests:
            for compare in (n for n in ast.walk(test) if isinstance(n, ast.Compare)):
                if isinstance(compare.ops[0], ast.In) and any(
                    isinstance(c, ast.Name) and c.id == "TRADES" for c in compare.comparators
                ):
                    found.append(compare.lineno)
    return found


def _money(name: str, tree: ast.Module) -> list[int]:
    """`scaleb`, a floor to whole cents (ROUND_FLOOR), a currency table ({"USD": "$"})."""
    found = [call.lineno for call in _calls(tree, "scaleb")]
    found += [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "ROUND_FLOOR"]
    found += [c.lineno for c in _strings(tree) if c.value == "ROUND_FLOOR"]
    found += [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "USD" for k in node.keys)
    ]
    return found


def _decimal_numbers(_name: str, tree: ast.Module) -> list[int]:
    """`int(v) if v == v.to_integral_value() else float(v)`."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.IfExp)
        and isinstance(node.orelse, ast.Call)
        and isinstance(node.orelse.func, ast.Name)
        and node.orelse.func.id == "float"
        and any(_calls(node.test, "to_integral_value"))
    ]


def _naive_as_utc(_name: str, tree: ast.Module) -> list[int]:
    """`t if t.tzinfo else t.replace(tzinfo=UTC)`."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.IfExp)
        and any(keyword.arg == "tzinfo" for call in _calls(node, "replace") for keyword in call.keywords)
    ]


def _word_cuts(_name: str, tree: ast.Module) -> list[int]:
    """`text[:n].rsplit(" ", 1)`."""
    return [
        call.lineno
        for call in _calls(tree, "rsplit")
        if call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value == " "
    ]


def _rows_by_position(_name: str, tree: ast.Module) -> list[int]:
    """`row[0]`, `row[width + 1:]`, `rows[0][-1]`: a result row read by position (a string key is a name)."""

    def positional(index: ast.AST) -> bool:
        return (
            isinstance(index, ast.Slice | ast.BinOp)
            or (isinstance(index, ast.Constant) and isinstance(index.value, int))
            or (isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant))
        )

    def a_row(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in ("row", "first") or node.id.endswith("_row")
        return (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ("rows", "found")
        )

    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and a_row(node.value) and positional(node.slice)
    ]


# Each rule: where it is defined, the finder of a second spelling, and that spelling in the code it replaced.
RULES = {
    "category kinds": (
        "mirror/catalog/trades.py",
        _kinds,
        "kind = 'system' if any(p.category_kind == 'system' for p in items) else 'accessory'",
    ),
    "kind and tier types": (
        "mirror/catalog/trades.py",
        _typed_kinds_or_tiers,
        "tier: Literal['good', 'better', 'best'] | None",
    ),
    "trade labels": (
        "mirror/catalog/trades.py",
        _trade_fallbacks,
        "label = TRADES[t].in_sentence if t in TRADES else t",
    ),
    "money": ("mirror/values/money.py", _money, "cents = int(amount.scaleb(2))"),
    "decimal as JSON": (
        "mirror/values/jsontext.py",
        _decimal_numbers,
        "n = int(v) if v == v.to_integral_value() else float(v)",
    ),
    "naive time as UTC": ("mirror/values/timestamps.py", _naive_as_utc, "t = t if t.tzinfo else t.replace(tzinfo=UTC)"),
    "cut at a word": ("mirror/values/storable.py", _word_cuts, "cut = text[:240].rsplit(' ', 1)[0].rstrip(',.;:')"),
    "rows by name": (
        "mirror/store/db.py",
        _rows_by_position,
        "total = rows[0][-1]; hit = rows[0][first_any + i]; sku, name = row[0], row[1]; rest = row[2:]",
    ),
}


def _calls(tree: ast.AST, attribute: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute:
            yield node


def test_the_sources_are_read():
    names = {name for name, _ in _sources()}
    assert {
        "mirror/catalog/trades.py",
        "mirror/values/money.py",
        "feeds/pages.py",
        "agent_tools/company.py",
        "wsgi.py",
    } <= names
    assert len(names) > 100


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_is_spelled_only_where_it_is_defined(rule: str):
    home, finder, _old = RULES[rule]
    found = [(name, line) for name, tree in _sources() if name != home for line in finder(name, tree)]
    assert found == [], f"{rule}: spelled again outside {home}"


@pytest.mark.parametrize("rule", RULES)
def test_each_finder_sees_the_repeat_it_replaced(rule: str):
    _home, finder, old = RULES[rule]
    assert finder("old.py", ast.parse(old))
