"""Driving `wrk` (Debian's wrk 4.1) for bench/serve.py.

Each run gets a generated Lua script: `init` formats every request once
(method, path, headers, body), `request` cycles through them, `done` prints
one machine-readable line with the count, duration, p50/p99/mean latency and
error counts. For the half-load runs `delay()` makes each connection pause
between requests, so the offered rate is about the one asked for (wrk 4 has
no constant-rate mode and wrk2 is not packaged by Debian); the achieved rate
is measured and reported, never assumed.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

_RESULT_PREFIX = "BENCH "
_DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH %d %d %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), math.floor(latency.mean),
    e.connect + e.read + e.write + e.timeout, e.status))
end
"""


@dataclass(frozen=True)
class LoadResult:
    """What one wrk run measured (latencies in milliseconds)."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    mean_ms: float
    socket_errors: int
    bad_statuses: int

    @property
    def rps(self) -> float:
        """Completed requests per second."""
        return self.requests / self.seconds if self.seconds else 0.0


def _lua_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def lua_script(requests: list[dict], delay_ms: float | None = None) -> str:
    """A wrk script that cycles through `requests` ({method, path, headers, body})."""
    lines = ["local reqs = {}", "local i = 0", "init = function(args)"]
    for item in requests:
        headers = ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in item.get("headers", {}).items())
        body = _lua_string(item["body"]) if item.get("body") else "nil"
        lines.append(
            f"  reqs[#reqs + 1] = wrk.format({_lua_string(item.get('method', 'GET'))}, "
            f"{_lua_string(item['path'])}, {{{headers}}}, {body})"
        )
    lines += ["end", "request = function()", "  i = i % #reqs + 1", "  return reqs[i]", "end"]
    if delay_ms is not None:
        lines.append(f"delay = function() return {max(0, round(delay_ms))} end")
    return "\n".join(lines) + _DONE


def run_wrk(
    base_url: str,
    requests: list[dict],
    *,
    seconds: float,
    connections: int,
    threads: int = 1,
    delay_ms: float | None = None,
    script_path: str,
) -> LoadResult:
    """Run wrk once against `base_url` and parse its result line."""
    with open(script_path, "w") as handle:
        handle.write(lua_script(requests, delay_ms))
    command = [
        "wrk",
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{seconds:g}s",
        "--timeout",
        "5s",
        "-s",
        script_path,
        base_url,
    ]
    output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=True).stdout
    line = next((row for row in output.splitlines() if row.startswith(_RESULT_PREFIX)), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{output}")
    count, micros, p50, p99, mean, socket_errors, bad = (int(v) for v in line[len(_RESULT_PREFIX) :].split())
    return LoadResult(count, micros / 1e6, p50 / 1000, p99 / 1000, mean / 1000, socket_errors, bad)


def combine(runs: list[LoadResult]) -> LoadResult:
    """Several short runs of one load as one result: counts summed, latencies the median run's.

    Percentiles cannot be merged exactly without the samples; the median of
    the runs' p50 and p99 is reported (each run is a few seconds long).
    """

    def median(values: list[float]) -> float:
        ordered = sorted(values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    requests = sum(r.requests for r in runs)
    return LoadResult(
        requests=requests,
        seconds=sum(r.seconds for r in runs),
        p50_ms=median([r.p50_ms for r in runs]),
        p99_ms=median([r.p99_ms for r in runs]),
        mean_ms=sum(r.mean_ms * r.requests for r in runs) / requests if requests else 0.0,
        socket_errors=sum(r.socket_errors for r in runs),
        bad_statuses=sum(r.bad_statuses for r in runs),
    )
