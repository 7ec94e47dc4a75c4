"""Every shell example in README.md and docs/ runs against a live demo and prints what the docs show.

The convention the pages follow is written once, in docs/examples.md: a
```sh/bash/console/shell block runs unless `<!-- not-run: why -->` precedes it;
`# → ` lines show the output of the lines above them (`...` is anything, a line
break any whitespace or none); lines with no shown output must exit 0; a page's
blocks share one bash session, started in a checkout-like directory with the
demo's `.flaskenv` and none of the mirror's settings exported; `127.0.0.1:8000`
and `127.0.0.1:8001` are rewritten to the demo's ports.

One demo for the module: the same processes `make run` starts (scripts/run_demo.sh,
its default demo size) on free ports, its instance folder and `.flaskenv` in a
temporary directory, on the embedded Postgres the demo starts there (no `DATABASE_URL`, as `make run`).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from mirror.runtime.config import Settings, env_name
from mirror.store import embedded
from tests import REPO_ROOT
from tests.conftest import folder_outside_pytest_root
from tests.ops_helpers import free_port

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
SHELL_FENCES = {"sh", "bash", "console", "shell"}
NOT_RUN = re.compile(r"^<!--\s*not-run\b.*-->\s*$")
OUTPUT = "# →"
FENCE = re.compile(r"^(\s*)```([\w+-]*)\s*$")
DOC_PORT, DOC_UPSTREAM_PORT = 8000, 8001


@dataclass
class Step:
    """Shell lines and what the docs show they print (None: nothing shown, must exit 0)."""

    page: str
    line: int
    shell: str
    expected: str | None


@dataclass
class Block:
    """One fenced block: where it starts, its language, whether it is marked not-run, its lines."""

    line: int
    language: str
    not_run: bool
    lines: list[str]


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced code block of a Markdown page, in order."""
    blocks, current, indent = [], None, ""
    previous = ""
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if current is None:
            if match:
                indent = match.group(1)
                current = Block(number, match.group(2), bool(NOT_RUN.match(previous.strip())), [])
            elif line.strip():
                previous = line
            continue
        if match and not match.group(2):
            blocks.append(current)
            current, previous = None, ""
            continue
        current.lines.append(line[len(indent) :] if line.startswith(indent) else line)
    assert current is None, f"a code block opened on line {current.line} is never closed"
    return blocks


def steps(page: Path) -> list[Step]:
    """The runnable steps of one page: shell lines, each group followed by its shown output (if any)."""
    found: list[Step] = []
    for block in fenced_blocks(page.read_text()):
        if block.language not in SHELL_FENCES or block.not_run:
            continue
        shell: list[str] = []
        shown: list[str] = []
        start = block.line + 1
        for offset, line in enumerate(block.lines + [""]):
            is_output = line.startswith(OUTPUT)
            if shown and not is_output:
                found.append(Step(page.name, start, "\n".join(shell), "\n".join(shown)))
                shell, shown, start = [], [], block.line + 1 + offset
            if is_output:
                shown.append(line[len(OUTPUT) :].strip())
            elif line.strip() or shell:
                shell.append(line)
        if "\n".join(shell).strip():
            found.append(Step(page.name, start, "\n".join(shell), None))
    return found


def output_pattern(shown: str) -> re.Pattern:
    """The shown output as a regular expression: `...` is anything, a line break is any whitespace or none."""
    parts = []
    for piece in shown.split("..."):
        lines = [re.escape(line.strip()) for line in piece.split("\n")]
        parts.append(r"\s*".join(lines))
    return re.compile(r"\s*" + "(?:.*?)".join(parts) + r"\s*", re.DOTALL)


def matches(shown: str, printed: str) -> bool:
    """Whether `printed` is what `shown` shows (see output_pattern)."""
    return output_pattern(shown).fullmatch(printed) is not None


def _ported(text: str, port: int, upstream_port: int) -> str:
    return text.replace(f"127.0.0.1:{DOC_PORT}", f"127.0.0.1:{port}").replace(
        f"127.0.0.1:{DOC_UPSTREAM_PORT}", f"127.0.0.1:{upstream_port}"
    )


# --- the convention itself, without a demo -----------------------------------------


def test_the_matcher_elides_and_ignores_wrapping():
    assert matches('{"a":1,...,"z":2}', '{"a":1,"b":{"c":3},"z":2}\n')
    assert matches('{"a":1,\n   "z":2}', '{"a":1,"z":2}')
    assert matches("HTTP/1.1 200 OK\nETag: ...\nX: y", 'HTTP/1.1 200 OK\r\nETag: "abc"\r\nX: y\r\n')
    assert not matches('{"a":1}', '{"a":2}')
    assert not matches("served", "served, and more")
    assert not matches("a\nb", "ab c")


