"""Was the machine quiet? The CPU that processes outside the benchmark used while it ran.

A benchmark that saturates the cores raises the load average by itself (wrk,
the servers and Postgres make a load of 4-6 on two cores), so the load
average cannot tell a quiet run from a shared one. This reads instead, from
Linux /proc, the machine's busy CPU time and the benchmark's own: this
process and its descendants (a reaped child's time is in its parent's
cutime/cstime, so each process is counted once, alive or gone) and the
PostgreSQL server, which the benchmark drives. What is left is everybody
else's; a run where that exceeds BUSY_SHARE of the machine is flagged.

The same counters say how long the cores sat waiting for the disk (iowait).
A machine whose page cache cannot hold the benchmark's database makes
Postgres read pages from the disk: the rows that touch many companies'
products (the cold rows, the searches) then run below what the CPU allows.
A run where that wait exceeds DISK_SHARE of the cores' time is flagged too.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

BUSY_SHARE = 0.10  # of all the cores' time over the run
DISK_SHARE = 0.05  # of all the cores' time over the run, spent waiting for the disk
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


def _machine_times() -> tuple[float, float]:
    """The whole machine's busy CPU seconds (all but idle and iowait) and iowait seconds, since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / _TICK, values[4] / _TICK


@dataclass
class Quietness:
    """What the rest of the machine did during a run."""

    seconds: float  # wall-clock length of the run
    others_cpu: float  # CPU seconds used by processes outside the benchmark
    cores: int
    disk_share: float = 0.0  # of all the cores' time, spent waiting for the disk (iowait)

    @property
    def share(self) -> float:
        """The others' share of all the cores' time."""
        return self.others_cpu / (self.seconds * self.cores) if self.seconds else 0.0

    @property
    def busy(self) -> bool:
        """Whether other processes used more than BUSY_SHARE of the machine."""
        return self.share > BUSY_SHARE

    @property
    def disk_bound(self) -> bool:
        """Whether the cores waited for the disk more than DISK_SHARE of the time."""
        return self.disk_share > DISK_SHARE

    def describe(self) -> str:
        """Two sentences for a results file."""
        return (
            f"Processes outside the benchmark (and its Postgres) used {self.others_cpu:.1f} CPU-seconds over the "
            f"{self.seconds:.0f} s run: {self.share:.1%} of the {self.cores} cores (the run counts as quiet below "
            f"{BUSY_SHARE:.0%}). The cores waited for the disk {self.disk_share:.1%} of the time (flagged above "
            f"{DISK_SHARE:.0%})."
        )

    def disk_warning(self) -> str:
        """The results file's warning when the disk held the run up."""
        return (
            f"> **Warning: the disk held the run up.** The cores waited for it {self.disk_share:.0%} of the time: "
            "Postgres read pages the page cache could not keep, so the rows that touch many companies' rows (the "
            "cold rows, the searches) ran below what the CPU allows. Compare them only with runs that waited as "
            "little."
        )


class QuietMeter:
    """Start when the run starts; `stop()` says what the rest of the machine did meanwhile."""

    def __init__(self) -> None:
        self._root = os.getpid()
        self._started = time.monotonic()
        self._disk = DiskWaitMeter()
        self._busy, self._ours = _machine_times()[0], _ours(self._root)

    def stop(self) -> Quietness:
        """The others' CPU, and the wait for the disk, since the meter started."""
        others = max(0.0, _machine_times()[0] - self._busy - (_ours(self._root) - self._ours))
        return Quietness(time.monotonic() - self._started, others, os.cpu_count() or 1, self._disk.share())


class DiskWaitMeter:
    """The share of all the cores' time spent waiting for the disk since the meter started (one row's)."""

    def __init__(self) -> None:
        self._started, self._disk = time.monotonic(), _machine_times()[1]

    def share(self) -> float:
        """iowait seconds since the start over the cores' seconds."""
        seconds = time.monotonic() - self._started
        waited = _machine_times()[1] - self._disk
        return waited / (seconds * (os.cpu_count() or 1)) if seconds else 0.0
