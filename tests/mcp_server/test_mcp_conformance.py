"""The official MCP conformance suite against both servers, over real HTTP.

`conformance server --suite active --expected-failures tests/conformance-baseline.yml`
exits non-zero on any failure (or warning) not in the baseline, and on a
baseline entry that now passes; the test fails whenever it does. Both runs go
in parallel to keep the suite quick. Needs Node 22 (tools/node_modules/.bin).
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from tests import REPO_ROOT
from tests.mcp_helpers import live_mcp, module_database

REPO = REPO_ROOT
NODE_BIN = REPO / "tools" / "node_modules" / ".bin"
BASELINE = REPO_ROOT / "tests" / "conformance-baseline.yml"
MUST_PASS = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection", "resources-list", "prompts-list")


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def _conformance(url: str) -> subprocess.Popen:
    env = {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    command = [
        str(NODE_BIN / "conformance"),
        "server",
        "--url",
        url,
        "--suite",
        "active",
        "--expected-failures",
        str(BASELINE),
    ]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)


def test_baseline_lists_only_fixture_or_sse_scenarios_with_reasons():
    entries = yaml.safe_load(BASELINE.read_text())["server"]
    assert not set(MUST_PASS) & set(entries)
    lines = BASELINE.read_text().splitlines()
    for entry in entries:
        index = lines.index(f"  - {entry}")
        while lines[index - 1].startswith("  - "):  # entries grouped under one reason
            index -= 1
        reason = []
        while lines[index - 1].startswith("  #"):
            index -= 1
            reason.insert(0, lines[index])
        text = " ".join(reason)
        assert reason and ("Fixture" in text or "SSE" in text), entry


def test_conformance_suite_passes_for_both_servers(live):
    runs = {"company": _conformance(live.company_url()), "provider": _conformance(live.provider_url)}
    outputs = {name: process.communicate(timeout=600)[0] for name, process in runs.items()}
    for name, process in runs.items():
        output = outputs[name]
        assert process.returncode == 0, f"{name} server:\n{output[-6000:]}"
        assert "Baseline check passed" in output, output[-3000:]
        for scenario in MUST_PASS:
            summary = re.search(rf"^\S+ {re.escape(scenario)}: (\d+) passed, (\d+) failed$", output, re.M)
            assert summary and int(summary.group(1)) > 0 and summary.group(2) == "0", (name, scenario)
