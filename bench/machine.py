"""Was the machine quiet? The CPU that processes outside the benchmark used while it ran.

A benchmark that saturates the cores raises the load average by itself (wrk,
the servers and Postgres make a load of 4-6 on two cores), so the load
average cannot tell a quiet run from a shared one. This reads instead, from
Linux /proc, the machine's busy CPU time and the benchmark's own: this
process and its descendants (a reaped child's time is in its parent's
cutime/cstime, so each process is counted once, alive or gone) and the
PostgreSQL server, which the benchmark drives. What is left is everybody
else's; a run where that exceeds BUSY_SHARE of the machine is flagged.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

BUSY_SHARE = 0.10  # of all the cores' time over the run
_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _ours(root: int) -> float:
    """CPU seconds of `root` and its descendants (live ones, and reaped ones through cutime), and of Postgres."""
    parents, own, postgres = {}, {}, 0.0
    for pid in _all_pids():
        fields = _stat(pid)
        if fields is None:
            continue
        seconds = sum(int(v) for v in fields[11:15]) / _TICK  # utime, stime, cutime, cstime
        parents[pid], own[pid] = int(fields[1]), seconds
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "postgres":
                postgres += seconds
                continue
        except OSError:
            continue
    total, frontier = 0.0, [root]
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    while frontier:
        pid = frontier.pop()
        total += own.get(pid, 0.0)
        frontier.extend(children.get(pid, []))
    return total + postgres


def _machine_busy() -> float:
    """Busy CPU seconds of the whole machine since boot (all but idle and iowait)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / _TICK


@dataclass
class Quietness:
    """What the rest of the machine did during a run."""

    seconds: float  # wall-clock length of the run
    others_cpu: float  # CPU seconds used by processes outside the benchmark
    cores: int

    @property
    def share(self) -> float:
        """The others' share of all the cores' time."""
        return self.others_cpu / (self.seconds * self.cores) if self.seconds else 0.0

    @property
    def busy(self) -> bool:
        """Whether other processes used more than BUSY_SHARE of the machine."""
        return self.share > BUSY_SHARE

    def describe(self) -> str:
        """One sentence for a results file."""
        return (
            f"Processes outside the benchmark (and its Postgres) used {self.others_cpu:.1f} CPU-seconds over the "
            f"{self.seconds:.0f} s run: {self.share:.1%} of the {self.cores} cores (the run counts as quiet below "
            f"{BUSY_SHARE:.0%})."
        )


class QuietMeter:
    """Start when the run starts; `stop()` says what the rest of the machine did meanwhile."""

    def __init__(self) -> None:
        self._root = os.getpid()
        self._started = time.monotonic()
        self._busy, self._ours = _machine_busy(), _ours(self._root)

    def stop(self) -> Quietness:
        """The others' CPU since the meter started."""
        busy, ours = _machine_busy() - self._busy, _ours(self._root) - self._ours
        return Quietness(time.monotonic() - self._started, max(0.0, busy - ours), os.cpu_count() or 1)