def test_steps_split_a_block_at_its_shown_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not-run: production -->\n```sh\nsystemctl restart mirror\n```\n\n"
        "```sh\nKEY=abc\necho $KEY\n# → abc\n\n# a comment\necho one\necho two\n# → one\n# → two\ntrue\n```\n"
        "```json\n{}\n```\n"
    )
    found = steps(page)
    assert [(step.shell.strip(), step.expected) for step in found] == [
        ("KEY=abc\necho $KEY", "abc"),
        ("# a comment\necho one\necho two", "one\ntwo"),
        ("true", None),
    ]


def test_every_page_marks_its_examples_and_the_readme_try_it_block_is_checked():
    for page in PAGES:
        for block in fenced_blocks(page.read_text()):
            # An unlabelled block could hide a command from this test: label it (sh, text, json...).
            assert block.language, f"{page.name}:{block.line}: a code block without a language"
    readme = [step for step in steps(REPO_ROOT / "README.md") if step.expected is not None]
    assert any("/companies/$KEY/pricing.json" in step.shell for step in readme)
    assert sum(len(steps(page)) for page in PAGES) >= 30


# --- the live demo -----------------------------------------------------------------


def _checkout(tmp_path: Path) -> Path:
    """A directory laid out like the repository (symlinks), with no .flaskenv or instance/ of its own yet."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for entry in REPO_ROOT.iterdir():
        if entry.name in (".flaskenv", ".env", "instance", ".git", ".pytest_cache"):
            continue
        (checkout / entry.name).symlink_to(entry)
    return checkout


def _fresh_environment() -> dict[str, str]:
    """This process's environment minus every mirror setting and Flask/make variable: a new shell's."""
    settings = {env_name(name) for name in Settings.model_fields}
    return {
        key: value
        for key, value in os.environ.items()
        if key not in settings and not key.startswith(("FLASK_", "MAKE", "PYTEST", "TEST_")) and key != "MFLAGS"
    }


@dataclass
class Demo:
    checkout: Path
    port: int
    upstream_port: int


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """scripts/run_demo.sh on free ports, its instance folder and .flaskenv inside a checkout-like directory."""
    tmp_path = tmp_path_factory.mktemp("docs-examples")
    checkout = _checkout(tmp_path)
    with folder_outside_pytest_root("mirror-docs-") as outside:
        # checkout/instance leads outside pytest's root, where the embedded Postgres run as root can start.
        (outside / "instance").mkdir()
        (checkout / "instance").symlink_to(outside / "instance")
        yield from _demo(tmp_path, checkout)


def _demo(tmp_path: Path, checkout: Path):
    port, upstream_port = free_port(), free_port()
    env = _fresh_environment() | {
        "PORT": str(port),
        "UPSTREAM_PORT": str(upstream_port),
        "INSTANCE_DIR": str(checkout / "instance"),
        "FLASKENV_FILE": str(checkout / ".flaskenv"),
    }
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "scripts/run_demo.sh"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, log.read_text()
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"the demo is not serving after 120 s:\n{log.read_text()}"
            time.sleep(0.3)
        yield Demo(checkout, port, upstream_port)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        embedded.stop(checkout / "instance" / "postgres")  # its own session: a SIGKILL above leaves it running


def _run_page(demo: Demo, page_steps: list[Step]) -> list[tuple[str, int]]:
    """Run a page's steps in one bash session; each step's combined output and exit status."""
    mark = f"@@docs-example-{uuid.uuid4().hex}@@"
    script = ["exec 2>&1"]
    for step in page_steps:
        script += [_ported(step.shell, demo.port, demo.upstream_port), f"printf '\\n{mark} %d\\n' $?"]
    session = demo.checkout.parent / f"session-{uuid.uuid4().hex}.sh"
    session.write_text("\n".join(script) + "\n")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", str(session)],
        stdin=subprocess.DEVNULL,
        cwd=demo.checkout,
        env=_fresh_environment(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    # Each step's output runs up to its mark; the mark's line carries its exit status.
    pieces = done.stdout.split(f"\n{mark} ")
    outputs = [pieces[0]] + [piece.partition("\n")[2] for piece in pieces[1:-1]]
    statuses = [int(piece.partition("\n")[0]) for piece in pieces[1:]]
    assert len(statuses) == len(page_steps), f"the session stopped early:\n{done.stdout[-3000:]}\n{done.stderr}"
    return list(zip(outputs, statuses, strict=True))


@pytest.mark.slow
def test_every_doc_example_prints_what_the_docs_show(demo):
    failures = []
    for page in PAGES:
        page_steps = steps(page)
        if not page_steps:
            continue
        for step, (printed, status) in zip(page_steps, _run_page(demo, page_steps), strict=True):
            where = f"{step.page}:{step.line}"
            if step.expected is None:
                if status != 0:
                    failures.append(f"{where}: exited {status}\n$ {step.shell.strip()}\n{printed.strip()}")
                continue
            expected = _ported(step.expected, demo.port, demo.upstream_port)
            if not matches(expected, printed):
                failures.append(
                    f"{where}: printed something else\n$ {step.shell.strip()}\n"
                    f"--- shown\n{expected}\n--- printed\n{printed.strip()}"
                )
    assert not failures, "\n\n".join(failures)
